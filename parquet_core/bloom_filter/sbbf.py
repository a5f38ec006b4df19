"""The split-block Bloom filter (SBBF) of the Parquet spec, on whole arrays of hashes.

Layout (parquet-format ``BloomFilter.md``): the bitset is ``z`` blocks of 32
bytes; a block is eight little-endian 32-bit words::

    bitset   | block 0                         | block 1 | ... | block z-1 |
    block    | w0 | w1 | w2 | w3 | w4 | w5 | w6 | w7 |      (4 bytes each)

A 64-bit hash ``h`` touches exactly one block and one bit in each of its
eight words:

* block ``i = ((h >> 32) * z) >> 32``: the high half of the hash scaled to
  ``[0, z)`` by a multiply and a shift, no modulo;
* with ``x`` the low 32 bits of ``h``, the bit in word ``k`` is
  ``(x * SALT[k] mod 2**32) >> 27``, a number from 0 to 31.

Inserting sets those eight bits; checking answers "maybe present" only when
all eight are set.  Both are done here for a whole ``uint64`` array at once:
the block numbers and the ``(8, n)`` bit numbers are computed with array
arithmetic, a check gathers the ``n`` blocks with one ``take`` and tests the
eight words in eight array passes, and an insert sets all bits at once (see
:meth:`SplitBlockBloomFilter.insert_hashes`).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from parquet_core.bloom_filter.hashing import hash_values
from parquet_core.bloom_filter.sizing import (
    BYTES_PER_BLOCK,
    DEFAULT_MAX_BYTES,
    optimal_num_bytes,
)
from parquet_core.errors import ParquetFormatError

__all__ = ["SALT", "SplitBlockBloomFilter"]

#: The eight odd multipliers of the spec, one per word of a block.
SALT: Final = np.array([0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D,
                        0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31], dtype=np.uint32)

#: Largest bitset the header's i32 ``numBytes`` can describe, rounded down to whole blocks.
MAX_NUM_BYTES: Final = (2**31 - 1) // BYTES_PER_BLOCK * BYTES_PER_BLOCK

_WORDS = 8
#: Bit number of bit 0 of each word inside its block.
_WORD_BIT0: Final = np.arange(0, 256, 32, dtype=np.intp)
#: Largest filter (in bits: 8 MiB) for which insert may use a one-byte-per-bit scratch array.
_SCRATCH_BITS: Final = 1 << 26


def check_num_bytes(num_bytes: int) -> None:
    """Raise ``ValueError`` unless *num_bytes* is a whole, non-zero number of blocks."""
    if not isinstance(num_bytes, (int, np.integer)) or isinstance(num_bytes, bool):
        raise TypeError(f"num_bytes must be an int, got {type(num_bytes).__name__}")
    if num_bytes < BYTES_PER_BLOCK or num_bytes % BYTES_PER_BLOCK or num_bytes > MAX_NUM_BYTES:
        raise ValueError(f"a split-block Bloom filter is a whole number of 32-byte blocks, "
                         f"between 32 and {MAX_NUM_BYTES} bytes; got {num_bytes}")


class SplitBlockBloomFilter:
    """A split-block Bloom filter: ``num_bytes // 32`` blocks of eight 32-bit words.

    Parameters
    ----------
    num_bytes:
        Bitset size, a positive multiple of 32.  Writers use powers of two
        (see :meth:`for_ndv`); the spec's algorithm works for any block
        count, so readers accept any.

    Notes
    -----
    The ``*_hashes`` methods take XXH64 values; :meth:`insert`,
    :meth:`check` and :meth:`might_contain` hash *physical* values first
    (see :func:`parquet_core.bloom_filter.hashing.hash_values`).
    """

    __slots__ = ("_words",)

    def __init__(self, num_bytes: int) -> None:
        check_num_bytes(num_bytes)
        self._words = np.zeros((num_bytes // BYTES_PER_BLOCK, _WORDS), dtype=np.uint32)

    # -- construction -----------------------------------------------------
    @classmethod
    def for_ndv(cls, ndv: int, fpp: float = 0.01,
                max_bytes: int = DEFAULT_MAX_BYTES) -> SplitBlockBloomFilter:
        """An empty filter sized by :func:`~parquet_core.bloom_filter.sizing.optimal_num_bytes`."""
        return cls(optimal_num_bytes(ndv, fpp, max_bytes))

    @classmethod
    def from_bitset(cls, bitset: Any) -> SplitBlockBloomFilter:
        """A filter holding a copy of *bitset* (bytes-like, little-endian words).

        Raises
        ------
        ValueError
            The length is not a positive multiple of 32.
        """
        raw = np.frombuffer(memoryview(bitset).cast("B"), dtype="<u4")
        check_num_bytes(raw.size * 4)
        out = cls.__new__(cls)
        out._words = raw.astype(np.uint32).reshape(-1, _WORDS)  # astype copies
        return out

    # -- properties -------------------------------------------------------
    @property
    def num_bytes(self) -> int:
        """Bitset size in bytes."""
        return self._words.size * 4

    @property
    def num_blocks(self) -> int:
        """Number of 32-byte blocks."""
        return self._words.shape[0]

    @property
    def words(self) -> npt.NDArray[np.uint32]:
        """The bitset as a read-only ``(num_blocks, 8)`` uint32 view."""
        view = self._words.view()
        view.flags.writeable = False
        return view

    def bitset(self) -> bytes:
        """The bitset as stored in a file (little-endian 32-bit words)."""
        return self._words.astype("<u4", copy=False).tobytes()

    def fill_ratio(self) -> float:
        """Fraction of bits set (0.0 for an empty filter)."""
        ones = np.unpackbits(self._words.view(np.uint8)).sum(dtype=np.int64)
        return float(ones) / (self.num_bytes * 8)

    # -- hashes -----------------------------------------------------------
    def _locate(self, hashes: npt.ArrayLike) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.uint32]]:
        """Block number of every hash, and its bit number (0..31) in each word, lane-major.

        The bits come as an ``(8, n)`` array: one contiguous row per word of
        the block, which numpy multiplies far faster than ``n`` rows of 8.
        """
        h = np.asarray(hashes)
        if h.dtype != np.uint64:
            if h.dtype.kind not in "iu":
                raise TypeError(f"hashes must be unsigned 64-bit integers, got {h.dtype}")
            h = h.astype(np.uint64)  # int64 hashes: same bits
        h = h.reshape(-1)
        block = h >> np.uint64(32)
        block *= np.uint64(self.num_blocks)
        block >>= np.uint64(32)
        low = h.astype(np.uint32)
        bit = np.empty((_WORDS, len(h)), dtype=np.uint32)
        for k in range(_WORDS):  # one row per word of a block (eight, not one per value)
            np.multiply(low, SALT[k], out=bit[k])
        bit >>= np.uint32(27)
        return block.astype(np.intp), bit

    def insert_hashes(self, hashes: npt.ArrayLike) -> None:
        """Insert every hash of a ``uint64`` array.

        Two equivalent strategies: for a big batch into a filter of at most
        :data:`_SCRATCH_BITS` bits, mark each bit in a one-byte-per-bit scratch
        array and pack it (a plain fancy assignment, about twice as fast);
        otherwise OR the masks in with ``bitwise_or.at``.
        """
        block, bit = self._locate(hashes)
        n = len(block)
        if not n:
            return
        nbits = self.num_bytes * 8
        if nbits <= _SCRATCH_BITS and n * _WORDS * 8 >= self._words.size:
            # bit number in the bitset: block * 256 + word * 32 + bit
            where = (block << 8)[None, :] + _WORD_BIT0[:, None] + bit
            scratch = np.zeros(nbits, dtype=np.bool_)
            scratch[where.reshape(-1)] = True
            self._words |= np.packbits(scratch, bitorder="little").view("<u4").reshape(-1, _WORDS)
            return
        flat = self._words.reshape(-1)
        where = (block * _WORDS)[None, :] + np.arange(_WORDS)[:, None]
        masks = np.ones(bit.shape, dtype=np.uint32) << bit
        np.bitwise_or.at(flat, where.reshape(-1), masks.reshape(-1))

    def check_hashes(self, hashes: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """For every hash, False when it was certainly never inserted, else True."""
        block, bit = self._locate(hashes)
        rows = np.take(self._words, block, axis=0)  # (n, 8): each hash's block
        found = np.ones(len(block), dtype=np.uint32)
        for k in range(_WORDS):  # one pass per word of a block
            word = rows[:, k] >> bit[k]
            found &= word
        return found.astype(np.bool_)

    # -- physical values --------------------------------------------------
    def insert(self, values: Any, physical_type: int | None = None,
               type_length: int | None = None) -> None:
        """Hash physical *values* (see :func:`hash_values`) and insert them."""
        self.insert_hashes(hash_values(values, physical_type, type_length))

    def check(self, values: Any, physical_type: int | None = None,
              type_length: int | None = None) -> npt.NDArray[np.bool_]:
        """:meth:`check_hashes` on the hashes of physical *values*."""
        return self.check_hashes(hash_values(values, physical_type, type_length))

    def might_contain(self, value: Any, physical_type: int | None = None,
                      type_length: int | None = None) -> bool:
        """Whether one physical value may have been inserted (False means certainly not)."""
        if isinstance(value, (bytes, bytearray, memoryview, str)):
            values: Any = [value]
        else:
            arr = np.asarray(value)
            values = arr.reshape(1, -1) if arr.ndim == 1 and arr.dtype == np.uint8 else arr.reshape(1)
            if arr.ndim == 0 and isinstance(value, (int, float)) and physical_type is None:
                raise TypeError("a Python number needs a physical_type (INT32 or INT64, "
                                "FLOAT or DOUBLE): its byte form depends on it")
        return bool(self.check(values, physical_type, type_length)[0])

    # -- serialisation ----------------------------------------------------
    def to_bytes(self) -> bytes:
        """Header (thrift compact ``BloomFilterHeader``) followed by the bitset."""
        from parquet_core.bloom_filter.header import serialize_filter

        return serialize_filter(self)

    @classmethod
    def from_bytes(cls, data: Any) -> SplitBlockBloomFilter:
        """Parse a header and its bitset (see :func:`parse_filter`); trailing bytes are an error."""
        from parquet_core.bloom_filter.header import parse_filter

        bf, used = parse_filter(data)
        size = memoryview(data).nbytes
        if used != size:
            raise ParquetFormatError(f"{size - used} bytes follow the Bloom filter bitset")
        return bf

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SplitBlockBloomFilter):
            return NotImplemented
        return self._words.shape == other._words.shape and bool(np.array_equal(self._words, other._words))

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"SplitBlockBloomFilter(num_bytes={self.num_bytes}, fill={self.fill_ratio():.4f})"
