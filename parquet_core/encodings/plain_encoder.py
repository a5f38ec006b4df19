"""PLAIN *encoder* (Encoding.PLAIN = 0) for all eight physical types.

Spec: parquet-format ``Encodings.md``, "Plain: (PLAIN = 0)"; the byte
layout is drawn in :mod:`parquet_core.encodings.plain` (the decoder).
Fixed-width values are one little-endian copy; booleans are packed LSB
first; BYTE_ARRAY values get their 4-byte lengths merged in with no
per-value loop::

    offsets  [0, 2, 2, 5]    data  a b x y z
    output   02 00 00 00 a b | 00 00 00 00 | 03 00 00 00 x y z

Edge cases: no values -> ``b""``; BYTE_ARRAY offsets may start above 0
(a slice sharing its data buffer); rows of the wrong width, a value of
2**32 bytes or more, or an unknown physical type -> ``ValueError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core._kernels.layout import interleave
from parquet_core.constants import PhysicalType
from parquet_core.encodings._inputs import as_byte_arrays

__all__ = ["encode_plain", "encode_plain_byte_array"]

_NUMERIC_DTYPE: dict[int, str] = {
    PhysicalType.INT32: "<i4",
    PhysicalType.INT64: "<i8",
    PhysicalType.FLOAT: "<f4",
    PhysicalType.DOUBLE: "<f8",
}



def encode_plain(values: Any, physical_type: int, type_length: int | None = None) -> bytes:
    """PLAIN-encode ``values`` (the representations the decoder returns).

    Parameters
    ----------
    values:
        BOOLEAN bools; INT32/INT64/FLOAT/DOUBLE numbers (converted to the
        little-endian type); INT96 / FIXED_LEN_BYTE_ARRAY ``(n, w)`` uint8
        rows; BYTE_ARRAY a :class:`ByteArrays` (or a list of bytes).
    physical_type:
        A :class:`~parquet_core.constants.PhysicalType` value.
    type_length:
        FIXED_LEN_BYTE_ARRAY width, checked against the rows when given.

    Returns
    -------
    bytes
        The values section.  Booleans are bit-packed LSB first, the last
        byte zero-padded.

    Raises
    ------
    ValueError
        An unknown physical type, rows of the wrong width, or a BYTE_ARRAY
        value of 2**32 bytes or more.
    """
    pt = physical_type
    if pt == PhysicalType.BOOLEAN:
        return np.packbits(np.asarray(values, dtype=bool).reshape(-1), bitorder="little").tobytes()
    if pt in _NUMERIC_DTYPE:
        return np.ascontiguousarray(values, dtype=_NUMERIC_DTYPE[pt]).tobytes()
    if pt in (PhysicalType.INT96, PhysicalType.FIXED_LEN_BYTE_ARRAY):
        rows = np.ascontiguousarray(values, dtype=np.uint8)
        width = 12 if pt == PhysicalType.INT96 else type_length
        if width is not None and rows.size and (rows.ndim != 2 or rows.shape[1] != width):
            raise ValueError(f"PLAIN {PhysicalType(pt).name}: rows of {width} bytes expected, "
                             f"got shape {rows.shape}")
        return rows.tobytes()
    if pt == PhysicalType.BYTE_ARRAY:
        return encode_plain_byte_array(as_byte_arrays(values)).tobytes()
    raise ValueError(f"PLAIN: unknown physical type {physical_type}")


def encode_plain_byte_array(values: ByteArrays) -> npt.NDArray[np.uint8]:
    """Lay out ``| len0 (u32 LE) | bytes0 | len1 | bytes1 | ...`` with no per-value loop.

    Values of one common length are a reshape: an ``(n, 4 + L)`` matrix
    whose first 4 columns are the length.  Otherwise the lengths and the
    data are merged by :func:`~parquet_core._kernels.layout.interleave`
    (one byte mask, two masked assignments).
    """
    offsets = values.offsets
    n = len(values)
    base, end = int(offsets[0]), int(offsets[-1])
    data = values.data[base:end]
    lengths = np.diff(offsets)
    if n == 0:
        return np.zeros(0, dtype=np.uint8)
    longest = int(lengths.max())
    if longest >= 1 << 32:
        raise ValueError(f"PLAIN BYTE_ARRAY: a value of {longest} bytes does not fit a u32 length")
    prefix = lengths.astype("<u4")
    if int(lengths.min()) == longest:
        # records of 4 + L bytes: two strided copies of whole fields
        size = 4 + longest
        out = np.empty(n * size, dtype=np.uint8)
        np.ndarray((n,), dtype="<u4", buffer=out, strides=(size,))[:] = prefix
        if longest:
            field = np.dtype((np.void, longest))
            np.ndarray((n,), dtype=field, buffer=out, offset=4, strides=(size,))[:] = \
                np.ascontiguousarray(data).view(field)
        return out
    if longest <= _WINDOW_MAX and longest <= 2 * (len(data) // n) + 16 and _IN_ORDER:
        return _windows(prefix, lengths, data, longest)
    return interleave(prefix.view(np.uint8), np.full(n, 4, dtype=np.int64), data, lengths)


#: Longest value the fixed-window layout copies (each value costs a copy this wide).
_WINDOW_MAX = 64


def _windows(prefix: npt.NDArray[Any], lengths: npt.NDArray[np.int64], data: npt.NDArray[np.uint8],
             width: int) -> npt.NDArray[np.uint8]:
    """The PLAIN layout by fixed-width windows written in value order.

    Value ``i`` goes to the output as a ``width``-byte window starting at its
    place; the bytes past its end are junk that the windows of the values
    after it overwrite, because a 1-D fancy assignment writes in index order
    (numpy does this but does not document it: :data:`_IN_ORDER` checks it
    at import, and the encoder falls back to :func:`interleave` otherwise).
    The length prefixes, which the junk may cover, go in last.
    """
    n = lengths.size
    total = 4 * n + data.size
    starts = np.zeros(n, dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    dest = starts + 4 * np.arange(1, n + 1, dtype=np.int64)
    out = np.empty(total + width, dtype=np.uint8)
    field = np.dtype((np.void, width))
    sink = np.ndarray((total + 1,), dtype=field, buffer=out, strides=(1,))
    # source windows: straight from the data, except those running past its end
    src = np.ascontiguousarray(data)
    cut = src.size - width + 1
    split = int(np.searchsorted(starts, cut, side="left")) if cut > 0 else 0
    if split:
        sink[dest[:split]] = np.ndarray((cut,), dtype=field, buffer=src, strides=(1,))[starts[:split]]
    if split < n:
        lo = int(starts[split])
        tail = np.zeros(src.size - lo + width, dtype=np.uint8)
        tail[:src.size - lo] = src[lo:]
        windows = np.ndarray((tail.size - width + 1,), dtype=field, buffer=tail, strides=(1,))
        sink[dest[split:]] = windows[starts[split:] - lo]
    heads = np.ndarray((total + width - 3,), dtype="<u4", buffer=out, strides=(1,))
    heads[dest - 4] = prefix
    return out[:total]


def _check_in_order() -> bool:
    # overlapping windows: each later write must win (see _windows)
    out = np.zeros(12, dtype=np.uint8)
    sink = np.ndarray((9,), dtype=np.dtype((np.void, 4)), buffer=out, strides=(1,))
    src = np.arange(1, 9, dtype=np.uint8).repeat(4).view(np.dtype((np.void, 4)))
    sink[np.arange(8)] = src
    return out[:8].tolist() == list(range(1, 9))


_IN_ORDER = _check_in_order()
