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
4. the surviving row groups are read (the output columns plus the filter's
   columns) and filtered row by row (:func:`parquet_core.predicate.filter_mask`),
   so the result is exactly the matching rows whatever the pruning did.

:class:`PruneReport` (``ParquetFile.explain(filters)``) says what each
stage decided and how many bytes the kept row groups hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from parquet_core.constants import Encoding, PageType
from parquet_core.metadata.statistics import decode_stat_storage
from parquet_core.predicate import Bounds, Expression, from_filters, may_match, negation_normal_form
from parquet_core.predicate.expr import And, Comparison, IsIn, Or, StartsWith

if TYPE_CHECKING:  # pragma: no cover
    from parquet_core.file.reader import ParquetFile

__all__ = ["PruneReport", "plan_row_groups", "bloom_columns"]


@dataclass
class PruneReport:
    """What pruning decided for one ``filters=`` over one file."""

    filter: Expression | None
    row_groups: int = 0
    pruned_by_statistics: list[int] = field(default_factory=list)
    pruned_by_dictionary: list[int] = field(default_factory=list)
    pruned_by_bloom_filter: list[int] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)
    bytes_total: int = 0
    bytes_kept: int = 0

    def __str__(self) -> str:
        return (f"filter {self.filter!r}: {len(self.kept)} of {self.row_groups} row groups kept "
                f"({len(self.pruned_by_statistics)} pruned by statistics, "
                f"{len(self.pruned_by_dictionary)} by dictionaries, "
                f"{len(self.pruned_by_bloom_filter)} by Bloom filters); "
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


def _stat_bounds(pf: "ParquetFile", rg: int, name: str, bloom: bool, dictionary: bool = False) -> Bounds | None:
    try:
        idx = pf._leaf_index(name)
    except ValueError:
        return None
    if idx is None:
        return None
    chunk = pf.metadata.row_group(rg).column(idx)
    desc = chunk.descriptor
    stats = chunk.statistics
    lo = hi = None
    nulls = None
    if stats is not None:
        nulls = stats.null_count
        if stats.has_min_max:
            lo = decode_stat_storage(stats.min_raw, desc)
            hi = decode_stat_storage(stats.max_raw, desc)
    contains: Callable[[Any], bool] | None = None
    if bloom and chunk.bloom_filter_offset is not None:
        filt = pf.bloom_filter(rg, idx)
        if filt is not None:
            contains = filt.might_contain
    values = None
    if dictionary and desc.is_flat and fully_dictionary_encoded(chunk):
        values = pf._dictionary_of(rg, idx)
    # num_values counts level slots: rows for the flat leaves filters address
    return Bounds(desc.data_type, lo, hi, nulls, chunk.num_values, contains, values)


def plan_row_groups(pf: "ParquetFile", filters: Any, row_groups: list[int] | None = None,
                    columns: list[str] | None = None) -> tuple[Expression | None, PruneReport]:
    """Decide which row groups ``filters`` needs; return the expression and the report."""
    expr = from_filters(filters)
    groups = list(range(pf.num_row_groups)) if row_groups is None else list(row_groups)
    report = PruneReport(expr, row_groups=len(groups))
    cols = None if columns is None else set(columns) | (set() if expr is None else expr.columns())
    for rg in groups:
        report.bytes_total += pf._chunk_bytes(rg, cols)
    if expr is None:
        report.kept = groups
        report.bytes_kept = report.bytes_total
        return None, report
    for name in expr.columns():
        pf._leaf_index(name)          # an unknown column is an error, not "no pruning"
    nnf = negation_normal_form(expr)
    for rg in groups:
        if not may_match(nnf, lambda name, rg=rg: _stat_bounds(pf, rg, name, False)):
            report.pruned_by_statistics.append(rg)
            continue
        if _leaf_columns(nnf) and not may_match(
                nnf, lambda name, rg=rg: _stat_bounds(pf, rg, name, False, dictionary=True)):
            report.pruned_by_dictionary.append(rg)
            continue
        if bloom_columns(nnf) and not may_match(nnf, lambda name, rg=rg: _stat_bounds(pf, rg, name, True)):
            report.pruned_by_bloom_filter.append(rg)
            continue
        report.kept.append(rg)
        report.bytes_kept += pf._chunk_bytes(rg, cols)
    return expr, report
