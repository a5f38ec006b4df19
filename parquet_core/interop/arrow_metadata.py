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
import functools
from dataclasses import replace
from typing import Any, Callable, Sequence

import numpy as np
import pyarrow as pa

from parquet_core.schema.types import DataType, Field, TypeId

__all__ = ["ARROW_SCHEMA_KEY", "FIELD_ID_KEY", "encode_schema", "decode_schema", "schema_key_values",
           "unkept_type", "restore_field", "restore_columns", "field_id_of", "with_field_ids",
           "type_with_arrow_ids"]

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
        return _decoded(bytes(encoded))
    except TypeError:       # (not bytes-like)
        return None


@functools.lru_cache(maxsize=32)
def _decoded(encoded: bytes) -> pa.Schema | None:
    """:func:`decode_schema`, remembered: every batch of a file converted to Arrow restores
    its types from the same value (an Arrow schema is immutable, so sharing it is safe)."""
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


def restore_columns(fields: Sequence[Field], arrays: list[Any], metadata: dict[bytes, bytes] | None,
                    as_read: Callable[[int], bool] = lambda i: False) -> tuple[list[Any], pa.Schema]:
    """*arrays* (one per field of *fields*, as read from Parquet) given the types and field
    metadata the footer's ``ARROW:schema`` records, and the schema pyarrow reads them as
    (its metadata: the recorded schema's own, else the footer's keys, as pyarrow chooses).
    ``as_read(i)`` keeps column *i*'s type as read (a dictionary asked for with
    ``read_dictionary``).  Used for data (``Table.to_arrow``) and for schemas alone
    (empty arrays: ``read_schema(...).to_arrow()``)."""
    metadata = metadata or {}
    # the schema of columns that all need nothing restored is a function of this key: the
    # batches of one file are converted with one lookup instead of a field each
    key: tuple[Any, ...] | None = None
    try:
        key = (tuple(metadata.items()),
               tuple((f.name, f.nullable, f.field_id, a.type, as_read(i)) for i, (f, a) in enumerate(zip(fields, arrays))
                     if type(a.type) is pa.DataType and not f.type.is_nested))
    except TypeError:       # (something unhashable in the metadata)
        key = None
    if key is not None and len(key[1]) == len(fields):
        hit = _PLAIN_SCHEMAS.get(key)
        if hit is not None:
            return list(arrays), hit
    else:
        key = None
    original = decode_schema(metadata[ARROW_SCHEMA_KEY]) if ARROW_SCHEMA_KEY in metadata else None
    names = [f.name for f in fields]
    # the recorded fields by position when all are there in order (names may repeat),
    # else by name (get_field_index finds none for a name several fields share)
    in_order = original is not None and original.names == names
    out, arrow_fields = list(arrays), []
    plain = True        # every column took the first branch below
    for i, f in enumerate(fields):
        want = None
        if in_order and original is not None:
            want = original.field(i)
        elif original is not None and original.get_field_index(f.name) >= 0:
            want = original.field(f.name)
        if want is not None and as_read(i):
            want = want.with_type(out[i].type)
        typ = out[i].type
        if type(typ) is pa.DataType and not f.type.is_nested and (want is None or want.type.equals(typ)):
            # a flat column of a plain Arrow type (no children, no dictionary, no extension)
            # that the recorded schema already agrees with: nothing to restore, only its
            # field's metadata (what restore_field and with_field_ids give, without the calls)
            meta = _merged(None if want is None else want.metadata, f.field_id)
            arrow_fields.append(pa.field(f.name, typ, nullable=f.nullable, metadata=meta))
            continue
        plain = False
        out[i], meta = restore_field(out[i], want)
        # pyarrow merges each Parquet field_id into the metadata of its field, at every depth
        out[i], meta = with_field_ids(out[i], meta, f, want)
        arrow_fields.append(pa.field(f.name, out[i].type, nullable=f.nullable, metadata=meta))
    if original is not None:   # pyarrow then keeps the recorded schema's metadata, not the footer's
        kept = original.metadata
    else:
        kept = {k: v for k, v in metadata.items() if k != ARROW_SCHEMA_KEY} or None
    schema = pa.schema(arrow_fields, metadata=kept)
    if plain and key is not None:
        if len(_PLAIN_SCHEMAS) >= 64:
            _PLAIN_SCHEMAS.clear()
        _PLAIN_SCHEMAS[key] = schema
    return out, schema


#: :func:`restore_columns`' schemas of columns that needed nothing restored, by the key
#: that decides them (footer key/values; each field's name, nullability, id, Arrow type
#: and ``as_read``)
_PLAIN_SCHEMAS: dict[tuple[Any, ...], pa.Schema] = {}


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
    if t.is_map(ours) and t.is_map(want):
        return _restore_map(arr, want)
    if t.is_list(ours) and t.is_fixed_size_list(want):
        return _restore_fixed_size(arr, want)
    if t.is_list(ours) and (t.is_list_view(want) or t.is_large_list_view(want)):
        return _restore_list_view(arr, want)
    if t.is_dictionary(want) and _castable(ours, want):
        # (read without its dictionary pages) the value type stays the one read, as pyarrow's
        want = pa.dictionary(want.index_type, ours, want.ordered)
    elif t.is_timestamp(ours) and t.is_timestamp(want) and ours.tz is not None and want.tz is not None:
        # the zone's name only: the unit stays the one read (seconds are stored as ms)
        want = pa.timestamp(ours.unit, want.tz)
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


def _restore_fixed_size(arr: pa.ListArray, want: pa.FixedSizeListType) -> Any:
    """A list array given back as the fixed-size list *want* records (its values restored too);
    kept as read when some non-null list has another size."""
    size = want.list_size
    offsets = arr.offsets.to_numpy().astype(np.int64)
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    if np.any(np.diff(offsets)[valid] != size):
        return arr
    # each list's values in place, null slots for null lists (Arrow's own list -> fixed-size
    # cast leaves those slots unset); taken before restoring (view types have no take)
    where = (offsets[:-1, None] + np.arange(size, dtype=np.int64)).reshape(-1)
    taken = arr.values.take(pa.array(where, mask=np.repeat(~valid, size)))
    values = _restore(taken, want.value_type)
    field = pa.field(arr.type.value_field.name, values.type, arr.type.value_field.nullable,
                     want.value_field.metadata)
    return pa.FixedSizeListArray.from_arrays(values, type=pa.list_(field, size), mask=_mask(arr))


def _restore_list_view(arr: pa.ListArray, want: pa.DataType) -> Any:
    """A list array given back as the list view *want* records (each list's offset and size)."""
    values = _restore(arr.values, want.value_type)
    field = pa.field(arr.type.value_field.name, values.type, arr.type.value_field.nullable,
                     want.value_field.metadata)
    offsets = arr.offsets.to_numpy().astype(np.int64)
    large = pa.types.is_large_list_view(want)
    index = pa.int64() if large else pa.int32()
    starts, sizes = pa.array(offsets[:-1], index), pa.array(np.diff(offsets), index)
    if large:
        return pa.LargeListViewArray.from_arrays(starts, sizes, values, pa.large_list_view(field),
                                                 mask=_mask(arr))
    return pa.ListViewArray.from_arrays(starts, sizes, values, pa.list_view(field), mask=_mask(arr))


def _restore_map(arr: pa.MapArray, want: pa.MapType) -> Any:
    """A map's keys and items restored one by one (zones, durations, extension types, dictionaries...),
    and the ``keys_sorted`` flag, as pyarrow restores them inside maps."""
    ours = arr.type
    # the whole entries child (``values`` ignores a slice), which the offsets index into
    entries = arr.values
    old_keys, old_items = entries.field(0), entries.field(1)
    keys, items = _restore(old_keys, want.key_type), _restore(old_items, want.item_type)
    if keys is old_keys and items is old_items and ours.keys_sorted == want.keys_sorted:
        return arr
    typ = pa.map_(pa.field(ours.key_field.name, keys.type, False, want.key_field.metadata),
                  pa.field(ours.item_field.name, items.type, ours.item_field.nullable,
                           want.item_field.metadata), want.keys_sorted)
    struct = pa.StructArray.from_arrays([keys, items], fields=[typ.key_field, typ.item_field])
    # the same validity and offsets buffers (and slice offset), new children
    validity, offsets = arr.buffers()[:2]
    return pa.Array.from_buffers(typ, len(arr), [validity, offsets], offset=arr.offset,
                                 children=[struct])


def _mask(arr: pa.Array) -> Any:
    return arr.is_null() if arr.null_count else None


def _castable(ours: pa.DataType, want: pa.DataType) -> bool:
    """The flat restorations pyarrow makes: zone names, durations, dictionaries, large and view
    types, narrow decimals."""
    t = pa.types
    if t.is_timestamp(ours) and t.is_timestamp(want):
        # the zone's name: same unit, both adjusted to UTC
        return ours.unit == want.unit and ours.tz is not None and want.tz is not None
    if t.is_decimal(ours) and t.is_decimal(want):
        # decimal32/64 are read as decimal128 of the same precision and scale
        return ours.precision == want.precision and ours.scale == want.scale
    if t.is_dictionary(want):
        return want.value_type.equals(ours) or (t.is_large_string(want.value_type) and t.is_string(ours)) \
            or (t.is_large_binary(want.value_type) and t.is_binary(ours))
    return ((t.is_duration(want) and t.is_int64(ours))
            or (t.is_large_string(want) and t.is_string(ours))
            or (t.is_large_binary(want) and t.is_binary(ours))
            or (t.is_string_view(want) and (t.is_string(ours) or t.is_large_string(ours)))
            or (t.is_binary_view(want) and (t.is_binary(ours) or t.is_large_binary(ours))))


def field_id_of(af: pa.Field) -> int | None:
    """The field's ``PARQUET:field_id`` metadata as an int (None when absent or not a number)."""
    raw = (af.metadata or {}).get(FIELD_ID_KEY)
    try:
        return None if raw is None else int(raw)
    except ValueError:
        return None


def type_with_arrow_ids(dt: DataType, at: pa.DataType) -> DataType:
    """*dt* (converted from Arrow type *at*) with the ``PARQUET:field_id`` of *at*'s child fields.

    A table's schema can hold nested field metadata that its columns' own
    types lack (``pa.table(..., schema=...)`` keeps map key and item metadata
    only in the schema), so the ids are read from the schema's type.
    """
    if not dt.is_nested or isinstance(at, pa.BaseExtensionType) or pa.types.is_dictionary(at):
        return dt
    is_ = pa.types
    if dt.id is TypeId.STRUCT and is_.is_struct(at) and at.num_fields == len(dt.fields):
        pairs = [(f, at.field(i)) for i, f in enumerate(dt.fields)]
    elif dt.id is TypeId.MAP and is_.is_map(at):
        pairs = list(zip(dt.fields, (at.key_field, at.item_field)))
    elif dt.id is TypeId.LIST and (is_.is_list(at) or is_.is_large_list(at) or is_.is_fixed_size_list(at)):
        pairs = [(dt.fields[0], at.value_field)]
    else:
        return dt
    fields = tuple(Field(f.name, type_with_arrow_ids(f.type, af.type), f.nullable, f.path,
                         field_id_of(af)) for f, af in pairs)
    return replace(dt, fields=fields)


def with_field_ids(arr: Any, meta: dict[bytes, bytes] | None, field: Field,
                   want: pa.Field | None) -> tuple[Any, dict[bytes, bytes] | None]:
    """*arr* and its field metadata *meta* with the Parquet field ids of *field* merged in.

    As pyarrow's reader does, at every depth: a child field's metadata is
    what ``ARROW:schema`` (*want*) records for it, with ``PARQUET:field_id``
    first when the Parquet node of that field has an id.  Only the Arrow
    type's field metadata changes, so the array is re-typed without a copy.
    """
    meta = _merged(meta, field.field_id)
    typ = arr.type
    new = _with_ids(typ, None if want is None else want.type, field.type)
    if new.equals(typ, check_metadata=True):
        return arr, meta
    if isinstance(arr, pa.ChunkedArray):
        return pa.chunked_array([c.view(new) for c in arr.chunks], type=new), meta
    return arr.view(new), meta


def _merged(meta: dict[bytes, bytes] | None, field_id: int | None) -> dict[bytes, bytes] | None:
    if field_id is None:
        return meta
    rest = {k: v for k, v in (meta or {}).items() if k != FIELD_ID_KEY}
    return {FIELD_ID_KEY: str(field_id).encode(), **rest}


def _with_ids(t: pa.DataType, want: pa.DataType | None, dt: DataType | None) -> pa.DataType:
    """*t* with each child field's metadata taken from *want* and its id from *dt* (recursively)."""
    if t.num_fields == 0 or isinstance(t, pa.BaseExtensionType) or pa.types.is_dictionary(t):
        return t      # no child fields (most columns: a quick exit), an extension, a dictionary
    if isinstance(want, pa.BaseExtensionType):
        want = want.storage_type
    is_ = pa.types
    if is_.is_struct(t):
        n = t.num_fields
        wants = [want.field(i) for i in range(n)] if want is not None and is_.is_struct(want) \
            and want.num_fields == n else [None] * n
        dts = list(dt.fields) if dt is not None and dt.id is TypeId.STRUCT and len(dt.fields) == n \
            else [None] * n
        return pa.struct([_child(t.field(i), wants[i], dts[i]) for i in range(n)])
    if is_.is_map(t):
        wk, wi = (want.key_field, want.item_field) if want is not None and is_.is_map(want) else (None, None)
        dk, di = dt.fields if dt is not None and dt.id is TypeId.MAP else (None, None)
        return pa.map_(_child(t.key_field, wk, dk), _child(t.item_field, wi, di), t.keys_sorted)
    if is_.is_list(t) or is_.is_large_list(t) or is_.is_fixed_size_list(t):
        lists = (is_.is_list, is_.is_large_list, is_.is_fixed_size_list)
        w = want.value_field if want is not None and any(f(want) for f in lists) else None
        d: Field | None = None
        if dt is not None and dt.id is TypeId.LIST:
            d = dt.fields[0]
        elif dt is not None and dt.id is TypeId.MAP:   # a map with nullable keys shows as list<struct>
            d = Field("key_value", DataType("struct", fields=dt.fields), False)
        vf = _child(t.value_field, w, d)
        if is_.is_fixed_size_list(t):
            return pa.list_(vf, t.list_size)
        return pa.large_list(vf) if is_.is_large_list(t) else pa.list_(vf)
    return t


def _child(af: pa.Field, want: pa.Field | None, dt: Field | None) -> pa.Field:
    typ = _with_ids(af.type, None if want is None else want.type, None if dt is None else dt.type)
    meta = af.metadata if want is None else want.metadata
    meta = _merged(dict(meta) if meta else None, None if dt is None else dt.field_id)
    return pa.field(af.name, typ, af.nullable, meta)
