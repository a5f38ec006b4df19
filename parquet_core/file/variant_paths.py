"""Filters on fields inside VARIANT columns: ``pc.col("v").field("event_type") == "signup"``.

A filter column ``"v.a.b"`` whose first part is a variant column names the
object path ``a.b`` inside each value.  Two uses:

* **pruning** (VariantShredding.md, "Data Skipping"): when the path is
  shredded down to a primitive ``typed_value`` leaf
  (``v.typed_value.a.typed_value.b.typed_value``), that leaf's statistics
  bound the field in a row group *if* the field's ``value`` leaf is all null
  there (every present value then has the shredded type).  Otherwise there
  are no bounds and nothing is pruned.
* **row filtering**: the variant column is read and decoded, and the field
  extracted per row.  A comparison needs one type per column, so only the
  values of the kind the filter compares with (string, number, bool,
  bytes, date, aware or naive datetime) are kept; a value of another kind
  (``5`` where strings are compared) or a missing field is null and never
  matches (type-strict, as Variant comparisons are).

Extraction is per value, as decoding is (each row may have another shape).
"""

from __future__ import annotations

import datetime as _dt
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from parquet_core.metadata.statistics import decode_stat_storage
from parquet_core.predicate import Bounds
from parquet_core.schema.nested import Shape, ShapeKind
from parquet_core.schema.types import DataType, TypeId
from parquet_core.table.arrays import Array
from parquet_core.table.coerce import null_storage
from parquet_core.table.infer import array_from_pylist

if TYPE_CHECKING:
    from parquet_core.file.columns import FileColumns

__all__ = ["split_variant_path", "variant_bounds", "variant_field_array"]


def split_variant_path(shapes: Mapping[str, Any], name: str) -> tuple[str, tuple[str, ...]] | None:
    """``(column, field path)`` when *name* is a path into a variant column, else None."""
    top, dot, rest = name.partition(".")
    if not dot:
        return None
    shape = shapes.get(top)
    if not isinstance(shape, Shape) or shape.data_type.id is not TypeId.VARIANT:
        return None
    return top, tuple(rest.split("."))


def _child(shape: Shape, name: str) -> Shape | None:
    return next((c for c in shape.children if c.name == name), None)


def _shredded_leaves(shape: Shape, path: tuple[str, ...]) -> tuple[Shape, Shape | None] | None:
    """The ``typed_value`` leaf and ``value`` leaf of the field at *path*, if shredded that far."""
    node: Shape | None = shape
    for part in path:
        typed = _child(node, "typed_value") if node is not None else None
        if typed is None or typed.kind is not ShapeKind.STRUCT:
            return None
        node = _child(typed, part)
        if node is None:
            return None
    leaf = _child(node, "typed_value") if node is not None else None
    if leaf is None or leaf.kind is not ShapeKind.LEAF or node is None:
        return None
    return leaf, _child(node, "value")


def variant_bounds(pf: FileColumns, rg: int, name: str, expr: Any) -> Bounds | None:
    """Statistics bounds of a shredded variant field in row group *rg* (module docstring).

    Only when every literal *expr* compares the field with is of the
    shredded type's kind: "comparisons with values of other types are not
    necessarily valid and data should not be skipped" (the spec).
    """
    split = split_variant_path(pf.shapes, name)
    if split is None:
        return None
    found = _shredded_leaves(pf.shapes[split[0]], split[1])
    if found is None:
        return None
    leaf, value = found
    kinds = {_kind(lit) for lit in _literals(expr, name)}
    if not kinds or kinds != {_kind_of_type(leaf.data_type.id)}:
        return None
    group = pf.metadata.row_group(rg)
    if value is not None:
        vstats = group.column(value.column).statistics
        if vstats is None or vstats.null_count is None or \
                vstats.null_count != group.column(value.column).num_values:
            return None       # some values are stored untyped: the typed statistics do not bound them
    chunk = group.column(leaf.column)
    stats = chunk.statistics
    if stats is None or not stats.has_min_max:
        return None
    desc = chunk.descriptor
    if stats.min_raw is None or stats.max_raw is None:
        return None
    lo = decode_stat_storage(stats.min_raw, desc)
    hi = decode_stat_storage(stats.max_raw, desc)
    # null counts of the leaf count missing fields and non-objects too: not given
    return Bounds(desc.data_type, lo, hi, None, None)


def _kind(v: Any) -> str | None:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float, Decimal)):
        return "number"
    if isinstance(v, str):
        return "str"
    if isinstance(v, bytes):
        return "bytes"
    if isinstance(v, _dt.datetime):
        return "aware" if v.tzinfo is not None else "naive"
    if isinstance(v, _dt.date):
        return "date"
    return None


def _extract(v: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(v, dict):
            return None
        v = v.get(part)
    return v


def _literals(expr: Any, name: str) -> list[Any]:
    """The literals *expr* compares column *name* with."""
    if getattr(expr, "column", None) == name:
        if hasattr(expr, "value"):
            return [expr.value]
        if hasattr(expr, "prefix"):
            return [expr.prefix]
        return [v for v in getattr(expr, "values", ()) if v is not None]
    kids = getattr(expr, "children", None) or ([expr.child] if hasattr(expr, "child") else [])
    return [lit for k in kids for lit in _literals(k, name)]


_NULL_TYPES = {"bool": "bool", "number": "float64", "str": "string", "bytes": "binary", "date": "date"}


def variant_field_array(pf: FileColumns, column: Array, name: str, expr: Any) -> Array:
    """The values of variant field *name* (``"v.a.b"``) in the variant *column*.

    Only values of the kind *expr* compares the field with are kept (module
    docstring); the rest are null.
    """
    split = split_variant_path(pf.shapes, name)
    assert split is not None
    values = [_extract(v, split[1]) for v in column.to_pylist()]
    want = next((k for k in map(_kind, _literals(expr, name)) if k is not None), None)
    kept = [v if want is not None and _kind(v) == want else None for v in values]
    if want == "number":
        nums = [v for v in kept if v is not None]
        if not all(isinstance(v, int) and -(2 ** 63) <= v < 2 ** 63 for v in nums):
            kept = [None if v is None else float(v) for v in kept]
    if all(v is None for v in kept):
        typ = {"aware": pc_timestamp(True), "naive": pc_timestamp(False)}.get(want or "") \
            or DataType(_NULL_TYPES.get(want or "", "null"))
        return Array(typ, null_storage(typ, len(kept), name), np.zeros(len(kept), dtype=bool))
    return array_from_pylist(kept, name)


def pc_timestamp(utc: bool) -> DataType:
    return DataType("timestamp", unit="us", tz="UTC" if utc else None)


#: The literal kind each shredded type compares with (types not here never prune).
_LITERAL_KIND = {TypeId.INT8: "number", TypeId.INT16: "number", TypeId.INT32: "number",
                 TypeId.INT64: "number", TypeId.FLOAT32: "number", TypeId.FLOAT64: "number",
                 TypeId.DECIMAL: "number", TypeId.STRING: "str", TypeId.BOOL: "bool",
                 TypeId.BINARY: "bytes", TypeId.DATE: "date"}


def _kind_of_type(type_id: TypeId) -> str | None:
    return _LITERAL_KIND.get(type_id)
