"""Nested columns on the way in: casting nested arrays, and building them from Python values.

:func:`cast_nested` casts a :class:`ListArray`, :class:`MapArray` or
:class:`StructArray` (from a file, from pyarrow) to a nested field's type:
offsets and validity are kept, children are cast one by one with
:func:`parquet_core.table.coerce.cast_array` (exact or refused).  Children
are cast as nullable; whether a required child really holds no null where a
record reaches it is checked when the column is shredded
(:mod:`parquet_core.table.shred`), since a null under a null parent is no
value at all.

:func:`nested_from_pylist` builds a nested array from Python values, guided
by a type or inferring one:

* a ``list`` / ``tuple`` (or 1-D numpy array) is a list; inferred as
  ``list<element type>`` with the element type inferred from every element
  of every list;
* a ``dict`` is a struct (members by name, missing ones null; inferred with
  the members in order of first appearance);
* a map (only with a schema: a dict would infer as a struct) takes a
  ``dict`` or a list of ``(key, value)`` pairs.

Making the child lists is one pass over the Python objects per nesting level
(the edge where Python values come in); the leaves are built by the flat
inference and casts.  An error in a child names the top-level column and row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.types import DataType, Field, TypeId
from parquet_core.table.arrays import Array
from parquet_core.table.infer import array_from_pylist, schema_error
from parquet_core.table.nested import ListArray, MapArray, StructArray

__all__ = ["cast_nested", "nested_from_pylist", "looks_nested", "null_nested"]

_STRUCT_VARIANT_IDS = frozenset([TypeId.STRUCT, TypeId.VARIANT])

_SEQ = (list, tuple, np.ndarray)


def _entries_type(map_type: DataType) -> DataType:
    return DataType("struct", fields=map_type.fields)


def _restate(exc: ParquetSchemaError, name: str, to_row: Callable[[int], int]) -> ParquetSchemaError:
    """The error of a child slot, restated at the parent's row."""
    row = getattr(exc, "row", None)
    detail = getattr(exc, "detail", None) or str(exc)
    return schema_error(name, None if row is None else to_row(row), detail)


def _list_row(offsets: npt.NDArray[np.int64]) -> Callable[[int], int]:
    return lambda k: int(np.searchsorted(offsets, k, side="right")) - 1


def null_nested(dt: DataType, n: int) -> Array:
    """An array of *n* nulls of nested type *dt*."""
    none = np.zeros(n, dtype=bool)
    if dt.id in _STRUCT_VARIANT_IDS:
        kids = [_null_child(f, n) for f in dt.fields]
        return StructArray(dt, kids, n, none)
    offsets = np.zeros(n + 1, dtype=np.int64)
    if dt.id is TypeId.LIST:
        return ListArray(dt, offsets, _null_child(dt.fields[0], 0), none)
    entries = StructArray(_entries_type(dt), [_null_child(f, 0) for f in dt.fields], 0)
    return MapArray(dt, offsets, entries, none)


def _null_child(f: Field, n: int) -> Array:
    if f.type.is_nested:
        return null_nested(f.type, n)
    from parquet_core.table.coerce import null_storage

    return Array(f.type, null_storage(f.type, n, f.name), np.zeros(n, dtype=bool))


def cast_nested(arr: Array, field: Field, *, validate_utf8: bool = True,
                trusted_text: bool = False) -> Array:
    """Return *arr* as nested ``field.type`` (see the module docstring).

    Raises
    ------
    ParquetSchemaError
        When the shapes differ (a list where a struct is expected, struct
        members that do not match) or a child value does not fit.
    """
    from parquet_core.table.coerce import cast_array

    dt, name, n = field.type, field.name, len(arr)
    if dt.id is TypeId.VARIANT:
        from parquet_core.table.variant_values import cast_variant

        return cast_variant(arr, field)
    validity = arr.validity
    if arr.type.id is TypeId.NULL or (validity is not None and n and not validity.any()):
        out = null_nested(dt, n)
    elif not dt.is_nested or not arr.type.is_nested:
        raise schema_error(name, None, f"cannot store {arr.type} values in a {dt} column")
    else:
        def cast(child: Array, f: Field, to_row: Callable[[int], int]) -> Array:
            try:
                return cast_array(child, Field(f"{name}.{f.name}", f.type, True),
                                  validate_utf8=validate_utf8, trusted_text=trusted_text)
            except ParquetSchemaError as exc:
                raise _restate(exc, name, to_row) from None

        if dt.id is TypeId.STRUCT:
            if not isinstance(arr, StructArray):
                raise schema_error(name, None, f"cannot store {arr.type} values in a {dt} column")
            have = [f.name for f in arr.type.fields]
            want = [f.name for f in dt.fields]
            if sorted(have) != sorted(want):
                raise schema_error(name, None, f"struct members {have} do not match {want}")
            kids = [cast(arr.values[have.index(f.name)], f, lambda k: k) for f in dt.fields]
            out = StructArray(dt, kids, n, validity)
        else:
            if not isinstance(arr, ListArray):
                raise schema_error(name, None, f"cannot store {arr.type} values in a {dt} column")
            to_row = _list_row(arr.offsets)
            if dt.id is TypeId.LIST:
                if isinstance(arr, MapArray):
                    raise schema_error(name, None, f"cannot store {arr.type} values in a {dt} column")
                out = ListArray(dt, arr.offsets, cast(arr.values, dt.fields[0], to_row), validity)
            else:
                entries = arr.values
                if not isinstance(entries, StructArray) or len(entries.values) != 2:
                    raise schema_error(name, None, f"cannot store {arr.type} values in a {dt} column")
                kids = [cast(c, f, to_row) for c, f in zip(entries.values, dt.fields)]
                out = MapArray(dt, arr.offsets, StructArray(_entries_type(dt), kids, len(entries)),
                               validity)
    if not field.nullable and out.validity is not None and n and not out.validity.all():
        raise schema_error(name, int(np.argmax(~out.validity)), "null in a non-nullable field")
    return out


def looks_nested(values: list[Any]) -> bool:
    """True when the first non-null value is a list, tuple or dict (or a 1-D ndarray)."""
    for v in values:
        if v is None:
            continue
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            return False  # a named tuple is a value (pc.Interval), not a list
        return isinstance(v, (list, tuple, Mapping)) or (isinstance(v, np.ndarray) and v.ndim == 1)
    return False


def _validity(is_null: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_] | None:
    return ~is_null if is_null.any() else None


def nested_from_pylist(values: list[Any], name: str, dt: DataType | None = None, *,
                       validate_utf8: bool = True) -> Array:
    """Build a nested array from Python values, of type *dt* or inferred.

    Raises
    ------
    ParquetSchemaError
        Naming the column and the top-level row of a value that does not fit.
    """
    from parquet_core.table.coerce import cast_array

    if dt is not None and dt.id is TypeId.VARIANT:
        from parquet_core.table.variant_values import variant_from_pylist

        return variant_from_pylist(values, name, dt)
    n = len(values)
    is_null = np.fromiter((v is None for v in values), dtype=bool, count=n)
    kind = None if dt is None else dt.id
    if kind is None:
        first = next((v for v in values if v is not None), None)
        kind = TypeId.STRUCT if isinstance(first, Mapping) else TypeId.LIST

    def child(vals: list[Any], f_name: str, f_type: DataType | None,
              to_row: Callable[[int], int]) -> Array:
        try:
            if (f_type is not None and f_type.is_nested) or (f_type is None and looks_nested(vals)):
                return nested_from_pylist(vals, f"{name}.{f_name}", f_type, validate_utf8=validate_utf8)
            arr = array_from_pylist(vals, f"{name}.{f_name}",
                                    ints_as_decimal=f_type is not None and f_type.id is TypeId.DECIMAL)
            if f_type is None:
                return arr
            return cast_array(arr, Field(f"{name}.{f_name}", f_type, True),
                              validate_utf8=validate_utf8, trusted_text=True)
        except ParquetSchemaError as exc:
            raise _restate(exc, name, to_row) from None

    def bad(i: int, what: str) -> ParquetSchemaError:
        return schema_error(name, i, f"expected {what}, got {type(values[i]).__name__}")

    if kind is TypeId.STRUCT:
        return _struct_from_pylist(values, name, dt, is_null, child, bad)
    items, offsets = _flatten_level(values, kind, bad)
    to_row = _list_row(offsets)
    if kind is TypeId.LIST:
        f = None if dt is None else dt.fields[0]
        elem = child(items, "element", None if f is None else f.type, to_row)
        ldt = dt or DataType("list", fields=(Field("element", elem.type, True),))
        return ListArray(ldt, offsets, elem, _validity(is_null))
    return _map_from_items(items, offsets, name, dt, is_null, child, to_row)


def _struct_from_pylist(values: list[Any], name: str, dt: DataType | None,
                        is_null: npt.NDArray[np.bool_], child: Callable[..., Array],
                        bad: Callable[[int, str], ParquetSchemaError]) -> Array:
    """A struct level: members from *dt* or, inferred, every key seen in order."""
    n = len(values)
    if dt is not None:
        names = [f.name for f in dt.fields]
    else:
        names = list(dict.fromkeys(k for v in values if isinstance(v, Mapping) for k in v))
    # one pass over the Python objects of this level: each must be checked as a dict with
    # known keys, which no numpy call can do (benchmarks/bench_pylist_ingest.py: 200k
    # struct rows 198 ms against pyarrow's 33 ms)
    for i, v in enumerate(values):
        if v is not None and not isinstance(v, Mapping):
            raise bad(i, "a dict (struct)")
        if v is not None and any(k not in names for k in v):
            extra = next(k for k in v if k not in names)
            raise schema_error(name, i, f"struct has no member {extra!r}")
    types = [None] * len(names) if dt is None else [f.type for f in dt.fields]
    kids = [child([None if v is None else v.get(k) for v in values], k, t, lambda r: r)
            for k, t in zip(names, types)]
    if not kids:
        raise schema_error(name, None, "cannot infer a struct without members")
    sdt = dt or DataType("struct", fields=tuple(Field(k, c.type, True) for k, c in zip(names, kids)))
    return StructArray(sdt, kids, n, _validity(is_null))


def _flatten_level(values: list[Any], kind: TypeId, bad: Callable[[int, str], ParquetSchemaError]
                   ) -> tuple[list[Any], npt.NDArray[np.int64]]:
    """A list or map level: every row's items back to back (map rows as (key, value)
    pairs) and the offsets of each row in them (null rows are empty)."""
    n = len(values)
    items: list[Any] = []
    lengths = np.zeros(n, dtype=np.int64)
    # one pass over the Python objects of this level (their lengths and items are Python
    # attributes; benchmarks/bench_pylist_ingest.py: 200k list rows 79 ms, pyarrow 23 ms)
    for i, v in enumerate(values):
        if v is None:
            continue
        if kind is TypeId.MAP and isinstance(v, Mapping):
            v = list(v.items())
        elif not isinstance(v, _SEQ) or (isinstance(v, np.ndarray) and v.ndim != 1):
            raise bad(i, "a dict or a list of (key, value) pairs (map)" if kind is TypeId.MAP else "a list")
        items.extend(v)
        lengths[i] = len(v)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return items, offsets


def _map_from_items(items: list[Any], offsets: npt.NDArray[np.int64], name: str,
                    dt: DataType | None, is_null: npt.NDArray[np.bool_], child: Callable[..., Array],
                    to_row: Callable[[int], int]) -> Array:
    """A map level from its (key, value) items: keys must not be null."""
    for k, item in enumerate(items):
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise schema_error(name, to_row(k), f"a map entry must be a (key, value) pair, got {item!r}")
    assert dt is not None
    key_f, value_f = dt.fields
    keys = child([kv[0] for kv in items], "key", key_f.type, to_row)
    vals = child([kv[1] for kv in items], "value", value_f.type, to_row)
    if keys.validity is not None and not keys.validity.all():
        raise schema_error(name, to_row(int(np.argmax(~keys.validity))), "a map key is null")
    entries = StructArray(_entries_type(dt), [keys, vals], len(items))
    return MapArray(dt, offsets, entries, _validity(is_null))
