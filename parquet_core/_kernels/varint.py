"""Scalar ULEB128 varints and zigzag integers, for run and block headers.

Spec: parquet-format ``Encodings.md``, "Run Length Encoding / Bit-Packing
Hybrid" (note 2: run headers are ULEB128) and "Delta Encoding" (header
fields are ULEB128, the first value and min deltas are zigzag ULEB128).

Byte layout of a ULEB128 value (7 payload bits per byte, least significant
group first, high bit = "another byte follows")::

    value 300 = 0b10_0101100
    +----------+----------+
    | 1 0101100| 0 0000010|
    +----------+----------+
      cont.      last byte

Zigzag maps signed to unsigned so small magnitudes stay short::

    0 -> 0, -1 -> 1, 1 -> 2, -2 -> 3, ...   u = (n << 1) ^ (n >> 63)

These readers are scalar on purpose: they decode the handful of header
integers per run or block; value bodies are decoded by numpy kernels.

The writer's vectorised helpers (:func:`zigzag_encode_array`,
:func:`uleb128_matrix`) encode one header integer per run or block for a
whole page at once; the caller lays the bytes out with one gather.

Edge cases handled here:

* a buffer that ends inside a varint -> ParquetFormatError (truncated);
* more than 10 bytes, or a 10th byte carrying bits above bit 63 ->
  ParquetFormatError (overlong / does not fit 64 bits);
* redundant zero continuation bytes (``0x80 0x00``) are accepted, as every
  mainstream reader does;
* a negative start position -> ParquetFormatError.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core.errors import ParquetFormatError

__all__ = [
    "read_uleb128",
    "read_zigzag",
    "uleb128_matrix",
    "write_uleb128",
    "zigzag_decode",
    "zigzag_encode",
    "zigzag_encode_array",
]

_MAX_BYTES = 10  # ceil(64 / 7)


def read_uleb128(buf: Any, pos: int) -> tuple[int, int]:
    """Read one unsigned LEB128 integer of at most 64 bits.

    Parameters
    ----------
    buf:
        ``bytes``, ``bytearray``, ``memoryview`` (format ``B``) or a uint8
        numpy array.
    pos:
        Offset of the first byte.

    Returns
    -------
    tuple[int, int]
        The value and the offset just past it.

    Raises
    ------
    ParquetFormatError
        On truncation, on an encoding longer than 10 bytes, or on a value that
        does not fit in 64 bits.
    """
    if isinstance(buf, np.ndarray):
        buf = np.ascontiguousarray(buf, dtype=np.uint8).reshape(-1).data
    n = len(buf)
    if pos < 0:
        raise ParquetFormatError(f"varint position {pos} is negative")
    if pos < n:
        b = buf[pos]
        if b < 0x80:  # fast path: one-byte varint (most run headers)
            return b, pos + 1
    start = pos
    result = 0
    shift = 0
    for i in range(_MAX_BYTES):
        if pos >= n:
            raise ParquetFormatError(
                f"truncated varint at byte {start}: the buffer ends after {pos - start} byte(s)")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            if i == _MAX_BYTES - 1 and b > 1:
                raise ParquetFormatError(f"varint at byte {start} does not fit in 64 bits")
            return result, pos
        shift += 7
    raise ParquetFormatError(f"varint at byte {start} is longer than {_MAX_BYTES} bytes")


def zigzag_decode(u: int) -> int:
    """Map a zigzag-encoded unsigned integer back to its signed value."""
    return (u >> 1) ^ -(u & 1)


def zigzag_encode(n: int) -> int:
    """Map a signed 64-bit integer to its zigzag unsigned form."""
    return ((n << 1) ^ (n >> 63)) & 0xFFFF_FFFF_FFFF_FFFF


def read_zigzag(buf: Any, pos: int) -> tuple[int, int]:
    """Read a zigzag ULEB128 signed integer; returns ``(value, new_pos)``."""
    u, pos = read_uleb128(buf, pos)
    return (u >> 1) ^ -(u & 1), pos


def write_uleb128(value: int) -> bytes:
    """Encode a non-negative integer below 2**64 as ULEB128 (writer/test helper)."""
    if value < 0 or value >= 1 << 64:
        raise ValueError(f"ULEB128 value out of range: {value}")
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag_encode_array(values: Any) -> npt.NDArray[np.uint64]:
    """Zigzag-encode signed 64-bit integers (int32 input is sign-extended first).

    A 32-bit value sign-extended to 64 bits has the same zigzag code as in a
    32-bit zigzag, so one function serves INT32 and INT64 columns.
    """
    v = np.asarray(values).astype(np.int64, copy=False)
    return ((v << 1) ^ (v >> 63)).view(np.uint64)


def uleb128_matrix(values: Any) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """ULEB128-encode many unsigned integers at once.

    Returns
    -------
    tuple[numpy.ndarray, numpy.ndarray]
        An ``(n, L)`` uint8 matrix whose row ``i`` starts with the encoding
        of ``values[i]`` (``L`` = the longest encoding; bytes past a row's own
        length are filler), and the byte length of every encoding (1..10).
    """
    u = np.asarray(values).astype(np.uint64, copy=False).reshape(-1)
    n = u.size
    if n == 0:
        return np.zeros((0, 1), dtype=np.uint8), np.zeros(0, dtype=np.int64)
    top = int(u.max())
    width = max(1, -(-top.bit_length() // 7))
    lengths = np.ones(n, dtype=np.int64)
    for k in range(1, width):
        lengths += u >= np.uint64(1 << (7 * k))
    out = np.empty((n, width), dtype=np.uint8)
    for k in range(width):
        group = (u >> np.uint64(7 * k)) & np.uint64(0x7F)
        if k < width - 1:
            group |= (lengths > k + 1).astype(np.uint64) << np.uint64(7)
        out[:, k] = group
    return out, lengths
