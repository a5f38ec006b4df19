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

The table is kept by Spark's own type names (``"long"``, ``"decimal(20,0)"``:
what ``DataType.jsonValue()`` gives), without pyspark: :func:`spark_type_name`
is the mapping, and :func:`to_spark_type` makes the pyspark object from it.
``integrations.xskipper`` (pure Python) names the Spark types of indexed
columns with :func:`spark_type_name` too.

Nothing from pyspark is imported at module level; pyspark's types when a
pyspark type is asked for, pyarrow inside the functions that need it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from parquet_core import TypeId

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa
    from pyspark.sql.types import DataType, StructType

    import parquet_core as pc

__all__ = [
    "UnsupportedSparkType",
    "spark_type_name",
    "target_arrow_schema",
    "to_spark_schema",
    "to_spark_type",
]

NESTED_MESSAGE = "this nested group has no list/map/struct layout the reader can assemble"

_TIME_PRECISION = {"ms": 3, "us": 6, "ns": 9}

# Spark's DecimalType.MAX_PRECISION
_MAX_DECIMAL_PRECISION = 38


class UnsupportedSparkType(TypeError):
    """A Parquet column whose type has no Spark equivalent (yet)."""


def _decimal(dt: pc.DataType, column: str) -> str:
    p, s = dt.precision, dt.scale or 0
    if p is None or p > _MAX_DECIMAL_PRECISION:
        raise UnsupportedSparkType(
            f"column {column!r}: {dt} does not fit Spark's decimal "
            f"(at most {_MAX_DECIMAL_PRECISION} digits)")
    return f"decimal({p},{s})"


def _time(dt: pc.DataType, column: str) -> str:
    if dt.unit not in _TIME_PRECISION:
        raise UnsupportedSparkType(f"column {column!r}: time unit {dt.unit!r}")
    return f"time({_TIME_PRECISION[dt.unit]})"


def _no_spark_type(why: str) -> Callable[[pc.DataType, str], str]:
    def refuse(dt: pc.DataType, column: str) -> str:
        raise UnsupportedSparkType(f"column {column!r}: {why.format(dt=dt)}")
    return refuse


#: The one parquet_core -> Spark table: Spark's name for each type id, or a function of
#: the DataType (and the column, for messages).  Every TypeId has an entry (a test checks it).
_SPARK: dict[TypeId, str | Callable[[pc.DataType, str], str]] = {
    TypeId.NULL: "void",
    TypeId.BOOL: "boolean",
    TypeId.INT8: "byte",
    TypeId.INT16: "short",
    TypeId.INT32: "integer",
    TypeId.INT64: "long",
    TypeId.UINT8: "short",
    TypeId.UINT16: "integer",
    TypeId.UINT32: "long",
    TypeId.UINT64: "decimal(20,0)",
    TypeId.FLOAT16: "float",
    TypeId.FLOAT32: "float",
    TypeId.FLOAT64: "double",
    TypeId.DATE: "date",
    TypeId.TIME: _time,
    TypeId.TIMESTAMP: lambda dt, column: "timestamp" if dt.tz else "timestamp_ntz",
    TypeId.INT96: "timestamp",
    TypeId.DECIMAL: _decimal,
    TypeId.STRING: "string",
    TypeId.JSON: "string",
    TypeId.ENUM: "string",
    TypeId.BINARY: "binary",
    TypeId.BSON: "binary",
    TypeId.GEOMETRY: "binary",
    TypeId.GEOGRAPHY: "binary",
    TypeId.FIXED_SIZE_BINARY: "binary",
    TypeId.UUID: "binary",
    TypeId.INTERVAL: "binary",
    TypeId.LIST: "array",
    TypeId.MAP: "map",
    TypeId.STRUCT: "struct",
    TypeId.VARIANT: _no_spark_type("no Spark type for Parquet type {dt} (yet)"),
    TypeId.NESTED: _no_spark_type(NESTED_MESSAGE),
}


def spark_type_name(dt: pc.DataType, column: str = "?") -> str:
    """Spark's name of the type a column of type *dt* reads as (``"long"``,
    ``"decimal(10,2)"``, ``"timestamp_ntz"``...; ``"array"``, ``"map"``,
    ``"struct"`` for nested types, whose children :func:`to_spark_type` maps).

    Needs no pyspark.

    Raises
    ------
    UnsupportedSparkType
        For decimals wider than 38 digits, unknown time units, variants and
        unreadable groups.
    """
    entry = _SPARK.get(dt.id)
    if entry is None:
        raise UnsupportedSparkType(f"column {column!r}: no Spark type for Parquet type {dt}")
    return entry if isinstance(entry, str) else entry(dt, column)


def _pyspark_type(name: str, column: str) -> Any:
    """The pyspark object of a Spark type name from :data:`_SPARK` (flat types)."""
    from pyspark.sql import types as T

    simple = {"void": T.NullType, "boolean": T.BooleanType, "byte": T.ByteType, "short": T.ShortType,
              "integer": T.IntegerType, "long": T.LongType, "float": T.FloatType,
              "double": T.DoubleType, "date": T.DateType, "timestamp": T.TimestampType,
              "timestamp_ntz": T.TimestampNTZType, "string": T.StringType, "binary": T.BinaryType}
    if name in simple:
        return simple[name]()
    kind, _, args = name.partition("(")
    params = [int(a) for a in args.rstrip(")").split(",")]
    if kind == "decimal":
        return T.DecimalType(*params)
    if kind == "time":
        try:
            from pyspark.sql.types import TimeType
        except ImportError:  # pyspark 4.0 has no TIME type
            raise UnsupportedSparkType(
                f"column {column!r}: {name} needs pyspark >= 4.1 (TimeType)") from None
        return TimeType(*params)
    raise AssertionError(f"no pyspark type for Spark type name {name!r}")


def to_spark_type(dt: pc.DataType, column: str = "?") -> DataType:
    """Return the Spark type for one parquet_core :class:`DataType`.

    Raises
    ------
    UnsupportedSparkType
        For unreadable nested groups, variants, decimals wider than 38 digits.
    """
    from pyspark.sql.types import ArrayType, MapType, StructField, StructType

    name = spark_type_name(dt, column)
    tid = dt.id
    if tid is TypeId.LIST:
        (item,) = dt.fields
        return ArrayType(to_spark_type(item.type, f"{column}.{item.name}"), containsNull=True)
    if tid is TypeId.STRUCT:
        return StructType([StructField(f.name, to_spark_type(f.type, f"{column}.{f.name}"), nullable=True)
                           for f in dt.fields])
    if tid is TypeId.MAP:
        key, value = dt.fields
        kt = to_spark_type(key.type, f"{column}.{key.name}")
        vt = to_spark_type(value.type, f"{column}.{value.name}")
        if key.nullable:   # a null key has no place in a Spark map: entries as key/value structs
            return ArrayType(StructType([StructField(key.name, kt, True), StructField(value.name, vt, True)]),
                             containsNull=True)
        return MapType(kt, vt, valueContainsNull=True)
    return _pyspark_type(name, column)


def to_spark_schema(schema: pc.Schema) -> StructType:
    """Convert a parquet_core :class:`Schema` to a Spark :class:`StructType` (all nullable)."""
    from pyspark.sql.types import StructField, StructType

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

