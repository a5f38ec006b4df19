"""Which data files a predicate lets us skip, from a metadata store.

The predicate is a parquet_core expression (``pc.col("a") > 5 & ...``) or
pyarrow-style DNF filters.  It is put in negation normal form (exact under
SQL nulls), then each file gets a verdict per node: ``False`` = no row of the
file can satisfy it (skip), ``True``/``None`` = some row may (read).  AND
skips when either side skips, OR only when both do.  A leaf is judged by
every index over its column (one index ruling the file out is enough) and,
for v4 stores, by the file's ``virtual_<partition>`` value.

``not in`` has two meanings: SQL (a null row satisfies neither ``in`` nor
``not in``; the default, as in xskipper) and pyarrow's (``not in`` keeps
null rows; what ``read_table(filters=...)`` and the pqcore Spark option
apply), where no index here can rule a file out, since none records nulls.

MinMax ``c <> v`` keeps a file when ``min < v OR max > v``.  xskipper emits
the reverse (``min > v OR max < v``) and so skips files holding matching
rows: with values {0.1, 2.2}, ``c <> 1.1`` must read the file.
"""

from __future__ import annotations

import datetime as dt
import math
import warnings
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable

from parquet_core.predicate import (
    And,
    Comparison,
    Expression,
    IsIn,
    IsNull,
    Or,
    StartsWith,
    from_filters,
    negation_normal_form,
)
from parquet_core_integrations.xskipper.errors import XskipperIndexError
from parquet_core_integrations.xskipper.store import IndexMeta, MetadataStore

__all__ = ["SkipResult", "check_filter_columns", "skip_decisions", "uncovered_columns"]

_NEGATE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


@dataclass
class SkipResult:
    """Per-file verdicts: ``skipped`` ids, ``kept`` ids, ``not_indexed`` (always read)."""

    skipped: list[str]
    kept: list[str]
    not_indexed: list[str]

    @property
    def total(self) -> int:
        return len(self.skipped) + len(self.kept) + len(self.not_indexed)


def _norm(v: Any) -> Any:
    """Literals and cell values in one comparable form (naive UTC datetimes)."""
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return v


def _coerce(lit: Any, like: Any) -> Any:
    """A literal read as the cell's type, as Spark casts it: strings to dates, timestamps and
    numbers; floats against decimals by their shortest decimal form."""
    lit = _norm(lit)
    if isinstance(like, Decimal) and isinstance(lit, float) and math.isfinite(lit):
        return Decimal(repr(lit))  # the literal as written (0.1), as SQL casts it to the decimal column
    if isinstance(like, float) and isinstance(lit, Decimal):
        return float(lit)
    if isinstance(lit, str) and not isinstance(like, str):
        try:
            if isinstance(like, dt.datetime):
                return _norm(dt.datetime.fromisoformat(lit.replace("Z", "+00:00")))
            if isinstance(like, dt.date):
                return dt.date.fromisoformat(lit)
            if isinstance(like, (int, float, Decimal)) and not isinstance(like, bool):
                return type(like)(lit)
        except ValueError:
            return lit
    return lit


def _nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _cmp(a: Any, op: str, b: Any) -> bool | None:
    """``a op b``, or ``None`` when the two cannot be compared."""
    try:
        return bool(_OPS[op](a, _coerce(b, a)))
    except TypeError:
        return None


# -- per-index leaf rules: True/None = may match, False = cannot -----------------------------------------
def _minmax(cell: Any, leaf: Expression, sql_in: bool) -> bool | None:
    if not isinstance(cell, dict):
        return None
    lo, hi = _norm(cell.get("min")), _norm(cell.get("max"))
    if isinstance(leaf, IsNull):
        # min is null only when the file has no non-null value
        return False if (leaf.negated and lo is None) else None
    if lo is None or hi is None:
        # no non-null value: comparisons, IN and starts-with are never true;
        # pyarrow's `not in` keeps null rows
        return None if (isinstance(leaf, IsIn) and leaf.negated and not sql_in) else False
    if _nan(lo) or _nan(hi):
        return None
    if isinstance(leaf, Comparison):
        op = _NEGATE[leaf.op] if leaf.negated else leaf.op
        if _nan(leaf.value):
            return None
        rules = {"==": lambda v: _all(_cmp(lo, "<=", v), _cmp(hi, ">=", v)),
                 "!=": lambda v: _any(_cmp(lo, "<", v), _cmp(hi, ">", v)),
                 "<": lambda v: _cmp(lo, "<", v), "<=": lambda v: _cmp(lo, "<=", v),
                 ">": lambda v: _cmp(hi, ">", v), ">=": lambda v: _cmp(hi, ">=", v)}
        return rules[op](leaf.value)
    if isinstance(leaf, IsIn):
        if leaf.negated:
            if not sql_in:
                return None
            # every non-null value is min == max, and it is listed
            return _any(_cmp(lo, "!=", hi), *(_cmp(lo, "!=", v) for v in leaf.values)) \
                if leaf.values else True
        return _any(*(_all(_cmp(lo, "<=", v), _cmp(hi, ">=", v)) for v in leaf.values)) if leaf.values else False
    if isinstance(leaf, StartsWith) and isinstance(lo, str) and isinstance(hi, str) \
            and isinstance(leaf.prefix, str):
        p = leaf.prefix
        if leaf.negated:
            return not (lo.startswith(p) and hi.startswith(p))
        return hi >= p and (lo.startswith(p) or lo < p)
    return None


def _valuelist(cell: Any, leaf: Expression, sql_in: bool) -> bool | None:
    if not isinstance(cell, list):
        return None
    vals = [_norm(v) for v in cell if v is not None]
    if isinstance(leaf, IsNull):
        return False if (leaf.negated and not vals) else None
    if isinstance(leaf, IsIn) and leaf.negated and not sql_in:
        return None
    if any(_nan(v) for v in ([leaf.value] if isinstance(leaf, Comparison) else getattr(leaf, "values", ()))):
        return None  # NaN equals NaN in Spark SQL, not in IEEE: keep the file either way
    if isinstance(leaf, Comparison):
        op = _NEGATE[leaf.op] if leaf.negated else leaf.op
        return _any(*(_cmp(v, op, leaf.value) for v in vals))
    if isinstance(leaf, IsIn):
        if leaf.negated:
            return _any(*(_all(*(_cmp(v, "!=", x) for x in leaf.values)) for v in vals))
        return _any(*(_cmp(v, "==", x) for v in vals for x in leaf.values))
    if isinstance(leaf, StartsWith):
        if not all(isinstance(v, type(leaf.prefix)) for v in vals):
            return None
        return any(v.startswith(leaf.prefix) != leaf.negated for v in vals)
    return None


def _bloom(store: MetadataStore, row: int, idx: IndexMeta, leaf: Expression) -> bool | None:
    values: tuple[Any, ...]
    if isinstance(leaf, Comparison) and leaf.op == "==" and not leaf.negated:
        values = (leaf.value,)
    elif isinstance(leaf, IsIn) and not leaf.negated:
        values = leaf.values
        if not values:
            return False
    else:
        return None
    bf = store.bloom(row, idx.column)
    if bf is None:
        return None
    try:
        return any(bf.might_contain(v) for v in values)
    except TypeError:  # a literal type the filter does not hash (float, date...)
        return None


def _partition(value: Any, leaf: Expression, sql_in: bool) -> bool | None:
    """The leaf on one constant partition value (every row of the file has it)."""
    value = _norm(value)
    if isinstance(leaf, IsNull):
        return (value is None) != leaf.negated
    if value is None:
        return None if (isinstance(leaf, IsIn) and leaf.negated and not sql_in) else False
    if isinstance(leaf, Comparison):
        r = _cmp(value, leaf.op, leaf.value)
        return None if r is None else r != leaf.negated
    if isinstance(leaf, IsIn):
        r = _any(*(_cmp(value, "==", x) for x in leaf.values)) if leaf.values else False
        return None if r is None else r != leaf.negated
    if isinstance(leaf, StartsWith):
        prefix = leaf.prefix
        if isinstance(value, str) and isinstance(prefix, str):
            return value.startswith(prefix) != leaf.negated
        if isinstance(value, bytes) and isinstance(prefix, bytes):
            return value.startswith(prefix) != leaf.negated
    return None


def _any(*xs: bool | None) -> bool | None:
    if any(x is True for x in xs):
        return True
    return None if any(x is None for x in xs) else False


def _all(*xs: bool | None) -> bool | None:
    if any(x is False for x in xs):
        return False
    return None if any(x is None for x in xs) else True


# -- the tree ------------------------------------------------------------------------------------------
def _may_match(store: MetadataStore, row: int, e: Expression, sql_in: bool,
               by_col: dict[str, list[IndexMeta]], parts: dict[str, str]) -> bool | None:
    if isinstance(e, And):
        return _all(*(_may_match(store, row, c, sql_in, by_col, parts) for c in e.children))
    if isinstance(e, Or):
        return _any(*(_may_match(store, row, c, sql_in, by_col, parts) for c in e.children))
    name = e.column.lower()  # type: ignore[attr-defined]
    verdicts: list[bool | None] = []
    if name in parts:
        verdicts.append(_partition(store.index_rows[row].get(parts[name]), e, sql_in))
    for idx in by_col.get(name, ()):
        cell = store.index_rows[row].get(idx.column)
        if idx.name == "minmax":
            verdicts.append(_minmax(cell, e, sql_in))
        elif idx.name == "valuelist":
            verdicts.append(_valuelist(cell, e, sql_in))
        elif idx.name == "bloomfilter":
            verdicts.append(_bloom(store, row, idx, e))
    return _all(*verdicts) if verdicts else None


def skip_decisions(store: MetadataStore, predicate: Any, file_ids: list[str] | None = None,
                   sql_in: bool = True) -> SkipResult:
    """Split *file_ids* (default: every indexed id) into skipped, kept and not indexed.

    A file is skipped only when every metadata row with its id says no row
    can match; ids absent from the store (new or changed files) are read.
    v0 and too-new stores skip nothing.
    """
    expr = from_filters(predicate)
    ids = list(dict.fromkeys(file_ids if file_ids is not None else store.file_ids()))
    rows_of: dict[str, list[int]] = {}
    for i, r in enumerate(store.index_rows):
        rows_of.setdefault(r["obj_name"], []).append(i)
    if expr is None or store.status.value in ("deprecated_unsupported", "too_new"):
        known = [f for f in ids if f in rows_of]
        return SkipResult([], known, [f for f in ids if f not in rows_of])
    expr = negation_normal_form(expr)
    by_col: dict[str, list[IndexMeta]] = {}
    for idx in store.indexes:
        if len(idx.cols) == 1:
            by_col.setdefault(idx.cols[0], []).append(idx)
    parts = {p.lower(): "virtual_" + p for p, _ in store.partition_columns}
    skipped, kept, missing = [], [], []
    # One verdict per file: cells are Python values of mixed types (lists, structs,
    # Bloom filters), and a store holds one row per data file, not per data row.
    for fid in ids:
        rows = rows_of.get(fid)
        if rows is None:
            missing.append(fid)
        elif all(_may_match(store, r, expr, sql_in, by_col, parts) is False for r in rows):
            skipped.append(fid)
        else:
            kept.append(fid)
    return SkipResult(skipped, kept, missing)


# -- filters the index cannot use -----------------------------------------------------------------------
def uncovered_columns(store: MetadataStore, predicate: Any) -> list[str]:
    """The predicate's columns that no index of *store* covers, nor (v4) a partition value:
    their conditions can never rule a file out."""
    expr = from_filters(predicate)
    if expr is None:
        return []
    covered = {c for idx in store.indexes if len(idx.cols) == 1 for c in idx.cols}
    covered |= {p.lower() for p, _ in store.partition_columns}
    return sorted(c for c in expr.columns() if c.lower() not in covered)


def check_filter_columns(store: MetadataStore, predicate: Any, dataset: str,
                         data_columns: set[str] | None) -> list[str]:
    """Refuse a predicate naming a column the dataset does not have; warn about columns it has
    that no index covers.  Returns the uncovered columns.

    Without this a misspelt column (``tmep``) keeps every file without a word, so a typo turns
    data skipping off unnoticed.  *data_columns*: the dataset's top-level column names, lower
    case (partition columns included), or None when they are not known (CSV, JSON, ORC read
    without Spark): then every uncovered column is only warned about.

    Raises
    ------
    XskipperIndexError
        A column neither indexed nor in *data_columns*.
    """
    missing = uncovered_columns(store, predicate)
    if not missing:
        return []
    if data_columns is not None:
        absent = [c for c in missing if c.split(".")[0].lower() not in data_columns]
        if absent:
            raise XskipperIndexError(
                f"the filter names {', '.join(map(repr, absent))}, which dataset {dataset} does not have "
                f"(its columns: {', '.join(sorted(data_columns))}; indexed: "
                f"{', '.join(sorted({c for i in store.indexes for c in i.cols})) or 'none'})")
    warnings.warn(f"xskipper: no index of {dataset} covers {', '.join(map(repr, missing))}: "
                  "conditions on it skip no file", UserWarning, stacklevel=3)
    return missing
