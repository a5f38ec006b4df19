"""Leaf data for writing: every field of a table as one ColumnData per leaf, per row group.

The write-side twin of :mod:`parquet_core.table.leaves`.  The file layer
writes leaves; it never asks whether a field is flat.  :class:`WriteLeaves`
takes a table (already in the file's types) and hands out, for rows
``start:stop``, one :class:`~parquet_core.column.data.ColumnData` per leaf
in schema order, its values in physical form:

* a flat field is the trivial case: its validity becomes the definition
  levels (none when the leaf is required or has no nulls), its non-null
  values are converted to physical;
* a nested field is shredded whole when the table is taken (the walk
  validates it: nulls in required children, null map keys), then each
  leaf's levels and values are cut at record boundaries with
  :func:`~parquet_core.table.leaves.record_starts`,
  :func:`~parquet_core.table.leaves.value_positions` and
  :func:`~parquet_core.table.leaves.slice_data`.

Each leaf comes as a thunk, so the conversion to physical values runs where
the chunk is encoded (in the writer's thread pool, when it has one).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any, Callable, Iterable, Iterator

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.data import ColumnData
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.physical import to_physical
from parquet_core.schema.types import DataType
from parquet_core.table.arrays import Array, Table
from parquet_core.table.dictionary import chunk_dictionaries
from parquet_core.table.leaves import record_starts, slice_data, value_positions
from parquet_core.table.shred import nested_nbytes, shred

__all__ = ["WriteLeaves", "LeafData", "bytes_per_row", "flat_leaf"]

#: One leaf's data for a row group, made when called.
LeafData = Callable[[], ColumnData]


def _nonnull(values: Any, validity: npt.NDArray[np.bool_] | None) -> Any:
    if validity is None:
        return values
    idx = np.flatnonzero(validity)
    if isinstance(values, ByteArrays):
        return values.take(idx)
    return values[idx]


def _flat_rows(desc: ColumnDescriptor, column: Array, start: int, stop: int) -> ColumnData:
    """:func:`flat_leaf` of rows ``start:stop`` of *column*."""
    return flat_leaf(desc, column.slice(start, stop))


def _owned(values: Any) -> Any:
    """*values* in the storage the encoders take: int64 offsets, contiguous arrays.

    The writer's ingest borrows Arrow's 32-bit string offsets and the strided
    low words of its decimals (:func:`parquet_core.interop.ingest.as_write_table`);
    they are converted here, one leaf at a time, and freed with its chunk.
    """
    if isinstance(values, ByteArrays):
        if values.offsets.dtype != np.int64:
            return ByteArrays(values.offsets.astype(np.int64), values.data)
        return values
    if isinstance(values, np.ndarray) and not values.flags.c_contiguous:
        return np.ascontiguousarray(values)
    return values


def flat_leaf(desc: ColumnDescriptor, column: Array) -> ColumnData:
    """The data of a flat column's only leaf: validity as definition levels, values physical."""
    validity = column.validity
    values = _owned(to_physical(desc, column.type, _nonnull(column.values, validity)))
    defs = None
    if validity is not None and desc.max_definition_level > 0:
        defs = validity.astype(np.int16)
    # a dictionary column (Arrow dictionary, pandas categorical) brings its dictionary
    given = chunk_dictionaries(column, lambda d: to_physical(desc, column.type, d))
    return ColumnData(values=values, def_levels=defs, rep_levels=None, num_levels=len(column),
                      dictionaries=given)


class _RecordCuts:
    """Where each record of a shredded leaf starts, to cut its ColumnData into row groups.

    The level position of each record and the values before each level
    position are found when a row group first needs them: a row group of
    every record (the common case, one row group) is the data as it is, and
    each would be one int64 per record or per level slot, made and freed.
    """

    __slots__ = ("desc", "type", "data", "num_records", "_cuts")

    def __init__(self, desc: ColumnDescriptor, dt: DataType, data: ColumnData, num_records: int) -> None:
        self.desc, self.type, self.data, self.num_records = desc, dt, data, num_records
        self._cuts: tuple[npt.NDArray[np.int64] | None, npt.NDArray[np.int64] | None] | None = None

    def _record_value_at(self) -> tuple[npt.NDArray[np.int64] | None, npt.NDArray[np.int64] | None]:
        """(level position of each record and the end, values before each level position
        and the total); None where the identity."""
        if self._cuts is None:
            data = self.data
            starts = record_starts(data)
            record_at = None if starts is None else np.append(starts, data.num_levels).astype(np.int64)
            self._cuts = (record_at, value_positions(data, self.desc))
        return self._cuts

    def rows(self, start: int, stop: int) -> ColumnData:
        data = self.data
        if start == 0 and stop == self.num_records:
            cut = data      # every record: the whole data, no cut to find
        else:
            record_at, value_at = self._record_value_at()
            s0, s1 = (start, stop) if record_at is None else (int(record_at[start]), int(record_at[stop]))
            v0, v1 = (s0, s1) if value_at is None else (int(value_at[s0]), int(value_at[s1]))
            cut = slice_data(data, s0, s1, v0, v1)
        return replace(cut, values=to_physical(self.desc, self.type, cut.values))


def _shredded(descs: Iterator[ColumnDescriptor], column: Array, field: Any) -> list[_RecordCuts]:
    return [_RecordCuts(next(descs), dt, data, len(column)) for dt, data in shred(column, field)]


class WriteLeaves:
    """The leaves of a table (in the file's types), handed out row group by row group.

    Raises
    ------
    ParquetSchemaError
        When taking the table: a nested column's null in a required node or
        null map key (see :func:`parquet_core.table.shred.shred`).
    """

    def __init__(self, table: Table, descriptors: Iterable[ColumnDescriptor]) -> None:
        self.table = table
        descs = iter(descriptors)
        #: per top-level field: its column's descriptor (flat), or its shredded leaves
        self._fields: list[ColumnDescriptor | list[_RecordCuts]] = []
        for field, column in zip(table.schema, table.columns):
            if field.type.is_nested:
                self._fields.append(_shredded(descs, column, field))
            else:
                self._fields.append(next(descs))

    @property
    def num_rows(self) -> int:
        return self.table.num_rows

    def row_group(self, start: int, stop: int) -> list[tuple[ColumnDescriptor, LeafData]]:
        """(descriptor, data thunk) of every leaf for rows ``start:stop``, in schema order."""
        stop = min(stop, self.table.num_rows)
        out: list[tuple[ColumnDescriptor, LeafData]] = []
        for i, leaves in enumerate(self._fields):
            if isinstance(leaves, ColumnDescriptor):
                # sliced when the thunk runs: one column's slice (a string column's
                # re-based offsets) is held at a time, not every column's
                out.append((leaves, partial(_flat_rows, leaves, self.table.columns[i], start, stop)))
                continue
            for leaf in leaves:
                out.append((leaf.desc, partial(leaf.rows, start, stop)))
        return out


def bytes_per_row(table: Table) -> float:
    """Approximate in-memory bytes per row (sizes row groups by bytes)."""
    total = 0
    for col in table.columns:
        v = col.values
        if col.type.is_nested:
            total += nested_nbytes(col)
        else:
            # offsets counted as the int64 the leaves widen them to (the writer's ingest may
            # hold Arrow's int32 ones), so row groups split the same whichever it holds
            total += v.data.nbytes + 8 * len(v.offsets) if isinstance(v, ByteArrays) else np.asarray(v).nbytes
    return total / max(table.num_rows, 1)
