"""Table methods keep the schema's key/value metadata where pyarrow 26's equivalents do (slice,
take, filter, sort_by, to_batches, select, drop_columns), and the Arrow types it records
(``ARROW:schema``, narrowed to the kept columns by select and drop_columns).
Oracle: the same method of the pyarrow Table, compared with ``check_metadata=True``."""

from __future__ import annotations

import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")


def _tables():
    t = pa.table({
        "a": [3, 1, 2],
        "t": pa.array([1, 2, 3], pa.timestamp("ns", "Europe/Oslo")),
        "d": pa.array([1, None, 3], pa.duration("s")),
        "s": pa.array(["x", "y", "x"]).dictionary_encode(),
    }).replace_schema_metadata({"k": "v", "pandas": "{}"})
    return t, pc.as_table(t)


_OPS = {
    "slice": (lambda t: t.slice(1, 1), lambda t: t.slice(1, 1)),
    "slice_to_end": (lambda t: t.slice(1), lambda t: t.slice(1)),
    "take": (lambda t: t.take([2, 0]), lambda t: t.take([2, 0])),
    "filter": (lambda t: t.filter(pa.array([True, False, True])), lambda t: t.filter([True, False, True])),
    "sort_by": (lambda t: t.sort_by("a"), lambda t: t.sort_by("a")),
    "to_batches": (lambda t: pa.Table.from_batches([t.to_batches(max_chunksize=2)[1]]),
                   lambda t: t.to_batches(max_chunksize=2)[1]),
    "select": (lambda t: t.select(["d", "t"]), lambda t: t.select(["d", "t"])),
    "select_positions": (lambda t: t.select([3, 1]), lambda t: t.select([3, 1])),
    "drop_columns": (lambda t: t.drop_columns(["a", "s"]), lambda t: t.drop_columns(["a", "s"])),
    "select_then_slice": (lambda t: t.select(["s", "d"]).slice(1), lambda t: t.select(["s", "d"]).slice(1)),
}


@pytest.mark.parametrize("op", list(_OPS))
def test_metadata_and_arrow_types_kept_as_pyarrow(op):
    theirs_op, ours_op = _OPS[op]
    t, ours = _tables()
    want = theirs_op(t)
    got = ours_op(ours)
    assert want.schema.metadata == {b"k": b"v", b"pandas": b"{}"}   # pyarrow keeps it
    assert {k: v for k, v in (got.metadata or {}).items() if k != b"ARROW:schema"} == want.schema.metadata
    back = got.to_arrow()
    assert back.schema.equals(want.schema, check_metadata=True), (back.schema, want.schema)
    assert back.equals(want)


def test_slice_rows_keeps_the_metadata():
    t, ours = _tables()
    assert ours.slice_rows(1, 3).to_arrow().schema.equals(t.slice(1, 2).schema, check_metadata=True)
    assert [p.metadata for p in ours.iter_slices(2)] == [ours.metadata] * 2


def test_rename_columns_drops_the_metadata_as_pyarrow():
    t, ours = _tables()
    for names in (["w", "x", "y", "z"], {"a": "b"}):
        want = t.rename_columns(names)
        got = ours.rename_columns(names)
        assert want.schema.metadata is None and got.metadata is None
        assert got.to_arrow().schema.names == want.schema.names


@pytest.mark.parametrize("promote", ["none", "default"])
def test_concat_keeps_the_first_tables_metadata(promote):
    t, ours = _tables()
    other = t.replace_schema_metadata({"other": "1"})
    if promote == "default":
        other = other.append_column("extra", pa.array([1, 2, 3]))
    want = pa.concat_tables([t, other], promote_options=promote)
    got = pc.Table.concat([ours, pc.as_table(other)], promote_options=promote)
    assert {k: v for k, v in got.metadata.items() if k != b"ARROW:schema"} == want.schema.metadata
    if promote == "none":
        assert got.to_arrow().schema.equals(want.schema, check_metadata=True)
