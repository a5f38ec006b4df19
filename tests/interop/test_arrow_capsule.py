"""The Arrow PyCapsule interface, both ways: our tables read by pyarrow, polars and
duckdb, and their tables / streams written by us.  Expected values and types come
from pyarrow (the oracle), polars and duckdb themselves."""

from __future__ import annotations

import datetime
import decimal
import re

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetError, UnsupportedFeatureError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


class Exported:
    """Hands pyarrow's capsules over, so that only the capsule path can be used."""

    def __init__(self, obj):
        self._obj = obj

    def __arrow_c_stream__(self, requested_schema=None):
        return self._obj.__arrow_c_stream__(requested_schema)


def _oracle_table() -> "pa.Table":
    """Every Arrow type we hold, with nulls, as pyarrow builds them."""
    n = 4
    d = [decimal.Decimal("1.25"), None, decimal.Decimal("-7.50"), decimal.Decimal("0.01")]
    return pa.table({
        "i8": pa.array([1, None, -3, 4], pa.int8()), "u16": pa.array([1, 2, None, 65535], pa.uint16()),
        "i32": pa.array([1, 2, 3, None], pa.int32()), "u64": pa.array([2**64 - 1, 0, None, 5], pa.uint64()),
        "f16": pa.array(np.array([1.5, 0, -2, 3], np.float16), pa.float16()),
        "f32": pa.array([1.5, None, -2.0, 3.0], pa.float32()), "f64": pa.array([0.1, 2.5, None, -1e300]),
        "b": pa.array([True, None, False, True]),
        "s": pa.array(["a", None, "é" * 20, ""]), "bin": pa.array([b"\x00", b"xyz", None, b""]),
        "fsb": pa.array([b"ab", None, b"cd", b"ef"], pa.binary(2)),
        "d32": pa.array(d, pa.decimal32(5, 2)), "d64": pa.array(d, pa.decimal64(12, 2)),
        "d128": pa.array(d, pa.decimal128(30, 2)), "d256": pa.array(d, pa.decimal256(60, 2)),
        "date": pa.array([datetime.date(2020, 1, 1), None, datetime.date(1969, 12, 31),
                          datetime.date(2262, 1, 1)]),
        "t_ms": pa.array([1000, None, 0, 86_399_999], pa.time32("ms")),
        "t_us": pa.array([1, None, 0, 86_399_999_999], pa.time64("us")),
        "t_ns": pa.array([1, None, 0, 5], pa.time64("ns")),
        "ts_ms": pa.array([0, None, -1, 10**12], pa.timestamp("ms")),
        "ts_us_utc": pa.array([0, None, 1, 10**15], pa.timestamp("us", tz="UTC")),
        "ts_ns": pa.array([0, 1, None, 10**18], pa.timestamp("ns")),
        "null": pa.nulls(n),
        "list": pa.array([[1, None], None, [], [4]], pa.list_(pa.int64())),
        "struct": pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": "c"}, {"x": 4, "y": None}],
                           pa.struct([("x", pa.int32()), ("y", pa.string())])),
        "map": pa.array([[("a", 1)], None, [], [("b", None), ("c", 3)]], pa.map_(pa.string(), pa.int64())),
        "nested": pa.array([[{"k": [1]}], None, [{"k": None}], []],
                           pa.list_(pa.struct([("k", pa.list_(pa.int16()))]))),
        "dict": pa.array(["x", "y", None, "x"]).dictionary_encode(),
    })


def _ours() -> "pc.Table":
    return pc.as_table(_oracle_table())


def _to_arrow_as_streamed(table: "pc.Table") -> "pa.Table":
    """``table.to_arrow()``, whose ARROW:schema gives decimal32/64 back as pyarrow's reader
    does, with those columns in the decimal128 our stream (Parquet's types) has."""
    out = table.to_arrow()
    for name in ("d32", "d64"):
        i = out.schema.get_field_index(name)
        t = out.schema.field(i).type
        out = out.set_column(i, out.schema.field(i).with_type(pa.decimal128(t.precision, t.scale)),
                             out.column(i).cast(pa.decimal128(t.precision, t.scale)))
    return out


# ---------------------------------------------------------------- our tables out

def test_pyarrow_reads_our_stream_as_to_arrow_gives_it():
    table = _ours()
    got = pa.table(table)
    assert got.equals(_to_arrow_as_streamed(table))
    reader = pa.RecordBatchReader.from_stream(table)
    assert reader.read_all().equals(_to_arrow_as_streamed(table))


def test_our_stream_matches_the_oracle_values_and_types():
    want = _oracle_table()
    got = pa.table(_ours())
    assert got.to_pylist() == want.to_pylist()
    # our types are Parquet's: decimal32/64 become decimal128 (pyarrow's own reader gives
    # the same), a dictionary has int32 indices, list children are named "element"
    for name in want.column_names:
        expected = want.schema.field(name).type
        if name in ("d32", "d64"):
            expected = pa.decimal128(expected.precision, expected.scale)
        elif name == "dict":
            expected = pa.dictionary(pa.int32(), pa.string())
        elif name in ("list", "nested"):
            assert str(got.schema.field(name).type) == str(expected).replace("item", "element")
            continue
        assert got.schema.field(name).type == expected, name


def test_array_and_schema_capsules():
    table = _ours()
    for name in ("s", "d256", "struct", "map", "b"):
        assert pa.array(table.column(name)).equals(table.to_arrow().column(name).combine_chunks())
    # a Schema has no dictionaries: that column is its value type there
    want = _to_arrow_as_streamed(table).schema.remove_metadata()
    want = want.set(want.get_field_index("dict"), pa.field("dict", pa.string()))
    assert pa.schema(table.schema) == want
    batch = pa.record_batch(table)
    assert pa.Table.from_batches([batch]).equals(_to_arrow_as_streamed(table))


def test_uuid_and_json_keep_their_extension_types():
    table = pc.as_table(pa.table({"u": pa.array([b"\x01" * 16, None], pa.uuid()),
                                  "j": pa.array(['{"a": 1}', None], pa.json_())}))
    got = pa.table(table)
    assert got.schema.field("u").type == pa.uuid() and got.schema.field("j").type == pa.json_()
    assert got.equals(table.to_arrow())


def test_sliced_and_large_offsets():
    table = _ours().slice(1, 3)
    # the slice keeps the table's ARROW:schema, as pyarrow's does: to_arrow() restores
    # decimal32/64 from it, the stream carries Parquet's decimal128
    assert table.metadata == _ours().metadata
    assert pa.table(table).equals(_to_arrow_as_streamed(table))
    assert pa.table(table).equals(pa.table(_ours()).slice(1, 3))
    big = pc.Table.from_pydict({"s": ["ab", None, "c"]})
    assert pa.table(big.slice(1, 3)).column("s").to_pylist() == [None, "c"]


def test_iter_batches_items_export_as_record_batches(tmp_path):
    path = tmp_path / "b.parquet"
    pq.write_table(_oracle_table().drop_columns(["null"]), path)
    pf = pc.ParquetFile(path)
    batches = [pa.record_batch(b) for b in pf.iter_batches(batch_size=3)]
    assert [b.num_rows for b in batches] == [3, 1]
    assert pa.Table.from_batches(batches).to_pylist() == pq.read_table(path).to_pylist()


def test_empty_table_exports_its_schema():
    table = pc.as_table({"a": np.zeros(0, np.int32), "s": pa.array([], pa.string())})
    got = pa.table(table)
    assert got.num_rows == 0 and got.schema == pa.schema([("a", pa.int32()), ("s", pa.string())])


# ---------------------------------------------------------------- their data in

def test_import_through_capsules_matches_pyarrow_conversion():
    want = _oracle_table()
    through_capsule = pc.as_table(Exported(want))
    through_pyarrow = pc.as_table(want)
    assert through_capsule.schema == through_pyarrow.schema
    assert through_capsule.to_pydict() == through_pyarrow.to_pydict()


def test_view_large_and_fixed_size_list_types_import():
    data = pa.table({
        "sv": pa.array(["short", None, "a string longer than twelve bytes", ""], pa.string_view()),
        "bv": pa.array([b"x" * 30, b"", None, b"y"], pa.binary_view()),
        "ls": pa.array(["a", "bb", None, "c"], pa.large_string()),
        "ll": pa.array([[1], None, [2, 3], []], pa.large_list(pa.int32())),
        "fl": pa.array([[1, 2], None, [3, 4], [5, None]], pa.list_(pa.int8(), 2)),
        "d64": pa.array([0, 86_400_000 * 3 + 5, None, -86_400_000], pa.date64()),
        "t_s": pa.array([1, None, 86399, 0], pa.time32("s")),
        "ts_s_tz": pa.array([1, None, -5, 0], pa.timestamp("s", tz="Europe/Paris")),
        "di": pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 0], pa.int8()), pa.array([1.5, 2.5])),
    })
    got = pc.as_table(Exported(data))
    assert got.to_pydict() == pc.as_table(data).to_pydict()
    assert str(got.schema.field("ts_s_tz").type) == "timestamp[ms, UTC]"


def test_sliced_stream_batches_import():
    data = _oracle_table().slice(1, 3)
    assert pc.as_table(Exported(data)).to_pydict() == pc.as_table(data).to_pydict()


@pytest.mark.parametrize("array, name", [
    (pa.array([[1]], pa.list_view(pa.int64())), "list_view"),
    (pa.array([pa.MonthDayNano([1, 2, 3])], pa.month_day_nano_interval()), None),
    (pa.UnionArray.from_sparse(pa.array([0], pa.int8()), [pa.array([1])]), "sparse_union"),
    (pa.RunEndEncodedArray.from_arrays([2], [7]), "run_end_encoded"),
])
def test_types_we_cannot_hold_are_refused_by_name(array, name):
    if name is None:   # month_day_nano is held (as Parquet INTERVAL) when whole ms
        with pytest.raises(ParquetError, match="whole milliseconds"):
            pc.as_table(Exported(pa.table({"c": array})))
        return
    with pytest.raises(UnsupportedFeatureError, match=re.escape(name)):
        pc.as_table(Exported(pa.table({"c": array})))


def test_interval_with_whole_milliseconds_imports():
    data = pa.table({"c": pa.array([pa.MonthDayNano([1, 2, 3_000_000]), None], pa.month_day_nano_interval())})
    assert pc.as_table(Exported(data)).to_pydict() == pc.as_table(data).to_pydict()


def test_nulls_for_a_non_nullable_schema_are_refused():
    ours = pc.as_table({"a": [1, None]})
    assert pc.as_table(Exported(pa.table(ours))).column("a").to_pylist() == [1, None]
    with pytest.raises(ParquetError, match="a"):
        pc.as_table(Exported(pa.table(ours)), pc.schema([pc.field("a", pc.int64(), nullable=False)]))


def test_write_table_streams_a_pyarrow_reader_batch_by_batch(tmp_path):
    want = _oracle_table()
    path = tmp_path / "r.parquet"
    pc.write_table(want.to_reader(max_chunksize=3), path, row_group_size=2)
    assert pq.read_table(path).equals(pq.read_table(_pyarrow_written(want, tmp_path)))
    assert pq.ParquetFile(path).metadata.num_row_groups == 2


def _pyarrow_written(table, tmp_path):
    path = tmp_path / "oracle.parquet"
    pq.write_table(table, path)
    return path


def test_writer_gathers_stream_batches_into_row_groups(tmp_path):
    want = pa.table({"x": np.arange(10, dtype=np.int64), "s": [str(i) for i in range(10)]})
    path = tmp_path / "w.parquet"
    with pc.ParquetWriter(path, pc.as_table(want).schema, row_group_size=4) as writer:
        writer.write(Exported(want.to_reader(max_chunksize=3)))
    meta = pq.ParquetFile(path).metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [4, 4, 2]
    assert pq.read_table(path).to_pylist() == want.to_pylist()


def test_write_table_of_a_stream_pulls_one_batch_at_a_time(tmp_path):
    pulled = []

    def batches():
        for i in range(3):
            pulled.append(i)
            yield pa.record_batch({"x": pa.array([i] * 5, pa.int64())})

    reader = pa.RecordBatchReader.from_batches(pa.schema([("x", pa.int64())]), batches())
    seen = []

    class Spy:
        def __arrow_c_stream__(self, requested_schema=None):
            return reader.__arrow_c_stream__()

    import parquet_core.table.arrow_c_import as imp

    real = imp.table_from_batch

    def spy(*args, **kwargs):
        seen.append(len(pulled))
        return real(*args, **kwargs)

    path = tmp_path / "lazy.parquet"
    try:
        imp.table_from_batch = spy
        pc.write_table(Spy(), path, row_group_size=5)
    finally:
        imp.table_from_batch = real
    assert seen == [1, 2, 3]   # each batch converted when pulled, not all up front
    assert pq.read_table(path).column("x").to_pylist() == [0] * 5 + [1] * 5 + [2] * 5
    assert pq.ParquetFile(path).metadata.num_row_groups == 3


def test_write_to_dataset_and_as_table_accept_streams(tmp_path):
    want = pa.table({"p": ["a", "b", "a"], "x": [1, 2, 3]})
    pc.write_to_dataset(Exported(want), tmp_path / "ds", partition_cols=["p"])
    got = pq.read_table(tmp_path / "ds").sort_by("x")
    assert got.column("x").to_pylist() == [1, 2, 3]
    assert pc.as_table(Exported(want)).to_pydict() == want.to_pydict()


# ---------------------------------------------------------------- polars

def test_polars_reads_our_tables():
    pl = pytest.importorskip("polars")
    table = pc.as_table(_oracle_table().drop_columns(["f16", "d256", "null", "u64"]))
    want = pl.from_arrow(table.to_arrow())
    got = pl.DataFrame(table)
    assert got.schema == want.schema
    assert got.equals(want)
    # from_arrow gives a struct Series for any non-pyarrow Arrow producer: one field per column
    series = pl.from_arrow(table)
    assert series.struct.unnest().equals(want)


def test_polars_frames_written_and_read_back_with_pyarrow(tmp_path):
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({
        "i": [1, None, 3], "f": [1.5, None, -0.0], "s": ["x", None, "a string longer than 12"],
        "b": [True, None, False], "cat": pl.Series(["a", "b", "a"], dtype=pl.Categorical),
        "d": [datetime.date(2020, 1, 1), None, datetime.date(1900, 5, 5)],
        "t": [datetime.datetime(2020, 1, 1, 12), None, datetime.datetime(1960, 1, 1)],
        "tz": pl.Series([datetime.datetime(2020, 1, 1), None, None]).dt.replace_time_zone("UTC"),
        "l": [[1, 2], None, []], "st": [{"a": 1, "b": "x"}, None, {"a": None, "b": "z"}],
        "dec": pl.Series([decimal.Decimal("1.10"), None, decimal.Decimal("-3.33")],
                         dtype=pl.Decimal(10, 2)),
        "bin": [b"\x00\x01", None, b""], "u8": pl.Series([1, 2, None], dtype=pl.UInt8),
    })
    path = tmp_path / "polars.parquet"
    pc.write_table(df, path)
    back = pq.read_table(path)
    want = df.to_arrow()
    assert back.to_pylist() == want.to_pylist()
    # types: what pyarrow reads from its own file of the same data, without ARROW:schema
    # (our capsule path writes none for these: no duration, no zone but UTC)
    oracle = tmp_path / "oracle.parquet"
    pq.write_table(want, oracle, store_schema=False)
    assert back.schema.remove_metadata() == pq.read_table(oracle).schema.remove_metadata()
    assert pl.read_parquet(path).equals(df.with_columns(pl.col("cat").cast(pl.String)))


def test_polars_round_trip_through_our_tables():
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"a": [1, 2, None], "s": ["x", None, "zz"], "l": [[1.0], [], None]})
    assert pl.DataFrame(pc.as_table(df)).equals(df)
    assert pc.as_table({"a": df["a"]}).column("a").to_pylist() == [1, 2, None]   # a Series column


# ---------------------------------------------------------------- duckdb

def test_duckdb_scans_our_tables():
    duckdb = pytest.importorskip("duckdb")
    tbl = pc.as_table({"a": [1, 2, None], "s": ["x", None, "zz"], "l": [[1], None, [2, 3]]})
    got = duckdb.sql("select a, s, l from tbl order by a nulls last").fetchall()
    assert got == [(1, "x", [1]), (2, None, None), (None, "zz", [2, 3])]
    assert duckdb.sql("select sum(a) from tbl").fetchall() == [(3,)]


def test_duckdb_relations_written_and_read_back(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.sql("select i, i::varchar as s, [i, i + 1] as l, {'k': i} as st, "
                     "(i / 3)::decimal(10, 2) as d, timestamptz '2020-01-01 00:00:00+00' as tz, "
                     "date '2020-01-01' + i::int as dt, case when i % 2 = 0 then null else i end as n "
                     "from range(2500) t(i)")
    path = tmp_path / "duck.parquet"
    pc.write_table(rel, path, row_group_size=1000)
    back = pq.read_table(path)
    want = rel.to_arrow_table()
    assert back.to_pylist() == want.to_pylist()
    oracle = tmp_path / "oracle.parquet"
    # the zone duckdb names (Etc/UTC) is kept in ARROW:schema, as pyarrow keeps it
    pq.write_table(want, oracle)
    assert back.schema.remove_metadata() == pq.read_table(oracle).schema.remove_metadata()
    assert pq.ParquetFile(path).metadata.num_row_groups == 3
    # and duckdb reads our file as it reads its own query
    assert duckdb.sql(f"select * from '{path}' order by i").fetchall() == rel.order("i").fetchall()
