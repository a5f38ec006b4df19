"""Map parquet_core data types and schemas to pyarrow types (no data involved)."""

from __future__ import annotations

from typing import Callable

import pyarrow as pa

from parquet_core.errors import UnsupportedFeatureError
from parquet_core.schema.types import DataType, Field, Schema, TypeId, unhandled_type

__all__ = ["arrow_type", "schema_to_arrow"]

#: The one parquet_core -> Arrow type table: a fixed Arrow type, or a function of the
#: DataType for types with parameters or children.  Every TypeId has an entry (a test
#: checks it); ``nested`` (a group the reader cannot lay out) has none on purpose.
_ARROW: dict[TypeId, Callable[[DataType], pa.DataType] | pa.DataType] = {
    TypeId.NULL: pa.null(), TypeId.BOOL: pa.bool_(),
    TypeId.INT8: pa.int8(), TypeId.INT16: pa.int16(), TypeId.INT32: pa.int32(), TypeId.INT64: pa.int64(),
    TypeId.UINT8: pa.uint8(), TypeId.UINT16: pa.uint16(), TypeId.UINT32: pa.uint32(),
    TypeId.UINT64: pa.uint64(),
    TypeId.FLOAT16: pa.float16(), TypeId.FLOAT32: pa.float32(), TypeId.FLOAT64: pa.float64(),
    TypeId.DATE: pa.date32(),
    TypeId.TIME: lambda dt: pa.time32("ms") if dt.unit == "ms" else pa.time64(dt.unit),
    TypeId.TIMESTAMP: lambda dt: pa.timestamp(dt.unit, tz=dt.tz),
    TypeId.INT96: pa.timestamp("ns"),
    TypeId.DECIMAL: lambda dt: _decimal(dt.precision or 38, dt.scale or 0),
    TypeId.STRING: pa.string(), TypeId.JSON: pa.json_() if hasattr(pa, "json_") else pa.string(),
    TypeId.ENUM: pa.string(),
    TypeId.BINARY: pa.binary(), TypeId.BSON: pa.binary(),
    TypeId.GEOMETRY: pa.binary(), TypeId.GEOGRAPHY: pa.binary(),
    TypeId.FIXED_SIZE_BINARY: lambda dt: pa.binary(dt.byte_width or 12),
    TypeId.UUID: pa.uuid() if hasattr(pa, "uuid") else pa.binary(16),
    TypeId.INTERVAL: lambda dt: pa.binary(dt.byte_width or 12),
    TypeId.LIST: lambda dt: pa.list_(_field(dt.fields[0])),
    TypeId.MAP: lambda dt: _map(dt),
    TypeId.STRUCT: lambda dt: pa.struct([_field(f) for f in dt.fields]),
    # a variant shows its stored group (no Arrow type yet)
    TypeId.VARIANT: lambda dt: pa.struct([_field(f) for f in dt.fields]),
}


def arrow_type(dt: DataType) -> pa.DataType:
    """Return the Arrow type that holds *dt* (INT96 maps to ``timestamp[ns]``)."""
    entry = _ARROW.get(dt.id)
    if entry is None:
        if dt.id is TypeId.NESTED:
            raise UnsupportedFeatureError(f"no Arrow type for {dt}: a group the reader cannot lay out")
        unhandled_type(dt, "arrow_type")
    return entry if isinstance(entry, pa.DataType) else entry(dt)


def _decimal(p: int, s: int) -> pa.DataType:
    return pa.decimal128(p, s) if p <= 38 else pa.decimal256(p, s)


def _map(dt: DataType) -> pa.DataType:
    key, value = dt.fields
    if key.nullable:  # Arrow maps cannot hold null keys: a list of entries instead
        entries = pa.struct([_field(key), _field(value)])
        return pa.list_(pa.field("key_value", entries, nullable=False))
    return pa.map_(_field(key).with_nullable(False), _field(value))


def _field(f: Field) -> pa.Field:
    # a field id becomes PARQUET:field_id metadata, where pyarrow's reader puts it
    meta = None if f.field_id is None else {b"PARQUET:field_id": str(f.field_id).encode()}
    return pa.field(f.name, arrow_type(f.type), nullable=f.nullable, metadata=meta)


def schema_to_arrow(schema: Schema) -> pa.Schema:
    """Convert a :class:`Schema` (field ids become ``PARQUET:field_id`` metadata, at every depth).

    A file's schema (one with the footer's key/value ``metadata``) gets the types its
    ``ARROW:schema`` records and the other keys as metadata, as pyarrow's ``read_schema``.
    """
    plain = pa.schema([_field(f) for f in schema])
    metadata = getattr(schema, "metadata", None)
    if metadata is None:
        return plain
    from parquet_core.interop.arrow_metadata import restore_columns

    empty = [pa.nulls(0, f.type) for f in plain]
    return restore_columns(schema.fields, empty, metadata)[1]

