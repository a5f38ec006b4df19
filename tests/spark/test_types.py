"""The Parquet -> Spark type mapping and the Arrow casts, without a JVM."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest

pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")

from pyspark.sql import types as T

import parquet_core as pc
from spark_adapter.core.batches import conform_batch, to_spark_arrow
from spark_adapter.core.types import (
    UnsupportedSparkType,
    target_arrow_schema,
    to_spark_schema,
    to_spark_type,
)

D = pc.DataType

MAPPING = [
    (D("bool"), T.BooleanType()),
    (D("int8"), T.ByteType()),
    (D("int16"), T.ShortType()),
    (D("int32"), T.IntegerType()),
    (D("int64"), T.LongType()),
    (D("uint8"), T.ShortType()),
    (D("uint16"), T.IntegerType()),
    (D("uint32"), T.LongType()),
    (D("uint64"), T.DecimalType(20, 0)),
    (D("float16"), T.FloatType()),
    (D("float32"), T.FloatType()),
    (D("float64"), T.DoubleType()),
    (D("string"), T.StringType()),
    (D("json"), T.StringType()),
    (D("enum"), T.StringType()),
    (D("binary"), T.BinaryType()),
    (D("bson"), T.BinaryType()),
    (D("fixed_size_binary", byte_width=3), T.BinaryType()),
    (D("uuid", byte_width=16), T.BinaryType()),
    (D("interval", byte_width=12), T.BinaryType()),
    (D("geometry"), T.BinaryType()),
    (D("decimal", precision=38, scale=10), T.DecimalType(38, 10)),
    (D("decimal", precision=4, scale=2), T.DecimalType(4, 2)),
    (D("date"), T.DateType()),
    (D("timestamp", unit="ms", tz="UTC"), T.TimestampType()),
    (D("timestamp", unit="ns", tz=None), T.TimestampNTZType()),
    (D("int96"), T.TimestampType()),
    (D("time", unit="us", tz="UTC"), T.TimeType(6)),
    (D("null"), T.NullType()),
]


def test_nested_mapping():
    item = pc.Field("element", D("int64"))
    assert to_spark_type(D("list", fields=(item,))) == T.ArrayType(T.LongType(), True)
    st = D("struct", fields=(pc.Field("a", D("string")), pc.Field("b", D("list", fields=(item,)))))
    assert to_spark_type(st) == T.StructType([T.StructField("a", T.StringType(), True),
                                              T.StructField("b", T.ArrayType(T.LongType(), True), True)])
    key, value = pc.Field("key", D("string"), nullable=False), pc.Field("value", D("float64"))
    assert to_spark_type(D("map", fields=(key, value))) == T.MapType(T.StringType(), T.DoubleType(), True)
    loose = pc.Field("key", D("string"), nullable=True)
    assert to_spark_type(D("map", fields=(loose, value))) == T.ArrayType(T.StructType(
        [T.StructField("key", T.StringType(), True), T.StructField("value", T.DoubleType(), True)]), True)


@pytest.mark.parametrize("ours, spark", MAPPING, ids=[str(m[0]) for m in MAPPING])
def test_mapping(ours, spark):
    assert to_spark_type(ours) == spark


@pytest.mark.parametrize("bad, msg", [
    (D("nested"), "no list/map/struct layout"),
    (D("decimal", precision=40, scale=0), "at most 38 digits"),
    (D("variant", fields=(pc.Field("metadata", D("binary"), False), pc.Field("value", D("binary")))),
     "no Spark type"),
])
def test_unsupported(bad, msg):
    with pytest.raises(UnsupportedSparkType, match=msg):
        to_spark_type(bad, "c")


def test_schema_is_all_nullable():
    s = to_spark_schema(pc.Schema([pc.Field("a", D("int32"), nullable=False),
                                   pc.Field("b", D("string"))]))
    assert s == T.StructType([T.StructField("a", T.IntegerType(), True),
                              T.StructField("b", T.StringType(), True)])


def test_target_arrow_schema():
    s = T.StructType([T.StructField("t", T.TimestampType()), T.StructField("n", T.TimestampNTZType()),
                      T.StructField("s", T.StringType(), False)])
    assert target_arrow_schema(s) == pa.schema([
        pa.field("t", pa.timestamp("us", tz="UTC")), pa.field("n", pa.timestamp("us")),
        pa.field("s", pa.string(), nullable=False)])


@pytest.mark.parametrize("arr, typ, expected", [
    (pa.array([1, 2**64 - 1, None], pa.uint64()), pa.decimal128(20, 0),
     [decimal.Decimal(1), decimal.Decimal(2**64 - 1), None]),
    (pa.array([255, None], pa.uint8()), pa.int16(), [255, None]),
    (pa.array([1.5, None], pa.float16()), pa.float32(), [1.5, None]),
    (pa.array(["x", None], pa.large_string()), pa.string(), ["x", None]),
    (pa.array([b"ab", None], pa.binary(2)), pa.binary(), [b"ab", None]),
    (pa.array([-1, 1_999, None], pa.timestamp("ns")), pa.timestamp("us", tz="UTC"),
     [-1, 1, None]),
    (pa.array([3, None], pa.timestamp("ms", tz="UTC")), pa.timestamp("us", tz="UTC"), [3000, None]),
    (pa.array([1000, None], pa.time32("ms")), pa.time64("ns"), [1_000_000_000, None]),
    (pa.nulls(2), pa.int32(), [None, None]),
])
def test_to_spark_arrow(arr, typ, expected):
    out = to_spark_arrow(arr, typ)
    assert out.type == typ
    if pa.types.is_timestamp(typ) or pa.types.is_time(typ):
        out = out.cast(pa.int64())
    assert out.to_pylist() == expected


def test_uuid_extension_to_binary():
    if not hasattr(pa, "uuid"):
        pytest.skip("pyarrow without the uuid extension type")
    ext = pa.ExtensionArray.from_storage(pa.uuid(), pa.array([b"\x01" * 16], pa.binary(16)))
    assert to_spark_arrow(ext, pa.binary()).to_pylist() == [b"\x01" * 16]


def test_conform_batch_fills_missing_and_checks_not_null():
    target = pa.schema([pa.field("a", pa.int64()), pa.field("gone", pa.date32()),
                        pa.field("b", pa.string(), nullable=False)])
    cols = {"a": pa.chunked_array([pa.array([1, 2], pa.int32())]), "b": pa.array(["x", "y"])}
    batch = conform_batch(cols, ["a", None, "b"], target, 2)
    assert batch.schema.equals(target)
    assert batch.to_pydict() == {"a": [1, 2], "gone": [None, None], "b": ["x", "y"]}
    with pytest.raises(ValueError, match="NOT NULL"):
        conform_batch({"a": pa.array([1]), "b": pa.array([None], pa.string())},
                      ["a", None, "b"], target, 1)


def test_lossy_cast_is_an_error():
    with pytest.raises(TypeError, match="cannot read column 'c'"):
        to_spark_arrow(pa.array([2**40]), pa.int32(), "c")


def test_date_passthrough():
    arr = pa.array([dt.date(2020, 1, 2)], pa.date32())
    assert to_spark_arrow(arr, pa.date32()) is arr
