"""``filters=``: skip row groups that cannot match, then keep exactly the matching rows.

Order of the checks, cheapest first, each only on the row groups the
previous one kept:

1. **statistics** of the column chunks in the footer (no I/O);
2. **Bloom filters** of the chunks, for ``==`` and ``in`` on columns that
   have one (one positional read per filter, only for the row groups still
   in play);
3. the surviving row groups are read (the output columns plus the filter's
   columns) and filtered row by row (:func:`parquet_core.predicate.filter_mask`),
   so the result is exactly the matching rows whatever the pruning did.

:class:`PruneReport` (``ParquetFile.explain(filters)``) says what each
stage decided and how many bytes the kept row groups hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from parquet_core.metadata.statistics import decode_stat_storage
from parquet_core.predicate import Bounds, Expression, from_filters, may_match, negation_normal_form
from parquet_core.predicate.expr import Comparison, IsIn, Or, And

if TYPE_CHECKING:  # pragma: no cover
    from parquet_core.file.reader import ParquetFile

__all__ = ["PruneReport", "plan_row_groups", "bloom_columns"]


@dataclass
class PruneReport:
    """What pruning decided for one ``filters=`` over one file."""

    filter: Expression | None
    row_groups: int = 0
    pruned_by_statistics: list[int] = field(default_factory=list)
    pruned_by_bloom_filter: list[int] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)
    bytes_total: int = 0
    bytes_kept: int = 0

    def __str__(self) -> str:
        return (f"filter {self.filter!r}: {len(self.kept)} of {self.row_groups} row groups kept "
                f"({len(self.pruned_by_statistics)} pruned by statistics, "
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


def _stat_bounds(pf: "ParquetFile", rg: int, name: str, bloom: bool) -> Bounds | None:
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
    # num_values counts level slots: rows for the flat leaves filters address
    return Bounds(desc.data_type, lo, hi, nulls, chunk.num_values, contains)


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
        if bloom_columns(nnf) and not may_match(nnf, lambda name, rg=rg: _stat_bounds(pf, rg, name, True)):
            report.pruned_by_bloom_filter.append(rg)
            continue
        report.kept.append(rg)
        report.bytes_kept += pf._chunk_bytes(rg, cols)
    return expr, report
