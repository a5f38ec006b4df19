"""Level streams of a big page read a window at a time, for cutting it at record boundaries.

A data page of a column with repetition can only be cut where a record starts
(repetition level 0).  :class:`LevelWindow` decodes one RLE/bit-packing hybrid
level stream in chunks of whole runs (one vectorised decode per chunk, a
Python step per run header), splitting a long run so that no chunk holds more
than about ``chunk`` levels, however many a single run declares; the levels
decoded and not yet taken are kept (one byte each), so a cut can look ahead
for the next record start.  :func:`pack_levels` writes taken levels back as a
standalone stream (one bit-packed run) for the small page that holds them.

Levels of more than 8 bits (a nesting deeper than 255) are not handled here;
the caller decodes such pages whole.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np
import numpy.typing as npt

from parquet_core.column.levels import level_bit_width
from parquet_core.encodings.rle_hybrid import decode_hybrid
from parquet_core.errors import ParquetFormatError

__all__ = ["LevelWindow", "pack_levels"]

#: Levels decoded at a time (at least this many, in whole runs, unless a run is cut).
CHUNK = 1 << 15


def _uleb(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def pack_levels(levels: npt.NDArray[np.uint8], width: int) -> bytes:
    """*levels* (each below ``2**width``, ``width <= 8``) as one bit-packed hybrid run;
    the padding of the last group is zeros, which a decoder told the count ignores."""
    k = int(levels.size)
    if not k:
        return b""
    groups = (k + 7) // 8
    padded = np.zeros(groups * 8, dtype=np.uint8)
    padded[:k] = levels
    bits = np.unpackbits(padded[:, None], axis=1, bitorder="little")[:, :width]
    return _uleb((groups << 1) | 1) + np.packbits(bits.ravel(), bitorder="little").tobytes()


def _chunks(buf: memoryview, n: int, width: int, chunk: int, what: str) -> Iterator[npt.NDArray[np.uint8]]:
    """The *n* levels of the hybrid stream *buf*, decoded a chunk at a time (see the module)."""
    size = len(buf)
    vbytes = (width + 7) // 8
    p = start = 0          # next run header; first byte of the runs gathered, not yet decoded
    pending = total = 0    # levels gathered; levels walked
    while total < n:
        head = p
        if p >= size:
            raise ParquetFormatError(f"{what}: the stream ends at byte {p} after {total} of "
                                     f"the page's {n} levels")
        h = shift = 0
        while True:
            if p >= size:
                raise ParquetFormatError(f"{what}: run header at byte {head} runs past the stream's end")
            b = buf[p]
            p += 1
            h |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
            if shift > 35:
                raise ParquetFormatError(f"{what}: run header at byte {head} is longer than 5 bytes")
        if h & 1:
            groups = h >> 1
            stop = p + groups * width
            count = groups * 8
        else:
            stop = p + vbytes
            count = h >> 1
        if stop > size:
            raise ParquetFormatError(f"{what}: the run at byte {head} needs {stop - head} bytes, "
                                     f"{size - head} remain")
        count = min(count, n - total)
        if count > chunk:
            # a long run: what was gathered, then this run in pieces of about a chunk
            if pending:
                yield _decode(buf[start:head], width, pending, what)
                pending = 0
            if h & 1:
                per = max(chunk // 8, 1)
                done = 0
                for g in range(0, (count + 7) // 8, per):
                    g2 = min(g + per, (count + 7) // 8)
                    piece = _uleb(((g2 - g) << 1) | 1) + bytes(buf[p + g * width:p + g2 * width])
                    m = min(g2 * 8, count) - done
                    yield _decode(memoryview(piece), width, m, what)
                    done += m
            else:
                value = int.from_bytes(buf[p:stop], "little")
                if value >= 256:
                    raise ParquetFormatError(f"{what}: the run at byte {head} repeats level {value}")
                for at in range(0, count, chunk):
                    yield np.full(min(chunk, count - at), value, dtype=np.uint8)
            start = stop
        else:
            pending += count
            if pending >= chunk:
                yield _decode(buf[start:stop], width, pending, what)
                start, pending = stop, 0
        total += count
        p = stop
    if pending:
        yield _decode(buf[start:p], width, pending, what)


def _decode(piece: Any, width: int, count: int, what: str) -> npt.NDArray[np.uint8]:
    try:
        levels, _ = decode_hybrid(np.frombuffer(piece, dtype=np.uint8), width, count, np.uint8)
    except ParquetFormatError as exc:
        raise ParquetFormatError(f"{what}: {exc}") from None
    return levels


class LevelWindow:
    """The levels of one stream, decoded ahead as far as a cut needs and taken in order."""

    def __init__(self, stream: Any, max_level: int, n: int, what: str, chunk: int = CHUNK) -> None:
        self.width = level_bit_width(max_level)
        if not 1 <= self.width <= 8:
            raise ValueError(f"level width {self.width} is not cut")
        mv = memoryview(stream)
        if mv.format != "B" or mv.ndim != 1:
            mv = mv.cast("B")
        self.src = _chunks(mv, n, self.width, chunk, what)
        self.ahead: npt.NDArray[np.uint8] = np.empty(0, dtype=np.uint8)   # decoded, not taken

    def _more(self) -> bool:
        got = next(self.src, None)
        if got is None:
            return False
        self.ahead = np.concatenate((self.ahead, got)) if self.ahead.size else got
        return True

    def next_record(self, target: int) -> int:
        """Levels from the cursor to the first record start at least *target* levels on
        (a level 0 of this repetition stream), or to the stream's end."""
        i = max(target, 1)
        while True:
            if self.ahead.size > i:
                z = np.flatnonzero(self.ahead[i:] == 0)
                if z.size:
                    return i + int(z[0])
                i = self.ahead.size
            if not self._more():
                return int(self.ahead.size)

    def take(self, k: int) -> npt.NDArray[np.uint8]:
        """The next *k* levels (the stream must hold them)."""
        while self.ahead.size < k:
            if not self._more():
                raise ParquetFormatError(f"the level stream ends {k - self.ahead.size} levels early")
        out, self.ahead = self.ahead[:k], self.ahead[k:]
        return out
