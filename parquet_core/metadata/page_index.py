"""A column chunk's page index: ColumnIndex and OffsetIndex, read side and write side.

The page index (parquet-format ``PageIndex.md``) sits outside the footer;
``ColumnChunk.column_index_offset/length`` and
``offset_index_offset/length`` point at two thrift structs per chunk:

* **OffsetIndex**: one ``PageLocation`` per data page (file offset,
  compressed size including the header, first row index) and, optionally,
  the unencoded byte-array bytes of each page;
* **ColumnIndex**: per data page, whether it holds only nulls
  (``null_pages``), its lower and upper bound (PLAIN encoded, byte arrays
  possibly truncated; empty for null pages), ``boundary_order``, and
  optionally null counts and level histograms (flattened, ``max_level + 1``
  entries per page).

Read side: :class:`OffsetIndex` and :class:`ColumnIndex` wrap the decoded
structs, decode the bounds with the column's type (the same decoding as
statistics) and check that every per-page list has one entry per page, so
callers can index them freely.  Write side: :class:`PageIndexBuilder` is fed
one entry per data page by the column writer and returns the thrift structs,
which ``file/`` serializes after the row groups.  This module does no I/O:
reading (and decrypting) the bytes is
:mod:`parquet_core.file.page_index_reader`; checking a file's indexes is
:mod:`parquet_core.validation.page_index`.

Writing rules (parquet.thrift, comments on ``ColumnIndex``):

* a page with no non-null value is a *null page*: its bounds are empty;
* bounds of byte-array columns may be truncated like statistics (a shorter
  lower bound, a rounded-up upper bound);
* ``boundary_order`` is ASCENDING when the non-null pages' minima and maxima
  never decrease, DESCENDING when they never increase, UNORDERED otherwise,
  compared with the column's sort order;
* a chunk whose bounds cannot be stated for every non-null page (statistics
  off, all-NaN pages under TYPE_ORDER, no defined order) gets no
  ColumnIndex; the OffsetIndex is always written;
* under IEEE_754_TOTAL_ORDER an all-NaN page keeps its NaN bounds (readers
  take a NaN bound as "only NaN here"), and under INT96_TIMESTAMP_ORDER
  INT96 pages have bounds; ``nan_counts`` is written for floating point
  columns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parquet_core.constants import BoundaryOrder, PhysicalType, enum_name
from parquet_core.errors import ParquetFormatError, add_context
from parquet_core.metadata.statistics import (
    INT96_TIMESTAMP_ORDER,
    TYPE_ORDER,
    SortOrder,
    decode_stat_value,
    sort_order,
)
from parquet_core.metadata.stats_builder import bound_sort_key_function, truncate_max, truncate_min
from parquet_core.metadata.thrift_dict import plain_value
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.thrift import pt

__all__ = ["ColumnIndex", "OffsetIndex", "PageLocation", "BOUNDARY_ORDERS",
           "BoundaryOrder", "PageIndexBuilder"]

#: The spec's BoundaryOrder values, by name.
BOUNDARY_ORDERS = {int(o): o.name for o in BoundaryOrder}


# -- read side ------------------------------------------------------------------------

class PageLocation:
    """Where one data page is: file offset, bytes (header included), first row."""

    __slots__ = ("offset", "compressed_page_size", "first_row_index")

    def __init__(self, offset: int, compressed_page_size: int, first_row_index: int) -> None:
        self.offset = offset
        self.compressed_page_size = compressed_page_size
        self.first_row_index = first_row_index

    def __repr__(self) -> str:
        return (f"PageLocation(offset={self.offset}, compressed_page_size={self.compressed_page_size}, "
                f"first_row_index={self.first_row_index})")


class OffsetIndex:
    """The data pages of one column chunk, in file order."""

    def __init__(self, raw: Any, where: str, num_rows: int | None = None) -> None:
        """*num_rows*, when given, is the row group's: a page cannot start at or after it."""
        self.raw = raw
        locs = raw.page_locations
        if locs is None:
            raise ParquetFormatError(f"{where}: offset index without page_locations")
        pages = []
        prev_row = -1
        for i, loc in enumerate(locs):
            if loc.offset is None or loc.compressed_page_size is None or loc.first_row_index is None:
                raise ParquetFormatError(f"{where}: page location {i} misses a required field")
            if loc.offset < 0 or loc.compressed_page_size <= 0 or loc.first_row_index <= prev_row:
                raise ParquetFormatError(
                    f"{where}: page location {i} is invalid (offset {loc.offset}, size "
                    f"{loc.compressed_page_size}, first row {loc.first_row_index} after {prev_row})")
            prev_row = loc.first_row_index
            pages.append(PageLocation(int(loc.offset), int(loc.compressed_page_size),
                                      int(loc.first_row_index)))
        if pages and pages[0].first_row_index != 0:
            raise ParquetFormatError(f"{where}: the first page starts at row {pages[0].first_row_index}, not 0")
        if num_rows is not None and prev_row > 0 and prev_row >= num_rows:
            # the pages after it would hold no row: a filter would skip their rows unread
            raise ParquetFormatError(f"{where}: page location {len(pages) - 1} starts at row {prev_row}, but "
                                     f"the row group has {num_rows} rows")
        self.page_locations = pages
        #: Each page's first row, as an array (for the vectorised page selection).
        self.first_rows = np.fromiter((p.first_row_index for p in pages), dtype=np.int64, count=len(pages))
        ub = raw.unencoded_byte_array_data_bytes
        if ub is not None and len(ub) != len(pages):
            raise ParquetFormatError(f"{where}: {len(ub)} unencoded sizes for {len(pages)} pages")
        self.unencoded_byte_array_data_bytes = None if ub is None else [int(v) for v in ub]

    @property
    def num_pages(self) -> int:
        return len(self.page_locations)

    def row_ranges(self, num_rows: int) -> list[tuple[int, int]]:
        """``[first row, end row)`` of every page, given the row group's row count."""
        starts = [p.first_row_index for p in self.page_locations]
        return list(zip(starts, starts[1:] + [num_rows]))

    def to_dict(self) -> dict[str, Any]:
        """The offset index as plain Python: one entry per page, plus unencoded sizes."""
        pages = [{"offset": p.offset, "compressed_page_size": p.compressed_page_size,
                  "first_row_index": p.first_row_index} for p in self.page_locations]
        return {"page_locations": pages,
                "unencoded_byte_array_data_bytes": self.unencoded_byte_array_data_bytes}

    def __repr__(self) -> str:
        return f"<OffsetIndex: {self.num_pages} pages>"


class ColumnIndex:
    """Per-page bounds and null information of one column chunk.

    ``min_values[i]`` / ``max_values[i]`` are decoded Python values (``None``
    for a null page); ``min_raw`` / ``max_raw`` keep the PLAIN bytes.  For
    byte-array columns the bounds may be truncated: they still bound the
    page's values, they need not occur in it.
    """

    def __init__(self, raw: Any, desc: ColumnDescriptor, where: str) -> None:
        self.raw = raw
        self.descriptor = desc
        nulls, lo, hi = raw.null_pages, raw.min_values, raw.max_values
        if nulls is None or lo is None or hi is None or raw.boundary_order is None:
            raise ParquetFormatError(f"{where}: column index misses a required field")
        n = len(nulls)
        if len(lo) != n or len(hi) != n:
            raise ParquetFormatError(
                f"{where}: column index has {n} null_pages, {len(lo)} min_values, {len(hi)} max_values")
        self.null_pages = [bool(b) for b in nulls]
        self.min_raw = [bytes(v) for v in lo]
        self.max_raw = [bytes(v) for v in hi]
        self.boundary_order = str(enum_name(BoundaryOrder, raw.boundary_order))   # not None: checked above
        self.order_defined = sort_order(desc) != SortOrder.UNKNOWN
        self.null_counts = None if raw.null_counts is None else [int(v) for v in raw.null_counts]
        if self.null_counts is not None and len(self.null_counts) != n:
            raise ParquetFormatError(f"{where}: {len(self.null_counts)} null counts for {n} pages")
        nans = getattr(raw, "nan_counts", None)
        #: per-page NaN counts (floating point; None: unknown, so any page may hold NaN)
        self.nan_counts = None if nans is None else [int(v) for v in nans]
        if self.nan_counts is not None and len(self.nan_counts) != n:
            raise ParquetFormatError(f"{where}: {len(self.nan_counts)} NaN counts for {n} pages")
        self.definition_level_histograms = self._histograms(
            raw.definition_level_histograms, desc.max_definition_level, n, where, "definition")
        self.repetition_level_histograms = self._histograms(
            raw.repetition_level_histograms, desc.max_repetition_level, n, where, "repetition")
        self._where = where
        self._decoded: tuple[list[Any], list[Any]] | None = None

    @property
    def min_values(self) -> list[Any]:
        """Each page's decoded lower bound (None for a null page or an undefined order)."""
        return self._decode()[0]

    @property
    def max_values(self) -> list[Any]:
        """Each page's decoded upper bound (None for a null page or an undefined order)."""
        return self._decode()[1]

    def _decode(self) -> tuple[list[Any], list[Any]]:
        # Decoded on first use only: pruning compares min_raw / max_raw as arrays instead.
        # One loop per page (a chunk has tens to hundreds), decoding two bounds each.
        if self._decoded is not None:
            return self._decoded
        lows: list[Any] = []
        highs: list[Any] = []
        for i in range(self.num_pages):
            if self.null_pages[i] or not self.order_defined:
                lows.append(None)
                highs.append(None)
                continue
            try:
                lows.append(decode_stat_value(self.min_raw[i], self.descriptor))
                highs.append(decode_stat_value(self.max_raw[i], self.descriptor))
            except ParquetFormatError as exc:
                add_context(exc, part=f"the column index of {self._where}", page=i)
                raise
        self._decoded = (lows, highs)
        return self._decoded

    @staticmethod
    def _histograms(flat: Any, max_level: int, pages: int, where: str, what: str) -> list[list[int]] | None:
        if flat is None:
            return None
        width = max_level + 1
        if len(flat) != width * pages:
            raise ParquetFormatError(f"{where}: {len(flat)} {what} level histogram entries for {pages} "
                                     f"pages of {width} levels")
        return [[int(v) for v in flat[i * width:(i + 1) * width]] for i in range(pages)]

    @property
    def num_pages(self) -> int:
        return len(self.null_pages)

    def to_dict(self) -> dict[str, Any]:
        """The column index as plain Python: decoded bounds (text when not numbers), null pages,
        counts, histograms and the boundary order by name."""
        return {"boundary_order": self.boundary_order, "null_pages": self.null_pages,
                "min_values": plain_value(self.min_values), "max_values": plain_value(self.max_values),
                "null_counts": self.null_counts, "nan_counts": self.nan_counts,
                "definition_level_histograms": self.definition_level_histograms,
                "repetition_level_histograms": self.repetition_level_histograms}

    def __repr__(self) -> str:
        return f"<ColumnIndex {self.descriptor.dotted_path}: {self.num_pages} pages, {self.boundary_order}>"


# -- write side -----------------------------------------------------------------------

class PageIndexBuilder:
    """Collects page entries of one column chunk.

    Parameters
    ----------
    desc:
        The leaf.
    truncate_length:
        Longest byte-array bound to keep (``None``: never truncate).
    with_bounds:
        False when statistics are off for the column (no ColumnIndex then).
    """

    def __init__(self, desc: ColumnDescriptor, *, truncate_length: int | None, with_bounds: bool,
                 column_order: str = TYPE_ORDER) -> None:
        self.desc = desc
        self.truncate_length = truncate_length
        self.order = sort_order(desc)
        self.column_order = column_order
        self.valid = with_bounds and (self.order != SortOrder.UNKNOWN
                                      or column_order == INT96_TIMESTAMP_ORDER)
        self.nan_counts: list[int] | None = None
        self.locations: list[Any] = []
        self.null_pages: list[bool] = []
        self.mins: list[bytes] = []
        self.maxs: list[bytes] = []
        self.null_counts: list[int] = []
        self.def_hist: list[int] = []
        self.rep_hist: list[int] = []
        self.unencoded: list[int] = []

    def add_page(self, *, offset: int, compressed_size: int, first_row: int, null_count: int,
                 num_values: int, bounds: tuple[bytes, bytes] | None,
                 def_histogram: np.ndarray | None = None, rep_histogram: np.ndarray | None = None,
                 unencoded_bytes: int | None = None, nan_count: int | None = None) -> None:
        """Record one data page (``bounds``: untruncated PLAIN min/max or None)."""
        if nan_count is not None:
            if self.nan_counts is None:
                self.nan_counts = []
            self.nan_counts.append(int(nan_count))
        self.locations.append(pt.PageLocation(offset=offset, compressed_page_size=compressed_size,
                                              first_row_index=first_row))
        self.null_counts.append(int(null_count))
        if unencoded_bytes is not None:
            self.unencoded.append(int(unencoded_bytes))
        if def_histogram is not None:
            self.def_hist.extend(int(x) for x in def_histogram)
        if rep_histogram is not None:
            self.rep_hist.extend(int(x) for x in rep_histogram)
        if num_values == 0:
            self.null_pages.append(True)
            self.mins.append(b"")
            self.maxs.append(b"")
            return
        self.null_pages.append(False)
        if bounds is None:
            self.valid = False
            return
        lo, hi = bounds
        if self.truncate_length is not None and self._truncatable():
            lo = truncate_min(lo, self.truncate_length, text=self.desc.data_type.is_text)[0]
            cut = truncate_max(hi, self.truncate_length, text=self.desc.data_type.is_text)[0]
            if cut is not None:   # None: no shorter upper bound exists (all 0xFF): keep the maximum whole
                hi = cut
        self.mins.append(lo)
        self.maxs.append(hi)

    def _truncatable(self) -> bool:
        return (self.desc.physical_type in (PhysicalType.BYTE_ARRAY, PhysicalType.FIXED_LEN_BYTE_ARRAY)
                and self.order == SortOrder.UNSIGNED)

    def _boundary_order(self) -> BoundaryOrder:
        # physical values compared in the column's order: decoding to logical
        # Python values would mix datetime and RawTemporal for nanosecond units
        bounds = [(lo, hi) for lo, hi, null in zip(self.mins, self.maxs, self.null_pages) if not null]
        if len(bounds) < 2:
            return BoundaryOrder.ASCENDING
        key = bound_sort_key_function(self.desc, self.column_order)
        keys = [(key(lo), key(hi)) for lo, hi in bounds]
        lows = [k[0] for k in keys]
        highs = [k[1] for k in keys]
        pairs = list(zip(lows, lows[1:])) + list(zip(highs, highs[1:]))
        if all(a <= b for a, b in pairs):
            return BoundaryOrder.ASCENDING
        if all(a >= b for a, b in pairs):
            return BoundaryOrder.DESCENDING
        return BoundaryOrder.UNORDERED

    def column_index(self) -> Any | None:
        """Return the ``pt.ColumnIndex``, or None when it cannot be written."""
        if not self.valid or not self.locations:
            return None
        return pt.ColumnIndex(
            null_pages=self.null_pages, min_values=self.mins, max_values=self.maxs,
            boundary_order=int(self._boundary_order()), null_counts=self.null_counts,
            definition_level_histograms=self.def_hist or None,
            repetition_level_histograms=self.rep_hist or None,
            nan_counts=self.nan_counts if self.nan_counts is not None
            and len(self.nan_counts) == len(self.locations) else None)

    def offset_index(self) -> Any:
        """Return the ``pt.OffsetIndex``."""
        return pt.OffsetIndex(
            page_locations=self.locations,
            unencoded_byte_array_data_bytes=self.unencoded if self.unencoded else None)
