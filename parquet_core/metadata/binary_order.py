"""Vectorised min/max of binary values and truncation of binary bounds.

Two orders apply to BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY columns (parquet.thrift,
``ColumnOrder``):

* *unsigned byte-wise* (strings, binary, fixed binary, UUID, ...): compare
  byte by byte as unsigned numbers; when one value is a prefix of the other
  the shorter one sorts first (``b"" < b"a" < b"a\\x00" < b"b"``);
* *signed* for DECIMAL: the bytes are a big-endian two's complement integer
  and values compare as numbers; BYTE_ARRAY decimals of different lengths
  are sign-extended to a common width first.

How the extremes are found without a Python ``bytes`` per value::

    value      a  b  c  d  e  f  g  h | i  j ...
               \\______ key 0 _______/  \\__ key 1 ...
    key k = bytes [8k, 8k + 8) zero-padded, read as a big-endian uint64

Zero-padded lexicographic order followed by length is exactly the unsigned
byte-wise order (a proper prefix pads with zeros, so it ties or loses on the
bytes and wins on length).  Key 0 is computed for every value; only the
values tying for the extreme key go on to key 1, and so on, so the usual
cost is one pass of eight byte gathers.  For the signed order the first byte
has its sign bit flipped, which maps two's complement onto unsigned order.

Truncation (``truncate_min`` / ``truncate_max``) shortens long bounds.  A
truncated minimum is a prefix (never greater than the value); a truncated
maximum is a prefix whose last byte is incremented, dropping trailing 0xFF
bytes that would carry, so it stays greater than the value.  For UTF-8 text
the cut falls on a code point boundary and the last code point is
incremented instead, so the bound stays valid UTF-8.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays

__all__ = [
    "byte_array_extremes",
    "fixed_extremes",
    "signed_byte_array_extremes",
    "sign_extend",
    "truncate_min",
    "truncate_max",
]

_KEY_BYTES = 8


def _windows(values: ByteArrays) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64]]:
    """Return a big-endian word at every byte offset of the values' bytes (zero-padded), and starts.

    Word ``s`` is bytes ``[s, s + 8)`` read as a big-endian uint64 (an
    overlapping view, no copy), so one fancy index gathers eight bytes of
    every value at once.  Only the bytes the values use are copied (a page
    may be a slice of a larger buffer).
    """
    base, end = int(values.offsets[0]), int(values.offsets[-1])
    padded = np.zeros(end - base + _KEY_BYTES, dtype=np.uint8)
    padded[: end - base] = values.data[base:end]
    words = np.ndarray((end - base + 1,), dtype=">u8", buffer=padded, strides=(1,))
    return words, values.offsets[:-1] - base


def _byte_array_keys(win: npt.NDArray[np.uint64], starts: npt.NDArray[np.int64],
                     lens: npt.NDArray[np.int64], pos: int) -> npt.NDArray[np.uint64]:
    """Return big-endian uint64 keys of bytes ``[pos, pos + 8)`` of each value, zero-padded."""
    keys = win[np.minimum(starts + pos, len(win) - 1)].astype(np.uint64)
    # clear the bytes past each value's end: keep the top ``8 * left`` bits
    left = np.clip(lens - pos, 0, _KEY_BYTES)
    drop = np.minimum((_KEY_BYTES - left) * 8, 63).astype(np.uint64)  # shifts of 64 are undefined
    keys = (keys >> drop) << drop
    keys[left == 0] = 0  # no bytes left: key 0
    return keys


def _pick(cand: npt.NDArray[np.int64], keys: npt.NDArray[np.uint64],
          want_max: bool) -> npt.NDArray[np.int64]:
    target = keys.max() if want_max else keys.min()
    return cand[keys == target]


def _byte_array_extreme(win: npt.NDArray[np.uint64], starts: npt.NDArray[np.int64],
                        lens: npt.NDArray[np.int64], cand: npt.NDArray[np.int64],
                        pos: int, want_max: bool) -> int:
    """Narrow *cand* (tied on every key before byte *pos*) down to one extreme value."""
    # one round per 8-byte key; only values still tied for the extreme take part
    while len(cand) > 1:
        clens = lens[cand]
        if pos >= int(clens.max()):
            # equal once zero-padded: the shorter value is the smaller one
            return int(cand[int(np.argmax(clens) if want_max else np.argmin(clens))])
        keys = _byte_array_keys(win, starts[cand], clens, pos)
        cand = _pick(cand, keys, want_max)
        pos += _KEY_BYTES
    return int(cand[0])


def byte_array_extremes(values: ByteArrays) -> tuple[int, int]:
    """Return the positions of the smallest and largest value (unsigned byte-wise order).

    Parameters
    ----------
    values:
        At least one value.

    Returns
    -------
    tuple of (int, int)
        Index of a minimum and index of a maximum.
    """
    if len(values) == 0:
        raise ValueError("byte_array_extremes needs at least one value")
    lens = np.diff(values.offsets)
    if int(lens.max()) == 0:
        return 0, 0
    win, starts = _windows(values)
    everyone = np.arange(len(lens), dtype=np.int64)
    # the first key is shared by both searches: it is the only pass over every value
    keys = _byte_array_keys(win, starts, lens, 0)
    lo = _byte_array_extreme(win, starts, lens, _pick(everyone, keys, False), _KEY_BYTES, False)
    hi = _byte_array_extreme(win, starts, lens, _pick(everyone, keys, True), _KEY_BYTES, True)
    return lo, hi


def _fixed_keys(matrix: npt.NDArray[np.uint8], rows: npt.NDArray[np.int64], col: int,
                signed: bool) -> npt.NDArray[np.uint64]:
    width = matrix.shape[1]
    part = np.zeros((len(rows), _KEY_BYTES), dtype=np.uint8)
    stop = min(col + _KEY_BYTES, width)
    part[:, : stop - col] = matrix[rows, col:stop]
    if signed and col == 0:
        part[:, 0] ^= 0x80  # two's complement -> offset binary: signed order becomes unsigned
    return part.view(">u8").ravel().astype(np.uint64)


def _fixed_extreme(matrix: npt.NDArray[np.uint8], want_max: bool, signed: bool) -> int:
    width = matrix.shape[1]
    cand = np.arange(matrix.shape[0], dtype=np.int64)
    col = 0
    # one round per 8-byte column block, over the rows still tied
    while len(cand) > 1 and col < width:
        cand = _pick(cand, _fixed_keys(matrix, cand, col, signed), want_max)
        col += _KEY_BYTES
    return int(cand[0])


def fixed_extremes(matrix: npt.NDArray[np.uint8], *, signed: bool = False) -> tuple[int, int]:
    """Return the row positions of the smallest and largest fixed-width value.

    Parameters
    ----------
    matrix:
        ``(n, width)`` uint8, ``n >= 1``.
    signed:
        Compare as big-endian two's complement integers (DECIMAL) instead of
        unsigned byte-wise.
    """
    matrix = np.asarray(matrix, dtype=np.uint8)
    if matrix.ndim != 2 or matrix.shape[0] == 0:
        raise ValueError("fixed_extremes needs an (n, width) uint8 array with n >= 1")
    return _fixed_extreme(matrix, False, signed), _fixed_extreme(matrix, True, signed)


def sign_extend(values: ByteArrays) -> npt.NDArray[np.uint8]:
    """Right-align big-endian two's complement values in an ``(n, max_len)`` matrix.

    Missing leading bytes are 0xFF for negative values and 0x00 otherwise; an
    empty value reads as zero.  Row ``i`` is a window of ``max_len`` bytes
    ending where value ``i`` ends (over the bytes with ``max_len`` zeros in
    front), with the bytes before the value replaced by its sign fill.
    """
    offsets = values.offsets
    lens = np.diff(offsets)
    width = max(int(lens.max()) if len(lens) else 0, 1)
    base, end = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(width + end - base, dtype=np.uint8)
    padded[width:] = values.data[base:end]
    rows = np.lib.stride_tricks.sliding_window_view(padded, width)[offsets[1:] - base]
    first = padded[np.minimum(offsets[:-1] - base + width, len(padded) - 1)]
    fill = np.where((lens > 0) & (first >= 0x80), np.uint8(0xFF), np.uint8(0))
    before = np.arange(width) < (width - lens)[:, None]
    return np.where(before, fill[:, None], rows).astype(np.uint8)


def signed_byte_array_extremes(values: ByteArrays) -> tuple[int, int]:
    """Return the positions of the smallest and largest BYTE_ARRAY decimal (numeric order)."""
    if len(values) == 0:
        raise ValueError("signed_byte_array_extremes needs at least one value")
    return fixed_extremes(sign_extend(values), signed=True)


def _utf8_text(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _check_limit(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"truncation limit must be a non-negative int, got {limit!r}")


def truncate_min(raw: bytes, limit: int, *, text: bool = False) -> tuple[bytes, bool]:
    """Shorten a minimum bound to at most *limit* bytes.

    Parameters
    ----------
    raw:
        The exact minimum.
    limit:
        Largest length wanted.
    text:
        Cut on a code point boundary (for STRING, JSON and ENUM columns).  A
        value that is not valid UTF-8 is cut byte-wise (still a lower bound).

    Returns
    -------
    tuple of (bytes, bool)
        The bound (a prefix of *raw*) and whether it is still exact.
    """
    _check_limit(limit)
    raw = bytes(raw)
    if len(raw) <= limit:
        return raw, True
    cut = limit
    if text and _utf8_text(raw) is not None:
        while cut > 0 and (raw[cut] & 0xC0) == 0x80:  # at most 3 steps back
            cut -= 1
    return raw[:cut], False


def _increment_text(text: str, limit: int) -> bytes | None:
    # Walks back over the code points of ONE bound (at most *limit* of them):
    # bump the last one that can be bumped and still fit in *limit* bytes.
    for i in range(len(text) - 1, -1, -1):
        cp = ord(text[i]) + 1
        if 0xD800 <= cp <= 0xDFFF:
            cp = 0xE000  # surrogates are not characters; UTF-8 cannot hold them
        if cp > 0x10FFFF:
            continue
        out = (text[:i] + chr(cp)).encode("utf-8")
        if len(out) <= limit:
            return out
    return None


def truncate_max(raw: bytes, limit: int, *, text: bool = False) -> tuple[bytes | None, bool]:
    """Shorten a maximum bound to at most *limit* bytes while keeping it an upper bound.

    Parameters
    ----------
    raw:
        The exact maximum.
    limit:
        Largest length wanted.
    text:
        Keep the result valid UTF-8: cut on a code point boundary and
        increment the last code point (skipping surrogates, dropping
        U+10FFFF).  A value that is not valid UTF-8 is handled byte-wise.

    Returns
    -------
    tuple of (bytes or None, bool)
        ``(raw, True)`` when it already fits; ``(bound, False)`` with
        ``bound > raw`` otherwise; ``(None, False)`` when no shorter upper
        bound exists (the prefix is all 0xFF, or all U+10FFFF): the caller
        then keeps *raw* untruncated.
    """
    _check_limit(limit)
    raw = bytes(raw)
    if len(raw) <= limit:
        return raw, True
    decoded = _utf8_text(raw) if text else None
    if decoded is not None:
        cut = limit
        while cut > 0 and (raw[cut] & 0xC0) == 0x80:
            cut -= 1
        out = _increment_text(raw[:cut].decode("utf-8"), limit)
        return out, False
    prefix = raw[:limit].rstrip(b"\xff")
    if not prefix:
        return None, False
    return prefix[:-1] + bytes([prefix[-1] + 1]), False
