"""Map a leaf's physical type + logical/converted type to a :class:`DataType`.

The logical type (``SchemaElement.logicalType``) wins when present; files
from older writers carry only the converted type, which is mapped the way the
spec's LogicalTypes.md backward-compatibility section describes
(``TIMESTAMP_MILLIS`` is a UTC-adjusted millisecond timestamp, ``UTF8`` is
``STRING``...).  A logical type this reader does not know (a future union
member, skipped by the thrift layer) leaves every union field unset and the
column falls back to its physical type, which is what the spec asks readers
to do.
"""

from __future__ import annotations

from typing import Any

from parquet_core.constants import ConvertedType, PhysicalType
from parquet_core.errors import ParquetSchemaError, quoted
from parquet_core.schema.types import DataType, TypeId

__all__ = ["data_type_of", "physical_data_type", "EDGE_ALGORITHMS"]

_UNITS = {"MILLIS": "ms", "MICROS": "us", "NANOS": "ns"}

#: The spec's EdgeInterpolationAlgorithm values, by the names DataType uses.
EDGE_ALGORITHMS = {0: "spherical", 1: "vincenty", 2: "thomas", 3: "andoyer", 4: "karney"}


#: The parameterless types, made once: a footer names one per column, and a DataType is
#: immutable, so every column of the same type can share one.
_PLAIN: dict[str, DataType] = {t.value: DataType(t) for t in TypeId if t is not TypeId.NESTED}


def physical_data_type(physical_type: int, type_length: int | None) -> DataType:
    """Return the type a leaf has when it carries no logical annotation."""
    if physical_type == PhysicalType.BOOLEAN:
        return _PLAIN["bool"]
    if physical_type == PhysicalType.INT32:
        return _PLAIN["int32"]
    if physical_type == PhysicalType.INT64:
        return _PLAIN["int64"]
    if physical_type == PhysicalType.INT96:
        return _PLAIN["int96"]
    if physical_type == PhysicalType.FLOAT:
        return _PLAIN["float32"]
    if physical_type == PhysicalType.DOUBLE:
        return _PLAIN["float64"]
    if physical_type == PhysicalType.BYTE_ARRAY:
        return _PLAIN["binary"]
    if physical_type == PhysicalType.FIXED_LEN_BYTE_ARRAY:
        return DataType("fixed_size_binary", byte_width=type_length)
    raise ParquetSchemaError(f"unknown physical type {physical_type}")


def _unit_of(time_unit: Any) -> str:
    for attr, unit in _UNITS.items():
        if getattr(time_unit, attr, None) is not None:
            return unit
    raise ParquetSchemaError("time unit with no member set")


def _from_logical(lt: Any, ptype: int, type_length: int | None) -> DataType | None:
    """Map the LogicalType union; ``None`` when no known member is set."""
    if lt.STRING is not None:
        return _PLAIN["string"]
    if lt.ENUM is not None:
        return _PLAIN["enum"]
    if lt.JSON is not None:
        return _PLAIN["json"]
    if lt.BSON is not None:
        return _PLAIN["bson"]
    if lt.UUID is not None:
        return DataType("uuid", byte_width=16)
    if lt.DATE is not None:
        return _PLAIN["date"]
    if lt.FLOAT16 is not None:
        return _PLAIN["float16"]
    if lt.UNKNOWN is not None:
        return _PLAIN["null"]
    if lt.DECIMAL is not None:
        return DataType("decimal", precision=lt.DECIMAL.precision, scale=lt.DECIMAL.scale,
                        byte_width=type_length)
    if lt.INTEGER is not None:
        bits = lt.INTEGER.bitWidth
        if bits not in (8, 16, 32, 64):
            raise ParquetSchemaError(f"INTEGER logical type with bit width {bits}")
        return DataType(("int" if lt.INTEGER.isSigned else "uint") + str(bits))
    if lt.TIME is not None:
        return DataType("time", unit=_unit_of(lt.TIME.unit),
                        tz="UTC" if lt.TIME.isAdjustedToUTC else None)
    if lt.TIMESTAMP is not None:
        return DataType("timestamp", unit=_unit_of(lt.TIMESTAMP.unit),
                        tz="UTC" if lt.TIMESTAMP.isAdjustedToUTC else None)
    if getattr(lt, "GEOMETRY", None) is not None:
        return DataType("geometry", crs=lt.GEOMETRY.crs)
    if getattr(lt, "GEOGRAPHY", None) is not None:
        algo = lt.GEOGRAPHY.algorithm
        # an algorithm added to the spec after this reader keeps its number
        name = None if algo is None else EDGE_ALGORITHMS.get(algo, str(algo))
        return DataType("geography", crs=lt.GEOGRAPHY.crs, algorithm=name)
    return None


def _from_converted(ct: int, el: Any, ptype: int, type_length: int | None) -> DataType | None:
    simple: dict[int, str] = {
        ConvertedType.UTF8: "string", ConvertedType.ENUM: "enum", ConvertedType.JSON: "json",
        ConvertedType.BSON: "bson", ConvertedType.DATE: "date",
        ConvertedType.UINT_8: "uint8", ConvertedType.UINT_16: "uint16",
        ConvertedType.UINT_32: "uint32", ConvertedType.UINT_64: "uint64",
        ConvertedType.INT_8: "int8", ConvertedType.INT_16: "int16",
        ConvertedType.INT_32: "int32", ConvertedType.INT_64: "int64",
    }
    if ct in simple:
        return DataType(simple[ct])
    if ct == ConvertedType.DECIMAL:
        return DataType("decimal", precision=el.precision, scale=el.scale or 0,
                        byte_width=type_length)
    if ct == ConvertedType.TIME_MILLIS:
        return DataType("time", unit="ms", tz="UTC")
    if ct == ConvertedType.TIME_MICROS:
        return DataType("time", unit="us", tz="UTC")
    if ct == ConvertedType.TIMESTAMP_MILLIS:
        return DataType("timestamp", unit="ms", tz="UTC")
    if ct == ConvertedType.TIMESTAMP_MICROS:
        return DataType("timestamp", unit="us", tz="UTC")
    if ct == ConvertedType.INTERVAL:
        return DataType("interval", byte_width=12)
    return None


# Which physical types each logical type may annotate (LogicalTypes.md).
_INT64_STORED = frozenset([TypeId.INT64, TypeId.UINT64])
_ALLOWED: dict[TypeId, tuple[int, ...]] = {
    TypeId.STRING: (PhysicalType.BYTE_ARRAY,), TypeId.ENUM: (PhysicalType.BYTE_ARRAY,),
    TypeId.JSON: (PhysicalType.BYTE_ARRAY,), TypeId.BSON: (PhysicalType.BYTE_ARRAY,),
    TypeId.UUID: (PhysicalType.FIXED_LEN_BYTE_ARRAY,), TypeId.DATE: (PhysicalType.INT32,),
    TypeId.FLOAT16: (PhysicalType.FIXED_LEN_BYTE_ARRAY,),
    TypeId.INTERVAL: (PhysicalType.FIXED_LEN_BYTE_ARRAY,),
    TypeId.DECIMAL: (PhysicalType.INT32, PhysicalType.INT64, PhysicalType.BYTE_ARRAY,
                PhysicalType.FIXED_LEN_BYTE_ARRAY),
    TypeId.GEOMETRY: (PhysicalType.BYTE_ARRAY,), TypeId.GEOGRAPHY: (PhysicalType.BYTE_ARRAY,),
}


def _check(dt: DataType, ptype: int, type_length: int | None, name: str) -> DataType:
    allowed = _ALLOWED.get(dt.id)
    if dt.is_integer:
        allowed = (PhysicalType.INT64,) if dt.id in _INT64_STORED else (PhysicalType.INT32,)
    elif dt.id is TypeId.TIME:
        allowed = (PhysicalType.INT32,) if dt.unit == "ms" else (PhysicalType.INT64,)
    elif dt.id is TypeId.TIMESTAMP:
        allowed = (PhysicalType.INT64,)
    if allowed is not None and ptype not in allowed:
        raise ParquetSchemaError(
            f"column {quoted(name)}: logical type {dt} cannot annotate physical type "
            f"{PhysicalType(ptype).name}")
    if dt.id is TypeId.UUID and type_length != 16:
        raise ParquetSchemaError(f"column {quoted(name)}: UUID needs FIXED_LEN_BYTE_ARRAY(16)")
    if dt.id is TypeId.FLOAT16 and type_length != 2:
        raise ParquetSchemaError(f"column {quoted(name)}: FLOAT16 needs FIXED_LEN_BYTE_ARRAY(2)")
    if dt.id is TypeId.INTERVAL and type_length != 12:
        raise ParquetSchemaError(f"column {quoted(name)}: INTERVAL needs FIXED_LEN_BYTE_ARRAY(12)")
    if dt.id is TypeId.DECIMAL:
        _check_decimal(dt, name)
    return dt


def _check_decimal(dt: DataType, name: str) -> None:
    """Precision and scale as LogicalTypes.md requires: ``precision >= 1`` and
    ``0 <= scale <= precision``.  A precision above what the physical width holds
    is tolerated (the stored integers are read exactly), as other readers do."""
    p, s = dt.precision, dt.scale
    if p is None or p < 1:
        raise ParquetSchemaError(
            f"column {quoted(name)}: DECIMAL precision is {p}; it must be at least 1")
    if s is None or s < 0 or s > p:
        raise ParquetSchemaError(
            f"column {quoted(name)}: DECIMAL scale is {s} with precision {p}; the scale must be "
            "between 0 and the precision")


def data_type_of(element: Any) -> DataType:
    """Return the :class:`DataType` of a leaf ``pt.SchemaElement``.

    Raises
    ------
    ParquetSchemaError
        If the annotation contradicts the physical type.
    """
    ptype = element.type
    tlen = element.type_length
    dt = None
    if element.logicalType is not None:
        dt = _from_logical(element.logicalType, ptype, tlen)
    if dt is None and element.converted_type is not None:
        dt = _from_converted(element.converted_type, element, ptype, tlen)
    if dt is None:
        return physical_data_type(ptype, tlen)
    if dt.id is TypeId.STRING and ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY:
        # fastparquet's fixed_text: not allowed by LogicalTypes.md but unambiguous; read as
        # its fixed-width bytes (``pqc check`` reports it as schema.string-on-flba)
        return physical_data_type(ptype, tlen)
    return _check(dt, ptype, tlen, element.name)
