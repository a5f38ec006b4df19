"""Repetition and definition levels of data pages.

v1 pages prefix each level stream with its byte length (RLE) or size it from
the count (deprecated BIT_PACKED); v2 pages carry their lengths in the
header and always use the RLE/bit-packing hybrid.  The bit width of a level
stream is the number of bits needed for the column's maximum level.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core.constants import Encoding
from parquet_core.encodings.bit_packed import decode_bit_packed
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


def _single_run(mv: memoryview, start: int, stop: int, width: int, max_level: int,
                count: int) -> npt.NDArray[np.int16] | None:
    """Levels of a stream that is one RLE run covering ``count`` values, or None.

    The common case of a column without nulls (all levels = max) or a page
    of nulls, read straight from the memoryview: no numpy until the result.
    Anything else (or anything odd) returns None and takes the general path.
    """
    if stop - start < 2 or not 0 < width <= 8:
        return None
    header = mv[start]
    pos = start + 1
    if header & 1:
        return None
    if header >= 0x80:
        header &= 0x7F
        shift = 7
        while pos < stop and shift <= 28:
            byte = mv[pos]
            pos += 1
            header |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        else:
            return None
    if header >> 1 < count or pos >= stop:
        return None
    value = mv[pos]
    if value > max_level:
        return None
    return np.full(count, value, dtype=np.int16)


def _as_bytes_view(buf: Any) -> memoryview:
    mv = buf if isinstance(buf, memoryview) else memoryview(buf)
    if mv.format != "B" or mv.ndim != 1:
        mv = mv.cast("B")
    return mv


def read_levels_v1(buf: memoryview, pos: int, encoding: int, max_level: int, count: int,
                   what: str) -> tuple[npt.NDArray[np.int16], int]:
    """Decode one v1 level stream starting at *pos*; return levels and the new position."""
    width = level_bit_width(max_level)
    if encoding == Encoding.RLE:
        mv = _as_bytes_view(buf)
        size = len(mv)
        if pos < 0 or pos + 4 > size:
            raise ParquetFormatError(
                f"v1 level stream at byte {pos}: no room for its 4-byte length ({size} bytes)")
        length = int.from_bytes(mv[pos:pos + 4], "little")
        start = pos + 4
        if start + length > size:
            raise ParquetFormatError(
                f"v1 level stream at byte {pos} declares {length} bytes, "
                f"only {size - start} remain")
        if count > 0:
            single = _single_run(mv, start, start + length, width, max_level, count)
            if single is not None:
                return single, start + length
        arr = np.frombuffer(mv, dtype=np.uint8, count=length, offset=start)
        levels, _ = decode_hybrid(arr, width, count, np.int16)
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
    width = level_bit_width(max_level)
    mv = _as_bytes_view(buf)
    if count > 0:
        single = _single_run(mv, 0, len(mv), width, max_level, count)
        if single is not None:
            return single
    levels, _ = decode_hybrid(np.frombuffer(mv, dtype=np.uint8), width, count, np.int16)
    return _check(levels, max_level, what)
