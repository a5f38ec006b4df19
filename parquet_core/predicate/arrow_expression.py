"""``filters=`` given as a ``pyarrow.compute.Expression``: its tree (read in
:mod:`parquet_core.interop.arrow_filter`) as our :class:`Expression`.

Translated: the comparisons (a field against a literal, either side), ``&``
``|`` ``~`` (pyarrow's Kleene ``and_kleene`` / ``or_kleene`` / ``invert``, whose
null logic is ours), ``is_null`` (``nan_is_null`` too), ``is_valid``,
``is_nan``, ``isin`` (null matching as pyarrow's default) and
``starts_with``.  Anything else (arithmetic, casts, non-Kleene ``and``, two
fields compared) raises UnsupportedFeatureError naming it: a filter is never
approximated.
"""

from __future__ import annotations

from typing import Any

from parquet_core.errors import UnsupportedFeatureError
from parquet_core.interop.arrow_filter import arrow_expression_tree
from parquet_core.predicate.expr import And, Comparison, Expression, IsIn, IsNan, IsNull, Not, Or, StartsWith

__all__ = ["from_arrow_expression"]

_COMPARE = {"equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
            "greater_equal": ">="}
_MIRROR = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_MATCH, _SKIP = 0, 1   # SetLookupOptions.null_matching_behavior


def from_arrow_expression(expr: Any) -> Expression:
    """Our predicate for a pyarrow expression (see the module)."""
    return _build(arrow_expression_tree(expr), str(expr))


def _refuse(shown: str, why: str) -> None:
    raise UnsupportedFeatureError(f"filters: cannot translate the pyarrow expression {shown}: {why}; "
                                  f"pass a DNF list or a pc.col() expression")


def _field(node: Any, shown: str, function: str) -> str:
    if node[0] != "field":
        _refuse(shown, f"{function} needs a column as its argument")
    return node[1]


def _build(node: Any, shown: str) -> Expression:
    if node[0] != "call":
        _refuse(shown, "a filter must be a boolean condition, not a bare column or value")
    _, name, args, options = node
    opts = options or {}
    if name in ("and_kleene", "or_kleene"):
        kids = [_build(a, shown) for a in args]
        return And(*kids) if name == "and_kleene" else Or(*kids)
    if name == "invert" and len(args) == 1:
        return Not(_build(args[0], shown))
    if name in _COMPARE and len(args) == 2:
        (k0, v0), (k1, v1) = args[0][:2], args[1][:2]
        if k0 == "field" and k1 == "literal":
            return Comparison(v0, _COMPARE[name], v1)
        if k0 == "literal" and k1 == "field":
            return Comparison(v1, _MIRROR[_COMPARE[name]], v0)
        _refuse(shown, f"{name} compares a column with a literal value only")
    if name == "is_null" and len(args) == 1:
        column = _field(args[0], shown, name)
        return IsNull(column) | IsNan(column) if opts.get("nan_is_null") else IsNull(column)
    if name == "is_valid" and len(args) == 1:
        return IsNull(_field(args[0], shown, name), negated=True)
    if name == "is_nan" and len(args) == 1:
        return IsNan(_field(args[0], shown, name))
    if name == "is_in" and len(args) == 1:
        values = list(opts.get("value_set") or [])
        behaviour = opts.get("null_matching_behavior", _MATCH)
        if opts.get("skip_nulls") or behaviour not in (_MATCH, _SKIP) or (behaviour == _SKIP and None in values):
            _refuse(shown, "is_in with a null_matching_behavior other than MATCH")
        return IsIn(_field(args[0], shown, name), values)
    if name == "starts_with" and len(args) == 1 and not opts.get("ignore_case"):
        return StartsWith(_field(args[0], shown, name), opts.get("pattern", ""))
    _refuse(shown, f"{name}() is not a filter we translate")
    raise AssertionError("unreachable")
