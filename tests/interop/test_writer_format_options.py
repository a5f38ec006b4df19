"""``version``, ``coerce_timestamps``, ``allow_truncated_timestamps``,
``use_deprecated_int96_timestamps`` and ``flavor`` write what pyarrow writes.

pyarrow 26 is the oracle: for every combination it writes the same table
(``store_schema=False``, so its reader sees only the Parquet schema, as it
does for our files); then each leaf's physical and logical type, the
footer's format version, and the table pyarrow reads back must match ours.
Refusals are compared too: where pyarrow refuses a lossy timestamp change we
raise ParquetSchemaError naming the column and first offending row; where it
truncates, our values equal its values.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _table(ns_values: list[int | None] | None = None):
    """Every type the format options touch, flat and nested; exact in microseconds by default."""
    ns = ns_values if ns_values is not None else [1_000, None, -2_000, 1_700_000_000_123_456_000]
    n = len(ns)
    return pa.table({
        "u32": pa.array([0, 2**32 - 1, None, 7][:n] + [1] * (n - 4), pa.uint32()),
        "u16": pa.array(range(n), pa.uint16()),
        "u64": pa.array(range(n), pa.uint64()),
        "ts_ns": pa.array(ns, pa.timestamp("ns")),
        "ts_ns_utc": pa.array(ns, pa.timestamp("ns", tz="UTC")),
        "ts_us": pa.array([5_000 * i for i in range(n)], pa.timestamp("us")),
        "ts_ms": pa.array([3 * i for i in range(n)], pa.timestamp("ms", tz="UTC")),
        "t_ns": pa.array([1_000 * i for i in range(n)], pa.time64("ns")),
        "lst": pa.array([[v] for v in ns], pa.list_(pa.timestamp("ns"))),
        "st": pa.array([{"t": v, "u": i} for i, v in enumerate(ns)],
                       pa.struct([("t", pa.timestamp("ns", tz="UTC")), ("u", pa.uint32())])),
        "mp": pa.array([[(i, v)] for i, v in enumerate(ns)], pa.map_(pa.uint32(), pa.timestamp("ns"))),
        "s": pa.array([str(i) for i in range(n)]),
    })


def _ours(table, **options) -> bytes:
    buf = io.BytesIO()
    pc.write_table(table, buf, **options)
    return buf.getvalue()


def _theirs(table, **options) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, store_schema=False, **options)
    return buf.getvalue()


def _leaves(data: bytes) -> list[tuple[str, str, str]]:
    md = pq.ParquetFile(io.BytesIO(data)).metadata
    return [(md.schema.column(i).path, md.schema.column(i).physical_type, str(md.schema.column(i).logical_type))
            for i in range(md.num_columns)]


def _assert_same_file(ours: bytes, theirs: bytes) -> None:
    assert _leaves(ours) == _leaves(theirs)
    assert pq.ParquetFile(io.BytesIO(ours)).metadata.format_version == \
        pq.ParquetFile(io.BytesIO(theirs)).metadata.format_version
    got, want = pq.read_table(io.BytesIO(ours)), pq.read_table(io.BytesIO(theirs))
    assert got.schema == want.schema
    assert got.equals(want), (got.to_pydict(), want.to_pydict())


COMBINATIONS = [
    {}, dict(version="2.6"), dict(version="2.4"), dict(version="1.0"),
    dict(coerce_timestamps="us"), dict(coerce_timestamps="us", version="1.0"),
    dict(coerce_timestamps="ms", allow_truncated_timestamps=True),
    dict(coerce_timestamps="ms", allow_truncated_timestamps=True, version="2.4"),
    dict(use_deprecated_int96_timestamps=True),
    dict(use_deprecated_int96_timestamps=True, coerce_timestamps="ms"),   # INT96 wins
    dict(use_deprecated_int96_timestamps=False, version="2.4"),
    dict(flavor="spark"), dict(flavor="spark", version="1.0"),
    dict(flavor="spark", use_deprecated_int96_timestamps=False, coerce_timestamps="us"),
    dict(use_deprecated_int96_timestamps=None, flavor=None),
]


@pytest.mark.parametrize("options", COMBINATIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_schema_and_values_match_pyarrow(options):
    table = _table()
    _assert_same_file(_ours(table, **options), _theirs(table, **options))


@pytest.mark.parametrize("options", [dict(version="1.0"), dict(version="2.4"), dict(coerce_timestamps="us")])
def test_parquet_writer_with_pyarrow_schema_matches(options):
    table = _table()
    buf = io.BytesIO()
    with pc.ParquetWriter(buf, table.schema, **options) as w:
        w.write_table(table.slice(0, 2))
        w.write_table(table.slice(2))
    _assert_same_file(buf.getvalue(), _theirs(table, **options))


def test_pandas_frame_defaults_keep_nanoseconds_and_version_24_needs_exact_micros():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"when": pd.to_datetime(["2024-05-01 12:00:00.000001", None, "1969-12-31 23:59:59.500000"])})
    for options in ({}, dict(version="2.4")):
        ours = _ours(frame, **options)
        buf = io.BytesIO()
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buf, store_schema=False, **options)
        _assert_same_file(ours, buf.getvalue())


# -- lossy changes ------------------------------------------------------------------------

LOSSY = [1_000_000, None, 2_000_000, -1_001, 5]   # row 3 is the first value with nonzero nanoseconds


@pytest.mark.parametrize("options", [
    dict(version="2.4"), dict(version="1.0"), dict(coerce_timestamps="us"), dict(coerce_timestamps="ms"),
    # pyarrow applies allow_truncated_timestamps only with coerce_timestamps
    dict(version="2.4", allow_truncated_timestamps=True),
])
@pytest.mark.parametrize("column", ["ts_ns", "lst", "st", "mp"])
def test_lossy_change_is_refused_like_pyarrow(options, column):
    table = _table(LOSSY).select([column])
    with pytest.raises(pa.ArrowInvalid, match="would lose data"):
        _theirs(table, **options)
    with pytest.raises(pc.ParquetSchemaError, match=rf"column '{column}', row 3\b") as info:
        _ours(table, **options)
    assert "allow_truncated_timestamps" in " ".join(getattr(info.value, "__notes__", []))


def test_ms_coercion_refuses_microseconds_too():
    table = pa.table({"t": pa.array([1_000, 2_001, None], pa.timestamp("us"))})
    with pytest.raises(pa.ArrowInvalid):
        _theirs(table, coerce_timestamps="ms")
    with pytest.raises(pc.ParquetSchemaError, match="column 't', row 1"):
        _ours(table, coerce_timestamps="ms")


@pytest.mark.parametrize("unit", ["us", "ms"])
@pytest.mark.parametrize("version", ["1.0", "2.6"])
def test_allowed_truncation_cuts_like_pyarrow(unit, version):
    rng = np.random.default_rng(7)
    values = rng.integers(-10**15, 10**15, 500).tolist() + [-1, -999, -1_001, 999_999, None]
    table = _table(values)
    options = dict(coerce_timestamps=unit, allow_truncated_timestamps=True, version=version)
    _assert_same_file(_ours(table, **options), _theirs(table, **options))


def test_failed_write_leaves_writer_usable_and_target_untouched(tmp_path):
    target = tmp_path / "t.parquet"
    good = _table()
    with pc.ParquetWriter(str(target), good.schema, version="2.4") as w:
        with pytest.raises(pc.ParquetSchemaError):
            w.write_table(_table(LOSSY))
        w.write_table(good)
    _assert_same_file(target.read_bytes(), _theirs(good, version="2.4"))


# -- refused option values -------------------------------------------------------------------

@pytest.mark.parametrize("options", [
    dict(version="banana"), dict(version="2.0"), dict(version="2.5"), dict(version=2.6),
    dict(coerce_timestamps="ns"), dict(coerce_timestamps="s"),
])
def test_values_pyarrow_refuses_are_refused(options):
    table = _table()
    with pytest.raises(ValueError):
        _theirs(table, **options)
    with pytest.raises(ValueError, match=next(iter(options))) as info:
        _ours(table, **options)
    if "version" in options:
        assert "'1.0', '2.4', '2.6'" in str(info.value)


@pytest.mark.parametrize("options", [dict(flavor="hive"), dict(flavor="")])
def test_unknown_flavor_is_refused(options):
    # pyarrow tests ``'spark' in flavor`` and ignores anything else; we refuse it
    with pytest.raises(ValueError, match="flavor"):
        _ours(_table(), **options)


@pytest.mark.parametrize("options", [dict(allow_truncated_timestamps="yes"),
                                     dict(use_deprecated_int96_timestamps=1)])
def test_flags_must_be_booleans(options):
    with pytest.raises(TypeError, match=next(iter(options))):
        _ours(_table(), **options)


# -- flavor="spark" names --------------------------------------------------------------------------

def test_spark_flavor_sanitizes_names_like_pyarrow():
    names = ["a b", "c,d", "e;f", "g{h}", "i(j)", "k\nl", "m\tn", "o=p", "plain", "ü ok"]
    table = pa.table({name: pa.array([i], pa.int64()) for i, name in enumerate(names)}
                     | {"nested x": pa.array([{"in ner": 1}])})
    ours, theirs = _ours(table, flavor="spark"), _theirs(table, flavor="spark")
    _assert_same_file(ours, theirs)
    assert pq.read_schema(io.BytesIO(ours)).names[0] == "a_b"


def test_spark_flavor_per_column_options_use_file_names():
    table = pa.table({"a b": ["x"] * 10, "c": ["y"] * 10})
    md = pq.ParquetFile(io.BytesIO(_ours(table, flavor="spark", compression={"a_b": "zstd", None: "none"}))).metadata
    assert [md.row_group(0).column(i).compression for i in range(2)] == ["ZSTD", "UNCOMPRESSED"]


def test_spark_flavor_refuses_names_that_collide():
    table = pa.table({"a b": [1], "a_b": [2]})
    with pytest.raises(ValueError, match="'a_b'"):
        _ours(table, flavor="spark")
