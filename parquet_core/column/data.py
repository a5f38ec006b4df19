"""The single hand-off type between the column layer and the table layer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["ColumnData", "ChunkDictionary"]


@dataclass(frozen=True, slots=True)
class ChunkDictionary:
    """One dictionary and the indices into it of a run of non-null values.

    Attributes
    ----------
    values:
        The dictionary entries in physical form (ByteArrays), every entry in
        order, used or not.
    indices:
        int32 index of each non-null value of the run, in order.
    num_levels:
        Level slots the run covers (rows, for a flat column).
    """

    values: Any
    indices: npt.NDArray[np.int32]
    num_levels: int


@dataclass(frozen=True, slots=True)
class ColumnData:
    """Decoded levels and non-null values of one leaf column.

    Attributes
    ----------
    values:
        The non-null values in physical form (see :mod:`parquet_core.encodings`):
        numpy array, ``(n, width)`` uint8 array, or ByteArrays.
    def_levels, rep_levels:
        int16 level arrays with one entry per level slot, or ``None`` when the
        column's maximum level is 0.  A flat optional column (maximum
        definition level 1, no repetition) read from a file has int8
        definition levels (0/1: a view of its validity bitmap); compare them
        with the maximum level rather than relying on the dtype.  For a column without repetition,
        ``def_levels`` is also ``None`` when every slot is at the maximum
        level (no nulls anywhere), which saves building an all-equal array.
    num_levels:
        Number of level slots (rows, for a flat column).
    dictionaries:
        ``None``, or the runs of values sharing one dictionary, in order,
        covering all the values: the dictionaries a reader keeps (one per
        chunk) or the one a writer is given (an Arrow dictionary array).
    """

    values: Any
    def_levels: npt.NDArray[np.int16] | npt.NDArray[np.int8] | None
    rep_levels: npt.NDArray[np.int16] | None
    num_levels: int
    dictionaries: tuple[ChunkDictionary, ...] | None = None
