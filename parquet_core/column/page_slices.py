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
* the values are cut after the non-null count of those levels: PLAIN
  fixed-width values by slicing the page's bytes (no copy), dictionary
  indices and RLE booleans by the same hybrid cutter.

Each small page keeps the original page's ordinal and offset, so an error
still names the page of the file.  The page's decompressed bytes stay held
while its small pages are decoded (decompression is not streamed); what no
longer scales with the page is everything decoded from them.  Pages in other
encodings (delta, byte stream split, PLAIN BYTE_ARRAY, PLAIN booleans),
levels not in the RLE encoding, and columns with repetition are passed on
whole.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

import numpy as np

from parquet_core.column.levels import level_bit_width
from parquet_core.constants import Encoding, PhysicalType
from parquet_core.encodings.rle_hybrid import decode_rle_hybrid
from parquet_core.errors import ParquetFormatError
from parquet_core.page.model import DataPageV1, DataPageV2, Page

__all__ = ["HybridCutter", "slice_pages", "SLICE_MIN_VALUES"]

#: Pages of at most this many values (or twice the batch) are never cut.
SLICE_MIN_VALUES = 1 << 16

_RLE = int(Encoding.RLE)
_PLAIN = int(Encoding.PLAIN)
_DICT = frozenset((int(Encoding.PLAIN_DICTIONARY), int(Encoding.RLE_DICTIONARY)))
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
    if desc.max_repetition_level > 0 or levels <= 0:
        yield from pages
        return
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
    if not ((enc == _PLAIN and width is not None) or enc in _DICT
            or (enc == _RLE and ptype == PhysicalType.BOOLEAN)):
        return None
    max_def = desc.max_definition_level
    n = int(page.num_values)
    where = f"page {page.ordinal} at offset {page.offset}"
    if isinstance(page, DataPageV1):
        body = memoryview(page.body).cast("B") if not isinstance(page.body, bytes) else memoryview(page.body)
        pos = 0
        defs = None
        if max_def > 0:
            if int(page.definition_level_encoding) != _RLE:
                return None
            if len(body) < 4:
                return None          # the whole-page decoder names what is wrong
            length = int.from_bytes(body[:4], "little")
            if 4 + length > len(body):
                return None
            defs, pos = body[4:4 + length], 4 + length
        values = body[pos:]
    else:
        defs = memoryview(page.definition_levels) if max_def > 0 else None
        values = memoryview(page.values)
    if values.format != "B" or values.ndim != 1:
        values = values.cast("B")
    if enc in _DICT and (not len(values) or values[0] > 32):
        return None
    if enc == _RLE and (len(values) < 4 or 4 + int.from_bytes(values[:4], "little") > len(values)):
        return None
    return _pieces(page, desc, levels, n, defs, values, enc, width, max_def, where)


def _pieces(page: Any, desc: Any, levels: int, n: int, defs: Any, values: memoryview, enc: int,
            width: int | None, max_def: int, where: str) -> Iterator[DataPageV2]:
    def_cut = None if defs is None else HybridCutter(defs, level_bit_width(max_def),
                                                     f"definition levels of {where}")
    if enc in _DICT:
        head = bytes(values[:1])
        val_cut = HybridCutter(values[1:], values[0], f"dictionary indices of {where}")
    elif enc == _RLE:
        length = int.from_bytes(values[:4], "little")
        val_cut = HybridCutter(values[4:4 + length], 1, f"RLE booleans of {where}")
    else:
        val_cut = None
    done = vdone = 0
    while done < n:
        k = min(levels, n - done)
        if def_cut is not None:
            dl = def_cut.take(k)
            nn = int(np.count_nonzero(decode_rle_hybrid(dl, def_cut.w, k) == max_def))
        else:
            dl, nn = b"", k
        if val_cut is None:
            assert width is not None
            start = vdone * width
            vals: Any = values[start:start + nn * width]
            if len(vals) < nn * width:
                raise ParquetFormatError(f"PLAIN values of {where}: {len(values)} bytes hold fewer "
                                         f"than the page's {vdone + nn} non-null values")
        elif enc in _DICT:
            vals = head + val_cut.take(nn)
        else:
            body = val_cut.take(nn)
            vals = len(body).to_bytes(4, "little") + body
        yield DataPageV2(k, k - nn, k, page.encoding, b"", dl, vals, page.ordinal, page.offset)
        done += k
        vdone += nn
