"""Variable-length byte strings read 8 bytes at a time: hashes, equality, common prefixes.

The byte strings of a :class:`~parquet_core._kernels.binary.ByteArrays` (or
the rows of a fixed-width ``(n, w)`` uint8 matrix) are copied once into a
buffer with 8 bytes of zero padding, and an *unaligned* ``<u8`` view with a
1-byte stride turns "the 8 bytes starting at byte p" into ``words[p]``::

    data    | h e l l o | w o r l d s | ...  + 8 zero bytes
    words   words[0] = "hellowor" (little endian), words[5] = "worlds.."

Two access patterns, both with no per-string Python:

* :meth:`WordView.word_groups` sorts the strings by word count and reads
  each group as an ``(m, words)`` matrix in one gather (bytes past a
  string's end zeroed), for hashing (:meth:`~WordView.hash64`) and exact
  comparison (:meth:`~WordView.equal_to`);
* :meth:`WordView.common_prefix_lengths` walks consecutive strings
  together, one word per step, dropping each pair at its first differing
  byte, so the work follows the bytes actually shared.

Edge cases: empty strings (no words, hashed by length alone), no strings
at all, strings up to 2**31 bytes; bytes of a string are never compared
with bytes past its end.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["WordGroup", "WordView"]

#: ``_MASKS[k]`` keeps the low ``k`` bytes of a little-endian word (k = 0..8).
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_U64 = np.uint64
#: Strings handled per step of the chunked loops (temporaries stay in cache).
_CHUNK = 1 << 16
#: Common prefixes: at most this many strings with at least _LONG_TAIL bytes
#: left to compare are finished one slice comparison each.
_FEW_ROWS = 64
_LONG_TAIL = 512
#: Strings of at most this many words are hashed word by word.
_FOLD_WORDS = 4
#: Odd multipliers of the mixing steps (splitmix64's constants).
_MIX1 = _U64(0x9E3779B97F4A7C15)
_MIX2 = _U64(0xBF58476D1CE4E5B9)
_MIX3 = _U64(0x94D049BB133111EB)
_POPCOUNT = getattr(np, "bitwise_count", None)    # numpy >= 2.0


def _first_diff_byte(x: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
    """Index of the lowest non-zero byte of each word; 8 for a zero word.

    ``x & -x`` isolates the lowest set bit; one less than it has exactly
    "trailing zeros" bits set (all 64 for zero), counted by a popcount.
    Without ``np.bitwise_count`` the bit is located with ``frexp`` (a power
    of two converts to float64 exactly).
    """
    low = x & (_U64(0) - x)
    if _POPCOUNT is not None:
        return (_POPCOUNT(low - _U64(1)) >> 3).astype(np.int64)
    _, e = np.frexp(low.astype(np.float64))
    e[low == 0] = 65
    return (e.astype(np.int64) - 1) >> 3


@dataclass(frozen=True, slots=True)
class WordGroup:
    """Strings with the same number of 8-byte words: their indices and word matrix."""

    rows: npt.NDArray[np.intp]
    words: npt.NDArray[np.uint64]


class WordView:
    """Byte strings given by ``offsets`` (n + 1, may start above 0) over ``data``."""

    def __init__(self, offsets: npt.NDArray[np.integer], data: npt.NDArray[np.uint8]) -> None:
        offs = np.asarray(offsets, dtype=np.int64)
        base = int(offs[0]) if offs.size else 0
        end = int(offs[-1]) if offs.size else 0
        self.starts = offs[:-1] - base
        self.lengths = np.diff(offs)
        buf = np.zeros(end - base + 8, dtype=np.uint8)
        buf[:end - base] = data[base:end]
        self._buf = buf
        self.words = np.ndarray((buf.size - 7,), dtype="<u8", buffer=buf, strides=(1,))

    @classmethod
    def of_rows(cls, rows: npt.NDArray[np.uint8]) -> WordView:
        """View the rows of an ``(n, w)`` uint8 matrix (FIXED_LEN_BYTE_ARRAY, INT96)."""
        n, w = rows.shape
        return cls(np.arange(n + 1, dtype=np.int64) * w, np.ascontiguousarray(rows).reshape(-1))

    def __len__(self) -> int:
        return int(self.lengths.size)

    def word_groups(self, rows: npt.NDArray[np.intp] | None = None) -> list[WordGroup]:
        """Split strings (all, or ``rows``) by word count, each with its word matrix.

        Row ``i`` of a group's ``(m, c)`` uint64 matrix holds the ``c`` words
        of string ``rows[i]``, bytes past its end zeroed, so equal strings
        give equal rows.  One 2-D gather per group (a loop over word counts).
        """
        if rows is None:
            rows = np.arange(self.lengths.size)
        lens = self.lengths[rows]
        nwords = (lens + 7) >> 3
        narrow = nwords.astype(np.int16 if nwords.size == 0 or int(nwords.max()) < 2**15
                               else np.int64)
        order = np.argsort(narrow, kind="stable")      # radix sort for int16
        counts = np.bincount(nwords, minlength=1)
        groups = []
        at = 0
        for c in np.flatnonzero(counts).tolist():
            pick = order[at:at + counts[c]]
            at += int(counts[c])
            members = rows[pick]
            if c == 0:
                groups.append(WordGroup(members, np.zeros((pick.size, 0), dtype=np.uint64)))
                continue
            # one gather of 8*c-byte records, viewed as c words each
            records = np.ndarray((self._buf.size - 8 * c + 1,), dtype=np.dtype((np.void, 8 * c)),
                                 buffer=self._buf, strides=(1,))
            mat = records[self.starts[members]].view("<u8").reshape(-1, c)
            mat[:, -1] &= _MASKS[lens[pick] - 8 * (c - 1)]
            groups.append(WordGroup(members, mat))
        return groups

    def short_keys(self) -> npt.NDArray[np.uint64]:
        """Exact 64-bit keys for strings of at most 7 bytes: the bytes, length in the top byte."""
        if self.lengths.size and int(self.lengths.max()) > 7:
            raise ValueError("short_keys needs strings of at most 7 bytes")
        keys = self.words[self.starts] & _MASKS[self.lengths]
        return keys | (self.lengths.astype(np.uint64) << _U64(56))

    def hash64(self, groups: list[WordGroup] | None = None) -> npt.NDArray[np.uint64]:
        """A 64-bit hash of every string, seeded by its length.

        Short strings (up to 4 words) fold their words in one by one
        (xor, multiply, xorshift: a bijection of each word).  Longer ones
        mix every word with its position and sum the results, a few
        whole-matrix operations whatever the length.  Strings of equal
        length up to 8 bytes never collide; others may, so callers verify
        equality (:meth:`equal_to`, given the same ``groups``).
        """
        h = (self.lengths.astype(np.uint64) + _MIX1) * _MIX2
        for g in self.word_groups() if groups is None else groups:
            c = g.words.shape[1]
            if c == 0:
                continue
            hg = h[g.rows]
            if c <= _FOLD_WORDS:
                for j in range(c):
                    hg ^= g.words[:, j]
                    hg *= _MIX1
                    hg ^= hg >> _U64(29)
            else:
                mixed = g.words ^ (np.arange(1, c + 1, dtype=np.uint64) * _MIX3)
                mixed *= _MIX1
                mixed ^= mixed >> _U64(29)
                mixed *= _MIX2
                hg ^= mixed.sum(axis=1, dtype=np.uint64)
                hg *= _MIX1
            h[g.rows] = hg
        h ^= h >> _U64(32)
        h *= _MIX3
        h ^= h >> _U64(29)
        return h

    def equal_to(self, ref: npt.NDArray[np.intp], groups: list[WordGroup]) -> bool:
        """Whether every string ``i`` equals string ``ref[i]`` (``groups`` covering all strings).

        Equal lengths put both in the same group, so the comparison is an
        aligned row gather inside each group's matrix.
        """
        ref = np.asarray(ref)
        if not np.array_equal(self.lengths, self.lengths[ref]):
            return False
        slot = np.empty(self.lengths.size, dtype=np.int64)
        for g in groups:
            slot[g.rows] = np.arange(g.rows.size)
        for g in groups:
            if g.words.shape[1] and not (g.words == g.words[slot[ref[g.rows]]]).all():
                return False
        return True

    def common_prefix_lengths(self) -> npt.NDArray[np.int64]:
        """Bytes string ``i`` shares with string ``i - 1`` at its start (0 for the first).

        Words are compared unmasked: the first differing byte is capped by
        the bytes left in the shorter string, so bytes past its end (the
        next string, or padding) never count.  Rows go in chunks so the
        temporaries stay in cache.
        """
        n = self.lengths.size
        prefix = np.zeros(n, dtype=np.int64)
        for lo in range(1, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            prefix[lo:hi] = self._prefix_chunk(lo, hi)
        return prefix

    def _prefix_chunk(self, lo: int, hi: int) -> npt.NDArray[np.int64]:
        lens = self.lengths
        rem = np.minimum(lens[lo:hi], lens[lo - 1:hi - 1])
        cur = self.starts[lo:hi]
        prev = self.starts[lo - 1:hi - 1]
        # first word for every string, then only for those whose words all agree
        first_diff = _first_diff_byte(self.words[cur] ^ self.words[prev])
        out = np.minimum(first_diff, rem)
        rows = np.flatnonzero((first_diff == 8) & (rem > 8))
        at = 8
        while rows.size:
            if rows.size <= _FEW_ROWS and int(rem[rows].min()) - at >= _LONG_TAIL:
                out[rows] += self._prefix_tails(cur[rows] + at, prev[rows] + at, rem[rows] - at)
                break
            left = rem[rows] - at
            first_diff = _first_diff_byte(self.words[cur[rows] + at] ^ self.words[prev[rows] + at])
            out[rows] += np.minimum(first_diff, left)
            rows = rows[(first_diff == 8) & (left > 8)]
            at += 8
        return out

    def _prefix_tails(self, cur: npt.NDArray[np.int64], prev: npt.NDArray[np.int64],
                      left: npt.NDArray[np.int64]) -> list[int]:
        # A few strings still equal after many words (long shared prefixes):
        # one whole-slice comparison per string beats thousands of 8-byte steps.
        buf = self._buf
        out = []
        for a, b, k in zip(cur.tolist(), prev.tolist(), left.tolist()):
            diff = np.flatnonzero(buf[a:a + k] != buf[b:b + k])
            out.append(int(diff[0]) if diff.size else k)
        return out
