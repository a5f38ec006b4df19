"""Variant columns on the way in: Python values and other arrays become a variant group array.

A variant column is stored as its group (see
:mod:`parquet_core.schema.variant_layout`); this module builds that
:class:`StructArray` from Python values (each encoded, and split over
``typed_value`` when the layout is shredded, by
:func:`parquet_core.variant.shredding.shred_row`), or from another array:

* a variant array of the same layout is kept as it is;
* a variant array of another layout (or a plain struct that is a valid
  variant group, as pyarrow gives it back) is decoded and re-shredded;
* any other array is taken as its Python values (a string column becomes
  Variant strings, a struct column Variant objects...).

Encoding is one Python walk per value: Variant values are self-describing,
so there is no column-wide layout to vectorise over.
"""

from __future__ import annotations

from typing import Any, Sequence

from parquet_core.schema.types import DataType, Field, TypeId
from parquet_core.schema.variant_layout import check_layout
from parquet_core.table.arrays import Array
from parquet_core.table.infer import schema_error
from parquet_core.table.nested import StructArray
from parquet_core.variant.shredding import shred_row, unshred_rows

__all__ = ["variant_from_pylist", "cast_variant"]


def variant_from_pylist(values: Sequence[Any], name: str, dt: DataType) -> StructArray:
    """Encode Python values (``None`` is SQL NULL) into a variant array of layout *dt*.

    Raises
    ------
    ParquetSchemaError
        Naming the column and row of a value Variant cannot hold.
    """
    from parquet_core.table.ingest_nested import nested_from_pylist

    rows = []
    for i, v in enumerate(values):
        try:
            rows.append(shred_row(v, dt))
        except (TypeError, ValueError) as exc:
            raise schema_error(name, i, f"cannot store as a Variant: {exc}") from None
    raw = nested_from_pylist(rows, name, DataType("struct", fields=dt.fields))
    return StructArray(dt, raw.values, len(rows), raw.validity)


def _as_variant_layout(arr: Array) -> DataType | None:
    if not isinstance(arr, StructArray):
        return None
    if arr.type.id is TypeId.VARIANT:
        return arr.type
    candidate = DataType("variant", fields=arr.type.fields)
    try:
        check_layout(candidate)
    except ValueError:
        return None
    return candidate


def cast_variant(arr: Array, field: Field) -> StructArray:
    """Return *arr* as a variant array of layout ``field.type`` (module docstring)."""
    dt = field.type
    layout = _as_variant_layout(arr)
    if layout is not None and isinstance(arr, StructArray):
        if layout == dt:
            return arr if arr.type == dt else StructArray(dt, arr.values, len(arr), arr.validity)
        values = unshred_rows(arr.raw_pylist(), layout, field.name)
    else:
        values = arr.to_pylist()
    return variant_from_pylist(values, field.name, dt)
