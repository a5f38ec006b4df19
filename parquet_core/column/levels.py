"""Repetition and definition levels of data pages.

v1 pages prefix each level stream with its byte length (RLE) or size it from
the count (deprecated BIT_PACKED); v2 pages carry their lengths in the
header and always use the RLE/bit-packing hybrid.  The bit width of a level
stream is the number of bits needed for the column's maximum level.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from parquet_core.constants import Encoding
from parquet_core.encodings.bit_packed import decode_bit_packed
from parquet_core._kernels.bitpack import as_uint8
from parquet_core.encodings.rle_hybrid import decode_hybrid
from parquet_core.errors import ParquetFormatError, UnsupportedFeatureError

__all__ = ["level_bit_width", "read_levels_v1", "read_levels_v2"]


def level_bit_width(max_level: int) -> int:
    """Bits needed to store levels ``0..max_level``."""
    return int(max_level).bit_length()


def _check(levels: npt.NDArray[np.integer], max_level: int, what: str) -> npt.NDArray[np.int16]:
    out = np.asarray(levels).astype(np.int16, copy=False)
    # When max_level is all ones in its bit width (1, 3, 7...: every flat
    # nullable column), no decoded level can exceed it: skip the reduction.
    if len(out) and max_level & (max_level + 1) and int(out.max()) > max_level:
        raise ParquetFormatError(
            f"{what} level {int(out.max())} exceeds the column's maximum {max_level}")
    return out


def read_levels_v1(buf: memoryview, pos: int, encoding: int, max_level: int, count: int,
                   what: str) -> tuple[npt.NDArray[np.int16], int]:
    """Decode one v1 level stream starting at *pos*; return levels and the new position."""
    width = level_bit_width(max_level)
    if encoding == Encoding.RLE:
        arr = as_uint8(buf)
        if pos < 0 or pos + 4 > arr.size:
            raise ParquetFormatError(
                f"v1 level stream at byte {pos}: no room for its 4-byte length ({arr.size} bytes)")
        length = int.from_bytes(arr[pos:pos + 4].tobytes(), "little")
        start = pos + 4
        if start + length > arr.size:
            raise ParquetFormatError(
                f"v1 level stream at byte {pos} declares {length} bytes, "
                f"only {arr.size - start} remain")
        levels, _ = decode_hybrid(arr[start:start + length], width, count, np.int16)
        return _check(levels, max_level, what), start + length
    if encoding == Encoding.BIT_PACKED:
        levels, used = decode_bit_packed(buf[pos:], width, count)
    else:
        raise UnsupportedFeatureError(f"{what} levels in encoding {encoding} are not supported")
    return _check(levels, max_level, what), pos + used


def read_levels_v2(buf: memoryview, max_level: int, count: int, what: str) -> npt.NDArray[np.int16]:
    """Decode a v2 level stream (RLE hybrid, no length prefix)."""
    if max_level == 0:
        return np.zeros(count, dtype=np.int16)
    levels, _ = decode_hybrid(as_uint8(buf), level_bit_width(max_level), count, np.int16)
    return _check(levels, max_level, what)
