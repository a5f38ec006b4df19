"""Select rows of a table: by a boolean mask or by indices (one gather per column)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import UnsupportedFeatureError
from parquet_core.table.arrays import Array, Table
from parquet_core.table.dictionary import DictionaryArray
from parquet_core.table.nested import ListArray, StructArray

__all__ = ["take_array", "take", "filter_table"]


def take_array(arr: Array, indices: npt.NDArray[np.integer]) -> Array:
    """The rows *indices* of *arr*, in that order (lists, maps and structs included)."""
    indices = np.asarray(indices, dtype=np.int64)
    validity = None if arr.validity is None else arr.validity[indices]
    if isinstance(arr, ListArray):      # and MapArray
        starts = arr.offsets[indices]
        lengths = arr.offsets[indices + 1] - starts
        offsets = np.zeros(indices.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        # every picked list's child slots, in order: one repeat + arange, no loop
        child_idx = np.repeat(starts - offsets[:-1], lengths) + np.arange(int(offsets[-1]), dtype=np.int64)
        return type(arr)(arr.type, offsets, take_array(arr.values, child_idx), validity)
    if isinstance(arr, StructArray):
        return StructArray(arr.type, [take_array(c, indices) for c in arr.values], int(indices.size), validity)
    if isinstance(arr, DictionaryArray):
        return arr.take(indices)
    if type(arr) is not Array:
        raise UnsupportedFeatureError(f"row selection of {type(arr).__name__} columns is not supported")
    values = arr.values
    picked: ByteArrays | np.ndarray
    if isinstance(values, ByteArrays):
        picked = values.take(indices)
    else:
        picked = np.asarray(values).take(indices, axis=0)
    if validity is not None and validity.all():
        validity = None
    return Array(arr.type, picked, validity)


def take(table: Table, indices: npt.NDArray[np.integer]) -> Table:
    """The rows *indices* of *table*."""
    idx = np.asarray(indices, dtype=np.int64)
    return Table(table.schema, [take_array(c, idx) for c in table.columns], int(idx.size),
                 metadata=table.metadata)


def filter_table(table: Table, mask: npt.NDArray[np.bool_]) -> Table:
    """The rows of *table* where *mask* is True."""
    mask = np.asarray(mask, dtype=np.bool_)
    if mask.size != table.num_rows:
        raise ValueError(f"mask of {mask.size} entries for a table of {table.num_rows} rows")
    if mask.all():
        return table
    return take(table, np.flatnonzero(mask))
