"""``.option("filters", <JSON DNF>)``: row filters pushed into parquet_core's pruning.

The option is part of the DataFrame's definition, so it cannot go stale
the way Spark's ``pushFilters`` results do (see the Spark notes), and it is
applied exactly: the rows read are the rows that match.

Form: pyarrow's DNF as JSON, ``[["id", ">", 5], ["name", "in", ["a", "b"]]]``
(an AND of terms) or ``[[...], [...]]`` (an OR of ANDs).  JSON has no dates
or decimals, so a string is converted to the column's type: ISO dates and
timestamps (a timestamp without an offset is taken as UTC for a UTC column),
decimals, and UTF-8 bytes for binary columns.

Terms on partition columns (``key=value`` folders) are allowed in a plain
AND list: they are decided per file from its folder values, so files that
cannot match are not read at all.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
from typing import Any

__all__ = ["parse_filters", "split_partition_terms", "file_matches", "coerce_filters"]

_OPS = {"=", "==", "!=", "<", "<=", ">", ">=", "in", "not in"}


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
    groups = value if all(isinstance(t, list) and t and isinstance(t[0], list) for t in value) else [value]
    for group in groups:
        for term in group:
            if not (isinstance(term, list) and len(term) == 3 and isinstance(term[0], str)
                    and isinstance(term[1], str) and term[1].lower() in _OPS):
                raise ValueError(f"pqcore: option 'filters': bad term {term!r}; expected [column, op, value] "
                                 f"with op one of {sorted(_OPS)}")
    return value


def _is_or(dnf: list) -> bool:
    return all(isinstance(t, list) and t and isinstance(t[0], list) for t in dnf)


def split_partition_terms(dnf: list, partition_columns: set[str]) -> tuple[list, list]:
    """(terms on partition columns, the rest) of a plain AND list."""
    lower = {c.lower() for c in partition_columns}
    if _is_or(dnf):
        if any(t[0].lower() in lower for group in dnf for t in group):
            raise ValueError("pqcore: option 'filters': partition columns can only be used in a plain "
                             "AND list of terms, not inside an OR")
        return [], dnf
    part = [t for t in dnf if t[0].lower() in lower]
    rest = [t for t in dnf if t[0].lower() not in lower]
    return part, rest


def file_matches(terms: list, values: dict[str, Any]) -> bool:
    """Whether a file's partition values satisfy the AND of *terms* (a null matches no comparison)."""
    lower = {k.lower(): v for k, v in values.items()}
    for name, op, lit in terms:
        v = lower.get(name.lower())
        op = op.lower()
        if op in ("in", "not in"):
            member = v in lit if v is not None else None in lit
            if member == (op == "not in"):
                return False
            continue
        if v is None:
            return False
        try:
            ok = {"=": v == lit, "==": v == lit, "!=": v != lit, "<": v < lit, "<=": v <= lit,
                  ">": v > lit, ">=": v >= lit}[op]
        except TypeError:
            raise ValueError(f"pqcore: option 'filters': cannot compare partition column {name!r} "
                             f"value {v!r} with {lit!r}") from None
        if not ok:
            return False
    return True


def _coerce(value: Any, type_name: str, tz: str | None) -> Any:
    if isinstance(value, list):
        return [_coerce(v, type_name, tz) for v in value]
    if not isinstance(value, str):
        return value
    if type_name == "date":
        return dt.date.fromisoformat(value)
    if type_name == "timestamp":
        t = dt.datetime.fromisoformat(value)
        if tz and t.tzinfo is None:
            t = t.replace(tzinfo=dt.timezone.utc)
        return t
    if type_name == "decimal":
        return decimal.Decimal(value)
    if type_name in ("binary", "fixed_size_binary", "bson"):
        return value.encode()
    return value


def coerce_filters(dnf: list, types: dict[str, Any], resolve: dict[str, str]) -> list:
    """The DNF with file column names (Spark matches them case-insensitively) and typed literals."""
    def term(t: list) -> tuple:
        name = resolve.get(t[0], t[0])
        dt_ = types.get(name)
        lit = t[2] if dt_ is None else _coerce(t[2], dt_.name, getattr(dt_, "tz", None))
        return (name, t[1].lower(), lit)

    if _is_or(dnf):
        return [[term(t) for t in group] for group in dnf]
    return [term(t) for t in dnf]
