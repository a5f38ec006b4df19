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
The table lives in ``parquet_core_integrations.spark_types`` (re-exported
here): ``parquet_core_integrations.xskipper`` (pure Python) names the Spark
types of indexed columns with :func:`spark_type_name` too.

Nothing from pyspark is imported at module level; pyspark's types when a
pyspark type is asked for, pyarrow inside the functions that need it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from parquet_core import TypeId

# the table itself is shared with xskipper, so it sits below both (no pyspark there either)
from parquet_core_integrations.spark_types import (
    UnsupportedSparkType,
    spark_type_name,
)

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

def _pyspark_type(name: str, column: str) -> Any:
    """The pyspark object of a Spark type name from :func:`spark_type_name` (flat types)."""
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

