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

from parquet_core.errors import ParquetFormatError

__all__ = [
    "read_uleb128",
    "read_zigzag",
    "write_uleb128",
    "zigzag_decode",
    "zigzag_encode",
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
        buf = memoryview(np.ascontiguousarray(buf, dtype=np.uint8).reshape(-1))
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
