"""``filters=``: skip row groups that cannot match, then keep exactly the matching rows.

Order of the checks, cheapest first, each only on the row groups the
previous one kept:

1. **statistics** of the column chunks in the footer (no I/O);
2. **dictionaries**: when every data page of a chunk is dictionary-encoded
   (from ``encoding_stats``, or conservatively from ``encodings``), its
   dictionary page is exactly the set of the chunk's values, and leaves on
   that column are decided on it (one read of the dictionary page);
3. **Bloom filters** of the chunks, for ``==`` and ``in`` on columns that
   have one (one positional read per filter);
4. **page indexes** of the filter's columns: each page's bounds decide
   whether its rows may match (a row mask per row group; columns without an
   index keep all their rows); flat columns are then read page by page, only
   the pages holding candidate rows (plus the dictionary page);
5. the candidate rows are read (the output columns plus the filter's
   columns) and filtered row by row (:func:`parquet_core.predicate.filter_mask`),
   so the result is exactly the matching rows whatever the pruning did.

:class:`PruneReport` (``ParquetFile.explain(filters)``) says what each
stage decided and how many bytes the kept row groups hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import numpy.typing as npt

from parquet_core.constants import Encoding, PageType
from parquet_core.file.variant_paths import split_variant_path, variant_bounds
from parquet_core.metadata.page_index import OffsetIndex
from parquet_core.metadata.statistics import (
    IEEE_754_TOTAL_ORDER,
    decode_stat_storage,
    decode_stat_storages,
    order_applies,
)
from parquet_core.predicate import Bounds, Expression, from_filters, may_match, negation_normal_form
from parquet_core.predicate.compare import is_floating
from parquet_core.predicate.evaluate import PageBounds, PageStats, candidate_rows, must_match
from parquet_core.predicate.expr import And, Comparison, Intersects, IsIn, Or, StartsWith
from parquet_core.table.leaves import row_leaf

if TYPE_CHECKING:  # pragma: no cover
    from parquet_core.file.columns import FileColumns
    from parquet_core.file.indexes import FileIndexes
    from parquet_core.metadata.wrappers import FileMetadata

__all__ = ["PruneReport", "RowGroupPlan", "RowGroupPlanner", "plan_row_groups", "select_pages",
           "bloom_columns"]


@dataclass
class RowGroupPlanner:
    """What pruning works from: the file's metadata, its columns by name, and its lazily
    read indexes (page indexes, Bloom filters, dictionary pages)."""

    metadata: FileMetadata
    columns: FileColumns
    indexes: FileIndexes

    @property
    def num_row_groups(self) -> int:
        return self.metadata.num_row_groups

    def plan(self, filters: Any, groups: list[int] | None = None, columns: list[str] | None = None,
             measure: bool = True) -> tuple[Expression | None, PruneReport, list[RowGroupPlan]]:
        """Decide which row groups (and rows, by page index) ``filters`` needs.

        Returns the expression, the report, and one :class:`RowGroupPlan` per row
        group to read, among *groups* (None: all).  ``columns`` are the output
        columns (None: all), used to count the bytes to read.  ``measure=False``
        skips the byte and page counts (they parse every offset index of the
        output columns), for reads that only want the plans.
        """
        return _plan(self, filters, groups, columns, measure)

    def statistics_may_match(self, expr: Expression, row_group: int) -> bool:
        """Whether the footer statistics of *row_group* leave rows that may match *expr*
        (in negation normal form); no I/O."""
        return may_match(expr, _once(lambda name: _stat_bounds(self, row_group, name, False, expr=expr)))

    def index_ranges(self, expr: Expression) -> list[tuple[int, int]]:
        """``(offset, length)`` of what pruning *expr* will read besides the footer: the
        column and offset indexes of its columns and the Bloom filters of its ``==`` /
        ``isin`` columns (of chunks not wholly dictionary-encoded: pruning asks their
        dictionary instead), in the row groups the statistics keep and inside this file
        (chunks in other files, and ranges outside the file, are left out).  For a
        prefetch before a filtered read from an object store.
        """
        size = self.indexes.sources.source.size
        nnf = negation_normal_form(expr)
        names = {c.split(".")[0] for c in expr.columns()}
        equal = {c.split(".")[0] for c in bloom_columns(nnf)}
        try:
            fields = self.columns.select([n for n in self.columns.schema.names if n in names])
        except (ValueError, KeyError):
            return []
        leaves = [(leaf, f.name in equal) for f, shape in fields
                  for leaf in self.columns.leaves_of([(f, shape)])]
        ranges: list[tuple[int, int]] = []

        def add(offset: Any, length: Any) -> None:
            if isinstance(offset, int) and isinstance(length, int) and 0 <= offset and 0 < length \
                    and offset + length <= size:
                ranges.append((offset, length))

        for rg in range(self.num_row_groups):
            if not self.statistics_may_match(nnf, rg):
                continue    # statistics alone rule it out: its indexes are never asked for
            group = self.metadata.row_group(rg)
            for leaf, bloom in leaves:
                chunk = group.column(leaf)
                if chunk.file_path:
                    continue        # in another file: read as pruning asks
                raw = chunk.raw
                add(raw.column_index_offset, raw.column_index_length)
                add(raw.offset_index_offset, raw.offset_index_length)
                # pruning asks a wholly dictionary-encoded chunk's dictionary first (reading
                # the chunk, which a kept row group needs anyway), and then no Bloom filter
                if bloom and not fully_dictionary_encoded(chunk):
                    add(chunk.bloom_filter_offset, chunk.bloom_filter_length)
        return ranges


@dataclass
class PruneReport:
    """What pruning decided for one ``filters=`` over one file."""

    filter: Expression | None
    row_groups: int = 0
    pruned_by_statistics: list[int] = field(default_factory=list)
    pruned_by_dictionary: list[int] = field(default_factory=list)
    pruned_by_bloom_filter: list[int] = field(default_factory=list)
    pruned_by_page_index: list[int] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)
    bytes_total: int = 0
    bytes_kept: int = 0
    pages_read: int = 0          # data pages read from columns with an offset index
    pages_indexed: int = 0       # data pages those columns have in the kept row groups
    rows_candidate: int = 0      # rows decoded and checked exactly

    def __str__(self) -> str:
        return (f"filter {self.filter!r}: {len(self.kept)} of {self.row_groups} row groups kept "
                f"({len(self.pruned_by_statistics)} pruned by statistics, "
                f"{len(self.pruned_by_dictionary)} by dictionaries, "
                f"{len(self.pruned_by_bloom_filter)} by Bloom filters, "
                f"{len(self.pruned_by_page_index)} by page indexes); "
                f"{self.pages_read} of {self.pages_indexed} indexed pages, {self.rows_candidate} candidate rows; "
                f"{self.bytes_kept} of {self.bytes_total} column bytes to read")


def bloom_columns(expr: Expression) -> set[str]:
    """Columns that a Bloom filter can help with: ``==`` and ``in`` leaves (negation normal form)."""
    if isinstance(expr, (And, Or)):
        return set().union(*(bloom_columns(c) for c in expr.children))
    if isinstance(expr, Comparison) and expr.op == "==" and not expr.negated:
        return {expr.column}
    if isinstance(expr, IsIn) and not expr.negated:
        return {expr.column}
    return set()


def _leaf_columns(expr: Expression) -> set[str]:
    """Columns of comparison / in / starts_with leaves (what a dictionary can decide)."""
    if isinstance(expr, (And, Or)):
        return set().union(*(_leaf_columns(c) for c in expr.children))
    if isinstance(expr, (Comparison, IsIn, StartsWith)):
        return {expr.column}
    return set()


_DICT_ENCODINGS = {Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY}
_LEVEL_ENCODINGS = {Encoding.RLE, Encoding.BIT_PACKED}


def fully_dictionary_encoded(chunk: Any) -> bool:
    """Whether every data page of the chunk holds dictionary indices (no fallback pages)."""
    meta = chunk.meta
    stats = meta.encoding_stats
    if stats:
        data = [s for s in stats if s.page_type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2)]
        return bool(data) and all(s.encoding in _DICT_ENCODINGS for s in data)
    # without encoding_stats, a PLAIN entry may be the dictionary page or fallback pages
    encs = set(meta.encodings or ())
    return bool(encs & _DICT_ENCODINGS) and encs <= _DICT_ENCODINGS | _LEVEL_ENCODINGS


def _once(bounds_of: Callable[[str], Any]) -> Callable[[str], Any]:
    """*bounds_of* computed once per column (several leaves may name one column; a
    dictionary page or Bloom filter is then read once)."""
    seen: dict[str, Any] = {}

    def get(name: str) -> Any:
        if name not in seen:
            seen[name] = bounds_of(name)
        return seen[name]
    return get


def _refined(base: Callable[[str], Any], names: list[str], bounds_of: Callable[[str], Any]) -> Callable[[str], Any]:
    """*bounds_of* for the columns *names* (once each), *base* for the others."""
    refined = _once(bounds_of)
    return lambda name: refined(name) if name in names else base(name)


def _chunk_of(planner: RowGroupPlanner, rg: int, name: str) -> Any:
    """The chunk of a filter column that is one plain leaf (not a variant path), or None."""
    if split_variant_path(planner.columns.shapes, name) is not None:
        return None
    idx = _leaf(planner, name)
    return None if idx is None else planner.indexes.chunk(rg, idx)


def _has_full_dictionary(planner: RowGroupPlanner, rg: int, name: str) -> bool:
    """Whether :func:`_stat_bounds` with ``dictionary=True`` would read a dictionary for *name*."""
    chunk = _chunk_of(planner, rg, name)
    if chunk is None or not row_leaf(chunk.descriptor):
        return False
    # ``encodings`` lists every encoding of the chunk: without a dictionary encoding among
    # them there is no dictionary to read (and ``encoding_stats``, decoded lazily, stays so)
    if not _DICT_ENCODINGS.intersection(chunk.meta.encodings or ()):
        return False
    return fully_dictionary_encoded(chunk)


def _top_level_leaf(planner: RowGroupPlanner, name: str) -> bool:
    """Whether *name* is a top-level column stored as one unrepeated leaf."""
    if "." in name or split_variant_path(planner.columns.shapes, name) is not None:
        return False
    idx = _leaf(planner, name)
    if idx is None:
        return False
    desc = planner.metadata.schema.column(idx)
    return desc.max_repetition_level == 0 and len(desc.path) == 1


def _has_bloom_filter(planner: RowGroupPlanner, rg: int, name: str) -> bool:
    """Whether :func:`_stat_bounds` with ``bloom=True`` would look for a Bloom filter for *name*."""
    chunk = _chunk_of(planner, rg, name)
    return chunk is not None and chunk.bloom_filter_offset is not None


def _leaf(planner: RowGroupPlanner, name: str) -> int | None:
    """The leaf a filter column names, or None when it is not a single leaf (no bounds then)."""
    try:
        return planner.columns.leaf_index(name)
    except ValueError:
        return None


def _geo_columns(expr: Expression) -> set[str]:
    """Columns of ``intersects`` leaves: the only ones whose geospatial statistics are read."""
    if isinstance(expr, (And, Or)):
        return set().union(*(_geo_columns(c) for c in expr.children))
    return {expr.column} if isinstance(expr, Intersects) else set()


def _stat_bounds(planner: RowGroupPlanner, rg: int, name: str, bloom: bool, dictionary: bool = False,
                 expr: Expression | None = None, geo: bool = True) -> Bounds | None:
    """The bounds of one column chunk: footer statistics, and with *bloom* its Bloom filter,
    with *dictionary* its dictionary (when every data page uses it).  *geo* False leaves
    the geospatial statistics unread (only ``intersects`` looks at them)."""
    if split_variant_path(planner.columns.shapes, name) is not None:
        return variant_bounds(planner.columns, rg, name, expr)
    idx = _leaf(planner, name)
    if idx is None:
        return None
    chunk = planner.indexes.chunk(rg, idx)
    desc = chunk.descriptor
    stats = chunk.statistics
    lo = hi = None
    nulls = nans = None
    all_nan = False
    if stats is not None:
        nulls, nans = stats.null_count, stats.nan_count
        if stats.has_min_max and stats.min_raw is not None and stats.max_raw is not None:
            lo = decode_stat_storage(stats.min_raw, desc)
            hi = decode_stat_storage(stats.max_raw, desc)
        elif stats.column_order == IEEE_754_TOTAL_ORDER and stats.min_raw is not None:
            all_nan = True    # total-order bounds are NaN only when every non-null value is
    contains: Callable[[Any], bool] | None = None
    if bloom and chunk.bloom_filter_offset is not None:
        filt = planner.indexes.bloom_filter(rg, idx)
        if filt is not None:
            contains = filt.might_contain
    values = None
    if dictionary and row_leaf(desc) and fully_dictionary_encoded(chunk):
        values = planner.indexes.dictionary(rg, idx)
    # num_values counts level slots: rows for the flat leaves filters address
    return Bounds(desc.data_type, lo, hi, nulls, chunk.num_values, contains, values,
                  nan_count=nans, all_nan=all_nan, geo=chunk.geospatial_statistics if geo else None)


def _page_bounds(planner: RowGroupPlanner, rg: int, name: str) -> PageStats | None:
    """Every page's bounds of a flat column, from its page index, as arrays."""
    idx = _leaf(planner, name)
    if idx is None:
        return None
    desc = planner.metadata.schema.column(idx)
    if desc.max_repetition_level > 0:
        return None
    ci, oi = planner.indexes.column_index(rg, idx), planner.indexes.offset_index(rg, idx)
    if ci is None or oi is None or ci.num_pages != oi.num_pages:
        return None
    order = planner.metadata.column_order(idx)
    usable = order_applies(order, desc)
    num_rows = planner.metadata.row_group(rg).num_rows
    starts = oi.first_rows
    ends = np.append(starts[1:], np.int64(num_rows))
    null_pages = np.array(ci.null_pages, dtype=np.bool_)
    has = ~null_pages if usable else np.zeros(len(starts), dtype=np.bool_)
    lo = decode_stat_storages(ci.min_raw, has, desc)
    hi = decode_stat_storages(ci.max_raw, has, desc)
    all_nan = None
    if is_floating(desc.data_type) and has.any():
        nan = (np.isnan(lo) | np.isnan(hi)).reshape(len(has), -1).any(axis=1)
        if order == IEEE_754_TOTAL_ORDER:
            all_nan = has & nan          # a NaN total-order bound: the page holds only NaN
        has &= ~nan   # no number bound; under TYPE_ORDER a NaN bound says nothing (the spec's rule)
    if ci.null_counts is not None:
        nulls = np.array(ci.null_counts, dtype=np.int64)
    else:
        nulls = np.where(null_pages, ends - starts, -1)
    nan_counts = None if ci.nan_counts is None else np.array(ci.nan_counts, dtype=np.int64)

    def pages() -> PageBounds:
        out: PageBounds = []
        for i in range(len(starts)):
            b_lo = b_hi = None
            if has[i]:
                b_lo = decode_stat_storage(ci.min_raw[i], desc)
                b_hi = decode_stat_storage(ci.max_raw[i], desc)
            n = None if nulls[i] < 0 else int(nulls[i])
            out.append((int(starts[i]), int(ends[i]), Bounds(desc.data_type, b_lo, b_hi, n, int(ends[i] - starts[i]))))
        return out

    return PageStats(desc.data_type, starts, ends, lo, hi, has, nulls, pages, nan_counts, all_nan)


@dataclass
class RowGroupPlan:
    """One row group to read: ``rows`` is the candidate-row mask (None: every row)."""

    index: int
    rows: npt.NDArray[np.bool_] | None = None
    #: the footer statistics show every row matches the filter: no exact row filtering
    every_row: bool = False


def select_pages(oi: OffsetIndex, num_rows: int, rows: npt.NDArray[np.bool_]) -> list[int]:
    """Pages of a flat column holding at least one candidate row."""
    starts = oi.first_rows
    if len(starts) and starts[-1] < min(num_rows, len(rows)):
        # first rows strictly increase from 0 (checked when the index is read): one OR per page
        return np.flatnonzero(np.logical_or.reduceat(rows[:num_rows], starts)).tolist()
    ranges = oi.row_ranges(num_rows)
    return [i for i, (s, e) in enumerate(ranges) if rows[s:e].any()]


def _read_bytes(planner: RowGroupPlanner, rg: int, leaves: list[int], rows: npt.NDArray[np.bool_] | None) -> tuple[int, int, int]:
    """Bytes (at most: a dictionary page is counted though it is skipped when no page read
    needs it), pages and total pages the reader will fetch for some leaves of one row group."""
    total = pages = pages_all = 0
    group = planner.metadata.row_group(rg)
    for idx in leaves:
        chunk = group.column(idx)
        oi = planner.indexes.offset_index(rg, idx) if rows is not None else None
        if oi is None or chunk.descriptor.max_repetition_level > 0:
            total += chunk.total_compressed_size
            continue
        keep = select_pages(oi, group.num_rows, rows)  # type: ignore[arg-type]
        pages_all += oi.num_pages
        pages += len(keep)
        start = chunk.byte_range(planner.indexes.sources.for_chunk(chunk).size)[0]
        first = oi.page_locations[0].offset if oi.num_pages else start
        total += max(first - start, 0) + sum(oi.page_locations[i].compressed_page_size for i in keep)
    return total, pages, pages_all


def plan_row_groups(planner: RowGroupPlanner, filters: Any, row_groups: list[int] | None = None,
                    columns: list[str] | None = None, measure: bool = True,
                    ) -> tuple[Expression | None, PruneReport, list[RowGroupPlan]]:
    """:meth:`RowGroupPlanner.plan` (*planner* is a ``ParquetFile``'s ``planner``)."""
    return planner.plan(filters, row_groups, columns, measure)


def _plan(planner: RowGroupPlanner, filters: Any, row_groups: list[int] | None,
          columns: list[str] | None, measure: bool) -> tuple[Expression | None, PruneReport, list[RowGroupPlan]]:
    expr = from_filters(filters)
    groups = list(range(planner.num_row_groups)) if row_groups is None else list(row_groups)
    report = PruneReport(expr, row_groups=len(groups))
    wanted = None if columns is None else set(columns) | (set() if expr is None else expr.columns())
    leaves = planner.columns.needed_leaves(wanted)
    for rg in groups if measure else ():
        report.bytes_total += sum(planner.metadata.row_group(rg).column(i).total_compressed_size for i in leaves)
    if expr is None:
        report.kept = groups
        report.bytes_kept = report.bytes_total
        return None, report, [RowGroupPlan(rg) for rg in groups]
    for name in expr.columns():
        planner.columns.leaf_index(name)   # an unknown column is an error, not "no pruning"
    planner.metadata.expect_statistics()   # every group's statistics are read below: one decode each
    nnf = negation_normal_form(expr)
    names = sorted(expr.columns())
    geo_cols = _geo_columns(nnf)
    dictionaries, blooms = bool(_leaf_columns(nnf)), bool(bloom_columns(nnf))   # stages that may help
    # "every row matches" is decided on top-level flat columns only (a leaf below a struct may
    # be null through its parent; a variant path may be absent from a row)
    decidable = all(_top_level_leaf(planner, c) for c in expr.columns())

    def bounds_in(rg: int, bloom: bool, dictionary: bool = False) -> Callable[[str], Any]:
        return lambda name: _stat_bounds(planner, rg, name, bloom, dictionary=dictionary, expr=nnf,
                                         geo=name in geo_cols)
    plans: list[RowGroupPlan] = []
    for rg in groups:
        # Each stage only refines the bounds of some columns (those with a usable dictionary,
        # a Bloom filter); the others keep their statistics bounds, computed once here.  A
        # stage that would refine no column decides what the statistics did: it is skipped.
        stats = _once(bounds_in(rg, bloom=False))
        if not may_match(nnf, stats):
            report.pruned_by_statistics.append(rg)
            continue
        if decidable and must_match(nnf, stats):
            # every row matches (a filter that prunes nothing here): no dictionary, Bloom filter
            # or page index is asked, and the read filters no row
            _keep(planner, report, plans, RowGroupPlan(rg, None, every_row=True), leaves, measure)
            continue
        with_dict = [c for c in names if _has_full_dictionary(planner, rg, c)] if dictionaries else []
        if with_dict and not may_match(nnf, _refined(stats, with_dict, bounds_in(rg, bloom=False,
                                                                                  dictionary=True))):
            report.pruned_by_dictionary.append(rg)
            continue
        with_bloom = [c for c in names if _has_bloom_filter(planner, rg, c)] if blooms else []
        if with_bloom and not may_match(nnf, _refined(stats, with_bloom, bounds_in(rg, bloom=True))):
            report.pruned_by_bloom_filter.append(rg)
            continue
        rows = None
        num_rows = planner.metadata.row_group(rg).num_rows
        indexed = {c: _page_bounds(planner, rg, c) for c in names}
        if any(v is not None for v in indexed.values()):
            rows = candidate_rows(nnf, num_rows, indexed.get)
            if not rows.any():
                report.pruned_by_page_index.append(rg)
                continue
            if rows.all():
                rows = None
        _keep(planner, report, plans, RowGroupPlan(rg, rows), leaves, measure)
    return expr, report, plans


def _keep(planner: RowGroupPlanner, report: PruneReport, plans: list[RowGroupPlan], plan: RowGroupPlan,
          leaves: list[int], measure: bool) -> None:
    """Add a kept row group to *plans* and count it in *report*."""
    rg, rows = plan.index, plan.rows
    report.kept.append(rg)
    plans.append(plan)
    if measure:
        nbytes, pages, pages_all = _read_bytes(planner, rg, leaves, rows)
        report.bytes_kept += nbytes
        report.pages_read += pages
        report.pages_indexed += pages_all
    if rows is not None:
        report.rows_candidate += int(np.count_nonzero(rows))
    else:
        report.rows_candidate += planner.metadata.row_group(rg).num_rows
