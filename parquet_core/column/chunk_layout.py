"""Where a column chunk's records, level slots and values sit, and how they split into pages.

The first of the three steps of :func:`parquet_core.column.writer.write_column_chunk`
(layout, then :mod:`~parquet_core.column.page_builder`, then
:mod:`~parquet_core.column.chunk_metadata`).  A leaf's data has three
counts that differ in general::

    records   rows of the table; a nested record starts at repetition level 0
    slots     one per level entry (a null or an empty list still takes one)
    values    the non-null leaf values (slots at the maximum definition level)

:class:`ChunkLayout` maps records to slots and slots to values, and cuts
the records into pages by an estimated encoded size per value.  A page
always ends on a record boundary, so a record never straddles two pages.
The maps are ``None`` where they are the identity (a flat column: a slot
per record; no nulls: a value per slot), so common columns never build or
gather through arrays of 0, 1, 2, ...
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from parquet_core.column.data import ColumnData
from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.descriptor import ColumnDescriptor

__all__ = ["ChunkLayout", "PageSpan", "page_bounds", "uniform_page_bounds"]


@dataclass(frozen=True, slots=True)
class PageSpan:
    """One data page's share of the chunk: records ``r0:r1``, slots ``s0:s1``, values ``v0:v1``."""

    ordinal: int
    r0: int
    r1: int
    s0: int
    s1: int
    v0: int
    v1: int

    @property
    def num_slots(self) -> int:
        return self.s1 - self.s0

    @property
    def num_values(self) -> int:
        return self.v1 - self.v0

    @property
    def num_rows(self) -> int:
        return self.r1 - self.r0


def page_bounds(cum: npt.NDArray[np.int64], page_bytes: int, page_rows: int,
                forced: int | None) -> list[tuple[int, int]]:
    """Split records into pages; return (first record, end record) pairs.

    ``cum`` holds the cumulative cost before each record plus the total
    (length = records + 1).  A page ends at the last record that keeps it
    within ``page_bytes`` (at least one record per page) and
    ``page_rows`` records; ``forced`` is a record that must start a page.
    A Python loop per *page* (not per value).
    """
    nrec = len(cum) - 1
    bounds = []
    r0 = 0
    while r0 < nrec:
        r1 = min(r0 + page_rows, nrec)
        by_bytes = int(np.searchsorted(cum, cum[r0] + page_bytes, side="right")) - 1
        r1 = min(r1, max(by_bytes, r0 + 1))
        if forced is not None and r0 < forced < r1:
            r1 = forced
        bounds.append((r0, r1))
        r0 = r1
    return bounds


def uniform_page_bounds(nrec: int, cost: int, page_bytes: int, page_rows: int,
                        forced: int | None) -> list[tuple[int, int]]:
    """:func:`page_bounds` for records that all cost *cost* (> 0) bytes, without the sums."""
    step = max(min(page_rows, page_bytes // cost), 1)
    bounds = []
    r0 = 0
    while r0 < nrec:
        r1 = min(r0 + step, nrec)
        if forced is not None and r0 < forced < r1:
            r1 = forced
        bounds.append((r0, r1))
        r0 = r1
    return bounds


class ChunkLayout:
    """Records, slots and values of one leaf's data in one row group.

    Raises :class:`~parquet_core.errors.ParquetSchemaError` when the levels
    describe a different number of values than the data holds.
    """

    def __init__(self, data: ColumnData, desc: ColumnDescriptor) -> None:
        self.num_slots = data.num_levels
        self.num_values = len(data.values)
        defs, reps = data.def_levels, data.rep_levels
        #: value index of the first value at or after each slot (slots + 1 entries)
        self.value_at: npt.NDArray[np.int64] | None = None
        if defs is not None:
            self.value_at = np.zeros(self.num_slots + 1, dtype=np.int64)
            np.cumsum(defs == desc.max_definition_level, out=self.value_at[1:])
        described = self.num_slots if self.value_at is None else int(self.value_at[-1])
        if described != self.num_values:
            raise ParquetSchemaError(
                f"column {desc.dotted_path}: levels describe {described} values, got {self.num_values}")
        #: each record's first slot, plus the slot count
        self.record_starts: npt.NDArray[np.int64] | None = None if reps is None else \
            np.append(np.flatnonzero(reps == 0), self.num_slots).astype(np.int64)

    @property
    def num_records(self) -> int:
        return self.num_slots if self.record_starts is None else len(self.record_starts) - 1

    def slot_of(self, record: int) -> int:
        """First slot of *record* (the slot count for the end)."""
        return record if self.record_starts is None else int(self.record_starts[record])

    def value_of(self, slot: int) -> int:
        """Index of the first value at or after *slot*."""
        return slot if self.value_at is None else int(self.value_at[slot])

    def record_of_value(self, value: int) -> int:
        """The record holding value number *value* (its first slot's record)."""
        slot = value if self.value_at is None else \
            int(np.searchsorted(self.value_at, value, side="right")) - 1
        return slot if self.record_starts is None else \
            int(np.searchsorted(self.record_starts, slot, side="right")) - 1

    def record_costs(self, value_costs: npt.NDArray[np.int64] | int) -> npt.NDArray[np.int64]:
        """Cumulative cost before each record plus the total, from a cost per value.

        *value_costs* is an array (one cost per value) or one int, the cost
        of every value: then no cumulative sum is needed.
        """
        if isinstance(value_costs, (int, np.integer)):
            counts = self.value_at if self.value_at is not None else \
                np.arange(self.num_slots + 1, dtype=np.int64)
            slot_cost = counts * int(value_costs)
        else:
            value_cost = np.zeros(len(value_costs) + 1, dtype=np.int64)
            np.cumsum(value_costs, out=value_cost[1:])
            slot_cost = value_cost if self.value_at is None else value_cost[self.value_at]
        return slot_cost if self.record_starts is None else slot_cost[self.record_starts]

    def pages(self, value_costs: npt.NDArray[np.int64] | int, page_bytes: int, page_rows: int,
              forced: int | None = None) -> list[PageSpan]:
        """The chunk's data pages (see :func:`page_bounds`); *value_costs* as in :meth:`record_costs`."""
        if isinstance(value_costs, (int, np.integer)) and self.value_at is None \
                and self.record_starts is None:
            # a record per value, all of one cost: pages of a fixed number of records
            bounds = uniform_page_bounds(self.num_slots, int(value_costs), page_bytes, page_rows,
                                         forced)
        else:
            bounds = page_bounds(self.record_costs(value_costs), page_bytes, page_rows, forced)
        spans = []
        for ordinal, (r0, r1) in enumerate(bounds):
            s0, s1 = self.slot_of(r0), self.slot_of(r1)
            spans.append(PageSpan(ordinal, r0, r1, s0, s1, self.value_of(s0), self.value_of(s1)))
        return spans
