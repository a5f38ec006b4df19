"""Evaluate a predicate: exactly on rows, or as "could any row match?" on bounds.

**Rows** (:func:`filter_mask`): SQL's three-valued logic.  Every node gives
``(value, known)`` masks; a comparison is unknown on a null slot, ``&`` is
false as soon as one side is known false, ``|`` true as soon as one side is
known true, ``~`` keeps unknowns unknown.  A row is kept when the
predicate is known true, as in SQL ``WHERE`` and pyarrow's ``filters=``.

**Bounds** (:func:`may_match`): the predicate in negation normal form
(:func:`~parquet_core.predicate.expr.negation_normal_form`) is checked
against each column's lower/upper bound, null count and value count, from
chunk statistics or from one page's column-index entry.  The answer is
False only when no row can match; bounds are compared with the same kernel
as rows (:mod:`parquet_core.predicate.compare`), in the column's storage.
Rules per leaf, for bounds ``lo <= every non-null value <= hi``:

====================  ==============================================
``== v``              ``lo <= v <= hi``
``< v`` / ``<= v``    ``lo < v`` / ``lo <= v``
``> v`` / ``>= v``    ``hi > v`` / ``hi >= v``
``!= v``              not (``lo == hi == v``), numbers only
``in S``              some ``v`` of ``S`` with ``lo <= v <= hi`` (or nulls, if ``S`` holds None)
``not in S``          unknown, unless every row is null (then: ``S`` lacks None)
``starts_with p``     ``lo[:len p] <= p <= hi[:len p]`` (truncated bounds still bound)
``is null``           ``null_count > 0``
``is not null``       ``null_count < num_values``
``is_nan``            ``nan_count > 0`` (floats; never for other types)
``~is_nan``           some value is neither null nor NaN
``intersects q``      the chunk's geospatial box meets ``q`` (xmin > xmax wraps);
                      pages: only all-null pages (no geo bounds in ColumnIndex)
====================  ==============================================

NaN counts (``Statistics.nan_count``, ``ColumnIndex.nan_counts``) also
prune comparisons: when ``nan_count + null_count == num_values`` (or an
IEEE 754 total order bound is NaN, which says the same), no row holds a
number, so only negated comparisons and ``in`` with a NaN member can match.

A column whose values are all null matches no comparison.  Floats keep NaN
out of their bounds, and ``NaN != v`` is true, so ``!=`` and negated
comparisons on floats are never pruned; negated comparisons on other types
are the opposite comparison.  Anything unknown (no bounds, no order) is
"may match".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import ParquetSchemaError
from parquet_core.metadata.geography import spherical_value_boxes
from parquet_core.metadata.geospatial import GeospatialStatistics, bbox_intersects, wkb_bounds
from parquet_core.predicate.compare import compare, has_order, is_floating, isin, starts_with
from parquet_core.predicate.expr import (
    OPERATORS,
    And,
    Comparison,
    Expression,
    Intersects,
    IsIn,
    IsNan,
    IsNull,
    Not,
    Or,
    StartsWith,
)
from parquet_core.schema.types import DataType, Field, Schema, TypeId
from parquet_core.table.arrays import Array, Table

__all__ = ["filter_mask", "Bounds", "may_match", "must_match", "candidate_rows", "PageBounds", "PageStats"]

Masks = tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]
_GEO = frozenset([TypeId.GEOMETRY, TypeId.GEOGRAPHY])


# -- rows -----------------------------------------------------------------------------------------

def filter_mask(expr: Expression, table: Table) -> npt.NDArray[np.bool_]:
    """True for the rows where *expr* is known true."""
    value, known = _eval(expr, table)
    return value & known


def _column(table: Table, name: str) -> Array:
    try:
        return table.column(name)
    except ParquetSchemaError:      # a name several columns share: a ValueError too, kept as it is
        raise
    except (KeyError, ValueError):
        raise ValueError(f"filter column {name!r} is not in the table (columns: {table.column_names})") from None


def _known(arr: Array) -> npt.NDArray[np.bool_]:
    return np.ones(len(arr), dtype=np.bool_) if arr.validity is None else arr.validity.copy()


def _eval(e: Expression, table: Table) -> Masks:
    if isinstance(e, IsIn):
        arr = _column(table, e.column)
        v = isin(arr.values, arr.type, e.values, e.column) & _known(arr)
        if e.match_null:
            v |= arr.is_null()
        return (~v if e.negated else v), np.ones(len(arr), dtype=np.bool_)
    if isinstance(e, (Comparison, StartsWith)):
        arr = _column(table, e.column)
        if isinstance(e, Comparison):
            v = compare(arr.values, arr.type, e.op, e.value, e.column)
        else:
            v = starts_with(arr.values, arr.type, e.prefix, e.column)
        known = _known(arr)
        if e.negated:
            v = ~v
        return v & known, known
    if isinstance(e, Intersects):
        arr = _column(table, e.column)
        known = _known(arr)
        hit = np.zeros(len(arr), dtype=np.bool_)
        if arr.type.id not in _GEO:
            raise TypeError(f"intersects needs a GEOMETRY or GEOGRAPHY column; {e.column!r} is {arr.type.name}")
        idx = np.flatnonzero(known)
        vals = arr.values if len(arr.values) == len(idx) else arr.values.take(idx)
        if len(idx) and arr.type.id is TypeId.GEOGRAPHY and arr.type.algorithm in (None, "spherical"):
            # on the sphere an edge bulges past its vertices: each value's spherical box
            sb = spherical_value_boxes(vals)
            hit[idx] = bbox_intersects(sb[:, 0], sb[:, 1], sb[:, 2], sb[:, 3], e.bbox)
        elif len(idx):
            boxes, _ = wkb_bounds(vals)
            hit[idx] = bbox_intersects(boxes[:, 0, 0], boxes[:, 1, 0], boxes[:, 0, 1], boxes[:, 1, 1], e.bbox)
        return ((~hit if e.negated else hit) & known), known
    if isinstance(e, IsNull):
        arr = _column(table, e.column)
        null = arr.is_null()
        return (~null if e.negated else null), np.ones(len(arr), dtype=np.bool_)
    if isinstance(e, IsNan):
        arr = _column(table, e.column)
        known = _known(arr)
        nan = np.isnan(arr.values) if is_floating(arr.type) else np.zeros(len(arr), dtype=np.bool_)
        return ((~nan if e.negated else nan) & known), known
    if isinstance(e, Not):
        v, known = _eval(e.child, table)
        return ~v & known, known
    if isinstance(e, (And, Or)):
        parts = [_eval(c, table) for c in e.children]
        v, known = parts[0]
        for bv, bk in parts[1:]:
            if isinstance(e, And):
                known = (known & bk) | (known & ~v) | (bk & ~bv)
                v = v & bv
            else:
                known = (known & bk) | v | bv
                v = v | bv
        return v, known
    raise TypeError(f"unknown expression {e!r}")


# -- bounds ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Bounds:
    """What is known of a column over some rows (a chunk, or one page).

    ``lo``/``hi`` are one-element storage arrays (or None when unknown);
    ``null_count``/``num_values`` may be None when unknown.  ``contains``,
    when given, answers "might this literal occur?" (a Bloom filter): False
    must mean absent.  ``values``, when given, is an :class:`Array` holding
    exactly the distinct non-null values (a fully dictionary-encoded
    chunk's dictionary): leaves are then decided exactly on it.
    """

    type: DataType
    lo: Any = None
    hi: Any = None
    null_count: int | None = None
    num_values: int | None = None
    contains: Callable[[Any], bool] | None = None
    values: Array | None = None
    #: NaN values among the rows (None: unknown)
    nan_count: int | None = None
    #: every non-null value is NaN (an IEEE 754 total order bound that is NaN says so)
    all_nan: bool = False
    #: a GEOMETRY/GEOGRAPHY chunk's ``GeospatialStatistics`` (None: unknown)
    geo: GeospatialStatistics | None = None

    @property
    def all_null(self) -> bool:
        return self.null_count is not None and self.num_values is not None and self.null_count >= self.num_values

    @property
    def no_number(self) -> bool:
        """No row holds a value other than null or NaN."""
        if self.all_null or self.all_nan:
            return True
        return (self.nan_count is not None and self.null_count is not None and self.num_values is not None
                and self.nan_count + self.null_count >= self.num_values)

    @property
    def may_hold_nan(self) -> bool:
        """Some row may be NaN."""
        if self.all_null or not is_floating(self.type):
            return False
        return self.all_nan or self.nan_count is None or self.nan_count > 0


#: the leaves of a tree in negation normal form, each a test of one column
_Leaf = Comparison | IsIn | IsNull | IsNan | StartsWith | Intersects
_LEAVES = (Comparison, IsIn, IsNull, IsNan, StartsWith, Intersects)


def _not_nnf(where: str, expr: Expression) -> TypeError:
    return TypeError(f"{where} takes an expression in negation normal form (no Not), got {expr!r}")


def may_match(expr: Expression, bounds_of: Callable[[str], Bounds | None]) -> bool:
    """False only when no row described by the bounds can satisfy *expr* (in negation normal form)."""
    if isinstance(expr, And):
        return all(may_match(c, bounds_of) for c in expr.children)
    if isinstance(expr, Or):
        return any(may_match(c, bounds_of) for c in expr.children)
    if not isinstance(expr, _LEAVES):
        raise _not_nnf("may_match", expr)
    b = bounds_of(expr.column)
    if b is None:
        return True
    if isinstance(expr, IsNull):
        if expr.negated:
            return not b.all_null
        return b.null_count is None or b.null_count > 0
    if isinstance(expr, IsNan) and b.values is None:
        return (not b.no_number) if expr.negated else b.may_hold_nan
    if isinstance(expr, Intersects):
        if b.all_null:
            return False
        box = None if b.geo is None else b.geo.bbox
        if expr.negated or box is None:
            return True     # no box: unknown; negated: a box says nothing about every value
        return bool(bbox_intersects(box.xmin, box.xmax, box.ymin, box.ymax, expr.bbox))
    # a null row matches ("in" with None listed, or "not in" without it)
    if isinstance(expr, IsIn) and (expr.match_null != expr.negated) and (b.null_count is None or b.null_count > 0):
        return True
    if b.all_null:
        return False          # a null never satisfies a comparison, in or starts_with
    if is_floating(b.type) and b.no_number and b.values is None:
        # only NaN (and nulls): negated comparisons and "not in" hold, "in" only with a NaN
        if isinstance(expr, Comparison):
            # NaN op v is false for every op but "!=" (IEEE 754); NOT flips it
            return expr.negated != (expr.op == "!=")
        if isinstance(expr, IsIn) and not expr.negated:
            return any(_is_nan_literal(v) for v in expr.values)
    if b.values is not None and isinstance(expr, (Comparison, IsIn, IsNan, StartsWith)):
        # the exact set of values: does any of them satisfy the leaf?
        one = Table(Schema([Field(expr.column, b.type, False)]), [b.values], len(b.values))
        return bool(filter_mask(expr, one).any())
    if not has_order(b.type):
        return True
    col = expr.column
    if isinstance(expr, Comparison):
        op = expr.op
        if expr.negated:
            if is_floating(b.type):
                return True
            op = OPERATORS[op]
        if op == "==" and not _may_contain(b, expr.value):
            return False
        return _range_may_hold(b, op, expr.value, col)
    if isinstance(expr, IsIn):
        if expr.negated:
            return True
        if is_floating(b.type) and b.may_hold_nan and any(_is_nan_literal(v) for v in expr.values):
            return True   # NaN is a member of NaN sets (pyarrow's is_in); bounds leave NaN out
        return any(_range_may_hold(b, "==", v, col) and _may_contain(b, v) for v in expr.values)
    if isinstance(expr, StartsWith):
        if expr.negated or not isinstance(b.lo, ByteArrays) or not isinstance(b.hi, ByteArrays):
            return True
        p = expr.prefix.encode() if isinstance(expr.prefix, str) else expr.prefix
        lo = b.lo.to_pylist()[0][:len(p)]
        hi = b.hi.to_pylist()[0][:len(p)]
        return lo <= p <= hi
    return True


def must_match(expr: Expression, bounds_of: Callable[[str], Bounds | None]) -> bool:
    """True only when every row described by the bounds satisfies *expr* (in negation normal
    form): a row group for which the exact row filter would keep every row.

    Deliberately narrow (anything else is "not known", False): a leaf is decided only on a
    column known to hold no null (``null_count == 0``), with both bounds, stored as integers
    (no NaN, no truncated byte-array bounds); ``is null`` / ``is not null`` from the null
    count.  Negated comparisons, ``in``, ``starts_with``, NaN tests and geospatial tests are
    never decided here.
    """
    if isinstance(expr, And):
        return all(must_match(c, bounds_of) for c in expr.children)
    if isinstance(expr, Or):
        return any(must_match(c, bounds_of) for c in expr.children)
    if not isinstance(expr, _LEAVES):
        raise _not_nnf("must_match", expr)
    b = bounds_of(expr.column)
    if b is None or b.null_count is None:
        return False
    if isinstance(expr, IsNull):
        if expr.negated:
            return b.null_count == 0
        return b.num_values is not None and b.num_values > 0 and b.null_count >= b.num_values
    if not isinstance(expr, Comparison) or expr.negated or b.null_count != 0 or is_floating(b.type):
        return False
    lo, hi = b.lo, b.hi
    if not (isinstance(lo, np.ndarray) and isinstance(hi, np.ndarray) and lo.dtype.kind in "iu"
            and hi.dtype.kind in "iu" and lo.shape == (1,) and hi.shape == (1,)):
        return False
    op, v, col = expr.op, expr.value, expr.column
    if op in ("<", "<="):
        return bool(compare(hi, b.type, op, v, col)[0])
    if op in (">", ">="):
        return bool(compare(lo, b.type, op, v, col)[0])
    if op == "==":
        return bool(compare(lo, b.type, "==", v, col)[0] and compare(hi, b.type, "==", v, col)[0])
    if op == "!=":
        return bool(compare(hi, b.type, "<", v, col)[0] or compare(lo, b.type, ">", v, col)[0])
    return False


def _is_nan_literal(value: Any) -> bool:
    try:
        return bool(value != value)     # NaN is the one value unequal to itself
    except (TypeError, ValueError):
        return False


def _may_contain(b: Bounds, value: Any) -> bool:
    if b.contains is None:
        return True
    try:
        return bool(b.contains(value))
    except (ValueError, TypeError, ArithmeticError):
        return True   # a literal the filter cannot hash: no conclusion


def _range_may_hold(b: Bounds, op: str, value: Any, column: str) -> bool:
    lo, hi = b.lo, b.hi
    if lo is None or hi is None:
        return True
    if op == "==":
        return bool(compare(lo, b.type, "<=", value, column)[0] and compare(hi, b.type, ">=", value, column)[0])
    if op == "!=":
        if is_floating(b.type) or isinstance(lo, ByteArrays):
            return True      # NaN != v; truncated byte-array bounds
        return not (compare(lo, b.type, "==", value, column)[0] and compare(hi, b.type, "==", value, column)[0])
    if op in ("<", "<="):
        return bool(compare(lo, b.type, op, value, column)[0])
    return bool(compare(hi, b.type, op, value, column)[0])


PageBounds = list[tuple[int, int, Bounds]]


@dataclass
class PageStats:
    """Every page's bounds of one column chunk as arrays: a column index with its offset index.

    ``lo`` / ``hi`` hold one storage slot per page; slots where ``has_bounds``
    is False (null pages, NaN bounds, no defined order) are placeholders.
    ``null_counts`` is -1 where unknown.  ``pages()`` gives the same pages as
    per-page :class:`Bounds` (for leaves without an array rule).
    """

    type: DataType
    starts: npt.NDArray[np.int64]
    ends: npt.NDArray[np.int64]
    lo: Any
    hi: Any
    has_bounds: npt.NDArray[np.bool_]
    null_counts: npt.NDArray[np.int64]
    pages: Callable[[], PageBounds]
    #: per-page NaN counts, -1 where unknown (None: no page has a count)
    nan_counts: npt.NDArray[np.int64] | None = None
    #: pages whose non-null values are all NaN (IEEE 754 total order NaN bounds)
    all_nan: npt.NDArray[np.bool_] | None = None


def _pages_range_may_hold(p: PageStats, op: str, value: Any, column: str) -> npt.NDArray[np.bool_]:
    """:func:`_range_may_hold` for every page at once."""
    n = len(p.starts)
    if not p.has_bounds.any():
        return np.ones(n, dtype=np.bool_)
    if op == "==":
        hold = compare(p.lo, p.type, "<=", value, column) & compare(p.hi, p.type, ">=", value, column)
    elif op == "!=":
        if is_floating(p.type) or isinstance(p.lo, ByteArrays):
            return np.ones(n, dtype=np.bool_)
        hold = ~(compare(p.lo, p.type, "==", value, column) & compare(p.hi, p.type, "==", value, column))
    elif op in ("<", "<="):
        hold = compare(p.lo, p.type, op, value, column)
    else:
        hold = compare(p.hi, p.type, op, value, column)
    return hold | ~p.has_bounds


def _pages_may_match(expr: _Leaf, p: PageStats) -> npt.NDArray[np.bool_] | None:
    """:func:`may_match` of one leaf on every page at once (None: no array rule for the leaf)."""
    n = len(p.starts)
    known = p.null_counts >= 0
    all_null = known & (p.null_counts >= p.ends - p.starts)
    if isinstance(expr, IsNull):
        return ~all_null if expr.negated else (~known | (p.null_counts > 0))
    floating = is_floating(p.type)
    nan_known = p.nan_counts >= 0 if p.nan_counts is not None else np.zeros(n, dtype=np.bool_)
    nans = p.nan_counts if p.nan_counts is not None else np.zeros(n, dtype=np.int64)
    only_nan = np.zeros(n, dtype=np.bool_) if p.all_nan is None else p.all_nan.copy()
    if floating:
        only_nan |= nan_known & known & (nans + p.null_counts >= p.ends - p.starts)
    may_nan = (~nan_known | (nans > 0) | only_nan) & ~all_null if floating else np.zeros(n, dtype=np.bool_)
    if isinstance(expr, IsNan):
        return ~all_null & ~only_nan if expr.negated else may_nan
    null_match = np.zeros(n, dtype=np.bool_)
    if isinstance(expr, IsIn) and (expr.match_null != expr.negated):
        null_match = ~known | (p.null_counts > 0)
    if isinstance(expr, StartsWith):
        return None
    if isinstance(expr, Intersects):
        return ~all_null    # the column index has no geospatial bounds (parquet.thrift ColumnIndex)
    hold = np.ones(n, dtype=np.bool_)
    if has_order(p.type):
        col = expr.column
        if isinstance(expr, Comparison):
            op = expr.op
            if not (expr.negated and floating):
                op = OPERATORS[op] if expr.negated else op
                hold = _pages_range_may_hold(p, op, expr.value, col)
                if op != "!=":     # NaN != v holds: a NaN-only page may match "!="
                    hold &= ~only_nan
        elif isinstance(expr, IsIn) and not expr.negated:
            hold = np.zeros(n, dtype=np.bool_)
            for v in expr.values:
                if floating and _is_nan_literal(v):
                    hold |= may_nan
                else:
                    hold |= _pages_range_may_hold(p, "==", v, col) & ~only_nan
    return null_match | (~all_null & hold)


def candidate_rows(expr: Expression, num_rows: int,
                   pages_of: Callable[[str], PageStats | PageBounds | None]) -> npt.NDArray[np.bool_]:
    """Rows of a row group that may match *expr* (negation normal form), from per-page bounds.

    ``pages_of(column)`` gives the column's pages (a :class:`PageStats`, or
    ``(first row, end row, Bounds)`` per page), or None when the column has
    no page index; its rows then all stay candidates.  Leaves are judged on
    all pages at once (the rules of :func:`may_match`, as array operations),
    or page by page where no array rule exists (``starts_with``); ``&`` and
    ``|`` combine the row masks, so pages of different columns need not line up.
    """
    if isinstance(expr, (And, Or)):
        masks = [candidate_rows(c, num_rows, pages_of) for c in expr.children]
        out = masks[0]
        for m in masks[1:]:
            out = (out & m) if isinstance(expr, And) else (out | m)
        return out
    if not isinstance(expr, _LEAVES):
        raise _not_nnf("candidate_rows", expr)
    pages = pages_of(expr.column)
    if pages is None:
        return np.ones(num_rows, dtype=np.bool_)
    if isinstance(pages, PageStats):
        hit = _pages_may_match(expr, pages)
        lengths = pages.ends - pages.starts
        if hit is not None and len(lengths) and pages.starts[0] == 0 and pages.ends[-1] == num_rows \
                and (lengths > 0).all():
            return np.repeat(hit, lengths)
        pages = pages.pages()
    mask = np.zeros(num_rows, dtype=np.bool_)
    for start, end, bounds in pages:
        if may_match(expr, _only(bounds)):
            mask[start:end] = True
    return mask


def _only(bounds: Bounds) -> Callable[[str], Bounds | None]:
    """A ``bounds_of`` for one leaf: its column's bounds, whatever the name."""
    return lambda _name: bounds
