"""Spark SQL's names for parquet_core types: the one parquet_core -> Spark type table.

Spark's own type names (``"long"``, ``"decimal(20,0)"``, ``"timestamp_ntz"``:
what pyspark's ``DataType.jsonValue()`` gives), keyed on :class:`parquet_core.TypeId`,
with no pyspark import.  Two users: the Spark adapter
(``spark_adapter.core.types`` makes pyspark objects from these names; its
docstring has the table and the reasons behind each row) and xskipper's
metadata (``parquet_core_integrations.xskipper.sparkjson`` stores the Spark
type of each indexed column).  It lives here, below both, so that neither
imports the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from parquet_core import TypeId

if TYPE_CHECKING:  # pragma: no cover
    import parquet_core as pc

__all__ = ["NESTED_MESSAGE", "UnsupportedSparkType", "spark_type_name"]

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
