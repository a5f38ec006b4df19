"""The ``ARROW:schema`` key of a Parquet footer: writing it and applying it, as pyarrow does.

pyarrow keeps the Arrow schema a table had in the file's key/value
metadata: key ``ARROW:schema``, value the base64 of the schema's Arrow IPC
message (``pa.Schema.serialize()``: continuation marker, length, flatbuffer),
written after the schema's own metadata keys (``pandas``...).  Reading, it
gives back the Arrow types Parquet has no words for: a time zone's name,
durations (stored as plain INT64), dictionaries, large offsets, extension
types (``arrow.bool8``, ``pandas.period``... stored as their storage type),
and every field's metadata, merged with the Parquet ``field_id`` as
``PARQUET:field_id``.

Without that key a duration or an extension type without a Parquet
logical type cannot be told apart from its storage; :func:`unkept_type`
finds such a field so that the writer can refuse it rather than write it
lossily (``store_schema=False``).
"""

from __future__ import annotations

import base64
from typing import Any

import pyarrow as pa

__all__ = ["ARROW_SCHEMA_KEY", "FIELD_ID_KEY", "encode_schema", "decode_schema", "schema_key_values",
           "unkept_type", "restore_field"]

ARROW_SCHEMA_KEY = b"ARROW:schema"
FIELD_ID_KEY = b"PARQUET:field_id"
#: extension types that Parquet logical types carry on their own (UUID, JSON)
_SELF_DESCRIBED = frozenset(["arrow.uuid", "arrow.json"])


def encode_schema(schema: pa.Schema) -> bytes:
    """The ``ARROW:schema`` value of *schema* (byte-identical to pyarrow's)."""
    return base64.b64encode(schema.serialize().to_pybytes())


def decode_schema(encoded: bytes) -> pa.Schema | None:
    """The schema an ``ARROW:schema`` value holds, or ``None`` when it is not one."""
    try:
        return pa.ipc.read_schema(pa.BufferReader(base64.b64decode(encoded)))
    except (ValueError, TypeError, pa.ArrowException):
        return None


def schema_key_values(schema: pa.Schema) -> dict[bytes, bytes]:
    """Footer key/values for a table of *schema*: its metadata, then ``ARROW:schema`` (pyarrow's order)."""
    out = {k: v for k, v in (schema.metadata or {}).items() if k != ARROW_SCHEMA_KEY}
    out[ARROW_SCHEMA_KEY] = encode_schema(schema)
    return out


def unkept_type(schema: pa.Schema) -> str | None:
    """``"<field>: <type>"`` for the first field that only ``ARROW:schema`` can describe, else None."""
    def walk(t: pa.DataType, where: str) -> str | None:
        if isinstance(t, pa.BaseExtensionType):
            if t.extension_name not in _SELF_DESCRIBED:
                return f"{where}: {t}"
            return None
        if pa.types.is_duration(t):
            return f"{where}: {t}"
        for i in range(t.num_fields):
            found = walk(t.field(i).type, f"{where}.{t.field(i).name}")
            if found:
                return found
        return None

    for f in schema:
        found = walk(f.type, f.name)
        if found:
            return found
    return None


def restore_field(arr: Any, want: pa.Field | None) -> tuple[Any, dict[bytes, bytes] | None]:
    """*arr* (as read from Parquet) given back the type *want* records, and *want*'s metadata.

    Only what pyarrow restores is restored (see :func:`_restore`); anything
    else, or a cast Arrow refuses, keeps the Parquet type.
    """
    if want is None:
        return arr, None
    return _restore(arr, want.type), want.metadata


def _restore(arr: Any, want: pa.DataType) -> Any:
    ours = arr.type
    if ours.equals(want):
        return arr
    if isinstance(want, pa.BaseExtensionType):
        if isinstance(ours, pa.BaseExtensionType):
            return arr
        storage = _restore(arr, want.storage_type)
        if storage.type.equals(want.storage_type):
            return pa.ExtensionArray.from_storage(want, storage)
        return arr
    t = pa.types
    if t.is_dictionary(ours):
        # kept from the file's dictionary pages: the stored index type and ordered
        # flag are given back, the value type stays the one read (as pyarrow does)
        if not t.is_dictionary(want):
            return arr
        target = pa.dictionary(want.index_type, ours.value_type, want.ordered)
        try:
            return arr.cast(target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return arr
    if t.is_struct(ours) and t.is_struct(want) and ours.num_fields == want.num_fields:
        kids = [_restore(arr.field(i), want.field(i).type) for i in range(ours.num_fields)]
        if all(k is arr.field(i) for i, k in enumerate(kids)):
            return arr
        fields = [pa.field(ours.field(i).name, k.type, ours.field(i).nullable, want.field(i).metadata)
                  for i, k in enumerate(kids)]
        return pa.StructArray.from_arrays(kids, fields=fields, mask=_mask(arr))
    if t.is_list(ours) and (t.is_list(want) or t.is_large_list(want)):
        values = _restore(arr.values, want.value_type)
        field = pa.field(ours.value_field.name, values.type, ours.value_field.nullable,
                         want.value_field.metadata)
        if t.is_large_list(want):
            return pa.LargeListArray.from_arrays(arr.offsets.cast(pa.int64()), values,
                                                 type=pa.large_list(field), mask=_mask(arr))
        if values is arr.values:
            return arr
        return pa.ListArray.from_arrays(arr.offsets, values, type=pa.list_(field), mask=_mask(arr))
    if _castable(ours, want):
        try:
            return arr.cast(want)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return arr
    return arr


def _mask(arr: pa.Array) -> Any:
    return arr.is_null() if arr.null_count else None


def _castable(ours: pa.DataType, want: pa.DataType) -> bool:
    """The flat restorations pyarrow makes: zone names, durations, dictionaries, large types."""
    t = pa.types
    if t.is_timestamp(ours) and t.is_timestamp(want):
        # the zone's name: same unit, both adjusted to UTC
        return ours.unit == want.unit and ours.tz is not None and want.tz is not None
    if t.is_dictionary(want):
        return want.value_type.equals(ours) or (t.is_large_string(want.value_type) and t.is_string(ours)) \
            or (t.is_large_binary(want.value_type) and t.is_binary(ours))
    return ((t.is_duration(want) and t.is_int64(ours))
            or (t.is_large_string(want) and t.is_string(ours))
            or (t.is_large_binary(want) and t.is_binary(ours)))
