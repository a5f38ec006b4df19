"""Bit-packed dictionary indices turned straight into dictionary values, a few lanes at a time.

A group of 8 bit-packed indices of width ``w`` occupies ``w`` bytes.  For the
narrow widths of low-cardinality columns (1-4 bits) a short key of the packed
bits holds several whole indices: a byte holds 8 (w=1), 4 (w=2) or 2 (w=4)
of them, and the 12 low or high bits of a 3-byte group hold 4 of them (w=3).
A table with one row per key, holding the dictionary *values* of its indices,
then decodes and looks up several values with one gather, with no index array
in between (the unpack, the index array and the dictionary gather of the
usual path become one gather of table rows).

Keys whose indices fall outside the dictionary map to entry 0 in the table and
are marked in a second, boolean table; :func:`decode_group_values` reports
them (returns None) so the caller can take its exact, checked path.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["LANE_WIDTHS", "LaneTable", "decode_group_values", "decode_groups_at", "lane_table"]

#: Bit widths with a key of whole indices: ``w -> (bits per key, indices per key)``.
LANE_WIDTHS: dict[int, tuple[int, int]] = {1: (8, 8), 2: (8, 4), 3: (12, 4), 4: (8, 2)}


class LaneTable:
    """The values of every key of one width (``rows``: shape ``(keys, per key)``) and, when
    some key holds an index outside the dictionary, which keys do (``bad``, else None)."""

    __slots__ = ("w", "rows", "bad")

    def __init__(self, w: int, rows: npt.NDArray[Any], bad: npt.NDArray[np.bool_] | None) -> None:
        self.w = w
        self.rows = rows
        self.bad = bad


#: ``(w, dictionary size up to 2**w) -> (indices of every key, clipped into the dictionary;
#: which keys hold an index outside it, or None)``: the same for every dictionary of a size.
_KEY_CODES: dict[tuple[int, int], tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_] | None]] = {}


def _key_codes(w: int, size: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_] | None]:
    got = _KEY_CODES.get((w, size))
    if got is None:
        bits, per = LANE_WIDTHS[w]
        keys = np.arange(1 << bits, dtype=np.intp)
        codes = (keys[:, None] >> (np.arange(per, dtype=np.intp) * w)) & ((1 << w) - 1)
        bad: npt.NDArray[np.bool_] | None = None
        if size < (1 << w):
            out_of_range = codes >= size
            bad = np.asarray(out_of_range.any(axis=1))
            codes = np.where(out_of_range, 0, codes)
        got = _KEY_CODES[(w, size)] = (codes, bad)
    return got


def lane_table(dictionary: npt.NDArray[Any], w: int) -> LaneTable:
    """The :class:`LaneTable` of a 1-D *dictionary* for indices of width *w* (in
    :data:`LANE_WIDTHS`)."""
    size = min(len(dictionary), 1 << w)
    codes, bad = _key_codes(w, size)
    if size == 0:
        return LaneTable(w, np.zeros(codes.shape, dtype=dictionary.dtype), bad)
    return LaneTable(w, np.take(dictionary, codes), bad)


#: The word read at each group's first byte: the group's bytes first (3-bit groups read one
#: byte more, which the keys leave out).
_WORDS: dict[int, np.dtype[Any]] = {1: np.dtype("u1"), 2: np.dtype("<u2"), 3: np.dtype("<u4"), 4: np.dtype("<u4")}


def decode_groups_at(buf: npt.NDArray[np.uint8], at: npt.NDArray[np.intp], table: LaneTable) -> npt.NDArray[Any] | None:
    """The dictionary values of the 8 indices of each group of packed bits starting at
    the byte offsets *at* of *buf* (at least 4 bytes from each offset to the end of *buf*
    when w is 3, else w), in order, or None when one of them is outside the dictionary.

    The groups are read where they lie, as one gather of unaligned words (no copy of
    the bodies together first)."""
    w = table.w
    word = _WORDS[w]
    view = np.ndarray((buf.size - word.itemsize + 1,), dtype=word, buffer=buf, offset=0, strides=(1,))
    words = view[at]
    if w == 3:
        pairs = np.empty((at.size, 2), dtype=np.intp)
        np.bitwise_and(words, 0xFFF, out=pairs[:, 0], casting="unsafe")
        np.right_shift(words, 12, out=pairs[:, 1], casting="unsafe")
        pairs[:, 1] &= 0xFFF
        keys = pairs.reshape(-1)
    else:
        keys = words.view(np.uint8).astype(np.intp)
    if table.bad is not None and table.bad[keys].any():
        return None
    return np.take(table.rows, keys, axis=0).reshape(-1)


def decode_group_values(body: npt.NDArray[np.uint8], n_groups: int, table: LaneTable) -> npt.NDArray[Any] | None:
    """:func:`decode_groups_at` for ``n_groups`` groups back to back from the start of *body*."""
    return decode_groups_at(body, np.arange(n_groups, dtype=np.intp) * table.w, table)
