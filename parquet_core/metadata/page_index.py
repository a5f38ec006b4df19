"""Build a column chunk's page index: ColumnIndex and OffsetIndex.

The column writer feeds one entry per data page (location, null count,
bounds, level histograms); the builder returns the thrift structs, which
``file/`` serializes after the row groups.  Rules (parquet.thrift, comments
on ``ColumnIndex``):

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

from parquet_core.constants import PhysicalType
from parquet_core.metadata.statistics import (
    INT96_TIMESTAMP_ORDER, TYPE_ORDER, SortOrder, sort_order,
)
from parquet_core.metadata.stats_builder import bound_sort_key, truncate_max, truncate_min
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.thrift import pt

__all__ = ["PageIndexBuilder", "BoundaryOrder"]


class BoundaryOrder:
    """The spec's ``BoundaryOrder`` enum."""

    UNORDERED = 0
    ASCENDING = 1
    DESCENDING = 2


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
            hi = truncate_max(hi, self.truncate_length, text=self.desc.data_type.is_text)[0]
        self.mins.append(lo)
        self.maxs.append(hi)

    def _truncatable(self) -> bool:
        return (self.desc.physical_type in (PhysicalType.BYTE_ARRAY, PhysicalType.FIXED_LEN_BYTE_ARRAY)
                and self.order == SortOrder.UNSIGNED)

    def _key(self, raw: bytes) -> Any:
        # physical values compared in the column's order: decoding to logical
        # Python values would mix datetime and RawTemporal for nanosecond units
        return bound_sort_key(raw, self.desc, self.column_order)

    def _boundary_order(self) -> int:
        keys = [(self._key(lo), self._key(hi))
                for lo, hi, null in zip(self.mins, self.maxs, self.null_pages) if not null]
        if len(keys) < 2:
            return BoundaryOrder.ASCENDING
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
            boundary_order=self._boundary_order(), null_counts=self.null_counts,
            definition_level_histograms=self.def_hist or None,
            repetition_level_histograms=self.rep_hist or None,
            nan_counts=self.nan_counts if self.nan_counts is not None
            and len(self.nan_counts) == len(self.locations) else None)

    def offset_index(self) -> Any:
        """Return the ``pt.OffsetIndex``."""
        return pt.OffsetIndex(
            page_locations=self.locations,
            unencoded_byte_array_data_bytes=self.unencoded if self.unencoded else None)
