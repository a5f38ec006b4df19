"""List, map and struct arrays to pyarrow, built from their buffers (no Python values).

Children are converted first (by the flat converter passed in), and each
parent's Arrow type is made from its children's actual types, so a child
that needed 64-bit offsets (``large_string``) is carried up as it is.  A list
whose child holds 2**31 slots or more becomes a ``large_list``.  A map whose
key field is nullable (Parquet files from some writers) becomes a list of
key/value structs, since Arrow maps cannot hold null keys.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pyarrow as pa

from parquet_core.interop.arrow_metadata import field_id_of
from parquet_core.table.arrays import Array
from parquet_core.table.nested import ListArray, MapArray, StructArray

__all__ = ["nested_to_arrow"]

_INT32_MAX = 2**31 - 1


def _bitmap(validity: np.ndarray | None) -> pa.Buffer | None:
    if validity is None:
        return None
    return pa.py_buffer(np.packbits(validity, bitorder="little"))


def _offsets(offsets: np.ndarray) -> tuple[pa.Buffer, bool]:
    large = int(offsets[-1]) > _INT32_MAX
    dtype = np.int64 if large else np.int32
    return pa.py_buffer(np.ascontiguousarray(offsets, dtype=dtype)), large


def nested_to_arrow(arr: Array, convert: Callable[[Array], pa.Array]) -> pa.Array:
    """Convert a :class:`ListArray`, :class:`MapArray` or :class:`StructArray`.

    *convert* turns any child array (flat or nested) into a ``pyarrow.Array``.
    """
    n = len(arr)
    if isinstance(arr, StructArray):
        kids = [convert(c) for c in arr.values]
        fields = [pa.field(f.name, k.type, nullable=f.nullable) for f, k in zip(arr.type.fields, kids)]
        return pa.Array.from_buffers(pa.struct(fields), n, [_bitmap(arr.validity)], children=kids)
    if not isinstance(arr, ListArray):
        raise TypeError(f"not a nested array: {type(arr).__name__}")
    obuf, large = _offsets(arr.offsets)
    if isinstance(arr, MapArray):
        entries: StructArray = arr.values
        key, value = entries.values
        kf, vf = arr.type.fields
        if not kf.nullable and key.validity is None and not large:
            ka, va = convert(key), convert(value)
            typ = pa.map_(pa.field("key", ka.type, nullable=False),
                          pa.field("value", va.type, nullable=vf.nullable))
            struct = pa.StructArray.from_arrays([ka, va], fields=[typ.key_field, typ.item_field])
            return pa.Array.from_buffers(typ, n, [_bitmap(arr.validity), obuf], children=[struct])
        child = convert(entries)
        field = pa.field("key_value", child.type, nullable=False)
    else:
        child = convert(arr.values)
        ef = arr.type.fields[0]
        field = pa.field(ef.name, child.type, nullable=ef.nullable)
    typ = pa.large_list(field) if large else pa.list_(field)
    return pa.Array.from_buffers(typ, n, [_bitmap(arr.validity), obuf], children=[child])


def _arrow_offsets(arr: pa.Array) -> tuple[np.ndarray, int, int]:
    """The array's list offsets rebased to 0 (int64), and the child range they cover."""
    offs = np.asarray(arr.offsets, dtype=np.int64)
    lo, hi = int(offs[0]), int(offs[-1])
    return offs - lo, lo, hi


def nested_from_arrow(arr: pa.Array, convert: Callable[[pa.Array, str], Array],
                      name: str, validity: np.ndarray | None) -> Array:
    """Convert an Arrow list, large list, fixed-size list, map or struct array.

    *convert* turns a child ``pyarrow.Array`` (flat or nested) into an
    :class:`Array`; *validity* is the array's own mask (``None``: no nulls).
    Child field names become the standard ones (``element``; ``key``,
    ``value``); struct members keep theirs, and every child keeps its
    nullability and its ``PARQUET:field_id`` metadata (as ``field_id``).
    """
    from parquet_core.schema.types import DataType, Field

    t, n = arr.type, len(arr)
    if pa.types.is_struct(t):
        kids = [convert(arr.field(i), f"{name}.{t.field(i).name}") for i in range(t.num_fields)]
        fields = tuple(Field(t.field(i).name, k.type, t.field(i).nullable,
                             field_id=field_id_of(t.field(i))) for i, k in enumerate(kids))
        return StructArray(DataType("struct", fields=fields), kids, n, validity)
    if pa.types.is_fixed_size_list(t):
        size = t.list_size
        offs = np.arange(n + 1, dtype=np.int64) * size
        child = arr.values.slice(arr.offset * size, n * size)
    elif pa.types.is_map(t):
        offs, lo, hi = _arrow_offsets(arr)
        entries = arr.values.slice(lo, hi - lo)
        keys = convert(entries.field(0), f"{name}.key")
        items = convert(entries.field(1), f"{name}.value")
        dt = DataType("map", fields=(
            Field("key", keys.type, False, field_id=field_id_of(t.key_field)),
            Field("value", items.type, t.item_field.nullable, field_id=field_id_of(t.item_field))))
        ent = StructArray(DataType("struct", fields=dt.fields), [keys, items], hi - lo)
        return MapArray(dt, offs, ent, validity)
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        offs, lo, hi = _arrow_offsets(arr)
        child = arr.values.slice(lo, hi - lo)
    else:
        raise TypeError(f"not a nested Arrow type: {t}")
    elem = convert(child, f"{name}.element")
    dt = DataType("list", fields=(Field("element", elem.type, t.value_field.nullable,
                                        field_id=field_id_of(t.value_field)),))
    return ListArray(dt, offs, elem, validity)
