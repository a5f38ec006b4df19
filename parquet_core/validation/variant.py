"""Data-level rules of shredded Variant columns (VariantShredding.md).

A shredded Variant column is a group (``metadata``, ``value``,
``typed_value``) whose rows must agree with each other: where ``typed_value``
shreds an object's field, ``value`` must not hold it too, and ``value`` must not
be set beside a shredded primitive or array, nor be a non-object beside a
shredded object.  These rules span the leaves of the group, so they are
checked on the assembled rows (one row group at a time), not chunk by chunk
like :mod:`parquet_core.validation.values`.
"""

from __future__ import annotations

from typing import Any

from parquet_core.schema.types import TypeId
from parquet_core.schema.variant_layout import TYPED_VALUE
from parquet_core.validation.context import Checker
from parquet_core.validation.rules import ERROR, rule
from parquet_core.variant.shredding import shredding_conflicts

__all__ = ["check_variant_values"]

_SPEC = "VariantShredding.md#objects"
FIELD_IN_VALUE = rule(
    "variant.shredded-field-in-value", ERROR, _SPEC,
    "the value of a partially shredded object holds no field that typed_value shreds (read anyway, "
    "the typed_value field is used, as the spec allows)")
CONFLICT = rule(
    "variant.value-and-typed-value", ERROR, "VariantShredding.md#value-shredding",
    "value is null beside a shredded primitive or array, and an object beside a shredded object "
    "(such rows cannot be read)")


def check_variant_values(ck: Checker) -> None:
    """Walk the rows of every shredded top-level Variant column, one row group at a time."""
    from parquet_core.file.reader import ParquetFile

    if not any(getattr(getattr(el, "logicalType", None), "VARIANT", None) is not None for el in ck.raw.schema):
        return   # no VARIANT annotation anywhere: nothing to open
    pf = ParquetFile(ck.source, decryption=ck.decryption)
    fields = [f for f in pf.schema_arrow if f.type.id is TypeId.VARIANT
              and any(m.name == TYPED_VALUE for m in f.type.fields)]
    names = [f.name for f in pf.schema_arrow]
    for f in fields:
        if names.count(f.name) != 1:   # an ambiguous name cannot be read by name: the schema rules say so
            continue
        for g in range(pf.num_row_groups):
            with ck.guard(CONFLICT, row_group=g, column=f.name):
                _check_rows(ck, pf, g, f)


def _check_rows(ck: Checker, pf: Any, g: int, field: Any) -> None:
    col = pf.read_row_group(g, columns=[field.name]).column(0)
    rows: list[Any] = []
    for part in getattr(col, "chunks", [col]):
        rows.extend(part.raw_pylist())
    found, bad = shredding_conflicts(rows, field.type, limit=1)
    if not bad:
        return
    readable, text = found[0]
    more = f" ({bad} rows in all)" if bad > 1 else ""
    ck.report(FIELD_IN_VALUE if readable else CONFLICT, f"{text}{more}", row_group=g, column=field.name)
