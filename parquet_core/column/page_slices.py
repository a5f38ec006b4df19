"""Cut a big data page of a flat column into small pages, for readers that stream batches.

A page's declared value count can be huge while its stored bytes are small:
one RLE run of 2**28 dictionary indices takes a few bytes, a page of zeros
compresses a thousandfold.  Decoded whole, such a page holds its values, its
definition levels and (for an optional column) a position per level at once.
:func:`slice_pages` replaces each data page of more than *levels* values of a
flat column (no repetition) by a run of :class:`~parquet_core.page.model.DataPageV2`
pages of about *levels* values each, which the column decoder then decodes
one at a time, as it decodes any page:

* the definition levels (an RLE/bit-packing hybrid stream) are cut into
  standalone streams of exactly the wanted count (:class:`HybridCutter`:
  an RLE run is cut by writing a shorter run header; a bit-packed run is cut
  at a group of 8 values by slicing its body; a cut inside a group writes the
  group's remaining values as RLE runs of one);
* dense 0/1 levels (scattered nulls: a run every few dozen values, where the
  cutter's Python step per run would dominate) are decoded once into a bitmap,
  a chunk of whole runs at a time, and each piece is one bit-packed run of it;
* the values are cut after the non-null count of those levels, by the cutters
  of :mod:`parquet_core.column.value_cutters` (PLAIN of every type, byte stream
  split, the three delta encodings) or, for dictionary indices and RLE
  booleans, by the same hybrid cutter.

Each small page keeps the original page's ordinal and offset, so an error
still names the page of the file; anything malformed found while cutting is a
ParquetError (never a numpy or Python error).  The page's decompressed bytes
stay held while its small pages are decoded (decompression is not streamed);
what no longer scales with the page is everything decoded from them.  Levels
not in the RLE encoding and columns with repetition are passed on whole.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

import numpy as np

from parquet_core.column.level_windows import LevelWindow
from parquet_core.column.levels import level_bit_width
from parquet_core.column.value_cutters import (
    BitCutter,
    ByteArrayCutter,
    DeltaByteArrayCutter,
    DeltaCutter,
    DeltaLengthCutter,
    FixedCutter,
    StreamSplitCutter,
)
from parquet_core.constants import Encoding, PhysicalType
from parquet_core.encodings.rle_hybrid import decode_rle_hybrid
from parquet_core.encodings.rle_validity import decode_validity, stream_runs
from parquet_core.errors import ParquetError, ParquetFormatError, add_page_context, out_of_memory
from parquet_core.page.model import DataPageV1, DataPageV2, Page

__all__ = ["HybridCutter", "slice_pages", "SLICE_MIN_VALUES"]

#: Levels streams longer than one byte per this many levels are cut through a bitmap.
_DENSE_LEVELS = 256

#: Levels decoded at a time into that bitmap (whole runs: at least this many).
_LEVEL_CHUNK = 1 << 15

#: A page with repetition is cut above this many times the flat threshold, in levels: the
#: threshold counts rows of a flat page, and a row of lists spans several levels (pyarrow's
#: pages of 20,000 rows of lists of 0..16 items hold 170,000 levels: cutting them cost 20-40 %
#: more time than decoding them whole, for little memory).
ROW_LEVELS = 4

#: Pages of at most this many values (or twice the batch) are never cut.
SLICE_MIN_VALUES = 1 << 16

_RLE = int(Encoding.RLE)
_PLAIN = int(Encoding.PLAIN)
_DICT = frozenset((int(Encoding.PLAIN_DICTIONARY), int(Encoding.RLE_DICTIONARY)))
_BSS = int(Encoding.BYTE_STREAM_SPLIT)
_DBP = int(Encoding.DELTA_BINARY_PACKED)
_DLBA = int(Encoding.DELTA_LENGTH_BYTE_ARRAY)
_DBA = int(Encoding.DELTA_BYTE_ARRAY)
_FIXED = {PhysicalType.INT32: 4, PhysicalType.INT64: 8, PhysicalType.FLOAT: 4, PhysicalType.DOUBLE: 8,
          PhysicalType.INT96: 12}


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


class HybridCutter:
    """Successive standalone pieces of one RLE/bit-packing hybrid stream.

    ``take(n)`` returns the bytes of a hybrid stream whose first *n* values are
    the stream's next *n* values (a last bit-packed group may carry values past
    them, which a decoder told to read *n* ignores).  Costs the piece, not the
    stream: nothing before the cursor is looked at again.
    """

    def __init__(self, buf: Any, bit_width: int, what: str) -> None:
        self.buf = memoryview(buf).cast("B") if not isinstance(buf, bytes) else memoryview(buf)
        self.w = bit_width
        self.vbytes = (bit_width + 7) // 8
        self.what = what
        self.pos = 0                 # next run header
        self.kind = 0                # 0: none, 1: RLE run, 2: bit-packed run
        self.left = 0                # values left in the current run
        self.value = b""             # the RLE run's value bytes
        self.body = 0                # the bit-packed run's next unread group
        self.skip = 0                # values of that group already taken (0..7)

    def _next_run(self) -> None:
        buf, p, end = self.buf, self.pos, len(self.buf)
        h = shift = 0
        while True:
            if p >= end:
                raise ParquetFormatError(f"{self.what}: the RLE/bit-packed stream ends at byte {p} "
                                         "before the page's values")
            b = buf[p]
            p += 1
            h |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
            if shift > 35:
                raise ParquetFormatError(f"{self.what}: run header at byte {self.pos} is longer than 5 bytes")
        if h & 1:
            groups = h >> 1
            stop = p + groups * self.w
            if stop > end:
                raise ParquetFormatError(f"{self.what}: bit-packed run at byte {self.pos} declares "
                                         f"{groups} groups ({groups * self.w} bytes), {end - p} remain")
            self.kind, self.left, self.body, self.skip, self.pos = 2, groups * 8, p, 0, stop
        else:
            stop = p + self.vbytes
            if stop > end:
                raise ParquetFormatError(f"{self.what}: RLE run at byte {self.pos} has no room for its value")
            self.kind, self.left, self.value, self.pos = 1, h >> 1, bytes(buf[p:stop]), stop

    def take(self, n: int) -> bytes:
        out = bytearray()
        need = n
        w = self.w
        while need:
            if not self.left:
                self.kind = 0
                self._next_run()
                continue
            if self.kind == 1:
                k = min(need, self.left)
                out += _varint(k << 1)
                out += self.value
                self.left -= k
                need -= k
                continue
            if self.skip:
                # inside a group: its remaining values, each an RLE run of one (a Python loop
                # of at most 7 values, once per batch boundary: no per-value cost over the page)
                group = bytes(self.buf[self.body:self.body + w])
                vals = decode_rle_hybrid(b"\x03" + group, w, 8)
                k = min(need, 8 - self.skip, self.left)
                for v in vals[self.skip:self.skip + k].tolist():
                    out += b"\x02" + int(v).to_bytes(self.vbytes, "little")
                self.skip += k
                self.left -= k
                need -= k
                if self.skip == 8:
                    self.skip = 0
                    self.body += w
                continue
            groups = min(need, self.left) // 8
            if groups:
                out += _varint((groups << 1) | 1)
                out += self.buf[self.body:self.body + groups * w]
                self.body += groups * w
                self.left -= groups * 8
                need -= groups * 8
                continue
            # fewer than 8 values wanted: the whole group, the decoder reads only *need* of it
            k = min(need, self.left)
            out += b"\x03"
            out += self.buf[self.body:self.body + w]
            self.skip = k
            self.left -= k
            need -= k
            if self.skip == 8:
                self.skip = 0
                self.body += w
        return bytes(out)


def slice_pages(pages: Iterable[Page], desc: Any, levels: int) -> Iterator[Page]:
    """*pages* with each big data page of a flat column cut into pages of about *levels*
    values (see the module docstring); other pages as they are."""
    threshold = max(SLICE_MIN_VALUES, 2 * levels)
    if levels <= 0:
        yield from pages
        return
    if desc.max_repetition_level > 0:
        threshold *= ROW_LEVELS
    for page in pages:
        if isinstance(page, (DataPageV1, DataPageV2)) and page.num_values > threshold:
            parts = _split(page, desc, levels)
            if parts is not None:
                yield from parts
                continue
        yield page


def _split(page: DataPageV1 | DataPageV2, desc: Any, levels: int) -> Iterator[DataPageV2] | None:
    """The small pages of *page*, or None when its encodings are not cut (decoded whole)."""
    enc = int(page.encoding)
    ptype = desc.physical_type
    width = _FIXED.get(ptype)
    if ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY and desc.type_length and desc.type_length > 0:
        width = desc.type_length
    if not _cut_kind(enc, ptype, width):
        return None
    max_def = desc.max_definition_level
    max_rep = desc.max_repetition_level
    if max_rep > 0 and not (0 < max_def < 256):
        return None
    n = int(page.num_values)
    where = f"page {page.ordinal} at offset {page.offset}"
    reps = None
    if isinstance(page, DataPageV1):
        body = memoryview(page.body).cast("B") if not isinstance(page.body, bytes) else memoryview(page.body)
        pos = 0
        defs = None
        if max_rep > 0:
            if int(page.repetition_level_encoding) != _RLE or len(body) < 4:
                return None          # the whole-page decoder handles (or names) it
            length = int.from_bytes(body[:4], "little")
            if 4 + length > len(body):
                return None
            reps, pos = body[4:4 + length], 4 + length
        if max_def > 0:
            if int(page.definition_level_encoding) != _RLE:
                return None
            if len(body) < pos + 4:
                return None          # the whole-page decoder names what is wrong
            length = int.from_bytes(body[pos:pos + 4], "little")
            if pos + 4 + length > len(body):
                return None
            defs, pos = body[pos + 4:pos + 4 + length], pos + 4 + length
        values = body[pos:]
        exact = max_def == 0          # the non-null count is known only from the levels
        need = n
    else:
        defs = memoryview(page.definition_levels) if max_def > 0 else None
        values = memoryview(page.values)
        exact = True
        need = n - int(page.num_nulls)
        if need < 0:
            return None
        if max_rep > 0:
            reps = memoryview(page.repetition_levels)
    if values.format != "B" or values.ndim != 1:
        values = values.cast("B")
    if enc in _DICT and (not len(values) or values[0] > 32):
        return None
    if enc == _RLE and (len(values) < 4 or 4 + int.from_bytes(values[:4], "little") > len(values)):
        return None
    if reps is not None:
        # the non-null count is known only from the levels (a writer may count empty
        # lists among the nulls of a v2 header, or not)
        return _pieces(page, desc, levels, n, (reps, defs), values, enc, width, max_def, where, n, False)
    return _pieces(page, desc, levels, n, defs, values, enc, width, max_def, where, need, exact)


def _cut_kind(enc: int, ptype: int, width: int | None) -> bool:
    """Whether pages of encoding *enc* and physical type *ptype* are cut."""
    if enc in _DICT:
        return True
    if enc == _RLE:
        return ptype == PhysicalType.BOOLEAN
    if enc == _PLAIN:
        return width is not None or ptype in (PhysicalType.BYTE_ARRAY, PhysicalType.BOOLEAN)
    if enc == _BSS:
        return width is not None and ptype != PhysicalType.INT96
    if enc == _DBP:
        return ptype in (PhysicalType.INT32, PhysicalType.INT64)
    if enc == _DLBA:
        return ptype == PhysicalType.BYTE_ARRAY
    if enc == _DBA:
        return ptype == PhysicalType.BYTE_ARRAY or (ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY
                                                    and width is not None)
    return False


class _HybridLevels:
    """Definition levels cut by the hybrid cutter, with each piece's non-null count."""

    def __init__(self, defs: Any, max_def: int, what: str) -> None:
        self.cut = HybridCutter(defs, level_bit_width(max_def), what)
        self.max_def = max_def

    def take(self, k: int) -> tuple[bytes, int]:
        dl = self.cut.take(k)
        return dl, int(np.count_nonzero(decode_rle_hybrid(dl, self.cut.w, k) == self.max_def))


class _BitmapLevels:
    """Levels 0/1 of a stream of many short runs, held as a bitmap (a bit per level,
    about the size of a bit-packed stream): each piece is one bit-packed run of it.

    The hybrid cutter costs a Python step per run, and pyarrow writes a run every
    few dozen values when nulls are scattered; decoding the stream once (vectorised)
    and slicing its bitmap costs a pass over the page instead."""

    def __init__(self, defs: Any, n: int, what: str) -> None:
        self.bits = np.zeros((n + 7) // 8, dtype=np.uint8)
        at = 0
        # decoded a run of whole runs at a time: the decoders' working memory (about
        # ten bytes a level) stays that of a chunk, not of the page
        for start, stop, count in _run_chunks(defs, n, _LEVEL_CHUNK, what):
            piece = defs[start:stop]
            got = decode_validity([piece], [count])
            if got is not None:
                valid = got[0]
            else:
                try:
                    valid = decode_rle_hybrid(piece, 1, count) != 0
                except ParquetFormatError as exc:
                    raise ParquetFormatError(f"{what}: {exc}") from None
            if at % 8:      # the levels of a byte begun by the previous chunk
                head = np.unpackbits(self.bits[at // 8:at // 8 + 1], bitorder="little")[:at % 8]
                valid = np.concatenate((head.astype(bool), valid))
                at -= at % 8
            self.bits[at // 8:(at + valid.size + 7) // 8] = np.packbits(valid, bitorder="little")
            at += valid.size
        self.done = 0

    def take(self, k: int) -> tuple[bytes, int]:
        first, shift = divmod(self.done, 8)
        stop = (self.done + k + 7) // 8
        self.done += k
        if shift:
            raw = np.unpackbits(self.bits[first:stop + 1], bitorder="little")[shift:shift + k]
            body = np.packbits(raw, bitorder="little")
        else:
            body = self.bits[first:stop].copy()
            if k % 8:
                body[-1] &= (1 << (k % 8)) - 1
        nn = int(np.bitwise_count(body).sum())
        return _varint((len(body) << 1) | 1) + body.tobytes(), nn


def _run_chunks(buf: Any, n: int, chunk: int, what: str) -> Iterator[tuple[int, int, int]]:
    """Cut a bit-width-1 hybrid stream of *n* levels between runs: ``(start, stop, levels)``
    of successive pieces of at least *chunk* levels (the last: what is left).  Only the
    run headers are read, one Python step per run."""
    runs = stream_runs(buf)
    if runs is not None:
        chain, take = runs
        ends = np.cumsum(take)
        if int(ends[-1]) >= n:
            # the first run ending at or past each multiple of *chunk*, and the last one
            cut = np.searchsorted(ends, np.arange(chunk, n, chunk), side="left")
            cut = np.unique(np.append(cut, np.searchsorted(ends, n, side="left")))
            start = 0
            done = 0
            for i in cut.tolist():
                stop = int(chain[i + 1]) if i + 1 < chain.size else len(buf)
                upto = min(int(ends[i]), n)
                if upto > done:
                    yield start, stop, upto - done
                start, done = stop, upto
            return
    size = len(buf)
    p = start = 0
    got = total = 0
    while total < n:
        if p >= size:
            raise ParquetFormatError(f"{what}: the stream ends at byte {p} after {total} of "
                                     f"the page's {n} levels")
        h = shift = 0
        while True:
            b = buf[p]
            p += 1
            h |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
            if shift > 35 or p >= size:
                raise ParquetFormatError(f"{what}: malformed run header before byte {p}")
        if h & 1:
            p += h >> 1
            c = 8 * (h >> 1)
        else:
            p += 1
            c = h >> 1
        if p > size:
            raise ParquetFormatError(f"{what}: a run before byte {size} runs past the stream's end")
        got += c
        total += c
        if got >= chunk or total >= n:
            if total > n:
                got -= total - n
            if got:
                yield start, p, got
            start, got = p, 0


class _HybridValues:
    """Dictionary indices or RLE booleans: the hybrid cutter, with each encoding's header."""

    def __init__(self, values: memoryview, enc: int, what: str) -> None:
        self.enc = enc
        if enc in _DICT:
            self.head = bytes(values[:1])
            self.cut = HybridCutter(values[1:], values[0], f"dictionary indices of {what}")
        else:
            length = int.from_bytes(values[:4], "little")
            self.head = b""
            self.cut = HybridCutter(values[4:4 + length], 1, f"RLE booleans of {what}")

    def take(self, n: int) -> tuple[int, Any]:
        body = self.cut.take(n)
        if self.enc in _DICT:
            return self.enc, self.head + body
        return self.enc, len(body).to_bytes(4, "little") + body


def _values_cutter(desc: Any, values: memoryview, enc: int, width: int | None, where: str,
                   need: int, exact: bool) -> Any:
    ptype = desc.physical_type
    if enc in _DICT or enc == _RLE:
        return _HybridValues(values, enc, where)
    if enc == _PLAIN:
        if ptype == PhysicalType.BOOLEAN:
            return BitCutter(values, where)
        if ptype == PhysicalType.BYTE_ARRAY:
            return ByteArrayCutter(values, where)
        assert width is not None
        return FixedCutter(values, width, f"PLAIN values of {where}")
    if enc == _BSS:
        assert width is not None
        return StreamSplitCutter(values, width, where)
    if enc == _DBP:
        dtype = np.int32 if ptype == PhysicalType.INT32 else np.int64
        return DeltaCutter(values, dtype, where, need, exact)
    if enc == _DLBA:
        return DeltaLengthCutter(values, where, need, exact)
    tl = width if ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY else None
    return DeltaByteArrayCutter(values, where, need, exact, tl)


def _pieces(page: Any, desc: Any, levels: int, n: int, defs: Any, values: memoryview, enc: int,
            width: int | None, max_def: int, where: str, need: int, exact: bool
            ) -> Iterator[DataPageV2]:
    try:
        if isinstance(defs, tuple):
            yield from _cut_records(page, desc, levels, n, defs, values, enc, width, where)
        else:
            yield from _cut(page, desc, levels, n, defs, values, enc, width, max_def, where, need, exact)
    except ParquetError as exc:
        if where not in str(exc):
            add_page_context(exc, page.ordinal, page.offset)
        raise
    except MemoryError as exc:
        raise out_of_memory(exc, f"cutting {where}") from exc
    except (ValueError, IndexError, TypeError, OverflowError) as exc:
        raise ParquetFormatError(f"malformed {where}: {exc}") from exc


def _cut(page: Any, desc: Any, levels: int, n: int, defs: Any, values: memoryview, enc: int,
         width: int | None, max_def: int, where: str, need: int, exact: bool
         ) -> Iterator[DataPageV2]:
    def_cut: Any = None
    if defs is not None:
        if max_def == 1 and len(defs) > n // _DENSE_LEVELS:
            def_cut = _BitmapLevels(defs, n, f"definition levels of {where}")
        else:
            def_cut = _HybridLevels(defs, max_def, f"definition levels of {where}")
    val_cut = _values_cutter(desc, values, enc, width, where, need, exact)
    done = 0
    while done < n:
        k = min(levels, n - done)
        if def_cut is not None:
            dl, nn = def_cut.take(k)
        else:
            dl, nn = b"", k
        venc, vals = val_cut.take(nn)
        yield DataPageV2(k, k - nn, k, venc, b"", dl, vals, page.ordinal, page.offset)
        done += k


def _cut_records(page: Any, desc: Any, levels: int, n: int, streams: tuple[Any, Any], values: memoryview,
                 enc: int, width: int | None, where: str) -> Iterator[DataPageV2]:
    """Small pages of a page with repetition: each holds *levels* whole records (a batch's
    worth: a batch holds them anyway, and more, smaller pages would cost a decode and a
    join each).  Both level streams are decoded a window at a time; the values are cut
    after each small page's non-null count, as for a flat page."""
    max_def, max_rep = desc.max_definition_level, desc.max_repetition_level
    rep_win = LevelWindow(streams[0], max_rep, n, f"repetition levels of {where}")
    def_win = LevelWindow(streams[1], max_def, n, f"definition levels of {where}")
    val_cut = _values_cutter(desc, values, enc, width, where, n, False)
    done = 0
    while done < n:
        k = rep_win.next_record(levels)
        if k <= 0:
            raise ParquetFormatError(f"repetition levels of {where}: the stream ends after {done} "
                                     f"of the page's {n} levels")
        reps = rep_win.take(k)
        defs = def_win.take(k)
        if int(reps.max()) > max_rep or int(defs.max()) > max_def:
            raise ParquetFormatError(f"levels of {where}: a level above the column's maximum "
                                     f"(repetition {max_rep}, definition {max_def})")
        nn = int(np.count_nonzero(defs == max_def))
        rows = int(np.count_nonzero(reps == 0))
        venc, vals = val_cut.take(nn)
        # the levels go decoded (checked above): re-encoded, the decoder would decode
        # them again
        yield DataPageV2(k, k - nn, rows, venc, reps.astype(np.int16), defs.astype(np.int16), vals,
                         page.ordinal, page.offset)
        done += k
