"""UTF-8 for the write path: encode numpy text arrays, validate byte strings.

Both directions work on whole buffers, never one Python ``str`` per value.

*Encoding* a numpy ``'U'`` array (fixed-width UCS-4, padded with NUL code
points) walks the code points with numpy: each needs 1 to 4 bytes, chosen
by its range::

    U+0000..U+007F     0xxxxxxx
    U+0080..U+07FF     110xxxxx 10xxxxxx
    U+0800..U+FFFF     1110xxxx 10xxxxxx 10xxxxxx
    U+10000..U+10FFFF  11110xxx 10xxxxxx 10xxxxxx 10xxxxxx

Surrogates (U+D800..U+DFFF) have no UTF-8 form and are refused.

*Validating* a :class:`ByteArrays` decodes the concatenated buffer once with
Python's strict codec (it refuses overlong forms, surrogates and code points
above U+10FFFF), in chunks.  A valid concatenation is not enough: ``b"\\xc3"``
followed by ``b"\\xa9"`` is valid as a whole while both values are invalid.
In a valid buffer a byte begins a character exactly when it is not a
continuation byte (``0b10xxxxxx``), so every value boundary inside the
buffer must fall on a non-continuation byte; with that, each value is a
whole number of characters.  When the buffer is invalid, the boundaries
before the first undecodable byte still sit in a valid parse, so the first
bad value is the earlier of "holds the undecodable byte" and "ends mid-way
through a character".
"""

from __future__ import annotations

import codecs
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays

_Cell = TypeVar("_Cell", bound=np.generic)

__all__ = ["encode_ucs4", "bytes_from_fixed", "first_invalid_utf8", "UnencodableText"]

#: Bytes decoded per call of the incremental decoder (bounds the temporary ``str``).
_CHUNK = 1 << 24


class UnencodableText(ValueError):
    """A code point with no UTF-8 form (a lone surrogate) at value ``row``."""

    def __init__(self, row: int) -> None:
        super().__init__(f"value {row} holds a lone surrogate, which UTF-8 cannot encode")
        self.row = row


def _trimmed_lengths(cells: npt.NDArray[np.generic]) -> npt.NDArray[np.int64]:
    """Per row of an (n, k) matrix, the index after the last non-zero cell."""
    n, k = cells.shape
    if k == 0 or n == 0:
        return np.zeros(n, dtype=np.int64)
    nz = cells != 0
    last = k - np.argmax(nz[:, ::-1], axis=1)
    return np.where(nz.any(axis=1), last, 0).astype(np.int64)


def _gather(cells: npt.NDArray[_Cell], lengths: npt.NDArray[np.int64]) -> npt.NDArray[_Cell]:
    """The first ``lengths[i]`` cells of every row, flattened in row order."""
    keep = np.arange(cells.shape[1]) < lengths[:, None]
    return cells[keep]


def bytes_from_fixed(arr: npt.NDArray[np.bytes_]) -> ByteArrays:
    """Turn a numpy ``'S'`` array into :class:`ByteArrays` (trailing NULs dropped, as numpy does)."""
    arr = np.ascontiguousarray(arr)
    n, k = len(arr), arr.dtype.itemsize
    cells = arr.view(np.uint8).reshape(n, k)
    lengths = _trimmed_lengths(cells)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return ByteArrays(offsets, np.ascontiguousarray(_gather(cells, lengths), dtype=np.uint8))


def encode_ucs4(arr: npt.NDArray[np.str_]) -> ByteArrays:
    """Encode a numpy ``'U'`` array as UTF-8 :class:`ByteArrays`.

    Raises
    ------
    UnencodableText
        If a value holds a surrogate code point (or anything above U+10FFFF).
    """
    arr = np.ascontiguousarray(arr)
    n, k = len(arr), arr.dtype.itemsize // 4
    unit = np.dtype("u4").newbyteorder(arr.dtype.byteorder if arr.dtype.byteorder != "|" else "=")
    cells = arr.view(unit).reshape(n, k).astype(np.uint32, copy=False)
    chars = _trimmed_lengths(cells)
    cp = _gather(cells, chars)
    bad = ((cp >= 0xD800) & (cp <= 0xDFFF)) | (cp > 0x10FFFF)
    if bad.any():
        row_of_char = np.repeat(np.arange(n), chars)
        raise UnencodableText(int(row_of_char[int(np.argmax(bad))]))
    nbytes = (1 + (cp >= 0x80) + (cp >= 0x800) + (cp >= 0x10000)).astype(np.int64)
    ends = np.cumsum(nbytes)
    byte_at_char = np.zeros(len(cp) + 1, dtype=np.int64)
    byte_at_char[1:] = ends
    char_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(chars, out=char_offsets[1:])
    offsets = byte_at_char[char_offsets]
    total = int(offsets[-1])
    if total == len(cp):  # all ASCII
        return ByteArrays(offsets, cp.astype(np.uint8))
    out = np.empty(total, dtype=np.uint8)
    starts = ends - nbytes
    for width, lead in ((1, 0x00), (2, 0xC0), (3, 0xE0), (4, 0xF0)):
        sel = nbytes == width
        if not sel.any():
            continue
        c, s = cp[sel], starts[sel]
        # lead byte carries the high bits, each continuation byte 6 more
        out[s] = lead | (c >> (6 * (width - 1)))
        for j in range(1, width):
            out[s + j] = 0x80 | ((c >> (6 * (width - 1 - j))) & 0x3F)
    return ByteArrays(offsets, out)


def first_invalid_utf8(values: ByteArrays, rows: npt.NDArray[np.bool_] | None = None) -> int | None:
    """Return the first value that is not valid UTF-8, or ``None`` when all are.

    Parameters
    ----------
    values:
        The byte strings.
    rows:
        Optional mask; values outside it (null slots) are not reported.
    """
    offsets = values.offsets
    base, end = int(offsets[0]), int(offsets[-1])
    data = values.data[base:end]
    # a max is one pass with no temporary (a ``data >= 0x80`` mask would be the size of the
    # column's text: the write path's peak memory once)
    if len(data) == 0 or int(data.max()) < 0x80:
        return None     # ASCII: every byte a whole character, so no value is cut in one
    bad_at = _first_bad_byte(data)
    # boundaries past the first undecodable byte say nothing: the parse is lost there
    limit = end if bad_at is None else base + bad_at
    inner = offsets[(offsets > base) & (offsets < limit)] - base
    cut = inner[(data[inner] & 0xC0) == 0x80] if len(inner) else inner
    candidates = []
    if bad_at is not None:
        candidates.append(bad_at)
    if len(cut):
        # the value ending just before a mid-character boundary is cut short
        candidates.append(int(cut[0]) - 1)
    if not candidates:
        return None
    row = int(np.searchsorted(offsets, base + min(candidates), side="right")) - 1
    return _first_reportable(values, row, rows)


def _first_bad_byte(data: npt.NDArray[np.uint8]) -> int | None:
    """Position of the first byte of the (non-ASCII) buffer where strict decoding fails."""
    dec = codecs.getincrementaldecoder("utf-8")("strict")
    mem = np.ascontiguousarray(data).data
    for pos in range(0, len(data), _CHUNK):
        # the decoder may hold up to 3 bytes of the previous chunk; positions
        # in its error count from the start of those
        pending = len(dec.getstate()[0])
        try:
            dec.decode(mem[pos:pos + _CHUNK], final=pos + _CHUNK >= len(data))
        except UnicodeDecodeError as exc:
            return pos - pending + exc.start
    return None


def _first_reportable(values: ByteArrays, row: int, rows: npt.NDArray[np.bool_] | None) -> int | None:
    """Confirm *row*, else scan later values one by one (error path only)."""
    if rows is None or rows[row]:
        return row
    # Rare: the invalid bytes sit in a null slot.  Decode the remaining valid
    # values individually; this runs only when the buffer is already known bad.
    raw = values.to_pylist()
    for i in np.flatnonzero(rows[row:]).tolist():
        try:
            raw[row + i].decode("utf-8")
        except UnicodeDecodeError:
            return row + i
    return None
