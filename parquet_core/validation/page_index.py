"""Page index rules: ColumnIndex and OffsetIndex against the pages they describe.

Spec: PageIndex.md, parquet.thrift ``ColumnIndex``, ``OffsetIndex``,
``PageLocation``, ``BoundaryOrder``.  The indexes are read with the
engine's readers (``file/page_index_reader.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import ParquetEncryptionError, ParquetError, quoted
from parquet_core.file.page_index_reader import read_column_index, read_offset_index, read_offset_index_struct
from parquet_core.metadata.page_index import PageLocation
from parquet_core.metadata.stats_builder import bound_sort_key
from parquet_core.validation.context import Checker, ChunkState
from parquet_core.validation.rules import ERROR, WARNING, rule

__all__ = ["check_index_headers", "check_chunk_values"]

_PI = "PageIndex.md"
DECODE = rule("page_index.decode", ERROR, _PI, "column and offset indexes lie inside the file, decode, and have one entry per page in every list")
OVERLAP = rule("page_index.overlap", ERROR, _PI, "a page index does not overlap column chunk data")
COUNT = rule("page_index.page-count", ERROR, _PI, "the offset index and the column index have one entry per data page")
LOCATION = rule("page_index.page-location", ERROR, "parquet.thrift PageLocation", "each PageLocation's offset and compressed_page_size (header included) are the page's")
FIRST_ROW = rule("page_index.first-row", ERROR, "parquet.thrift PageLocation.first_row_index", "first_row_index is the number of rows before the page in the row group")
RECORD_SPLIT = rule("page_index.record-split", ERROR, "parquet.thrift PageLocation.first_row_index", "with an offset index, every page of a repeated column starts a record")
NULL_PAGES = rule("page_index.null-pages", ERROR, "parquet.thrift ColumnIndex.null_pages", "null_pages is true exactly for the pages without non-null values")
NULL_COUNTS = rule("page_index.null-counts", ERROR, "parquet.thrift ColumnIndex.null_counts", "null_counts equal each page's nulls")
MIN_ABOVE = rule("page_index.min-above-value", ERROR, "parquet.thrift ColumnIndex.min_values", "each page's min_values entry is not above any of its values")
MAX_BELOW = rule("page_index.max-below-value", ERROR, "parquet.thrift ColumnIndex.max_values", "each page's max_values entry is not below any of its values")
BOUNDARY = rule("page_index.boundary-order", ERROR, "parquet.thrift ColumnIndex.boundary_order", "an ASCENDING/DESCENDING boundary_order holds for the non-null pages' bounds")
HISTOGRAM = rule("page_index.level-histogram", ERROR, "parquet.thrift ColumnIndex.definition_level_histograms", "per-page level histograms count each page's levels")
NAN_COUNTS = rule("page_index.nan-counts", ERROR, "parquet.thrift ColumnIndex.nan_counts", "nan_counts equal each page's NaN values")
ROWS_ORDER = rule("page_index.first-row-order", ERROR, "parquet.thrift OffsetIndex.page_locations", "page_locations[i].first_row_index < page_locations[i+1].first_row_index (checked location by location)")
EMPTY_PAGE = rule("page_index.empty-page", WARNING, "parquet.thrift OffsetIndex.page_locations", "an empty data page (0 values) in an offset index repeats its neighbour's first_row_index, against the required strict increase (it holds no row: readers skip it)")
ROWS_RANGE = rule("page_index.first-row-range", ERROR, "parquet.thrift PageLocation.first_row_index", "every first_row_index is below the row group's num_rows (a page starting at or after it holds no row: page pruning loses rows)")
UNENCODED = rule("page_index.unencoded-bytes", ERROR, "parquet.thrift OffsetIndex.unencoded_byte_array_data_bytes", "per-page unencoded byte counts equal each page's BYTE_ARRAY bytes")


def _spans(ck: Checker) -> list[tuple[int, int]]:
    return [(c.start, c.start + c.length) for row in ck.chunks for c in row if c is not None and c.meta is not None]


def check_index_headers(ck: Checker) -> None:
    """Read each chunk's indexes and compare them with the page headers."""
    spans = _spans(ck)
    for ch in ck.iter_chunks():
        if ch.wrapper is None:
            continue
        raw = ch.raw
        for off, ln, what in ((raw.offset_index_offset, raw.offset_index_length, "offset index"),
                              (raw.column_index_offset, raw.column_index_length, "column index")):
            if off is not None and ln and any(off < e and s < off + ln for s, e in spans):
                ck.report_chunk(OVERLAP, ch, f"the {what} ({ln} bytes at {off}) overlaps column chunk data", offset=off)
        for attr, read, off in (("offset_index", read_offset_index, raw.offset_index_offset),
                                ("column_index", read_column_index, raw.column_index_offset)):
            try:
                setattr(ch, attr, read(ck.source, ch.wrapper))
            except ParquetEncryptionError as exc:
                from parquet_core.validation.encryption import MODULE

                ck.report_chunk(MODULE, ch, str(exc), offset=off)
            except ParquetError as exc:
                if attr == "offset_index":   # the engine refuses the whole index: check it location by location
                    ch.offset_index = _lenient_offset_index(ck, ch, exc)
                else:
                    ck.report_chunk(DECODE, ch, str(exc), offset=off)
        _check_row_range(ck, ch)
        if ch.pages_ok:
            with ck.guard(DECODE, row_group=ch.rg, column=ch.path):
                _check_locations(ck, ch)


def _check_row_range(ck: Checker, ch: ChunkState) -> None:
    """From the offset index alone (its pages need not have been walked): no page starts at or
    after the row group's last row (the first one, 0, of a row group without rows aside)."""
    oi = ch.offset_index
    if oi is None:
        return
    rows = ck.raw.row_groups[ch.rg].num_rows
    for i, loc in enumerate(oi.page_locations):
        if loc.first_row_index >= rows and (i > 0 or loc.first_row_index > 0):
            ck.report_chunk(ROWS_RANGE, ch, f"page location {i} has first_row_index {loc.first_row_index}; the "
                            f"row group has {rows} rows", page=_ordinal(ch, i) if ch.pages_ok else None,
                            offset=loc.offset)
            return


class _Locations:
    """An offset index the engine refused, kept for the per-page rules (same attributes as OffsetIndex)."""

    lenient_rows = True   # the order of first_row_index is checked page by page (_check_row_order)

    def __init__(self, locs: list[PageLocation], unencoded: list[int] | None) -> None:
        self.page_locations = locs
        self.unencoded_byte_array_data_bytes = unencoded

    @property
    def num_pages(self) -> int:
        return len(self.page_locations)


def _lenient_offset_index(ck: Checker, ch: ChunkState, exc: ParquetError) -> _Locations | None:
    """Decode the offset index without the engine's all-or-nothing checks.

    Offsets, sizes and the order of first_row_index are then checked by
    :func:`_check_locations`, which compares each location with its page and
    knows which pages are empty.  Without the pages (their walk failed), a
    missing required field, or a struct that does not decode, the index is
    reported undecodable as a whole.
    """
    off = ch.raw.offset_index_offset
    raw = None
    if ch.pages_ok:
        try:
            raw = read_offset_index_struct(ck.source, ch.wrapper)
        except ParquetError:
            pass
    locs = None if raw is None else raw.page_locations
    if raw is None or locs is None or any(x is None or x.offset is None or x.compressed_page_size is None
                           or x.first_row_index is None for x in locs):
        ck.report_chunk(DECODE, ch, str(exc), offset=off)
        return None
    ub = raw.unencoded_byte_array_data_bytes
    if ub is not None and len(ub) != len(locs):
        ck.report_chunk(DECODE, ch, f"{len(ub)} unencoded sizes for {len(locs)} page locations", offset=off)
        ub = None
    return _Locations([PageLocation(int(x.offset), int(x.compressed_page_size), int(x.first_row_index))
                       for x in locs], None if ub is None else [int(v) for v in ub])


def _ordinal(ch: ChunkState, data_page: int) -> int | None:
    data = ch.data_pages
    return data[data_page].ordinal if data_page < len(data) else None


def _empty(p: Any) -> bool:
    h = p.header
    return (h.data_page_header or h.data_page_header_v2).num_values == 0


def _check_row_order(ck: Checker, ch: ChunkState, data: list[Any], locs: list[PageLocation]) -> None:
    """first_row_index increases strictly; an empty page repeating its neighbour's is only a warning."""
    from parquet_core.validation import writers

    for i in range(1, len(locs)):
        prev, cur = locs[i - 1].first_row_index, locs[i].first_row_index
        if cur > prev:
            continue
        empty = next((p for p in (data[i - 1], data[i]) if _empty(p)), None)
        if cur == prev and empty is not None:
            msg = (f"data page {empty.data_ordinal} holds no values; data pages {i - 1} and {i} both have "
                   f"first_row_index {cur}")
            if not writers.empty_page_in_offset_index(ck, ch, empty, msg):
                ck.report_chunk(EMPTY_PAGE, ch, msg, page=empty.ordinal, offset=empty.offset)
        else:
            ck.report_chunk(ROWS_ORDER, ch, f"first_row_index {cur} of data page {i} does not come after the "
                            f"previous page's {prev}", page=data[i].ordinal, offset=data[i].offset)


def _check_locations(ck: Checker, ch: ChunkState) -> None:
    data = ch.data_pages
    oi, ci = ch.offset_index, ch.column_index
    if ci is not None and ci.num_pages != len(data):
        ck.report_chunk(COUNT, ch, f"the column index has {ci.num_pages} pages, the chunk {len(data)} data pages")
    if oi is None:
        return
    if oi.num_pages != len(data):
        ck.report_chunk(COUNT, ch, f"the offset index has {oi.num_pages} pages, the chunk {len(data)} data pages")
        return
    if getattr(oi, "lenient_rows", False):
        _check_row_order(ck, ch, data, oi.page_locations)
    rows = 0
    known = True
    for p, loc in zip(data, oi.page_locations):
        size = p.header_size + len(p.stored)
        if loc.offset != p.offset or loc.compressed_page_size != size:
            ck.report_chunk(LOCATION, ch, f"the offset index puts data page {p.data_ordinal} at {loc.offset} "
                            f"({loc.compressed_page_size} bytes); it is at {p.offset} ({size} bytes)",
                            page=p.ordinal, offset=p.offset)
        h = p.header
        if known and loc.first_row_index != rows:
            ck.report_chunk(FIRST_ROW, ch, f"first_row_index is {loc.first_row_index}; {rows} rows come before "
                            "the page", page=p.ordinal, offset=p.offset)
            known = False
        if ch.desc.max_repetition_level == 0:
            rows += (h.data_page_header or h.data_page_header_v2).num_values
        elif h.data_page_header_v2 is not None and h.data_page_header_v2.num_rows is not None:
            rows += h.data_page_header_v2.num_rows
        else:
            known = False   # v1 pages of a repeated column: counted at the data level


def _nulls(p: Any, desc: Any) -> int:
    return 0 if p.def_levels is None else int(np.count_nonzero(p.def_levels < desc.max_definition_level))


def check_chunk_values(ck: Checker, ch: ChunkState) -> None:
    """Compare the indexes with each page's decoded values and levels."""
    from parquet_core.validation.values import compare_bounds, page_histogram

    data = ch.data_pages
    desc = ch.desc
    oi, ci = ch.offset_index, ch.column_index
    if oi is not None and oi.num_pages == len(data):
        rows = 0
        for p, loc in zip(data, oi.page_locations):
            if p.rep_levels is not None:
                if len(p.rep_levels) and p.rep_levels[0] != 0:
                    ck.report_chunk(RECORD_SPLIT, ch, f"the page starts inside a record (repetition level "
                                    f"{int(p.rep_levels[0])})", page=p.ordinal, offset=p.offset)
                if loc.first_row_index != rows and p.header.data_page_header is not None:
                    ck.report_chunk(FIRST_ROW, ch, f"first_row_index is {loc.first_row_index}; {rows} records "
                                    "come before the page", page=p.ordinal, offset=p.offset)
                rows += int(np.count_nonzero(p.rep_levels == 0))
        ub = oi.unencoded_byte_array_data_bytes
        if ub is not None:
            from parquet_core.validation import writers

            for p, n in zip(data, ub):
                if isinstance(p.values, ByteArrays):
                    have = int(p.values.offsets[-1] - p.values.offsets[0])
                    if n != have and not writers.arrow_dba_unencoded_bytes(
                            ck, ch, n, [p], "the offset index's unencoded_byte_array_data_bytes", p):
                        ck.report_chunk(UNENCODED, ch, f"the offset index says {n} bytes, the page's values hold "
                                        f"{have}", page=p.ordinal, offset=p.offset)
    if ci is None or ci.num_pages != len(data):
        return
    for i, p in enumerate(data):
        where = {"page": p.ordinal, "offset": p.offset}
        n_values = 0 if p.values is None else len(p.values)
        nulls = _nulls(p, desc)
        if ci.null_pages[i] != (n_values == 0):
            ck.report_chunk(NULL_PAGES, ch, f"null_pages[{i}] is {ci.null_pages[i]}, the page has {n_values} "
                            "non-null values", **where)
        if ci.null_counts is not None and ci.null_counts[i] != nulls:
            ck.report_chunk(NULL_COUNTS, ch, f"null_counts[{i}] is {ci.null_counts[i]}, the page has {nulls} nulls",
                            **where)
        nan_counts = getattr(ci.raw, "nan_counts", None)
        if nan_counts is not None and i < len(nan_counts) and p.values is not None:
            from parquet_core.validation.values import _float_kind, _floats

            if _float_kind(desc):
                nans = int(np.count_nonzero(np.isnan(_floats(p.values, desc))))
                if nan_counts[i] != nans:
                    ck.report_chunk(NAN_COUNTS, ch, f"nan_counts[{i}] is {nan_counts[i]}, the page has {nans} NaNs",
                                    **where)
        if not ci.null_pages[i] and n_values:
            before = len(ck.findings)
            compare_bounds(ck, ch, ci.min_raw[i], ci.max_raw[i], p.values, f"column index page {i}", p.ordinal, p.offset)
            _rename(ck, before)
        for name, levels, top in (("repetition", p.rep_levels, desc.max_repetition_level),
                                  ("definition", p.def_levels, desc.max_definition_level)):
            hists = getattr(ci, f"{name}_level_histograms")
            if hists is not None:
                actual = page_histogram(ch, levels, top, len(levels) if levels is not None else
                                        (p.header.data_page_header or p.header.data_page_header_v2).num_values)
                if hists[i] != actual and not (top == 0 and not hists[i]):
                    ck.report_chunk(HISTOGRAM, ch, f"{name} level histogram of page {i} is {hists[i]}, the levels "
                                    f"give {actual}", **where)
    _check_boundary(ck, ch, ci)


def _rename(ck: Checker, before: int) -> None:
    """Bounds findings from the column index get the page index's own rule ids."""
    from dataclasses import replace

    from parquet_core.validation.values import MAX_BELOW as S_MAX
    from parquet_core.validation.values import MIN_ABOVE as S_MIN

    swap = {S_MIN.id: MIN_ABOVE, S_MAX.id: MAX_BELOW}
    for k in range(before, len(ck.findings)):
        f = ck.findings[k]
        if f.rule in swap:
            r = swap[f.rule]
            ck.findings[k] = replace(f, rule=r.id, spec=r.spec)


def _check_boundary(ck: Checker, ch: ChunkState, ci: Any) -> None:
    if ci.boundary_order not in ("ASCENDING", "DESCENDING"):
        return
    try:
        keys = [(i, bound_sort_key(ci.min_raw[i], ch.desc), bound_sort_key(ci.max_raw[i], ch.desc))
                for i in range(ci.num_pages) if not ci.null_pages[i]]
    except (ValueError, Exception):   # noqa: BLE001 - no order, or malformed bounds (reported elsewhere)
        return
    asc = ci.boundary_order == "ASCENDING"
    for (i0, lo0, hi0), (i1, lo1, hi1) in zip(keys, keys[1:]):
        if (asc and (lo1 < lo0 or hi1 < hi0)) or (not asc and (lo1 > lo0 or hi1 > hi0)):
            p = ch.data_pages[i1] if i1 < len(ch.data_pages) else None
            ck.report_chunk(BOUNDARY, ch, f"boundary_order is {ci.boundary_order}, but page {i1}'s bounds "
                            f"({quoted(lo1)}, {quoted(hi1)}) come {'before' if asc else 'after'} page {i0}'s ({quoted(lo0)}, {quoted(hi0)})",
                            page=None if p is None else p.ordinal, offset=None if p is None else p.offset)
            return
