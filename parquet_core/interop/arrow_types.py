"""Map parquet_core data types and schemas to pyarrow types (no data involved)."""

from __future__ import annotations

import pyarrow as pa

from parquet_core.errors import UnsupportedFeatureError
from parquet_core.schema.types import DataType, Field, Schema, TypeId

__all__ = ["arrow_type", "schema_to_arrow"]

_STRUCT_VARIANT_IDS = frozenset([TypeId.STRUCT, TypeId.VARIANT])
_FIXED_SIZE_BINARY_INTERVAL_IDS = frozenset([TypeId.FIXED_SIZE_BINARY, TypeId.INTERVAL])

_SIMPLE = {
    "bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(),
    "int64": pa.int64(), "uint8": pa.uint8(), "uint16": pa.uint16(), "uint32": pa.uint32(),
    "uint64": pa.uint64(), "float16": pa.float16(), "float32": pa.float32(),
    "float64": pa.float64(), "date": pa.date32(), "null": pa.null(),
    "string": pa.string(), "json": pa.json_() if hasattr(pa, "json_") else pa.string(),
    "enum": pa.string(),
    "binary": pa.binary(), "bson": pa.binary(), "geometry": pa.binary(),
    "geography": pa.binary(),
}


def arrow_type(dt: DataType) -> pa.DataType:
    """Return the Arrow type that holds *dt* (INT96 maps to ``timestamp[ns]``)."""
    if dt.name in _SIMPLE:
        return _SIMPLE[dt.name]
    if dt.id is TypeId.TIMESTAMP:
        return pa.timestamp(dt.unit, tz=dt.tz)
    if dt.id is TypeId.TIME:
        return pa.time32("ms") if dt.unit == "ms" else pa.time64(dt.unit)
    if dt.id is TypeId.INT96:
        return pa.timestamp("ns")
    if dt.id is TypeId.DECIMAL:
        p = dt.precision or 38
        return pa.decimal128(p, dt.scale or 0) if p <= 38 else pa.decimal256(p, dt.scale or 0)
    if dt.id is TypeId.UUID:
        return pa.uuid() if hasattr(pa, "uuid") else pa.binary(16)
    if dt.id in _FIXED_SIZE_BINARY_INTERVAL_IDS:
        return pa.binary(dt.byte_width or 12)
    if dt.id is TypeId.LIST:
        return pa.list_(_field(dt.fields[0]))
    if dt.id in _STRUCT_VARIANT_IDS:   # a variant shows its stored group (no Arrow type yet)
        return pa.struct([_field(f) for f in dt.fields])
    if dt.id is TypeId.MAP:
        key, value = dt.fields
        if key.nullable:  # Arrow maps cannot hold null keys: a list of entries instead
            entries = pa.struct([_field(key), _field(value)])
            return pa.list_(pa.field("key_value", entries, nullable=False))
        return pa.map_(_field(key).with_nullable(False), _field(value))
    raise UnsupportedFeatureError(f"no Arrow type for {dt}")


def _field(f: Field) -> pa.Field:
    # a field id becomes PARQUET:field_id metadata, where pyarrow's reader puts it
    meta = None if f.field_id is None else {b"PARQUET:field_id": str(f.field_id).encode()}
    return pa.field(f.name, arrow_type(f.type), nullable=f.nullable, metadata=meta)


def schema_to_arrow(schema: Schema) -> pa.Schema:
    """Convert a :class:`Schema` (field ids become ``PARQUET:field_id`` metadata, at every depth)."""
    return pa.schema([_field(f) for f in schema])

