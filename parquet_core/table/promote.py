"""The type-promotion lattice: the common type of two types, under a rule.

:func:`common_type` serves ``concat_tables`` / ``unify_schemas`` (``promote_options``)
and the dataset layer's schema unification (the narrower ``"widen"`` rule).
"""

from __future__ import annotations

from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.types import DataType, Field, TypeId

__all__ = ["RULES", "TypeMismatch", "common_type"]

#: the rules of :func:`common_type`, narrowest first
RULES = ("default", "widen", "permissive")

_TIMESTAMP_TIME_IDS = frozenset([TypeId.TIMESTAMP, TypeId.TIME])
_INT_BITS = {TypeId.INT8: 8, TypeId.INT16: 16, TypeId.INT32: 32, TypeId.INT64: 64,
             TypeId.UINT8: 8, TypeId.UINT16: 16, TypeId.UINT32: 32, TypeId.UINT64: 64}
_UNSIGNED_IDS = frozenset([TypeId.UINT8, TypeId.UINT16, TypeId.UINT32, TypeId.UINT64])
_FLOAT_BITS = {TypeId.FLOAT16: 16, TypeId.FLOAT32: 32, TypeId.FLOAT64: 64}
_UNIT_RANK = {"s": 0, "ms": 1, "us": 2, "ns": 3}
# decimal digits an integer type can need (pyarrow's rule for decimal + integer)
_INT_DIGITS = {TypeId.INT8: 3, TypeId.INT16: 5, TypeId.INT32: 10, TypeId.INT64: 19,
               TypeId.UINT8: 3, TypeId.UINT16: 5, TypeId.UINT32: 10, TypeId.UINT64: 20}
_MAX_DECIMAL_PRECISION = 76


class TypeMismatch(ParquetSchemaError):
    """Two types that do not unify under the rule asked for; the message says why (callers
    name the column and the types around it)."""



# the "widen" rule: only within one of these families
_WIDEN_FAMILIES = (
    frozenset([TypeId.INT8, TypeId.INT16, TypeId.INT32, TypeId.INT64]),
    _UNSIGNED_IDS,
    frozenset([TypeId.FLOAT32, TypeId.FLOAT64]),
)

def common_type(a: DataType, b: DataType, rule: str = "default") -> DataType:
    """The type that holds the values of both *a* and *b* under *rule*, or raise :class:`TypeMismatch`.

    The one type-promotion lattice of the package; every *rule* accepts equal types and
    lets ``null`` take the other type:

    ``"default"``
        nothing else, but list/map/struct children are unified the same way
        (``concat_tables(promote_options="default")``);
    ``"widen"``
        also the wider of two signed integers, of two unsigned ones, of float32 and float64;
        nested types must be equal (the files of one dataset, :mod:`parquet_core.dataset.unify`);
    ``"permissive"``
        pyarrow's permissive promotion, children included (see :mod:`parquet_core.table.concat`).
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, not {rule!r}")
    if a == b:
        return a
    if a.id is TypeId.NULL:
        return b
    if b.id is TypeId.NULL:
        return a
    if a.is_nested or b.is_nested:
        if rule == "widen":
            raise TypeMismatch("nested types must be equal")
        return _unify_nested(a, b, rule)
    if rule == "default":
        raise TypeMismatch("only promote_options='permissive' widens types")
    if rule == "widen" and not any(a.id in family and b.id in family for family in _WIDEN_FAMILIES):
        raise TypeMismatch("only integers of one signedness, or float32 and float64, widen")
    wide = _widen(a, b) or _widen(b, a)
    if wide is None:
        raise TypeMismatch("no lossless common type")
    return wide


def _widen(a: DataType, b: DataType) -> DataType | None:
    """The permissive common type of *a* and *b* for one ordering of the pair, else None."""
    if a.id in _INT_BITS and b.id in _INT_BITS:
        ua, ub = a.id in _UNSIGNED_IDS, b.id in _UNSIGNED_IDS
        wa, wb = _INT_BITS[a.id], _INT_BITS[b.id]
        if ua == ub:
            return a if wa >= wb else b
        if ua:      # let b be the unsigned one
            return None
        return DataType(f"int{min(max(wa, 2 * wb), 64)}")
    if a.id in _INT_BITS and b.id in _FLOAT_BITS:
        need = 16 if _INT_BITS[a.id] <= 8 else 32 if _INT_BITS[a.id] <= 16 else 64
        return DataType(f"float{max(need, _FLOAT_BITS[b.id])}")
    if a.id in _FLOAT_BITS and b.id in _FLOAT_BITS:
        return a if _FLOAT_BITS[a.id] >= _FLOAT_BITS[b.id] else b
    if a.id is b.id and a.id in _TIMESTAMP_TIME_IDS:
        if a.tz != b.tz:
            raise TypeMismatch("one is adjusted to UTC, the other is not")
        return a if _UNIT_RANK[a.unit or "us"] >= _UNIT_RANK[b.unit or "us"] else b
    if a.id is TypeId.DECIMAL and b.id is TypeId.DECIMAL:
        sa, sb = a.scale or 0, b.scale or 0
        scale = max(sa, sb)
        precision = max((a.precision or 0) - sa, (b.precision or 0) - sb) + scale
        if precision > _MAX_DECIMAL_PRECISION:
            raise TypeMismatch(f"the union needs {precision} digits")
        return DataType("decimal", precision=precision, scale=scale)
    if a.id is TypeId.DECIMAL and b.id in _INT_BITS:
        need = _INT_DIGITS[b.id] + (a.scale or 0)
        if (a.precision or 0) < need:
            raise TypeMismatch(f"{b} values need a decimal precision of at least {need}")
        return a
    if a.id is TypeId.STRING and b.id is TypeId.BINARY:
        return b
    return None


def _unify_nested(a: DataType, b: DataType, rule: str) -> DataType:
    if a.id is not b.id:
        raise TypeMismatch(f"{a.name} and {b.name} have different shapes")
    if a.id is TypeId.VARIANT:
        # Two shredding layouts of the same values: the values meet in the unshredded layout
        # (every layout holds every variant value; shredding is storage, not type).
        from parquet_core.schema.variant_layout import variant_type

        return variant_type(None)
    names_a, names_b = [f.name for f in a.fields], [f.name for f in b.fields]
    if a.id is TypeId.STRUCT:
        if sorted(names_a) != sorted(names_b):
            raise TypeMismatch(f"struct members {names_a} and {names_b} differ; parquet_core "
                            "does not merge struct members")
        other = {f.name: f for f in b.fields}
        kids = [(f, other[f.name]) for f in a.fields]
    else:
        kids = list(zip(a.fields, b.fields))
    fields = tuple(Field(fa.name, common_type(fa.type, fb.type, rule), fa.nullable or fb.nullable,
                         fa.path) for fa, fb in kids)
    return DataType(a.name, fields=fields)
