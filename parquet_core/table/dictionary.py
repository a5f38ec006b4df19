"""Dictionary-encoded columns: an :class:`Array` that keeps its dictionaries.

A pandas categorical or Arrow dictionary column being written, and a column
read with ``read_dictionary`` (or recorded as a dictionary in the file's
``ARROW:schema``), keep the dictionary they come with, as pyarrow does: the
writer stores it as the chunk's dictionary page (every entry, in order,
unused ones too) and ``to_arrow`` gives back the file's dictionary instead
of one rebuilt from the values.

``values`` and ``validity`` hold the decoded column, as in any Array, so
code that knows nothing of dictionaries sees (and returns) an ordinary
column.  ``runs`` cover the rows in order; each run has one dictionary (the
storage of the column's type, like ``values``) and one int32 index per row,
0 at null rows::

    rows      "b"  null  "a"  |  "z"   "a"
    run 0     dictionary ["a", "b", "unused"], indices [1, 0, 0]
    run 1     dictionary ["z", "a"],           indices [0, 1]

A read gives one run per row group (each chunk has its own dictionary); a
chunked Arrow array gives one run per chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.data import ChunkDictionary
from parquet_core.schema.types import DataType
from parquet_core.table.arrays import Array
from parquet_core.table.infer import fill_nulls

__all__ = ["DictionaryRun", "DictionaryArray", "dictionary_array", "chunk_dictionaries"]


@dataclass(frozen=True, slots=True)
class DictionaryRun:
    """Consecutive rows sharing one dictionary (see the module docstring)."""

    dictionary: Any
    indices: npt.NDArray[np.int32]


def _take(values: Any, indices: npt.NDArray[np.integer]) -> Any:
    if isinstance(values, ByteArrays):
        return values.take(indices)
    return np.asarray(values).take(indices, axis=0)


def _concat(parts: list[Any]) -> Any:
    if len(parts) == 1:
        return parts[0]
    if isinstance(parts[0], ByteArrays):
        return ByteArrays.concat(parts)
    return np.concatenate(parts)


def _decode(runs: tuple[DictionaryRun, ...], validity: npt.NDArray[np.bool_] | None) -> Any:
    """The rows' values: each run's dictionary gathered by its indices, nulls emptied."""
    values = _concat([_take(r.dictionary, r.indices) for r in runs])
    return fill_nulls(values, validity)


class DictionaryArray(Array):
    """A column with its values, validity and the dictionaries they are encoded with.

    Parameters
    ----------
    type:
        The column's type (that of the dictionary entries).
    runs:
        :class:`DictionaryRun` s covering the rows in order (at least one).
    validity:
        As for :class:`Array`.
    values:
        The decoded rows when already at hand; decoded from *runs* otherwise.
    requested:
        Kept because ``read_dictionary`` named the column: ``to_arrow`` then
        gives int32 indices and an unordered type, whatever ``ARROW:schema``
        records, as pyarrow does.
    """

    __slots__ = ("runs", "requested")

    def __init__(self, type: DataType, runs: Any, validity: npt.NDArray[np.bool_] | None = None,
                 values: Any = None, *, requested: bool = False) -> None:
        runs = tuple(runs)
        if not runs:
            raise ValueError("a DictionaryArray needs at least one run")
        if values is None:
            values = _decode(runs, validity)
        super().__init__(type, values, validity)
        if sum(len(r.indices) for r in runs) != len(values):
            raise ValueError("the dictionary runs do not cover the rows")
        self.runs: tuple[DictionaryRun, ...] = runs
        self.requested = requested

    def dense(self) -> Array:
        """The same column as a plain :class:`Array` (no copy)."""
        return Array(self.type, self.values, self.validity)

    def _with(self, runs: list[DictionaryRun], validity: Any, values: Any) -> DictionaryArray:
        if not runs:   # no row left: keep the first dictionary, as an Arrow slice does
            runs = [DictionaryRun(self.runs[0].dictionary, np.zeros(0, np.int32))]
        return DictionaryArray(self.type, runs, validity, values, requested=self.requested)

    def slice(self, start: int, stop: int) -> DictionaryArray:
        n = len(self)
        start, stop = min(max(start, 0), n), min(max(stop, 0), n)
        stop = max(stop, start)
        dense = self.dense().slice(start, stop)
        runs, pos = [], 0
        for r in self.runs:   # one step per run (row group or chunk), not per value
            lo, hi = max(start - pos, 0), min(stop - pos, len(r.indices))
            if lo < hi:
                runs.append(DictionaryRun(r.dictionary, r.indices[lo:hi]))
            pos += len(r.indices)
        return self._with(runs, dense.validity, dense.values)

    def take(self, rows: npt.NDArray[np.integer]) -> Array:
        """Rows *rows* in that order; a dictionary column while they share one dictionary."""
        rows = np.asarray(rows, dtype=np.int64)
        validity = None if self.validity is None else self.validity[rows]
        if validity is not None and validity.all():
            validity = None
        values = _take(self.values, rows)
        if len(self.runs) == 1:
            run = self.runs[0]
            return self._with([DictionaryRun(run.dictionary, run.indices[rows])], validity, values)
        return Array(self.type, values, validity)

    @staticmethod
    def concat(parts: list[Array]) -> Array:
        if len(parts) == 1:
            return parts[0]
        dense = Array.concat([p.dense() if isinstance(p, DictionaryArray) else p for p in parts])
        if not all(isinstance(p, DictionaryArray) for p in parts):
            return dense
        kept = [p for p in parts if isinstance(p, DictionaryArray)]     # (all of them, checked above)
        runs = [r for p in kept for r in p.runs if len(r.indices)] or [kept[0].runs[0]]
        return DictionaryArray(dense.type, runs, dense.validity, dense.values,
                               requested=kept[0].requested)

    def run_validity(self) -> list[npt.NDArray[np.bool_] | None]:
        """Each run's slice of the validity mask (``None`` where it has no nulls)."""
        out: list[npt.NDArray[np.bool_] | None] = []
        pos = 0
        for r in self.runs:
            v = None if self.validity is None else self.validity[pos:pos + len(r.indices)]
            out.append(None if v is None or v.all() else v)
            pos += len(r.indices)
        return out


def dictionary_array(dense: Array, chunks: tuple[ChunkDictionary, ...],
                     to_storage: Callable[[Any], Any], *, requested: bool = False) -> DictionaryArray:
    """The :class:`DictionaryArray` of a flat column read with its chunks' dictionaries.

    *dense* is the column as read; each chunk's indices (non-null values
    only) are spread to one slot per row of that chunk, 0 at nulls.
    *to_storage* turns the physical dictionary entries into the type's storage.
    """
    runs, pos = [], 0
    for c in chunks:   # one step per row group
        n = c.num_levels
        valid = None if dense.validity is None else dense.validity[pos:pos + n]
        if valid is None:
            idx = np.ascontiguousarray(c.indices, dtype=np.int32)
        else:
            idx = np.zeros(n, dtype=np.int32)
            idx[valid] = c.indices
        runs.append(DictionaryRun(to_storage(c.values), idx))
        pos += n
    return DictionaryArray(dense.type, runs, dense.validity, dense.values, requested=requested)


def chunk_dictionaries(column: Array, to_physical: Callable[[Any], Any]
                       ) -> tuple[ChunkDictionary, ...] | None:
    """What the column writer needs of a dictionary column: per run, the
    physical dictionary and the indices of its non-null values (None for
    any other column)."""
    if not isinstance(column, DictionaryArray):
        return None
    out = []
    for r, valid in zip(column.runs, column.run_validity()):
        idx = r.indices if valid is None else r.indices[valid]
        out.append(ChunkDictionary(to_physical(r.dictionary), idx.astype(np.int32, copy=False),
                                   len(r.indices)))
    return tuple(out)

