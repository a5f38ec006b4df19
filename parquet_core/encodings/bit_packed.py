"""Deprecated BIT_PACKED encoding (Encoding.BIT_PACKED = 4), levels only.

Spec: parquet-format ``Encodings.md``, "Bit-packed (Deprecated)
(BIT_PACKED = 4)".  Repetition/definition levels of old v1 data pages are
packed back to back, most significant bit first, with no header and no
length prefix; only the last byte is padded::

    values 0..7, bit width 3 (ABC = bits of value 0, DEF of value 1, ...)
    +--------+--------+--------+
    |ABCDEFGH|IJKLMNOP|QRSTUVWX|   = 0x05 0x39 0x77
    +--------+--------+--------+
    size = ceil(count * bit_width / 8) bytes

Edge cases: ``bit_width == 0`` -> zeros, 0 bytes consumed; ``count == 0`` ->
empty, 0 bytes; a buffer shorter than the computed size, a negative count or
a bit width outside 0..32 -> ParquetFormatError.  Levels never need more
than 16 bits in practice; 32 is the limit shared with the hybrid decoder.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.bitpack import as_uint8, pack_bits_msb, packed_size, unpack_bits_msb
from parquet_core.errors import ParquetFormatError

__all__ = ["decode_bit_packed", "encode_bit_packed"]


def decode_bit_packed(buf: Any, bit_width: int, count: int) -> tuple[npt.NDArray[Any], int]:
    """Decode ``count`` MSB-first levels from the start of ``buf``.

    Returns
    -------
    tuple[numpy.ndarray, int]
        The levels (int32; uint32 for bit width 32) and the bytes consumed,
        ``ceil(count * bit_width / 8)``.
    """
    arr = as_uint8(buf)
    if count < 0:
        raise ParquetFormatError(f"BIT_PACKED levels: negative value count {count}")
    if not 0 <= bit_width <= 32:
        raise ParquetFormatError(f"BIT_PACKED levels: bit width {bit_width} is outside 0..32")
    nbytes = packed_size(count, bit_width)
    if nbytes > arr.size:
        raise ParquetFormatError(
            f"BIT_PACKED levels: {count} values of {bit_width} bits need {nbytes} bytes, "
            f"only {arr.size} available")
    levels = unpack_bits_msb(arr, bit_width, count)
    return (levels.view(np.int32) if bit_width < 32 else levels), nbytes


def encode_bit_packed(levels: Any, bit_width: int) -> bytes:
    """Encode levels MSB-first (writers no longer emit this deprecated encoding; for tests)."""
    return pack_bits_msb(levels, bit_width).tobytes()
