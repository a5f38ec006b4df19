"""Decimals as Arrow lays them out: fixed-width little-endian two's complement rows.

Arrow's decimal128 / decimal256 arrays hold each unscaled value in 16 / 32
little-endian bytes.  Parquet stores the same unscaled integers as INT32,
INT64, big-endian FIXED_LEN_BYTE_ARRAY or big-endian BYTE_ARRAY of any
length; :func:`decimal_le_rows` converts every one of those with whole-array
numpy operations (no Python ``Decimal`` per value), for the pyarrow
conversion (:mod:`parquet_core.interop.arrow`) and the Arrow C-interface
export (:mod:`parquet_core.table.arrow_c_export`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import ParquetSchemaError

__all__ = ["decimal_le_rows"]


def _sign_words(words: np.ndarray, top: int) -> None:
    """Fill the words above column *top* of (n, k) int64 *words* with its sign (0 or -1)."""
    for j in range(top + 1, words.shape[1]):
        np.right_shift(words[:, top], 63, out=words[:, j])


def _ints(vals: np.ndarray, n: int, width: int) -> np.ndarray:
    """Signed integers (any numpy int dtype up to 64 bits) -> (n, width) rows."""
    words = np.empty((n, width // 8), dtype="<i8")
    words[:, 0] = vals
    _sign_words(words, 0)
    return words.view(np.uint8).reshape(n, width)


def _be_reads(flat: np.ndarray, n: int, stride: int, start: int) -> np.ndarray:
    """*n* big-endian signed 8-byte reads of *flat* (uint8), at byte offsets start + stride * i.

    Numpy reads the unaligned, overlapping words itself and checks they lie in *flat*.
    """
    return np.ndarray((n,), dtype=">i8", buffer=flat, offset=start, strides=(stride,))


def _fixed(vals: np.ndarray, n: int, width: int) -> np.ndarray:
    """(n, 1 <= w <= width) big-endian bytes -> (n, width) rows, a few whole-column ufuncs.

    Each row's low 8-byte words are read straight out of the bytes as big-endian
    int64 (numpy swaps them while it copies); a partial top word of r bytes is
    read as the 8 bytes that start at the row and shifted right by 8 - r bytes,
    which sign-extends it; the words above it repeat its sign.  A value narrower
    than 8 bytes reads into the next row's bytes, so the last few rows (whose
    read would pass the end) go through a small zero-padded copy.
    """
    w = vals.shape[1]
    words = np.empty((n, width // 8), dtype="<i8")
    flat = np.ascontiguousarray(vals).reshape(-1)
    if w < 8:
        shift = 8 * (8 - w)
        safe = (n * w - 8) // w + 1 if n * w >= 8 else 0     # rows whose 8-byte read stays in flat
        if safe:
            np.right_shift(_be_reads(flat, safe, w, 0), shift, out=words[:safe, 0])
        if safe < n:
            tail = np.zeros((n - safe) * w + 8, dtype=np.uint8)
            tail[:(n - safe) * w] = flat[safe * w:]
            np.right_shift(_be_reads(tail, n - safe, w, 0), shift, out=words[safe:, 0])
        top = 0
    else:
        full, r = divmod(w, 8)
        for j in range(full):     # little-endian word j: the 8 bytes that end 8j bytes before the row's end
            words[:, j] = _be_reads(flat, n, w, w - 8 * (j + 1))
        top = full - 1
        if r:
            np.right_shift(_be_reads(flat, n, w, 0), 8 * (8 - r), out=words[:, full])
            top = full
    _sign_words(words, top)
    return words.view(np.uint8).reshape(n, width)


def _variable(vals: ByteArrays, n: int, width: int, what: object) -> np.ndarray:
    """Big-endian values of any length (an empty one is zero) -> (n, width) rows.

    The values are copied behind *width* zero bytes; little-endian word j of a
    row is the big-endian 8 bytes that end 8j bytes before the row's end, read
    by one gather of unaligned int64s.  A word that starts before the value
    holds some of the previous bytes: shifting it left past them and back
    (arithmetically) keeps the value's bytes and sign-extends them; a word
    wholly before the value is the sign of the word below it.
    """
    lengths = vals.lengths()
    if n and int(lengths.max()) > width:
        row = int(np.argmax(lengths > width))
        raise ParquetSchemaError(f"a {what} value of {int(lengths[row])} bytes (row {row}) does "
                                 f"not fit Arrow's {width}-byte decimal")
    base, stop = int(vals.offsets[0]), int(vals.offsets[-1])
    padded = np.zeros(width + (stop - base), dtype=np.uint8)
    padded[width:] = vals.data[base:stop]
    reads = _be_reads(padded, len(padded) - 7, 1, 0)      # an int64 at every byte offset
    ends = vals.offsets[1:] - (base - width)
    words = np.empty((n, width // 8), dtype="<i8")
    longest = int(lengths.max()) if n else 0
    for j in range(width // 8):
        if j and 8 * j >= longest:        # no value reaches this word: all sign from here up
            _sign_words(words, j - 1)
            break
        word = reads[ends - 8 * (j + 1)]
        inside = lengths - 8 * j              # how many of the word's 8 bytes belong to the value
        partial = 8 * (8 - np.clip(inside, 0, 8))
        np.left_shift(word, partial, out=word)
        np.right_shift(word, partial, out=word)
        if j:   # a word with no byte of the value repeats the sign of the word below
            np.copyto(word, words[:, j - 1] >> 63, where=inside <= 0)
        words[:, j] = word
    return words.view(np.uint8).reshape(n, width)


def decimal_le_rows(values: Any, n: int, width: int, what: object = "decimal") -> np.ndarray:
    """Unscaled decimals as (n, *width*) uint8 rows of little-endian two's complement.

    *values* is the column's storage: a 1-D numpy integer array (INT32 /
    INT64), an (n, w) uint8 array of big-endian bytes (FIXED_LEN_BYTE_ARRAY)
    or :class:`ByteArrays` of big-endian values (BYTE_ARRAY); *width* is 16
    (decimal128) or 32 (decimal256).

    Raises
    ------
    ParquetSchemaError
        If a value needs more than *width* bytes (*what* names the column's type).
    """
    if isinstance(values, ByteArrays):
        return _variable(values, n, width, what)
    vals = np.asarray(values)
    if vals.ndim == 1 and vals.dtype.kind in "iu":
        if vals.dtype == np.uint64 and vals.size and int(vals.max()) > np.iinfo(np.int64).max:
            raise ParquetSchemaError(f"{what} unscaled values do not fit int64")
        return _ints(vals, n, width)
    if vals.ndim != 2 or vals.dtype != np.uint8:
        raise TypeError(f"{what} storage must be integers, an (n, w) uint8 array or ByteArrays, "
                        f"got {vals.dtype} with shape {vals.shape}")
    if vals.shape[0] != n:
        raise ValueError(f"{what} storage holds {vals.shape[0]} rows, expected {n}")
    w = vals.shape[1]
    if w > width:   # a wider FIXED_LEN_BYTE_ARRAY than Arrow's: its extra leading bytes may only repeat the sign
        sign = np.where(vals[:, w - width] >= 0x80, np.uint8(0xFF), np.uint8(0))
        bad = ~(vals[:, :w - width] == sign[:, None]).all(axis=1)
        if bad.any():
            row = int(np.argmax(bad))
            raise ParquetSchemaError(f"a {what} value (row {row}) does not fit Arrow's {width}-byte decimal")
        vals, w = vals[:, w - width:], width
    if w == 0 or n == 0:
        return np.zeros((n, width), dtype=np.uint8)
    return _fixed(vals, n, width)
