"""pyarrow -> parquet_core: table_from_arrow / array_from_arrow and as_table on Arrow input.

Truth is the Arrow data itself: converting back with ``to_arrow`` must give
the original (or its documented cast: seconds -> ms, any tz -> UTC, date64 ->
date32, dictionaries decoded, views -> plain strings), and the storage must
be Arrow's own buffers where the layouts agree.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import numpy as np
import pytest

from parquet_core.errors import ParquetSchemaError, UnsupportedFeatureError
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.interop.ingest import as_table

pa = pytest.importorskip("pyarrow")
from parquet_core.interop.arrow import array_from_arrow, table_from_arrow  # noqa: E402

N = 50
rng = np.random.default_rng(11)


def _nulls(values, every=5):
    return [None if i % every == 2 else v for i, v in enumerate(values)]


def _back(arr):
    """Our Array -> Arrow, through a one-column Table."""
    from parquet_core.table.arrays import Table

    return Table(Schema([Field("c", arr.type)]), [arr]).to_arrow().column(0).combine_chunks()


SAME = {
    "bool": pa.array(_nulls([bool(i % 3) for i in range(N)])),
    "int8": pa.array(_nulls(rng.integers(-128, 127, N).tolist()), pa.int8()),
    "int16": pa.array(_nulls(rng.integers(-2**15, 2**15 - 1, N).tolist()), pa.int16()),
    "int32": pa.array(rng.integers(-2**31, 2**31 - 1, N), pa.int32()),
    "int64": pa.array(_nulls(rng.integers(-2**63, 2**63 - 1, N).tolist()), pa.int64()),
    "uint8": pa.array(rng.integers(0, 255, N), pa.uint8()),
    "uint16": pa.array(_nulls(rng.integers(0, 2**16 - 1, N).tolist()), pa.uint16()),
    "uint32": pa.array(rng.integers(0, 2**32 - 1, N), pa.uint32()),
    "uint64": pa.array(_nulls(rng.integers(0, 2**64 - 1, N, dtype=np.uint64).tolist()), pa.uint64()),
    "float16": pa.array(rng.random(N).astype(np.float16)),
    "float32": pa.array(_nulls(rng.random(N).astype(np.float32).tolist()), pa.float32()),
    "float64": pa.array(_nulls(rng.random(N).tolist())),
    "string": pa.array(_nulls([f"v{i}é" * (i % 4) for i in range(N)])),
    "binary": pa.array(_nulls([bytes([i]) * (i % 3) for i in range(N)])),
    "fixed": pa.array(_nulls([bytes([i]) * 4 for i in range(N)]), pa.binary(4)),
    "date32": pa.array(_nulls([dt.date(2000, 1, 1) + dt.timedelta(days=i * 97) for i in range(N)])),
    "time32ms": pa.array(_nulls(list(range(0, N * 1000, 1000))), pa.time32("ms")),
    "time64us": pa.array(_nulls(list(range(N))), pa.time64("us")),
    "time64ns": pa.array(list(range(N)), pa.time64("ns")),
    "ts_ms": pa.array(_nulls(list(range(N))), pa.timestamp("ms")),
    "ts_us_utc": pa.array(_nulls(list(range(N))), pa.timestamp("us", "UTC")),
    "ts_ns": pa.array(rng.integers(-2**62, 2**62, N), pa.timestamp("ns")),
    "dec9": pa.array(_nulls([Decimal(i * 12345).scaleb(-3) * (-1) ** i for i in range(N)]), pa.decimal128(9, 3)),
    "dec18": pa.array([Decimal(10**17 + i).scaleb(-5).copy_negate() for i in range(N)], pa.decimal128(18, 5)),
    "dec38": pa.array(_nulls([Decimal(10**36 * (i % 9 + 1) + i).scaleb(-10) for i in range(N)]),
                      pa.decimal128(38, 10)),
    "dec60": pa.array([Decimal(-(10**55) - i) for i in range(N)], pa.decimal256(60, 0)),
    "null": pa.nulls(N),
}


@pytest.mark.parametrize("name", list(SAME))
def test_types_round_trip(name):
    src = SAME[name]
    arr = array_from_arrow(src, name)
    back = _back(arr)
    assert back.equals(src), (back.type, src.type)
    assert arr.to_pylist() == src.to_pylist() or name.startswith(("ts", "time"))
    if src.null_count and name != "null":
        assert arr.validity.tolist() == src.is_valid().to_pylist()


def test_storage_follows_the_types_table():
    t = table_from_arrow(pa.table(SAME))
    assert t.column("dec18").values.dtype == np.int64
    assert t.column("dec38").values.shape == (N, 16)   # 38 digits need 16 bytes
    assert t.column("dec60").values.shape == (N, 26)   # 60 digits need 26 bytes
    assert t.column("date32").values.dtype == np.int32
    assert t.column("time32ms").values.dtype == np.int32
    assert t.column("time64us").values.dtype == np.int64
    assert t.column("float16").values.dtype == np.float16
    assert t.schema.field("ts_us_utc").type == DataType("timestamp", unit="us", tz="UTC")
    assert t.schema.field("dec38").type == DataType("decimal", precision=38, scale=10, byte_width=16)
    # null slots hold zeros whatever Arrow kept there
    i64 = t.column("int64")
    assert not i64.values[~i64.validity].any()


def test_numeric_and_string_buffers_are_shared():
    src = pa.array(np.arange(10, dtype=np.int32))
    assert np.shares_memory(array_from_arrow(src).values, np.frombuffer(src.buffers()[1], np.int32))
    s = pa.array(["ab", "c", "def"], pa.large_string())
    values = array_from_arrow(s).values
    assert np.shares_memory(values.data, np.frombuffer(s.buffers()[2], np.uint8))
    assert np.shares_memory(values.offsets, np.frombuffer(s.buffers()[1], np.int64))


@pytest.mark.parametrize("name", ["int64", "string", "bool", "fixed", "dec38", "binary", "float16"])
def test_slices_with_offsets(name):
    src = SAME[name].slice(7, 20)
    assert src.offset == 7
    arr = array_from_arrow(src)
    assert arr.to_pylist() == src.to_pylist()
    assert _back(arr).equals(src)


def test_chunked_arrays_are_concatenated():
    chunks = pa.chunked_array([pa.array(["a", None]), pa.array([], pa.string()), pa.array(["bcd"])])
    arr = array_from_arrow(chunks)
    assert arr.to_pylist() == ["a", None, "bcd"]
    assert array_from_arrow(pa.chunked_array([], pa.int32())).to_pylist() == []


@pytest.mark.parametrize("src, dtype, expected", [
    (pa.array([1, None, -2], pa.timestamp("s")), DataType("timestamp", unit="ms"),
     pa.array([1000, None, -2000], pa.timestamp("ms"))),
    (pa.array([0, None], pa.timestamp("us", "Asia/Tokyo")), DataType("timestamp", unit="us", tz="UTC"),
     pa.array([0, None], pa.timestamp("us", "UTC"))),
    (pa.array([86_400_000 * 3, None, -86_400_000], pa.date64()), DataType("date"),
     pa.array([3, None, -1], pa.date32())),
    (pa.array([5, None], pa.time32("s")), DataType("time", unit="ms"), pa.array([5000, None], pa.time32("ms"))),
    # string and binary dictionaries keep their dictionary (written as the dictionary page)
    (pa.array(["a", "b", None, "a"]).dictionary_encode(), DataType("string"),
     pa.array(["a", "b", None, "a"]).dictionary_encode()),
    (pa.DictionaryArray.from_arrays(pa.array([1, None, 1], pa.int8()), pa.array([b"u", b"v", b"w"])),
     DataType("binary"), pa.DictionaryArray.from_arrays(pa.array([1, None, 1], pa.int32()),
                                                        pa.array([b"u", b"v", b"w"]))),
    # other value types are decoded, as pyarrow writes them
    (pa.array([3, 1, None, 3]).dictionary_encode(), DataType("int64"), pa.array([3, 1, None, 3])),
    (pa.array(["x", None, "yz"], pa.string_view()), DataType("string"), pa.array(["x", None, "yz"])),
    (pa.array([b"x", None], pa.binary_view()), DataType("binary"), pa.array([b"x", None])),
    (pa.array(["x", None], pa.large_binary()), DataType("binary"), pa.array([b"x", None])),
    (pa.array([Decimal("1.5"), None], pa.decimal32(5, 1)), DataType("decimal", precision=5, scale=1),
     pa.array([Decimal("1.5"), None], pa.decimal128(5, 1))),
    (pa.array([Decimal("-1.5")], pa.decimal64(15, 1)), DataType("decimal", precision=15, scale=1),
     pa.array([Decimal("-1.5")], pa.decimal128(15, 1))),
])
def test_documented_conversions(src, dtype, expected):
    arr = array_from_arrow(src)
    assert arr.type == dtype
    assert _back(arr).equals(expected)


def test_extension_types():
    ids = [uuid.UUID(int=i * 2**90 + 1) for i in range(3)] + [None]
    src = pa.array([None if u is None else u.bytes for u in ids], pa.uuid())
    arr = array_from_arrow(src)
    assert arr.type == DataType("uuid", byte_width=16) and arr.to_pylist() == ids
    js = array_from_arrow(pa.array(['{"a": 1}', None], pa.json_()))
    assert js.type == DataType("json") and js.to_pylist() == ['{"a": 1}', None]


def test_month_day_nano_interval():
    src = pa.array([pa.MonthDayNano([1, 2, 3_000_000]), None], pa.month_day_nano_interval())
    arr = array_from_arrow(src)
    assert arr.type.name == "interval"
    assert [tuple(v) if v else v for v in arr.to_pylist()] == [(1, 2, 3), None]
    with pytest.raises(ParquetSchemaError, match=r"column 'c', row 0"):
        array_from_arrow(pa.array([pa.MonthDayNano([0, 0, 1])], pa.month_day_nano_interval()), "c")


@pytest.mark.parametrize("src", [
    pa.array([[1], None], pa.list_(pa.int32())),
    pa.array([{"a": 1}], pa.struct([("a", pa.int32())])),
    pa.array([[(1, 2)]], pa.map_(pa.int32(), pa.int32())),
    pa.array([[1]], pa.large_list(pa.int8())),
])
def test_nested_types_convert_value_for_value(src):
    arr = array_from_arrow(src, "n")
    assert arr.type.is_nested
    assert arr.to_pylist() == src.to_pylist()


def test_unions_are_unsupported():
    src = pa.UnionArray.from_sparse(pa.array([0, 1], pa.int8()),
                                    [pa.array([1, 2]), pa.array(["a", "b"])])
    with pytest.raises(UnsupportedFeatureError):
        array_from_arrow(src, "u")


def test_other_unsupported_types():
    with pytest.raises(UnsupportedFeatureError):
        array_from_arrow(pa.array([[1]], pa.list_view(pa.int64())))
    with pytest.raises(UnsupportedFeatureError, match="negative scale"):
        array_from_arrow(pa.array([Decimal("100")], pa.decimal128(5, -1)))


def test_field_nullability_is_kept_and_checked():
    schema = pa.schema([pa.field("a", pa.int32(), nullable=False), pa.field("b", pa.string())])
    t = table_from_arrow(pa.table({"a": [1, 2], "b": ["x", None]}, schema=schema))
    assert t.schema.field("a").nullable is False and t.schema.field("b").nullable is True
    bad = pa.Table.from_arrays([pa.array([1, None], pa.int32())], schema=pa.schema([pa.field("a", pa.int32(), False)]))
    with pytest.raises(ParquetSchemaError, match=r"column 'a', row 1.*non-nullable"):
        table_from_arrow(bad)


def test_invalid_utf8_in_arrow_strings():
    data = pa.py_buffer(b"ok\xc3x")
    offsets = pa.py_buffer(np.array([0, 2, 2, 4], np.int32))
    src = pa.Array.from_buffers(pa.string(), 3, [None, offsets, data])
    with pytest.raises(ParquetSchemaError, match=r"column 's', row 2.*UTF-8"):
        table_from_arrow(pa.table({"s": src}))
    assert table_from_arrow(pa.table({"s": src}), validate_utf8=False).num_rows == 3


def test_record_batches_and_as_table():
    batch = pa.record_batch({"a": [1, None], "b": ["x", "y"]})
    t = as_table(batch)
    assert t.to_pydict() == {"a": [1, None], "b": ["x", "y"]}
    schema = Schema([Field("a", DataType("int8")), Field("b", DataType("enum"))])
    cast = as_table(pa.table(batch), schema)
    assert cast.schema == schema and cast.column("a").values.dtype == np.int8
    with pytest.raises(ParquetSchemaError, match=r"column 'a', row 0.*out of range"):
        as_table(pa.table({"a": [300], "b": ["x"]}), schema)


def test_arrow_columns_in_a_mapping():
    t = as_table({"a": pa.array([1, 2]), "b": pa.chunked_array([["x"], ["y"]]), "c": [True, None]})
    assert t.to_pydict() == {"a": [1, 2], "b": ["x", "y"], "c": [True, None]}


def test_duplicate_names_are_refused():
    t = pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=["a", "a"])
    with pytest.raises(ParquetSchemaError, match="more than once"):
        table_from_arrow(t)
