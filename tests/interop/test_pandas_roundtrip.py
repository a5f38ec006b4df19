"""Issue 18: DataFrames and pyarrow Tables written by parquet_core come back exactly.

Oracles: pyarrow writes the same data (``pq.write_table(pa.Table.from_pandas(df))``)
and its file's footer, schema and ``to_pandas()`` are what ours must match;
``pandas.read_parquet(engine="pyarrow")`` reads our file; the frame itself is
the expected result of every round trip.
"""

from __future__ import annotations

import builtins
import datetime as dt
import io
from decimal import Decimal

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetSchemaError, UnsupportedFeatureError

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _frame(index):
    n = 5
    return pd.DataFrame({
        "i8": pd.array([1, None, -3, 4, 5], "Int8"),
        "i64": pd.array([1, None, 2**40, 4, -5], "Int64"),
        "u32": pd.array([1, None, 3, 2**32 - 1, 0], "UInt32"),
        "flag": pd.array([True, None, False, True, False], "boolean"),
        "text": pd.array(["a", None, "é", "", "z"], "string"),
        "obj": ["a", None, "b", "c", "d"],
        "f": [1.5, np.nan, -0.0, 2.0, 1e300],
        "cat": pd.Categorical(["lo", "hi", None, "lo", "hi"], categories=["lo", "hi"], ordered=True),
        "paris": pd.to_datetime(["2024-01-01 10:00", None, "2024-07-01", "1999-12-31", "2000-01-01"], format="ISO8601")
                   .tz_localize("Europe/Paris"),
        "naive": pd.to_datetime(["2024-01-01", None, "2024-07-01 00:00:00.000001", "1970-01-01",
                                 "2262-01-01"], format="ISO8601"),
        "td": pd.to_timedelta([1, None, -3, 10**6, 0], "s"),
        "dec": [Decimal("1.25"), None, Decimal("-3.50"), Decimal("0.00"), Decimal("99.99")],
        "lst": [[1, 2], None, [], [3], [None, 4]],
        "st": [{"a": 1, "b": "x"}, None, {"a": 2, "b": None}, {"a": 3, "b": "z"}, {"a": None, "b": "q"}],
        "per": pd.period_range("2020-01", periods=n, freq="M"),
        "iv": pd.arrays.IntervalArray.from_breaks([0, 1, 2, 3.5, 4, 8]),
        "date": [dt.date(2020, 1, 1), None, dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(1970, 1, 1)],
    }, index=index)


_INDEXES = {
    "named": pd.Index(["r0", "r1", "r2", "r3", "r4"], name="key"),
    "unnamed": pd.Index([10, 20, 30, 40, 50]),
    "range": pd.RangeIndex(3, 13, 2, name="rows"),
    "default": None,
    "multi": pd.MultiIndex.from_arrays([[1, 1, 2, 2, 3], ["a", "b", "a", "b", "a"]], names=["n", None]),
}


def _write(data, **kw):
    buf = io.BytesIO()
    pc.write_table(data, buf, **kw)
    return buf.getvalue()


def _pyarrow_file(table, **kw):
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return buf.getvalue()


@pytest.mark.parametrize("kind", list(_INDEXES))
def test_frame_round_trips_exactly(kind):
    df = _frame(_INDEXES[kind])
    df.columns.name = "fields"
    ours = _write(df)
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(ours)).to_pandas(), df)
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(ours), engine="pyarrow"), df)
    # and what pyarrow reads from pyarrow's own file of the frame, column for column and type for type
    theirs = pq.read_table(io.BytesIO(_pyarrow_file(pa.Table.from_pandas(df))))
    got = pq.read_table(io.BytesIO(ours))
    assert got.schema.equals(theirs.schema, check_metadata=False)
    assert _but_creator(got.schema.metadata) == _but_creator(theirs.schema.metadata)
    assert got.equals(theirs)


def _but_creator(metadata):
    """Footer key/values with the ``pandas`` value decoded and its ``creator`` (the library
    that converted the frame: parquet-core, or pyarrow) left out; ``ARROW:schema`` decoded
    to the schema it holds, compared the same way."""
    import base64
    import json

    out = {}
    for key, value in metadata.items():
        if key == b"pandas":
            value = {k: v for k, v in json.loads(value).items() if k != "creator"}
        elif key == b"ARROW:schema":
            schema = pa.ipc.read_schema(pa.py_buffer(base64.b64decode(value)))
            value = (schema.remove_metadata(), _but_creator(schema.metadata or {}))
        out[key] = value
    return out


@pytest.mark.parametrize("route", ["write", "read"])
def test_categories_in_any_order_round_trip(route):
    df = pd.DataFrame({"c": pd.Categorical(["b", "a", "b"], categories=["a", "b", "z"], ordered=True)})
    data = _write(df) if route == "write" else _pyarrow_file(pa.Table.from_pandas(df))
    got = pd.read_parquet(io.BytesIO(data), engine="pyarrow") if route == "write" \
        else pc.read_table(io.BytesIO(data)).to_pandas()
    pd.testing.assert_frame_equal(got, df)


def test_footer_holds_what_pyarrow_writes():
    df = _frame(_INDEXES["named"])
    ours = pq.read_metadata(io.BytesIO(_write(df))).metadata
    theirs = pq.read_metadata(io.BytesIO(_pyarrow_file(pa.Table.from_pandas(df)))).metadata
    assert list(pc.read_metadata(io.BytesIO(_write(df))).metadata) == [b"pandas", b"ARROW:schema"]
    # the frame's periods and intervals are converted by us too (issue 31): the creator is ours
    assert _but_creator(ours) == _but_creator(theirs)
    assert b"parquet-core" in ours[b"pandas"]


def test_pyarrow_written_frame_reads_back_through_us():
    df = _frame(_INDEXES["multi"])
    path = io.BytesIO(_pyarrow_file(pa.Table.from_pandas(df)))
    pd.testing.assert_frame_equal(pc.read_table(path).to_pandas(), df)


def _arrow_table():
    n = [0, 1, None]
    schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False, metadata={"PARQUET:field_id": "1", "note": "key"}),
        pa.field("b8", pa.bool8()),
        pa.field("u", pa.uuid()),
        pa.field("j", pa.json_()),
        pa.field("dur", pa.duration("ms")),
        pa.field("ts", pa.timestamp("us", tz="America/New_York")),
        pa.field("d", pa.dictionary(pa.int32(), pa.string())),
        pa.field("ls", pa.large_string()),
        pa.field("l", pa.list_(pa.field("item", pa.duration("s")))),
        pa.field("s", pa.struct([pa.field("x", pa.timestamp("ms", tz="Asia/Tokyo")), pa.field("y", pa.bool8())])),
    ], metadata={"origin": "test", "pandas": "not really"})
    return pa.Table.from_pydict({
        "id": [1, 2, 3],
        "b8": pa.ExtensionArray.from_storage(pa.bool8(), pa.array([1, 0, None], pa.int8())),
        "u": pa.ExtensionArray.from_storage(pa.uuid(), pa.array([b"\x01" * 16, None, b"\x02" * 16],
                                                                pa.binary(16))),
        "j": pa.ExtensionArray.from_storage(pa.json_(), pa.array(['{"a": 1}', None, "[]"])),
        "dur": pa.array(n, pa.duration("ms")),
        "ts": pa.array([1, None, 3], pa.timestamp("us", tz="America/New_York")),
        "d": pa.array(["a", None, "a"]).dictionary_encode(),
        "ls": pa.array(["x", None, "y"], pa.large_string()),
        "l": pa.array([[1, None], None, []], pa.list_(pa.duration("s"))),
        "s": pa.StructArray.from_arrays(
            [pa.array([1, None, 3], pa.timestamp("ms", tz="Asia/Tokyo")),
             pa.ExtensionArray.from_storage(pa.bool8(), pa.array([1, 0, None], pa.int8()))],
            fields=list(schema.field("s").type)),
    }, schema=schema)


def test_arrow_table_with_metadata_reads_back_with_identical_schema():
    table = _arrow_table()
    ours = _write(table)
    theirs = _pyarrow_file(table)
    want = pq.read_table(io.BytesIO(theirs))
    for got in (pq.read_table(io.BytesIO(ours)), pc.read_table(io.BytesIO(ours)).to_arrow()):
        for a, b in zip(got.schema, want.schema):
            assert a.equals(b, check_metadata=True), (a, b)
        assert got.schema.metadata == want.schema.metadata
        assert got.equals(want)
    assert want.schema.field("b8").type == pa.bool8()        # pyarrow restores it: so must we


def test_parquet_writer_with_an_arrow_schema_stores_it():
    table = _arrow_table()
    buf = io.BytesIO()
    with pc.ParquetWriter(buf, table.schema) as w:
        w.write_table(table.slice(0, 2))
        w.write_table(table.slice(2))
    got = pq.read_table(io.BytesIO(buf.getvalue()))
    assert got.schema.equals(pq.read_table(io.BytesIO(_pyarrow_file(table))).schema, check_metadata=True)


def test_store_schema_false_writes_no_schema_metadata_as_pyarrow():
    df = pd.DataFrame({"a": [1, 2], "z": pd.to_datetime(["2020-01-01"] * 2).tz_localize("Europe/Paris")},
                      index=pd.Index([5, 6], name="i"))
    ours = pq.read_metadata(io.BytesIO(_write(df, store_schema=False, key_value_metadata={"k": "v"})))
    theirs = pq.read_metadata(io.BytesIO(_pyarrow_file(pa.Table.from_pandas(df), store_schema=False)))
    assert theirs.metadata is None and ours.metadata == {b"k": b"v"}
    assert pq.read_table(io.BytesIO(_write(df, store_schema=False))).equals(
        pq.read_table(io.BytesIO(_pyarrow_file(pa.Table.from_pandas(df), store_schema=False))))


@pytest.mark.parametrize("data", [
    pd.DataFrame({"td": pd.to_timedelta([1, 2], "s")}),
    pd.DataFrame({"p": pd.period_range("2020-01", periods=2, freq="D")}),
    pd.DataFrame({"iv": pd.arrays.IntervalArray.from_breaks([0, 1, 2])}),
    pa.table({"b": pa.ExtensionArray.from_storage(pa.bool8(), pa.array([1, 0], pa.int8()))}),
    pa.table({"l": pa.array([[1]], pa.list_(pa.duration("us")))}),
], ids=["timedelta", "period", "interval", "bool8", "nested-duration"])
def test_store_schema_false_refuses_types_only_arrow_schema_keeps(data):
    with pytest.raises(ParquetSchemaError, match="store_schema=True"):
        _write(data, store_schema=False)


def test_uuid_and_json_need_no_arrow_schema():
    table = pa.table({"u": pa.ExtensionArray.from_storage(pa.uuid(), pa.array([b"\x01" * 16], pa.binary(16)))})
    got = pq.read_table(io.BytesIO(_write(table, store_schema=False)))
    assert got.equals(pq.read_table(io.BytesIO(_pyarrow_file(table, store_schema=False))))


def test_subset_read_then_written_drops_the_stale_arrow_schema():
    df = _frame(_INDEXES["named"])
    part = pc.read_table(io.BytesIO(_write(df)), columns=["i64", "cat"])
    meta = pq.read_metadata(io.BytesIO(_write(part))).metadata
    assert b"ARROW:schema" not in meta and b"pandas" in meta
    whole = pc.read_table(io.BytesIO(_write(df)))
    again = _write(whole)
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(again), engine="pyarrow"), df)


def test_to_pandas_without_pyarrow_converts_itself(monkeypatch):
    table = pc.read_table(io.BytesIO(_write({"a": [1, None]})))
    want = pq.read_table(io.BytesIO(_write({"a": [1, None]}))).to_pandas()
    real_import = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow.") or name == "parquet_core.interop.arrow":
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    pd.testing.assert_frame_equal(table.to_pandas(), want)
    # a keyword only pyarrow's conversion honours names pyarrow
    with pytest.raises(UnsupportedFeatureError, match=r"types_mapper=.*needs pyarrow"):
        table.to_pandas(types_mapper=pd.ArrowDtype)


@pytest.mark.parametrize("store_schema", [True, False])
def test_field_ids_survive_read_to_arrow_write(store_schema):
    schema = pa.schema([pa.field("a", pa.int64(), metadata={"PARQUET:field_id": "7"}),
                        pa.field("s", pa.struct([("x", pa.int32())]), metadata={"PARQUET:field_id": "8"}),
                        pa.field("plain", pa.string())])
    table = pa.table({"a": [1, None], "s": [{"x": 1}, None], "plain": ["p", None]}, schema=schema)
    # a file whose ids live only in the Parquet schema (no ARROW:schema), as Java writers make them
    source = _pyarrow_file(table, store_schema=False)
    arrow = pc.read_table(io.BytesIO(source)).to_arrow()
    want = pq.read_table(io.BytesIO(source))
    assert arrow.schema.equals(want.schema, check_metadata=True)
    ours = _write(arrow, store_schema=store_schema)
    # the ids are in our Parquet schema itself, whatever ARROW:schema says
    ids = pq.read_metadata(io.BytesIO(ours)).schema.to_arrow_schema()
    assert [f.metadata for f in ids] == [f.metadata for f in want.schema][:2] + [None]
    assert pq.read_table(io.BytesIO(ours)).schema.equals(want.schema, check_metadata=True)
