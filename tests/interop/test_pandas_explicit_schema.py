"""A pandas frame written with an explicit parquet_core schema keeps its pandas metadata.

The oracle is pyarrow: ``pa.Table.from_pandas(df, schema=<the same schema in
Arrow types>)`` written by ``pq.write_table``.  Our file must hold the same
``pandas`` metadata and the same ``ARROW:schema`` (byte for byte), and read
back (by pyarrow and by us) to the frame pyarrow's file gives; where that
frame equals the original, so must ours.  Where pyarrow drops data silently
(a data column or a non-default index the schema does not name) we refuse.
"""

from __future__ import annotations

import io
import json

import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")


def _frames():
    base = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None]})
    paris = pd.to_datetime(["2024-01-01 10:00:00", None, "2024-06-30 23:59:59.123456789"], format="ISO8601").tz_localize("Europe/Paris")
    return {
        # id: (frame, our schema, the same in Arrow types, pyarrow's round trip equals the frame)
        "narrower_int": (base, pc.schema([("a", pc.int32()), ("b", pc.string())]),
                         pa.schema([("a", pa.int32()), ("b", pa.string())]), False),
        "same_types": (base, pc.schema([("a", pc.int64()), ("b", pc.string())]),
                       pa.schema([("a", pa.int64()), ("b", pa.string())]), True),
        "named_index": (base.set_index(pd.Index([10, 20, 30], name="idx")),
                        pc.schema([("a", pc.int64()), ("b", pc.string()), ("idx", pc.int64())]),
                        pa.schema([("a", pa.int64()), ("b", pa.string()), ("idx", pa.int64())]), True),
        "unnamed_index": (base.set_index(pd.Index([7, 8, 9])),
                          pc.schema([("a", pc.int64()), ("b", pc.string()), ("__index_level_0__", pc.int64())]),
                          pa.schema([("a", pa.int64()), ("b", pa.string()), ("__index_level_0__", pa.int64())]),
                          True),
        "categorical_as_text": (
            pd.DataFrame({"c": pd.Categorical(["a", "b", "a"], categories=["b", "a", "z"], ordered=True)}),
            pc.schema([("c", pc.string())]), pa.schema([("c", pa.string())]), False),
        "zone_as_utc": (pd.DataFrame({"t": paris}), pc.schema([("t", pc.timestamp("ns", tz="UTC"))]),
                        pa.schema([("t", pa.timestamp("ns", tz="UTC"))]), True),
        "nullable_ints": (
            pd.DataFrame({"n": pd.array([1, None, 3], dtype="Int64"), "m": [1, 2, 3]}),
            pc.schema([pc.field("n", pc.int32()), pc.field("m", pc.int64(), nullable=False)]),
            pa.schema([pa.field("n", pa.int32()), pa.field("m", pa.int64(), nullable=False)]), True),
        "field_ids": (base, pc.schema([pc.field("a", pc.int64(), field_id=1), pc.field("b", pc.string(), field_id=2)]),
                      pa.schema([pa.field("a", pa.int64(), metadata={"PARQUET:field_id": "1"}),
                                 pa.field("b", pa.string(), metadata={"PARQUET:field_id": "2"})]), True),
    }


_CASES = _frames()


def _theirs(df, arrow_schema) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(df, schema=arrow_schema), sink)
    return sink.getvalue()


def _ours(df, schema, via: str) -> bytes:
    sink = io.BytesIO()
    if via == "write_table":
        pc.write_table(df, sink, schema=schema)
    else:
        with pc.ParquetWriter(sink, schema) as w:
            w.write_table(df)
    return sink.getvalue()


def _kv(data: bytes) -> dict:
    return pq.read_metadata(io.BytesIO(data)).metadata or {}


@pytest.mark.parametrize("via", ["write_table", "ParquetWriter"])
@pytest.mark.parametrize("case", list(_CASES))
def test_explicit_schema_keeps_what_pyarrow_keeps(case, via):
    df, schema, arrow_schema, round_trips = _CASES[case]
    ours, theirs = _ours(df, schema, via), _theirs(df, arrow_schema)
    mine, reference = _kv(ours), _kv(theirs)
    assert json.loads(mine[b"pandas"]) == json.loads(reference[b"pandas"])
    assert mine[b"ARROW:schema"] == reference[b"ARROW:schema"]
    expected = pq.read_table(io.BytesIO(theirs)).to_pandas()
    pd.testing.assert_frame_equal(pq.read_table(io.BytesIO(ours)).to_pandas(), expected)
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(ours)).to_pandas(), expected)
    if round_trips:
        pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(ours)).to_pandas(), df)


def test_default_range_index_needs_no_column():
    df = pd.DataFrame({"a": [1.5, None]})
    data = _ours(df, pc.schema([("a", pc.float64())]), "write_table")
    assert json.loads(_kv(data)[b"pandas"])["index_columns"] == []
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(data)).to_pandas(), df)


@pytest.mark.parametrize("index", [pd.Index([10, 20], name="idx"), pd.RangeIndex(5, 7),
                                   pd.RangeIndex(0, 2, name="r")])
def test_an_index_the_schema_leaves_out_is_refused(index):
    """pyarrow drops it silently (the read frame has a default RangeIndex); we refuse."""
    df = pd.DataFrame({"a": [1, 2]}, index=index)
    back = pq.read_table(io.BytesIO(_theirs(df, pa.schema([("a", pa.int64())])))).to_pandas()
    assert not back.index.equals(df.index) or back.index.names != df.index.names
    with pytest.raises(pc.ParquetSchemaError, match="index"):
        _ours(df, pc.schema([("a", pc.int64())]), "write_table")


def test_a_column_the_schema_leaves_out_is_refused():
    df = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    assert pa.Table.from_pandas(df, schema=pa.schema([("a", pa.int64())])).column_names == ["a"]
    with pytest.raises(pc.ParquetSchemaError, match="'b' is in the data but not in the schema"):
        _ours(df, pc.schema([("a", pc.int64())]), "write_table")
    with pytest.raises(pc.ParquetSchemaError, match="'z' is in the schema but not in the data"):
        _ours(df, pc.schema([("a", pc.int64()), ("b", pc.int64()), ("z", pc.int64())]), "write_table")


def test_values_that_do_not_fit_still_name_column_and_row():
    df = pd.DataFrame({"a": [1, 2**40]})
    with pytest.raises(pa.ArrowInvalid):
        pa.Table.from_pandas(df, schema=pa.schema([("a", pa.int32())]))
    with pytest.raises(pc.ParquetSchemaError, match=r"column 'a', row 1"):
        _ours(df, pc.schema([("a", pc.int32())]), "write_table")


def test_arrow_schema_of_other_types_is_not_written():
    """Arrow data cast to another schema: its ARROW:schema would describe types the file
    does not hold, so none is written (the Parquet types then stand)."""
    table = pa.table({"a": pa.array([1, 2], pa.int64()), "d": pa.array([1, 2], pa.duration("s"))})
    sink = io.BytesIO()
    with pc.ParquetWriter(sink, pc.schema([("a", pc.int32()), ("d", pc.int64())])) as w:
        w.write_table(table)
    assert b"ARROW:schema" not in _kv(sink.getvalue())
    back = pq.read_table(io.BytesIO(sink.getvalue()))
    assert back.schema == pa.schema([("a", pa.int32()), ("d", pa.int64())])
    # same types: kept
    sink = io.BytesIO()
    with pc.ParquetWriter(sink, pc.schema([("a", pc.int64()), ("d", pc.int64())])) as w:
        w.write_table(table)
    assert pq.read_table(io.BytesIO(sink.getvalue())).schema.field("d").type == pa.duration("s")
