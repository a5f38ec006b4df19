"""Concatenate tables whose schemas may differ, the way ``pyarrow.concat_tables`` does.

Columns are matched by name.  What happens when the schemas differ depends
on ``promote_options`` (pyarrow's option, with pyarrow's values):

``"none"``
    The schemas must be equal: same names in the same order, same types,
    same nullability.  Anything else raises :class:`ParquetSchemaError`
    naming the first column that differs and both of its types.  Equal
    schemas are matched by position, so a name may repeat (a file's may).
``"default"``
    Columns are united by name, in order of first appearance; a table that
    lacks a column contributes nulls to it.  A ``null``-typed column takes
    the other tables' type.  Any other type difference is refused.
``"permissive"``
    As ``"default"``, and types widen as pyarrow widens them:

    ======================  ==============================================
    types                   result
    ======================  ==============================================
    two signed / unsigned   the wider one
    signed + unsigned       a signed type wide enough for both (int8 +
                            uint8 -> int16), at most int64
    integer + float         a float whose mantissa holds the integer's
                            width (8 bits -> float16, 16 -> float32, else
                            float64), or the float's own width if wider
    float + float           the wider one
    timestamp / time        the finer unit (time zones must agree)
    decimal + decimal       enough integer digits and scale for both
    decimal(p, s) + int     the decimal, when ``p - s`` holds the integer's
                            digits (else refused, as pyarrow refuses)
    string + binary         binary
    list / map / struct     children unified the same way
    ======================  ==============================================

Widening is checked value by value as pyarrow's safe cast does: an int64
or uint64 value beyond +-2**53 does not become a float64, a uint64 above
the int64 maximum does not become an int64, a timestamp that overflows the
finer unit is refused.  Every refusal raises :class:`ParquetSchemaError`.

Deliberate differences from pyarrow 26 (each only ever refuses or marks
nullable, never changes a value):

* the merged field is nullable unless every table has the column, non-null
  (pyarrow keeps ``not null`` from the first table even when another table
  lacks the column, so its result holds nulls in a non-null field);
* decimal + float is refused (pyarrow makes float64, which rounds);
* structs with different member names are refused (pyarrow unites the
  members);
* parquet-only types (json, enum, bson, uuid, int96, geometry...) unify
  only with themselves and ``null``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.types import DataType, Field, Schema, TypeId
from parquet_core.table.arrays import Array, Table
from parquet_core.table.promote import TypeMismatch, common_type

__all__ = ["PROMOTE_OPTIONS", "concat_tables", "unify_schemas"]

_LIST_MAP_IDS = frozenset([TypeId.LIST, TypeId.MAP])

PROMOTE_OPTIONS = ("none", "default", "permissive")

# the largest integer each float holds exactly, as pyarrow's safe int->float cast checks it
_FLOAT_EXACT = {TypeId.FLOAT16: 2**11, TypeId.FLOAT32: 2**24, TypeId.FLOAT64: 2**53}

def concat_tables(tables: Sequence[Table], promote_options: str = "none") -> Table:
    """Concatenate *tables* row-wise, matching columns by name.

    Parameters
    ----------
    tables:
        At least one :class:`Table`.
    promote_options:
        ``"none"``, ``"default"`` or ``"permissive"`` (see the module docstring).

    Returns
    -------
    Table

    Raises
    ------
    ParquetSchemaError
        When the schemas cannot be united under *promote_options*, or a
        value does not survive the widening.
    ValueError
        For an unknown *promote_options* or no tables.
    TypeError
        When an item is not a :class:`Table`.
    """
    if promote_options not in PROMOTE_OPTIONS:
        raise ValueError(f"promote_options must be one of {PROMOTE_OPTIONS}, got {promote_options!r}")
    tables = list(tables)
    if not tables:
        raise ValueError("cannot concatenate no tables")
    for t in tables:
        if not isinstance(t, Table):
            raise TypeError(f"expected parquet_core Tables, got {type(t).__name__}")
    schema = unify_schemas([t.schema for t in tables], promote_options)
    # the first table's key/values, as pyarrow; its ARROW:schema only while it describes the result
    metadata = tables[0].metadata
    if metadata and tables[0].schema != schema:
        metadata = {k: v for k, v in metadata.items() if k != b"ARROW:schema"} or None
    if all(t.schema == schema for t in tables):
        cols = [Array.concat([t.columns[i] for t in tables]) for i in range(len(schema))]
        return Table(schema, cols, sum(t.num_rows for t in tables), metadata=metadata)
    parts = [[_conformed(t, f) for t in tables] for f in schema]
    return Table(schema, [Array.concat(p) for p in parts], sum(t.num_rows for t in tables), metadata=metadata)


def unify_schemas(schemas: Sequence[Schema], promote_options: str = "default") -> Schema:
    """Return the schema that :func:`concat_tables` gives tables of *schemas*.

    Raises
    ------
    ParquetSchemaError
        Naming the first column that cannot be united, and both types.
    """
    first = schemas[0]
    if promote_options == "none":    # equal schemas: columns go by position, names may repeat
        for i, s in enumerate(schemas[1:], 1):
            if s != first:
                raise ParquetSchemaError(_none_message(first, s, i))
        return first
    for s in schemas:
        names = s.names
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise ParquetSchemaError(f"cannot concatenate: column {dup!r} appears twice in one table "
                                     f"(only tables of equal schemas, promote_options='none', "
                                     "are matched by position)")
    permissive = promote_options == "permissive"
    merged: dict[str, Field] = {}
    seen_in: dict[str, int] = {}
    for s in schemas:
        for f in s:
            seen_in[f.name] = seen_in.get(f.name, 0) + 1
            old = merged.get(f.name)
            if old is None:
                merged[f.name] = f
                continue
            try:
                dt = common_type(old.type, f.type, "permissive" if permissive else "default")
            except TypeMismatch as exc:
                raise ParquetSchemaError(
                    f"cannot concatenate column {f.name!r}: types {old.type} and {f.type} do not "
                    f"unify with promote_options={promote_options!r} ({exc})") from None
            merged[f.name] = Field(f.name, dt, old.nullable or f.nullable, old.path)
    out = []
    for name, f in merged.items():
        # a column some table lacks, or a null-typed one, holds nulls: never call it non-null
        nullable = f.nullable or seen_in[name] < len(schemas) or f.type.id is TypeId.NULL \
            or any(g.type.id is TypeId.NULL for s in schemas for g in s if g.name == name)
        out.append(Field(name, f.type, nullable, f.path))
    return Schema(out)


def _none_message(first: Schema, other: Schema, index: int) -> str:
    hint = "; pass promote_options='default' or 'permissive' to unite them"
    a, b = {f.name: f for f in first}, {f.name: f for f in other}
    for name in list(a) + [n for n in b if n not in a]:
        if name not in b:
            return f"table {index} has no column {name!r} ({a[name].type}){hint}"
        if name not in a:
            return f"table {index} has a column {name!r} ({b[name].type}) that table 0 lacks{hint}"
        if a[name] != b[name]:
            fa, fb = a[name], b[name]
            return (f"column {name!r} is {fa.type}{'' if fa.nullable else ' not null'} in table 0 "
                    f"but {fb.type}{'' if fb.nullable else ' not null'} in table {index}{hint}")
    return f"table {index} orders the columns {other.names}, table 0 {first.names}{hint}"


def _conformed(table: Table, field: Field) -> Array:
    """*table*'s column *field.name* as ``field.type``, or nulls if it has none."""
    from parquet_core.table.coerce import cast_array

    n = table.num_rows
    if field.name not in table.schema.names:
        return cast_array(Array(DataType("null"), np.zeros(n, np.int8), np.zeros(n, bool)), field)
    arr = table.column(field.name)
    if arr.type == field.type:
        return arr
    _check_exact_float(arr, field)
    return cast_array(arr, field)


def _check_exact_float(arr: Array, field: Field) -> None:
    """Refuse integers a float target would round, at any depth (pyarrow's safe cast does).

    The nested cast checks integer ranges and timestamp units in every
    child itself; only integer -> float rounds silently there, so that is
    the one check done here, on the leaves of *arr* against *field*'s type.
    """
    found = _first_inexact(arr, field.type)
    if found is not None:
        row, src, dst, value = found
        raise ParquetSchemaError(
            f"column {field.name!r}, row {row}: {src} value {value} is not exactly "
            f"representable as {dst} (limit +-{_FLOAT_EXACT[dst.id]})")


def _first_inexact(arr: Array, dt: DataType) -> tuple[int, DataType, DataType, int] | None:
    """(row of *arr*, source type, target type, value) of the first integer *dt* would round."""
    from parquet_core.table.nested import ListArray, StructArray

    if dt.is_nested:
        if isinstance(arr, StructArray) and dt.id is TypeId.STRUCT:
            have = [f.name for f in arr.type.fields]
            for f in dt.fields:
                if f.name in have:
                    found = _first_inexact(arr.values[have.index(f.name)], f.type)
                    if found is not None:
                        return found
            return None
        if isinstance(arr, ListArray) and dt.id in _LIST_MAP_IDS:
            child, offsets = arr.values, arr.offsets
            lo, hi = int(offsets[0]), int(offsets[-1])
            kids = [(child.slice(lo, hi), dt.fields[0].type)] if dt.id is TypeId.LIST else \
                [(c.slice(lo, hi), f.type) for c, f in zip(child.values, dt.fields)] \
                if isinstance(child, StructArray) else []
            for sub, sub_dt in kids:
                found = _first_inexact(sub, sub_dt)
                if found is not None:
                    row = int(np.searchsorted(offsets, found[0] + lo, side="right")) - 1
                    return (row,) + found[1:]
        return None
    limit = _FLOAT_EXACT.get(dt.id)
    if limit is None or not arr.type.is_integer or not isinstance(arr.values, np.ndarray):
        return None
    v = arr.values
    bad = (v > limit) if v.dtype.kind == "u" else (v > limit) | (v < -limit)
    if arr.validity is not None:
        bad &= arr.validity
    if not bad.any():
        return None
    row = int(np.argmax(bad))
    return row, arr.type, dt, int(v[row])
