"""Convert a validated table to the types its file stores (see ``schema.file_types``).

The conversions are the writer's format options at work: ``uint32`` to
``int64`` (version 1.0, always exact) and timestamp unit changes
(``coerce_timestamps``, nanoseconds before version 2.6). A unit change that
would drop nonzero digits is refused with :class:`ParquetSchemaError` naming
the column and the first such row, unless the caller allows truncation; then
values are cut toward zero, as pyarrow 26 does (-1001 ns becomes -1 us).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parquet_core.errors import ParquetSchemaError, add_note
from parquet_core.schema.types import DataType, Field, Schema, TypeId
from parquet_core.table.arrays import Array, Table
from parquet_core.table.coerce import cast_array
from parquet_core.table.nested import ListArray, MapArray, StructArray

__all__ = ["to_file_table"]

_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def to_file_table(table: Table, schema: Schema, *, allow_truncated_timestamps: bool = False,
                  hint: str | None = None) -> Table:
    """Return *table* with names and types of *schema* (same columns, in order).

    Parameters
    ----------
    table:
        Values already validated against the writer's input schema.
    schema:
        The file schema (:func:`parquet_core.schema.file_types.file_schema`).
    allow_truncated_timestamps:
        Cut timestamps toward zero when their unit gets coarser, instead of
        refusing values with sub-unit digits.
    hint:
        Added as a note to the error of a refused lossy change (what option to use).

    Raises
    ------
    ParquetSchemaError
        A timestamp loses digits in the new unit (and truncation is not allowed).
    """
    columns = []
    for src, dst, col in zip(table.schema, schema, table.columns):
        if src.type != dst.type:
            if allow_truncated_timestamps:
                col = _truncate(col, dst.type)
            try:
                col = cast_array(col, Field(src.name, dst.type, src.nullable), validate_utf8=False,
                                 trusted_text=True)
            except ParquetSchemaError as exc:
                if hint:
                    add_note(exc, hint)
                raise
        columns.append(col)
    return Table(schema, columns, table.num_rows)


def _truncate(arr: Array, target: DataType) -> Array:
    """Return *arr* with timestamps cut to multiples of *target*'s units (any depth); types kept."""
    if isinstance(arr, StructArray):
        kids = [_truncate(c, f.type) for c, f in zip(arr.values, target.fields)]
        return StructArray(arr.type, kids, len(arr), arr.validity)
    if isinstance(arr, MapArray):
        entries: Any = arr.values
        kids = [_truncate(c, f.type) for c, f in zip(entries.values, target.fields)]
        return MapArray(arr.type, arr.offsets, StructArray(entries.type, kids, len(entries)), arr.validity)
    if isinstance(arr, ListArray):
        return ListArray(arr.type, arr.offsets, _truncate(arr.values, target.fields[0].type), arr.validity)
    src = arr.type
    if src.id is not TypeId.TIMESTAMP or target.id is not TypeId.TIMESTAMP \
            or src.unit is None or target.unit is None:
        return arr
    factor = _PER_SECOND[src.unit] // _PER_SECOND[target.unit]
    if factor <= 1:
        return arr
    values = np.asarray(arr.values, dtype=np.int64)
    # np.fmod keeps the dividend's sign, so this rounds toward zero like Arrow's truncating cast
    return Array(src, values - np.fmod(values, factor), arr.validity)
