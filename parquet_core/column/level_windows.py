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

from parquet_core._kernels.bitpack import pack_bits, unpack_bits
from parquet_core.column.levels import level_bit_width
from parquet_core.encodings.rle_hybrid import decode_hybrid
from parquet_core.encodings.rle_validity import hybrid_runs
from parquet_core.errors import ParquetFormatError

__all__ = ["LevelWindow", "pack_levels"]

#: Levels decoded at a time (at least this many, in whole runs, unless a run is cut).
CHUNK = 1 << 15

#: Bytes of a stream whose runs are found at a time.
_WINDOW = 1 << 12

#: Run headers looked at to tell a stream of short runs, and the bytes a run that is short.
_PROBE_RUNS = 32
_DENSE_BYTES = 24


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
    if width == 1:
        body = np.packbits(levels, bitorder="little")
    else:
        body = pack_bits(levels, width, validate=False)
    pad = groups * width - int(body.size)       # the last group's bytes past the values
    return _uleb((groups << 1) | 1) + body.tobytes() + bytes(pad)


def _chunks(buf: memoryview, n: int, width: int, chunk: int, what: str) -> Iterator[npt.NDArray[np.uint8]]:
    """The *n* levels of the hybrid stream *buf*, decoded a chunk at a time (see the module)."""
    total = base = 0        # levels and bytes done
    size = len(buf)
    if n > chunk and _dense(buf, width):
        # the runs found vectorised a window of bytes at a time (the search's work memory
        # is tens of bytes per stream byte: a window's, not the stream's)
        while total < n and base < size:
            stop = min(size, base + _WINDOW)
            runs = hybrid_runs(buf[base:stop], width, partial=stop < size)
            if runs is None or not runs[0].size:
                break
            starts, stops, counts = runs
            ends = np.cumsum(counts)
            got = min(n - total, int(ends[-1]))
            end = int(stops[-1])
            yield from _run_chunks(buf[base:base + end], got, width, chunk, what, starts, stops, counts, ends)
            total += got
            base += end
    if total < n:
        yield from _walked_chunks(buf[base:], n - total, width, chunk, what)


def _dense(buf: memoryview, width: int) -> bool:
    """Whether the first runs of *buf* are short (a few bytes each): then finding them all
    vectorised (work per byte) beats walking them (work per run)."""
    p, size, runs = 0, len(buf), 0
    vbytes = (width + 7) // 8
    while runs < _PROBE_RUNS and p < size:
        h = shift = 0
        while p < size:
            b = buf[p]
            p += 1
            h |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80 or shift > 35:
                break
        p += (h >> 1) * width if h & 1 else vbytes
        runs += 1
    return runs == _PROBE_RUNS and p <= _DENSE_BYTES * runs


def _run_chunks(buf: memoryview, n: int, width: int, chunk: int, what: str, starts: Any, stops: Any,
                counts: Any, ends: Any) -> Iterator[npt.NDArray[np.uint8]]:
    """:func:`_chunks` from the runs found vectorised: runs gathered up to a chunk of
    levels are decoded together, a run longer than a chunk alone, in pieces."""
    used = int(np.searchsorted(ends, n, side="left")) + 1      # runs holding the n levels
    arr = np.frombuffer(buf, dtype=np.uint8)
    long = np.flatnonzero(counts[:used] > chunk)
    cut = np.searchsorted(ends[:used], np.arange(chunk, n, chunk), side="left") + 1
    bounds = np.unique(np.concatenate((cut, long, long + 1, [used])))
    first = 0
    for b in bounds.tolist():
        if b <= first or b > used:
            continue
        done = int(ends[first - 1]) if first else 0
        count = min(int(ends[b - 1]), n) - done
        if b - first == 1 and count > chunk:
            yield from _long_run(buf, int(starts[first]), int(stops[first]), count, width, chunk, what)
        elif count:
            yield _decode_runs(arr, starts[first:b], stops[first:b], counts[first:b], width, count)
        first = b


def _decode_runs(arr: npt.NDArray[np.uint8], starts: Any, stops: Any, counts: Any, width: int,
                 count: int) -> npt.NDArray[np.uint8]:
    """The first *count* levels of whole runs (found by :func:`hybrid_runs`, so every body
    lies inside the stream), decoded vectorised: RLE values repeated, bit-packed bodies
    gathered and unpacked in one call."""
    packed = (arr[starts] & 1).astype(bool)
    out = np.repeat(arr[stops - 1], counts)         # an RLE run's value is its last byte
    if packed.any():
        p_stops = stops[packed]
        lens = (counts[packed] >> 3) * width
        p_starts = p_stops - lens
        total = int(lens.sum())
        first = np.cumsum(lens) - lens
        idx = np.arange(total, dtype=np.int64) + np.repeat(p_starts - first, lens)
        values = unpack_bits(arr[idx], width, total * 8 // width)
        out[np.repeat(packed, counts)] = values
    return out[:count]


def _long_run(buf: memoryview, head: int, stop: int, count: int, width: int, chunk: int,
              what: str) -> Iterator[npt.NDArray[np.uint8]]:
    """The first *count* levels of the one run at byte *head*, in pieces of about *chunk*."""
    p = head
    while buf[p] >= 0x80:
        p += 1
    h = int.from_bytes(buf[head:p + 1], "little")       # only the low bit is needed
    if h & 1:
        per = max(chunk // 8, 1)
        groups = (count + 7) // 8
        body = p + 1
        done = 0
        for g in range(0, groups, per):
            g2 = min(g + per, groups)
            piece = _uleb(((g2 - g) << 1) | 1) + bytes(buf[body + g * width:body + g2 * width])
            m = min(g2 * 8, count) - done
            yield _decode(memoryview(piece), width, m, what)
            done += m
    else:
        value = int.from_bytes(buf[p + 1:stop], "little")
        if value >= 256:
            raise ParquetFormatError(f"{what}: the run at byte {head} repeats level {value}")
        for at in range(0, count, chunk):
            yield np.full(min(chunk, count - at), value, dtype=np.uint8)


def _walked_chunks(buf: memoryview, n: int, width: int, chunk: int, what: str
                   ) -> Iterator[npt.NDArray[np.uint8]]:
    """:func:`_chunks` walking the run headers one by one (a stream whose runs are not
    found vectorised: its fault is named here)."""
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

    def next_record(self, records: int) -> int:
        """Levels from the cursor to the start of the record *records* records on (a level 0
        of this repetition stream; the level at the cursor starts a record or continues one
        from before), or to the stream's end when it holds fewer."""
        seen = 0                     # record starts found after the cursor
        i = 1                        # next level to look at
        while True:
            if self.ahead.size > i:
                z = np.flatnonzero(self.ahead[i:] == 0)
                if seen + z.size >= records:
                    return i + int(z[records - seen - 1])
                seen += int(z.size)
                i = int(self.ahead.size)
            if not self._more():
                return int(self.ahead.size)

    def take(self, k: int) -> npt.NDArray[np.uint8]:
        """The next *k* levels (the stream must hold them)."""
        while self.ahead.size < k:
            if not self._more():
                raise ParquetFormatError(f"the level stream ends {k - self.ahead.size} levels early")
        out, self.ahead = self.ahead[:k], self.ahead[k:]
        return out
