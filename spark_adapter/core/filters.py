"""``.option("filters", <JSON DNF>)``: pyarrow-style DNF terms, turned into the
predicate tree of :mod:`spark_adapter.core.sql_filter` (which ``.option("filter", ...)`` parses).

The option is part of the DataFrame's definition, so it cannot go stale
the way Spark's ``pushFilters`` results do (see the Spark notes), and it is
applied exactly: the rows read are the rows that match.

Form: pyarrow's DNF as JSON, ``[["id", ">", 5], ["name", "in", ["a", "b"]]]``
(an AND of terms) or ``[[...], [...]]`` (an OR of ANDs).  JSON has no dates
or decimals, so a value takes the type of its column: ISO strings become
dates and timestamps (one without an offset is in the ``timeZone`` option's
zone, default UTC), numbers or strings become decimals, strings become
UTF-8 bytes for binary columns.  Nulls follow Spark SQL, not pyarrow: a
null is never ``not in`` a list.
"""

from __future__ import annotations

import json
from typing import Any

from spark_adapter.core.sql_filter import Literal

__all__ = ["parse_filters", "dnf_to_tree"]

_OPS = {"=": "=", "==": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "in": "in", "not in": "not in"}


def parse_filters(text: str | None) -> list | None:
    """Validate the option's JSON; return the DNF (list of terms or list of lists) or None."""
    if text is None or not text.strip():
        return None
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"pqcore: option 'filters' is not valid JSON: {exc}") from None
    if not isinstance(value, list) or not value:
        raise ValueError("pqcore: option 'filters' must be a non-empty JSON list of [column, op, value] terms")
    for group in _groups(value):
        for term in group:
            if not (isinstance(term, list) and len(term) == 3 and isinstance(term[0], str)
                    and isinstance(term[1], str) and term[1].lower() in _OPS):
                raise ValueError(f"pqcore: option 'filters': bad term {term!r}; expected [column, op, value] "
                                 f"with op one of {sorted(_OPS)}")
            if term[1].lower() in ("in", "not in") and not isinstance(term[2], list):
                raise ValueError(f"pqcore: option 'filters': {term[1]!r} needs a list of values, in {term!r}")
    return value


def _groups(dnf: list) -> list[list]:
    return dnf if all(isinstance(t, list) and t and isinstance(t[0], list) for t in dnf) else [dnf]


def _literal(value: Any, term: list) -> Literal:
    lit = Literal.of(value, finite_only=False) if isinstance(value, (bool, int, float, str)) else None
    if lit is None:
        raise ValueError(f"pqcore: option 'filters': value {value!r} in {term!r} is not a number, string "
                         "or boolean (null never matches a comparison; there is no null test in this form)")
    return lit


def _term(term: list) -> tuple:
    name, op = term[0], _OPS[term[1].lower()]
    if op in ("in", "not in"):
        node: tuple = ("in", name, [_literal(v, term) for v in term[2]])
        return ("not", node) if op == "not in" else node
    return ("cmp", name, op, _literal(term[2], term))


def dnf_to_tree(dnf: list | None) -> tuple | None:
    """The predicate tree of a validated DNF (None for None)."""
    if dnf is None:
        return None
    ors = [("and", [_term(t) for t in group]) for group in _groups(dnf)]
    return ors[0] if len(ors) == 1 else ("or", ors)
