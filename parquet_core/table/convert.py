"""Turn a flat leaf's :class:`ColumnData` into an :class:`Array`.

Two steps, both vectorised:

1. *storage*: physical values become the logical type's storage
   (INT32 -> int8/uint16..., INT64 -> uint64 by reinterpretation, FLOAT16
   bytes -> float16, decimals on INT32/INT64 -> int64 unscaled...).
2. *spacing*: for an optional column the non-null values are spread to one
   slot per row using the definition levels (validity = level == max).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.data import ColumnData
from parquet_core.errors import ParquetFormatError, UnsupportedFeatureError, quoted
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.pyvalues import to_storage
from parquet_core.table.arrays import Array
from parquet_core.table.dictionary import dictionary_array

__all__ = ["to_array", "spread_values"]

def spread_values(values: Any, validity: npt.NDArray[np.bool_], n: int) -> Any:
    """Place non-null values at the valid slots of an n-slot buffer."""
    if isinstance(values, ByteArrays):
        lengths = np.zeros(n, dtype=np.int64)
        lengths[validity] = values.lengths()
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        base = int(values.offsets[0])
        return ByteArrays(offsets, values.data[base:base + int(offsets[-1])])
    shape = (n,) + tuple(values.shape[1:])
    out = np.zeros(shape, dtype=values.dtype)
    out[validity] = values
    return out


def to_array(data: ColumnData, desc: ColumnDescriptor, *, requested: bool = False) -> Array:
    """Build the :class:`Array` of a flat (non-repeated) leaf.

    Data read with its chunks' dictionaries gives a
    :class:`~parquet_core.table.dictionary.DictionaryArray` (*requested*:
    see there).

    Raises
    ------
    ParquetFormatError
        If level and value counts disagree.
    UnsupportedFeatureError
        For repeated leaves (nested data is assembled elsewhere).
    """
    if desc.max_repetition_level > 0:
        raise UnsupportedFeatureError(
            f"column {quoted(desc.dotted_path, bare=True)} is repeated; nested columns are not supported yet")
    arr = _dense(data, desc)
    if data.dictionaries is None:
        return arr
    return dictionary_array(arr, data.dictionaries, lambda d: to_storage(arr.type, d), requested=requested)


def _dense(data: ColumnData, desc: ColumnDescriptor) -> Array:
    dt = desc.data_type
    values = to_storage(dt, data.values)
    n = data.num_levels
    if data.def_levels is None:
        if len(values) != n:
            raise ParquetFormatError(
                f"column {quoted(desc.dotted_path, bare=True)}: {len(values)} values for {n} rows")
        return Array(dt, values, None)
    validity = data.def_levels == desc.max_definition_level
    present = int(np.count_nonzero(validity))
    if present != len(values):
        raise ParquetFormatError(
            f"column {quoted(desc.dotted_path, bare=True)}: definition levels say {present} values, pages hold {len(values)}")
    if present == n:
        return Array(dt, values, None)
    return Array(dt, spread_values(values, validity, n), validity)
