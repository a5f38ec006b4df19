"""Hash physical values the way every Parquet writer feeds its Bloom filters.

The hashed bytes are the value's PLAIN encoding, except that a BYTE_ARRAY
loses its 4-byte length prefix (parquet-format ``BloomFilter.md``)::

    INT32, FLOAT        4 bytes little-endian        -> xxh64_u32
    INT64, DOUBLE       8 bytes little-endian        -> xxh64_u64
    INT96               the 12 stored bytes          -> xxh64_rows
    FIXED_LEN_BYTE_ARRAY the w stored bytes          -> xxh64_rows
    BYTE_ARRAY          the value's bytes only       -> xxh64_byte_arrays

The hash sees bytes only: ``-0.0`` and ``0.0`` hash differently, as do two
NaNs with different payloads, and an INT96 is hashed exactly like a
12-byte FIXED_LEN_BYTE_ARRAY.  BOOLEAN has no byte-aligned PLAIN form (its
values are bit-packed); parquet-java and Arrow C++ write no Bloom filter
for it, and neither do we.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.bloom_filter.xxh64 import xxh64_byte_arrays, xxh64_rows, xxh64_u32, xxh64_u64
from parquet_core.constants import PhysicalType
from parquet_core.errors import UnsupportedFeatureError

__all__ = ["hash_values", "infer_physical_type"]

_FIXED_NUMERIC: dict[int, tuple[str, str]] = {
    PhysicalType.INT32: ("<i4", "iu"), PhysicalType.INT64: ("<i8", "iu"),
    PhysicalType.FLOAT: ("<f4", "fiu"), PhysicalType.DOUBLE: ("<f8", "fiu"),
}


def infer_physical_type(values: Any) -> int:
    """The physical type whose PLAIN bytes *values* already are.

    ``ByteArrays`` and sequences of ``bytes``/``str`` are BYTE_ARRAY; an
    ``(n, w)`` uint8 array is FIXED_LEN_BYTE_ARRAY (hashed like INT96 when
    ``w`` is 12); 4- and 8-byte integer and float arrays are INT32, INT64,
    FLOAT and DOUBLE.  Python ints and floats are refused: their width is
    the column's choice.
    """
    if isinstance(values, ByteArrays):
        return PhysicalType.BYTE_ARRAY
    if isinstance(values, (list, tuple)) and values and all(
            isinstance(v, (bytes, bytearray, memoryview, str)) for v in values):
        return PhysicalType.BYTE_ARRAY
    arr = np.asarray(values)
    if arr.dtype == np.uint8 and arr.ndim == 2:
        return PhysicalType.FIXED_LEN_BYTE_ARRAY
    kind, size = arr.dtype.kind, arr.dtype.itemsize
    if kind in "iu" and size in (4, 8) and not _python_numbers(values):
        return PhysicalType.INT32 if size == 4 else PhysicalType.INT64
    if kind == "f" and size in (4, 8) and not _python_numbers(values):
        return PhysicalType.FLOAT if size == 4 else PhysicalType.DOUBLE
    if kind == "b":
        _refuse_boolean()
    raise TypeError(f"cannot tell the physical type of {type(values).__name__} values "
                    f"(dtype {arr.dtype}); pass physical_type")


def _python_numbers(values: Any) -> bool:
    return not isinstance(values, np.ndarray) and not isinstance(values, np.generic)


def _refuse_boolean() -> None:
    raise UnsupportedFeatureError("Bloom filters are not defined for BOOLEAN columns "
                                  "(their PLAIN form is bit-packed)")


def _as_byte_arrays(values: Any) -> ByteArrays:
    if isinstance(values, ByteArrays):
        return values
    if isinstance(values, (bytes, bytearray, memoryview, str)):
        values = [values]
    return ByteArrays.from_pylist([v.encode("utf-8") if isinstance(v, str) else bytes(v)
                                   for v in values])


def _as_rows(values: Any, width: int | None) -> npt.NDArray[np.uint8]:
    if isinstance(values, ByteArrays):
        lens = values.lengths()
        w = int(lens[0]) if len(lens) else (width or 0)
        if len(lens) and bool((lens != w).any()):
            raise ValueError("fixed-width values must all have the same length")
        base = int(values.offsets[0])
        rows = values.data[base:base + w * len(values)].reshape(len(values), w)
    elif isinstance(values, (list, tuple)) and values and isinstance(values[0], (bytes, bytearray)):
        return _as_rows(_as_byte_arrays(values), width)
    else:
        rows = np.asarray(values)
        if rows.dtype != np.uint8 or rows.ndim != 2:
            raise TypeError(f"fixed-width values must be (n, width) uint8 rows, got "
                            f"{rows.dtype} {rows.shape}")
    if width is not None and rows.shape[1] != width:
        raise ValueError(f"rows are {rows.shape[1]} bytes wide, the column's width is {width}")
    return rows


def _as_numbers(values: Any, ptype: int) -> npt.NDArray[Any]:
    dtype, kinds = _FIXED_NUMERIC[ptype]
    arr = np.asarray(values)
    if arr.dtype.kind not in kinds:
        raise TypeError(f"{PhysicalType(ptype).name} values must be numbers, got {arr.dtype}")
    target = np.dtype(dtype)
    if arr.dtype.kind in "iu" and target.kind == "i":
        same_width = arr.dtype.itemsize == target.itemsize
        if same_width:  # uint32 in INT32 / uint64 in INT64: the same bits
            return arr.reshape(-1)
        info = np.iinfo(target)
        if arr.size and (arr.min() < info.min or arr.max() > info.max):
            raise ValueError(f"a value does not fit {PhysicalType(ptype).name}")
    return arr.reshape(-1).astype(target, copy=False)


def hash_values(values: Any, physical_type: int | None = None,
                type_length: int | None = None) -> npt.NDArray[np.uint64]:
    """XXH64 (seed 0) of the Bloom-filter bytes of every value.

    Parameters
    ----------
    values:
        Physical values as the read path returns them: a numeric array for
        INT32/INT64/FLOAT/DOUBLE, ``(n, 12)`` / ``(n, w)`` uint8 rows for
        INT96 / FIXED_LEN_BYTE_ARRAY, a :class:`ByteArrays` (or a list of
        ``bytes``; ``str`` is UTF-8 encoded) for BYTE_ARRAY.
    physical_type:
        A :class:`~parquet_core.constants.PhysicalType`; inferred from the
        representation when None (see :func:`infer_physical_type`).
    type_length:
        FIXED_LEN_BYTE_ARRAY width, checked against the rows when given.

    Returns
    -------
    numpy.ndarray
        One uint64 hash per value.

    Raises
    ------
    UnsupportedFeatureError
        For BOOLEAN.
    TypeError, ValueError
        Values that do not match the physical type.
    """
    ptype = infer_physical_type(values) if physical_type is None else int(physical_type)
    if ptype == PhysicalType.BYTE_ARRAY:
        return xxh64_byte_arrays(_as_byte_arrays(values))
    if ptype in (PhysicalType.INT32, PhysicalType.FLOAT):
        return xxh64_u32(_as_numbers(values, ptype))
    if ptype in (PhysicalType.INT64, PhysicalType.DOUBLE):
        return xxh64_u64(_as_numbers(values, ptype))
    if ptype == PhysicalType.INT96:
        return xxh64_rows(_as_rows(values, 12))
    if ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY:
        return xxh64_rows(_as_rows(values, type_length))
    if ptype == PhysicalType.BOOLEAN:
        _refuse_boolean()
    raise ValueError(f"unknown physical type {physical_type!r}")
