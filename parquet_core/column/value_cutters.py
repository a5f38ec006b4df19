"""Cut the values section of a big data page into the values of successive small pages.

Used by :mod:`parquet_core.column.page_slices`: after the definition levels
of a batch tell how many non-null values it holds, a cutter's ``take(n)``
returns ``(encoding, values)``: the encoding and the values section of a
standalone page holding exactly the page's next *n* values.  Each cutter
costs about the values it hands out (plus one delta block, or one window of
bytes), never the rest of the page:

* PLAIN fixed width: a slice of the page bytes (no copy);
* PLAIN BYTE_ARRAY: the batch's values are found by decoding them from a
  window of the page bytes (grown until they fit: the value chain from a true
  value start is the same in any window that holds it), then the bytes they
  span are sliced out (no copy);
* PLAIN BOOLEAN: bits sliced at a byte boundary, or re-packed when the cut
  falls inside a byte;
* BYTE_STREAM_SPLIT: the *n* bytes of each stream at the value offset, joined;
* DELTA_BINARY_PACKED: the blocks holding the batch's values are decoded as a
  stream of their own, whose first value is the last value before them (carried
  across cuts), and handed out as PLAIN values; a block's values past the cut
  wait for the next batch;
* DELTA_LENGTH_BYTE_ARRAY: the lengths as above, re-encoded, with the data
  bytes they span;
* DELTA_BYTE_ARRAY: prefix and suffix lengths as above; the batch's first value
  is written whole (prefix 0), rebuilt from the last value of the previous
  batch, which is carried (found from the lengths, without rebuilding the batch).

Every bound is checked against the page bytes before anything is sliced or
allocated; a malformed page raises :class:`~parquet_core.errors.ParquetFormatError`
naming the page (the caller adds column and row group).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.varint import write_uleb128, zigzag_encode
from parquet_core.constants import Encoding
from parquet_core.encodings.delta_binary_packed import (
    decode_delta_binary_packed,
    delta_binary_packed_blocks,
    encode_delta_binary_packed,
)
from parquet_core.encodings.plain import decode_plain_byte_array
from parquet_core.errors import ParquetFormatError

__all__ = ["BitCutter", "ByteArrayCutter", "DeltaByteArrayCutter", "DeltaCutter",
           "DeltaLengthCutter", "FixedCutter", "StreamSplitCutter"]

_PLAIN = int(Encoding.PLAIN)
_DLBA = int(Encoding.DELTA_LENGTH_BYTE_ARRAY)
_DBA = int(Encoding.DELTA_BYTE_ARRAY)
_BSS = int(Encoding.BYTE_STREAM_SPLIT)


class FixedCutter:
    """PLAIN values of *width* bytes each: slices of the page (no copy)."""

    def __init__(self, values: memoryview, width: int, what: str) -> None:
        self.values, self.width, self.what, self.done = values, width, what, 0

    def take(self, n: int) -> tuple[int, Any]:
        start = self.done * self.width
        vals = self.values[start:start + n * self.width]
        if len(vals) < n * self.width:
            raise ParquetFormatError(f"{self.what}: {len(self.values)} bytes hold fewer than the "
                                     f"page's {self.done + n} non-null values")
        self.done += n
        return _PLAIN, vals


class ByteArrayCutter:
    """PLAIN BYTE_ARRAY values (each a 4-byte length and its bytes): the slice the next
    *n* values span, found by decoding them in a window of the page (see the module)."""

    def __init__(self, values: memoryview, what: str) -> None:
        self.values, self.what, self.pos = values, what, 0
        self.per_value = 16.0         # bytes per value, learned from the batches cut

    def take(self, n: int) -> tuple[int, Any]:
        size = len(self.values)
        if n == 0:
            return _PLAIN, b""
        left = size - self.pos
        window = min(left, int(n * self.per_value * 1.25) + 64)
        while True:
            piece = self.values[self.pos:self.pos + window]
            try:
                _, used = decode_plain_byte_array(piece, n)
                break
            except ParquetFormatError as exc:
                if window >= left:
                    raise ParquetFormatError(f"PLAIN BYTE_ARRAY values of {self.what} (the page's "
                                             f"values from byte {self.pos}): {exc}") from None
                window = min(left, 2 * window)
        self.per_value = max(4.0, used / n)
        start = self.pos
        self.pos += used
        return _PLAIN, self.values[start:self.pos]


class BitCutter:
    """PLAIN booleans (one bit each, least significant first)."""

    def __init__(self, values: memoryview, what: str) -> None:
        self.values, self.what, self.bit = values, what, 0

    def take(self, n: int) -> tuple[int, Any]:
        first, shift = divmod(self.bit, 8)
        stop = (self.bit + n + 7) // 8
        if stop > len(self.values):
            raise ParquetFormatError(f"PLAIN booleans of {self.what}: {len(self.values)} bytes hold "
                                     f"fewer than the page's {self.bit + n} non-null values")
        self.bit += n
        if not shift:
            return _PLAIN, self.values[first:stop]
        bits = np.unpackbits(np.frombuffer(self.values[first:stop], dtype=np.uint8), bitorder="little")
        return _PLAIN, np.packbits(bits[shift:shift + n], bitorder="little").tobytes()


class StreamSplitCutter:
    """BYTE_STREAM_SPLIT values of *width* bytes: the page holds *width* streams of
    ``len(values) // width`` bytes; a small page gets the same *n* bytes of each."""

    def __init__(self, values: memoryview, width: int, what: str) -> None:
        if len(values) % width:
            raise ParquetFormatError(f"BYTE_STREAM_SPLIT values of {what}: {len(values)} bytes is "
                                     f"not a multiple of the value width {width}")
        self.values, self.width, self.what = values, width, what
        self.count, self.done = len(values) // width, 0

    def take(self, n: int) -> tuple[int, Any]:
        a = self.done
        if a + n > self.count:
            raise ParquetFormatError(f"BYTE_STREAM_SPLIT values of {self.what}: the page holds "
                                     f"{self.count} values, fewer than its {a + n} non-null values")
        self.done += n
        c = self.count
        return _BSS, b"".join(self.values[k * c + a:k * c + a + n] for k in range(self.width))


def _stream_header(block_size: int, n_mini: int, count: int, first: int) -> bytes:
    return (write_uleb128(block_size) + write_uleb128(n_mini) + write_uleb128(count)
            + write_uleb128(zigzag_encode(first)))


class _DeltaStream:
    """Values of one DELTA_BINARY_PACKED stream, decoded a few blocks at a time.

    *need* caps the header's value count; with *exact* (a v2 page, whose header
    says how many values are not null) the stream must hold that many."""

    def __init__(self, buf: memoryview, pos: int, dtype: Any, what: str, need: int,
                 exact: bool) -> None:
        self.buf, self.dtype, self.what = buf, np.dtype(dtype), what
        try:
            (self.block_size, self.n_mini, self.total, first, self.starts,
             self.end) = delta_binary_packed_blocks(buf, pos, max_count=need)
        except ParquetFormatError as exc:
            raise ParquetFormatError(f"{what}: {exc}") from None
        if exact and self.total < need:
            raise ParquetFormatError(f"{what}: the stream holds {self.total} values, the page "
                                     f"has {need} non-null values")
        self.nblocks = int(self.starts.size)
        self.block = 0               # next block to decode
        self.deltas = 0              # deltas decoded so far
        self.pending = np.zeros(0, dtype=self.dtype)
        self.last: int | None = None  # the last value decoded (the next stream's first)
        self.first = first

    def take(self, n: int) -> npt.NDArray[Any]:
        parts: list[npt.NDArray[Any]] = []
        have = 0
        while have < n:
            if not self.pending.size:
                self._decode(n - have)
            k = min(n - have, self.pending.size)
            parts.append(self.pending[:k])
            self.pending = self.pending[k:]
            have += k
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _decode(self, want: int) -> None:
        if self.last is None:
            bits = 8 * self.dtype.itemsize
            v = self.first & ((1 << bits) - 1)
            self.pending = np.array([v], dtype=f"u{self.dtype.itemsize}").view(self.dtype)
            self.last = int(self.pending[0])
            return
        left = self.total - 1 - self.deltas
        if left <= 0:
            raise ParquetFormatError(f"{self.what}: the stream's {self.total} values are used up")
        b0 = self.block
        b1 = min(self.nblocks, b0 + -(-want // self.block_size))
        nd = min((b1 - b0) * self.block_size, left)
        stop = int(self.starts[b1]) if b1 < self.nblocks else self.end
        stream = (_stream_header(self.block_size, self.n_mini, nd + 1, self.last)
                  + bytes(self.buf[int(self.starts[b0]):stop]))
        try:
            vals, _ = decode_delta_binary_packed(stream, 0, self.dtype)
        except ParquetFormatError as exc:
            raise ParquetFormatError(f"{self.what}: blocks {b0} to {b1 - 1}: {exc}") from None
        self.pending = vals[1:]
        self.last = int(vals[-1])
        self.block, self.deltas = b1, self.deltas + nd


class DeltaCutter:
    """DELTA_BINARY_PACKED INT32/INT64 values, handed out as PLAIN values."""

    def __init__(self, values: memoryview, dtype: Any, what: str, need: int, exact: bool) -> None:
        self.stream = _DeltaStream(values, 0, dtype, f"DELTA_BINARY_PACKED values of {what}", need,
                                   exact)

    def take(self, n: int) -> tuple[int, Any]:
        if n == 0:
            return _PLAIN, b""
        return _PLAIN, self.stream.take(n).tobytes()


def _lengths(stream: _DeltaStream, n: int, what: str) -> npt.NDArray[np.int64]:
    lengths = stream.take(n).astype(np.int64)
    if lengths.size and int(lengths.min()) < 0:
        raise ParquetFormatError(f"{what}: negative value length {int(lengths.min())}")
    return lengths


class DeltaLengthCutter:
    """DELTA_LENGTH_BYTE_ARRAY values: the batch's lengths re-encoded, its data sliced."""

    def __init__(self, values: memoryview, what: str, need: int, exact: bool) -> None:
        self.what = f"DELTA_LENGTH_BYTE_ARRAY values of {what}"
        self.values = values
        self.lengths = _DeltaStream(values, 0, np.int32, self.what, need, exact)
        self.pos = self.lengths.end

    def take(self, n: int) -> tuple[int, Any]:
        if n == 0:
            return _DLBA, encode_delta_binary_packed(np.zeros(0, dtype=np.int32), np.int32)
        lengths = _lengths(self.lengths, n, self.what)
        total = int(lengths.sum())
        if self.pos + total > len(self.values):
            raise ParquetFormatError(f"{self.what}: values need {total} bytes at byte {self.pos}, "
                                     f"only {len(self.values) - self.pos} remain")
        data = self.values[self.pos:self.pos + total]
        self.pos += total
        return _DLBA, encode_delta_binary_packed(lengths, np.int32) + bytes(data)


class DeltaByteArrayCutter:
    """DELTA_BYTE_ARRAY values: each small page starts with a whole value (prefix 0)."""

    def __init__(self, values: memoryview, what: str, need: int, exact: bool,
                 type_length: int | None) -> None:
        self.what = f"DELTA_BYTE_ARRAY values of {what}"
        self.values, self.type_length = values, type_length
        self.prefix = _DeltaStream(values, 0, np.int32, f"prefix lengths of {self.what}", need,
                                   exact)
        self.suffix = _DeltaStream(values, self.prefix.end, np.int32,
                                   f"suffix lengths of {self.what}", need, exact)
        self.pos = self.suffix.end
        self.last = b""              # the value before the next batch

    def take(self, n: int) -> tuple[int, Any]:
        if n == 0:
            empty = encode_delta_binary_packed(np.zeros(0, dtype=np.int32), np.int32)
            return _DBA, empty + empty
        prefix = _lengths(self.prefix, n, f"prefix lengths of {self.what}")
        suffix = _lengths(self.suffix, n, f"suffix lengths of {self.what}")
        total = int(suffix.sum())
        if self.pos + total > len(self.values):
            raise ParquetFormatError(f"{self.what}: suffixes need {total} bytes at byte {self.pos}, "
                                     f"only {len(self.values) - self.pos} remain")
        p0, s0 = int(prefix[0]), int(suffix[0])
        if p0 > len(self.last):
            raise ParquetFormatError(f"{self.what}: prefix length {p0} is longer than the "
                                     f"previous value ({len(self.last)} bytes)")
        head = self.last[:p0] + bytes(self.values[self.pos:self.pos + s0])
        prefix[0], suffix[0] = 0, len(head)
        full = prefix + suffix                    # each value's length
        if n > 1 and bool((prefix[1:] > full[:-1]).any()):
            i = int(np.flatnonzero(prefix[1:] > full[:-1])[0]) + 1
            raise ParquetFormatError(f"{self.what}: value {i} of a batch has prefix length "
                                     f"{int(prefix[i])}, the value before it {int(full[i - 1])} bytes")
        data = head + bytes(self.values[self.pos + s0:self.pos + total])
        body = (encode_delta_binary_packed(prefix, np.int32)
                + encode_delta_binary_packed(suffix, np.int32) + data)
        self.pos += total
        self.last = _last_value(prefix, suffix, data)
        return _DBA, body


def _last_value(prefix: npt.NDArray[np.int64], suffix: npt.NDArray[np.int64], data: bytes) -> bytes:
    """The last of front-coded values (value ``i`` is value ``i - 1``'s first ``prefix[i]``
    bytes, then ``suffix[i]`` bytes of *data*; ``prefix[0] == 0``, every prefix checked
    against the value before it), without rebuilding the others: byte ``j`` of the last
    value is in the suffix of the last value ``i`` whose prefix is at most ``j``."""
    length = int(prefix[-1] + suffix[-1])
    if not length:
        return b""
    floor = np.minimum.accumulate(prefix[::-1])[::-1]      # nondecreasing
    j = np.arange(length, dtype=np.int64)
    src = np.searchsorted(floor, j, side="right") - 1
    starts = np.zeros(suffix.size, dtype=np.int64)
    np.cumsum(suffix[:-1], out=starts[1:])
    return np.frombuffer(data, dtype=np.uint8)[starts[src] + j - prefix[src]].tobytes()
