"""Parquet (``parquet_core``) types -> Spark SQL types, and the Arrow layout Spark expects.

The mapping follows Spark 4's built-in Parquet reader
(``ParquetToSparkSchemaConverter``) wherever that reader accepts the type:

=======================================  ==========================================
parquet_core ``DataType.name``           Spark type
=======================================  ==========================================
bool                                     boolean
int8 / int16 / int32 / int64             tinyint / smallint / int / bigint
uint8 / uint16 / uint32                  smallint / int / bigint (next wider signed)
uint64                                   decimal(20,0)
float16 / float32                        float (Spark has no half float; its own
                                         reader rejects FLOAT16, we widen losslessly)
float64                                  double
string / json / enum                     string
binary / bson / fixed_size_binary /      binary (Spark's reader rejects UUID; we
uuid / interval / geometry / geography   hand out the 16 raw bytes, the 12 interval
                                         bytes, the WKB of geospatial values)
decimal(p, s), p <= 38                   decimal(p, s)
date                                     date
timestamp, adjusted to UTC (``tz``)      timestamp
timestamp, not adjusted (``tz=None``)    timestamp_ntz (Spark's default
                                         ``spark.sql.parquet.inferTimestampNTZ``)
int96                                    timestamp
time (ms / us / ns)                      time(3) / time(6) / time(9)
null                                     void (NullType)
list / struct / map                      array / struct / map (a map whose key
                                         may be null: array of key/value structs)
=======================================  ==========================================

Time of day: Spark 4.3's built-in reader maps TIME(MICROS) to ``time(6)`` and
TIME(NANOS) to ``time(9)`` only under ``spark.sql.timeType.enabled=true``
(otherwise ``UNSUPPORTED_TIME_TYPE``) and rejects TIME(MILLIS).  A Python data
source may return ``TimeType`` whatever that flag says, so we map all three.

Every field is nullable, as with Spark's file sources: the schema comes from
the first file only, and another file may hold nulls in the same column.

Only ``pyspark.sql.types`` is imported at module level (cheap); pyarrow is
imported inside the functions that need it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

    import parquet_core as pc

__all__ = [
    "UnsupportedSparkType",
    "target_arrow_schema",
    "to_spark_schema",
    "to_spark_type",
]

NESTED_MESSAGE = "this nested group has no list/map/struct layout the reader can assemble"

_SIMPLE = {
    "bool": BooleanType,
    "int8": ByteType,
    "int16": ShortType,
    "int32": IntegerType,
    "int64": LongType,
    "uint8": ShortType,
    "uint16": IntegerType,
    "uint32": LongType,
    "float16": FloatType,
    "float32": FloatType,
    "float64": DoubleType,
    "string": StringType,
    "json": StringType,
    "enum": StringType,
    "binary": BinaryType,
    "bson": BinaryType,
    "fixed_size_binary": BinaryType,
    "uuid": BinaryType,
    "interval": BinaryType,
    "geometry": BinaryType,
    "geography": BinaryType,
    "date": DateType,
    "int96": TimestampType,
    "null": NullType,
}

_TIME_PRECISION = {"ms": 3, "us": 6, "ns": 9}

# Spark's DecimalType.MAX_PRECISION
_MAX_DECIMAL_PRECISION = 38


class UnsupportedSparkType(TypeError):
    """A Parquet column whose type has no Spark equivalent (yet)."""


def to_spark_type(dt: pc.DataType, column: str = "?") -> DataType:
    """Return the Spark type for one parquet_core :class:`DataType`.

    Raises
    ------
    UnsupportedSparkType
        For nested columns, decimals wider than 38 digits, and unknown types.
    """
    name = dt.name
    if name in _SIMPLE:
        return _SIMPLE[name]()
    if name == "uint64":
        return DecimalType(20, 0)
    if name == "decimal":
        p, s = dt.precision, dt.scale or 0
        if p is None or p > _MAX_DECIMAL_PRECISION:
            raise UnsupportedSparkType(
                f"column {column!r}: {dt} does not fit Spark's decimal "
                f"(at most {_MAX_DECIMAL_PRECISION} digits)")
        return DecimalType(p, s)
    if name == "timestamp":
        return TimestampType() if dt.tz else TimestampNTZType()
    if name == "time":
        try:
            from pyspark.sql.types import TimeType
        except ImportError:  # pyspark 4.0 has no TIME type
            raise UnsupportedSparkType(
                f"column {column!r}: {dt} needs pyspark >= 4.1 (TimeType)") from None
        if dt.unit not in _TIME_PRECISION:
            raise UnsupportedSparkType(f"column {column!r}: time unit {dt.unit!r}")
        return TimeType(_TIME_PRECISION[dt.unit])
    if name == "list":
        (item,) = dt.fields
        return ArrayType(to_spark_type(item.type, f"{column}.{item.name}"), containsNull=True)
    if name == "struct":
        return StructType([StructField(f.name, to_spark_type(f.type, f"{column}.{f.name}"), nullable=True)
                           for f in dt.fields])
    if name == "map":
        key, value = dt.fields
        kt = to_spark_type(key.type, f"{column}.{key.name}")
        vt = to_spark_type(value.type, f"{column}.{value.name}")
        if key.nullable:   # a null key has no place in a Spark map: entries as key/value structs
            return ArrayType(StructType([StructField(key.name, kt, True), StructField(value.name, vt, True)]),
                             containsNull=True)
        return MapType(kt, vt, valueContainsNull=True)
    if name == "nested":
        raise UnsupportedSparkType(f"column {column!r}: {NESTED_MESSAGE}")
    raise UnsupportedSparkType(f"column {column!r}: no Spark type for Parquet type {dt}")


def to_spark_schema(schema: pc.Schema) -> StructType:
    """Convert a parquet_core :class:`Schema` to a Spark :class:`StructType` (all nullable)."""
    return StructType([StructField(f.name, to_spark_type(f.type, f.name), nullable=True)
                       for f in schema])


def target_arrow_schema(schema: StructType) -> pa.Schema:
    """The exact Arrow schema Spark accepts from ``read()`` for *schema*.

    Spark compares it with ``to_arrow_schema(schema, timezone="UTC")``: same
    names, order, types (``timestamp[us, tz=UTC]``, ``string`` not
    ``large_string``) and nullability.  The keyword changed in pyspark 4.2
    (``timezone=``); 4.0/4.1 take ``timestamp_utc=True`` (their default).
    """
    from pyspark.sql.pandas.types import to_arrow_schema

    try:
        return to_arrow_schema(schema, timezone="UTC")
    except TypeError:  # pyspark 4.0 / 4.1
        return to_arrow_schema(schema)

