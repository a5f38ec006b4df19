"""Kartothek's DNF predicates as parquet_core expressions.

``[[(col, op, value), ...], ...]`` is an OR of ANDs; ops are ``== != < <=
> >= in``.  Nulls follow Kartothek's (pandas') row semantics, which
parquet_core's SQL comparisons do not: ``== None`` (or NaN) selects nulls,
``!= v`` keeps nulls, ``in`` a list holding None also selects nulls.  NaN
counts as null.  Unlike Kartothek, the same expression prunes partitions,
row groups and rows, so pruning never drops a row the row filter keeps
(Kartothek's bug B9), and a literal is converted once per column type: an
int against a float column works (Kartothek raises, B8), a date or
timestamp may be given as ISO text (Kartothek silently matches nothing via
partition keys, B8), ordered comparisons on text with nulls work (Kartothek
raises TypeError, B10).
"""

from __future__ import annotations

import datetime as _dt
import math
from functools import reduce
from typing import Any, Iterable

import parquet_core as pc
from parquet_core_integrations.kartothek.errors import PredicateError
from parquet_core_integrations.kartothek.schema import FLOAT_TYPES

__all__ = ["Literal", "parse_predicates", "literal_expression", "conjunction_expression",
           "may_match_null", "predicate_columns"]

Literal = tuple[str, str, Any]
_OPS = {"==", "!=", "<", "<=", ">", ">=", "in"}


def _is_null(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def parse_predicates(predicates: Any) -> list[list[Literal]] | None:
    """Validate the DNF shape; ``None`` means no predicate."""
    if predicates is None:
        return None
    if not isinstance(predicates, (list, tuple)) or not predicates:
        raise PredicateError(f"predicates must be a non-empty list of conjunctions, got {predicates!r}")
    out = []
    for conj in predicates:
        if not isinstance(conj, (list, tuple)) or not conj:
            raise PredicateError(f"each conjunction must be a non-empty list of (column, op, value), got {conj!r}")
        lits = []
        for lit in conj:
            if not isinstance(lit, (list, tuple)) or len(lit) != 3 or not isinstance(lit[0], str):
                raise PredicateError(f"a literal is (column, op, value), got {lit!r}")
            col, op, value = lit
            if op not in _OPS:
                raise PredicateError(f"operator {op!r} in {tuple(lit)!r} is not one of {sorted(_OPS)}")
            if op == "in":
                if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
                    raise PredicateError(f"'in' needs a list of values, got {value!r}")
                value = list(value)
            elif _is_null(value) and op not in ("==", "!="):
                raise PredicateError(f"a null value can only be compared with == or !=: {tuple(lit)!r}")
            lits.append((col, op, value))
        out.append(lits)
    return out


def predicate_columns(predicates: list[list[Literal]] | None) -> set[str]:
    return {lit[0] for conj in predicates or [] for lit in conj}


def may_match_null(lit: Literal) -> bool:
    """True when the literal selects null rows (so an index of non-null values cannot prune it)."""
    _, op, value = lit
    if op == "in":
        return any(_is_null(v) for v in value)
    return op == "!=" or _is_null(value)


def _convert(value: Any, dt: pc.DataType, where: str) -> Any:
    """Accept ISO text for dates and timestamps; naive datetimes are UTC for UTC columns."""
    try:
        if dt.id is pc.TypeId.DATE and isinstance(value, str):
            return _dt.date.fromisoformat(value)
        if dt.id is pc.TypeId.TIMESTAMP:
            if isinstance(value, str):
                value = _dt.datetime.fromisoformat(value)
            elif type(value).__name__ == "Timestamp" and hasattr(value, "to_pydatetime"):
                value = value.to_pydatetime()
            if dt.tz and isinstance(value, _dt.datetime) and value.tzinfo is None:
                value = value.replace(tzinfo=_dt.timezone.utc)
    except ValueError as exc:
        raise PredicateError(f"{where}: {value!r} is not a {dt}: {exc}") from exc
    return value


def literal_expression(lit: Literal, dt: pc.DataType) -> pc.Expression:
    """The expression selecting the rows Kartothek's row filter keeps for *lit* on a *dt* column."""
    col, op, value = lit
    c = pc.col(col)
    floating = dt.id in FLOAT_TYPES
    where = f"predicate {lit!r}"
    if op == "in":
        nulls = any(_is_null(v) for v in value)
        vals = [_convert(v, dt, where) for v in value if not _is_null(v)]
        if floating and nulls:
            vals.append(float("nan"))
        expr = c.isin(vals)
        return expr | c.is_null() if nulls else expr
    if _is_null(value):
        null = c.is_null() | c.isin([float("nan")]) if floating else c.is_null()
        return null if op == "==" else ~null
    value = _convert(value, dt, where)
    expr = {"==": c == value, "!=": c != value, "<": c < value, "<=": c <= value,
            ">": c > value, ">=": c >= value}[op]
    return expr | c.is_null() if op == "!=" else expr


def conjunction_expression(lits: list[Literal], types: dict[str, pc.DataType]) -> pc.Expression | None:
    """AND of the literals (``None`` for an empty conjunction, which keeps every row)."""
    if not lits:
        return None
    for lit in lits:
        if lit[0] not in types:
            raise PredicateError(f"predicate {lit!r} names column {lit[0]!r}, which the table does not have "
                                 f"(columns: {sorted(types)})")
    return reduce(lambda a, b: a & b, (literal_expression(lit, types[lit[0]]) for lit in lits))
