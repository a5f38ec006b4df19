"""Spark's sketch Bloom filter (``org.apache.spark.util.sketch``), formats V1 and V2.

xskipper stores one such filter per data file.  The hashing is Spark's
variant of Murmur3 x86_32: whole little-endian 4-byte words are mixed as in
standard Murmur3, but each trailing byte (length mod 4) is sign-extended and
mixed on its own as a full block; the length is folded in at finalisation.
A long is hashed as two blocks (low 32 bits, then high 32 bits).

Bit positions of an item with hashes ``(h1, h2)`` (``h2`` is the hash seeded
with ``h1``), ``bit_size = 64 * words``:

* V1: for ``i = 1..k``, ``c = int32(h1 + i * h2)``; ``c = ~c`` if negative;
  bit ``c % bit_size``.  ``h1`` is seeded with 0.
* V2: ``c = int64(h1) * (2**31 - 1)``; for each of the ``k`` steps
  ``c += h2``, ``~c`` if negative, bit ``c % bit_size``.  ``h1`` is seeded
  with the filter's stored seed.

Everything is vectorised over the items with numpy ``uint32`` arithmetic
(which wraps modulo 2**32, as Java's ``int`` does).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Sequence

import numpy as np

from parquet_core_integrations.xskipper.errors import XskipperFormatError

__all__ = ["SparkBloomFilter", "murmur3_bytes", "murmur3_long", "optimal_num_bits", "optimal_num_hashes"]

_C1 = np.uint32(0xCC9E2D51)
_C2 = np.uint32(0x1B873593)
_CHUNK = 4096  # items hashed per numpy pass (bounds the padded byte matrix)
_MAX_HASHES = 1024  # far above any real filter (k = 7 at 1 %, 34 at 1e-10); bounds the (items, k) arrays


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def _mix_k1(k1: np.ndarray) -> np.ndarray:
    return _rotl(k1 * _C1, 15) * _C2


def _mix_h1(h1: np.ndarray, k1: np.ndarray) -> np.ndarray:
    return _rotl(h1 ^ k1, 13) * np.uint32(5) + np.uint32(0xE6546B64)


def _fmix(h1: np.ndarray, length: np.ndarray) -> np.ndarray:
    h1 = h1 ^ length.astype(np.uint32)
    h1 ^= h1 >> np.uint32(16)
    h1 = h1 * np.uint32(0x85EBCA6B)
    h1 ^= h1 >> np.uint32(13)
    h1 = h1 * np.uint32(0xC2B2AE35)
    h1 ^= h1 >> np.uint32(16)
    return h1


def murmur3_long(values: np.ndarray, seeds: np.ndarray | int) -> np.ndarray:
    """Spark's ``Murmur3_x86_32.hashLong`` of int64 *values*, as uint32."""
    v = np.asarray(values, dtype=np.int64).view(np.uint64)
    h = np.broadcast_to(np.asarray(seeds, dtype=np.int64).astype(np.uint32), v.shape).copy()
    h = _mix_h1(h, _mix_k1((v & np.uint64(0xFFFFFFFF)).astype(np.uint32)))
    h = _mix_h1(h, _mix_k1((v >> np.uint64(32)).astype(np.uint32)))
    return _fmix(h, np.full(v.shape, 8, dtype=np.uint32))


def _murmur3_chunk(items: Sequence[bytes], seeds: np.ndarray) -> np.ndarray:
    lengths = np.fromiter((len(b) for b in items), dtype=np.int64, count=len(items))
    n = len(items)
    width = int(lengths.max(initial=0))
    width += (-width) % 4
    buf = np.zeros((n, max(width, 4)), dtype=np.uint8)
    flat = np.frombuffer(b"".join(items), dtype=np.uint8)
    if flat.size:
        rows = np.repeat(np.arange(n), lengths)
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        buf[rows, np.arange(flat.size) - starts] = flat
    words = buf.view("<u4")
    nblocks = lengths // 4
    h = seeds.astype(np.uint32).copy()
    for j in range(width // 4):  # one pass per 4-byte block position
        live = nblocks > j
        h = np.where(live, _mix_h1(h, _mix_k1(words[:, j])), h)
    aligned = nblocks * 4
    idx = np.arange(n)
    for t in range(3):  # Spark mixes each tail byte (sign-extended) as a whole block
        pos = aligned + t
        live = pos < lengths
        tail = buf[idx, np.minimum(pos, buf.shape[1] - 1)].view(np.int8).astype(np.int32).view(np.uint32)
        h = np.where(live, _mix_h1(h, _mix_k1(tail)), h)
    return _fmix(h, lengths)


def murmur3_bytes(items: Sequence[bytes], seeds: np.ndarray | int) -> np.ndarray:
    """Spark's ``Murmur3_x86_32.hashUnsafeBytes`` of each byte string, as uint32."""
    n = len(items)
    seeds = np.broadcast_to(np.asarray(seeds, dtype=np.int64).astype(np.uint32), (n,))
    out = np.empty(n, dtype=np.uint32)
    # sort by length so each chunk's padded matrix is about as wide as its items
    order = np.argsort(np.fromiter((len(b) for b in items), dtype=np.int64, count=n), kind="stable")
    for start in range(0, n, _CHUNK):
        sel = order[start:start + _CHUNK]
        out[sel] = _murmur3_chunk([items[i] for i in sel], seeds[sel])
    return out


def optimal_num_bits(ndv: int, fpp: float) -> int:
    """``(long)(-n * ln p / (ln 2)^2)``, Spark's ``BloomFilter.optimalNumOfBits``."""
    return int(-ndv * math.log(fpp) / (math.log(2) ** 2))


def optimal_num_hashes(ndv: int, num_bits: int) -> int:
    """``max(1, round(m / n * ln 2))`` (Java ``Math.round``: half up)."""
    return max(1, int(math.floor(num_bits / ndv * math.log(2) + 0.5)))


class SparkBloomFilter:
    """A Spark sketch Bloom filter: ``version`` 1 or 2, ``k`` hashes, ``words`` (uint64), ``seed``."""

    def __init__(self, num_hashes: int, words: np.ndarray, version: int = 1, seed: int = 0) -> None:
        if version not in (1, 2):
            raise XskipperFormatError(f"Spark Bloom filter version {version} is not 1 or 2")
        if not 1 <= num_hashes <= _MAX_HASHES:
            raise XskipperFormatError(f"Spark Bloom filter with {num_hashes} hash functions "
                                      f"(expected 1 to {_MAX_HASHES})")
        if np.asarray(words).size == 0:
            raise XskipperFormatError("Spark Bloom filter without any bit")
        self.num_hashes = int(num_hashes)
        self.words = np.asarray(words, dtype=np.uint64)
        self.version = version
        self.seed = int(seed)

    @classmethod
    def create(cls, ndv: int = 100000, fpp: float = 0.01, version: int = 1, seed: int = 0) -> SparkBloomFilter:
        """An empty filter sized like Spark's ``BloomFilter.create(ndv, fpp)``."""
        if ndv <= 0 or not 0.0 < fpp < 1.0:
            raise ValueError(f"Bloom filter needs ndv > 0 and 0 < fpp < 1, got ndv={ndv}, fpp={fpp}")
        bits = optimal_num_bits(ndv, fpp)
        if bits <= 0:
            raise ValueError(f"Bloom filter with ndv={ndv}, fpp={fpp} has no bits")
        return cls(optimal_num_hashes(ndv, bits), np.zeros(-(-bits // 64), dtype=np.uint64), version, seed)

    @property
    def bit_size(self) -> int:
        return 64 * int(self.words.size)

    # -- positions ---------------------------------------------------------------------------------
    def _positions(self, h1: np.ndarray, h2: np.ndarray) -> np.ndarray:
        """(items, k) bit indexes for the item hashes."""
        k = np.arange(1, self.num_hashes + 1, dtype=np.int64)
        if self.version == 1:
            c = (h1[:, None].astype(np.uint64) + k[None, :].astype(np.uint64) * h2[:, None].astype(np.uint64))
            c = (c & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32).astype(np.int64)
        else:
            base = h1.view(np.int32).astype(np.int64) * np.int64(2**31 - 1)
            c = base[:, None] + k[None, :] * h2.view(np.int32).astype(np.int64)[:, None]
        c = np.where(c < 0, ~c, c)
        return c % np.int64(self.bit_size)

    def _hashes_bytes(self, items: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
        h1 = murmur3_bytes(items, self.seed if self.version == 2 else 0)
        return h1, murmur3_bytes(items, h1.view(np.int32).astype(np.int64))

    def _hashes_long(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h1 = murmur3_long(values, self.seed if self.version == 2 else 0)
        return h1, murmur3_long(values, h1.view(np.int32).astype(np.int64))

    def _set(self, pos: np.ndarray) -> None:
        pos = pos.ravel()
        np.bitwise_or.at(self.words, pos >> 6, np.uint64(1) << (pos & 63).astype(np.uint64))

    def _test(self, pos: np.ndarray) -> np.ndarray:
        bits = (self.words[pos >> 6] >> (pos & 63).astype(np.uint64)) & np.uint64(1)
        return bits.astype(bool).all(axis=1)

    # -- public ------------------------------------------------------------------------------------
    def put_strings(self, values: Iterable[str]) -> None:
        """Insert strings (hashed as UTF-8, like ``putString``)."""
        items = [s.encode("utf-8") for s in values]
        if items:
            self._set(self._positions(*self._hashes_bytes(items)))

    def put_binary(self, values: Iterable[bytes]) -> None:
        items = [bytes(b) for b in values]
        if items:
            self._set(self._positions(*self._hashes_bytes(items)))

    def put_longs(self, values: Iterable[int] | np.ndarray) -> None:
        """Insert integers widened to int64 (``putLong``; byte/short/int columns too)."""
        arr = np.asarray(values if isinstance(values, np.ndarray) else list(values), dtype=np.int64)
        if arr.size:
            self._set(self._positions(*self._hashes_long(arr)))

    def might_contain_strings(self, values: Sequence[str]) -> np.ndarray:
        if not values:
            return np.zeros(0, dtype=bool)
        return self._test(self._positions(*self._hashes_bytes([s.encode("utf-8") for s in values])))

    def might_contain_longs(self, values: Sequence[int]) -> np.ndarray:
        arr = np.asarray(values, dtype=np.int64)
        if not arr.size:
            return np.zeros(0, dtype=bool)
        return self._test(self._positions(*self._hashes_long(arr)))

    def might_contain(self, value: object) -> bool:
        """``mightContain``: strings by UTF-8, bytes as binary, integers widened to long."""
        if isinstance(value, str):
            return bool(self.might_contain_strings([value])[0])
        if isinstance(value, (bytes, bytearray)):
            pos = self._positions(*self._hashes_bytes([bytes(value)]))
            return bool(self._test(pos)[0])
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return bool(self.might_contain_longs([int(value)])[0])
        raise TypeError(f"a Spark Bloom filter holds strings, binary or integers, not {type(value).__name__}")

    def merge(self, other: SparkBloomFilter) -> None:
        """Bitwise OR of a compatible filter (same version, size, k and seed)."""
        if (other.version, other.num_hashes, other.words.size, other.seed) != (
                self.version, self.num_hashes, self.words.size, self.seed):
            raise ValueError("cannot merge Bloom filters of different version, size, k or seed")
        self.words |= other.words

    def payload(self) -> bytes:
        """The filter's ``writeTo`` bytes: big-endian version, k, [seed,] word count, words."""
        head = (struct.pack(">iii", 1, self.num_hashes, self.words.size) if self.version == 1
                else struct.pack(">iiii", 2, self.num_hashes, self.seed, self.words.size))
        return head + self.words.astype(">u8").tobytes()

    @classmethod
    def from_payload(cls, data: bytes) -> SparkBloomFilter:
        """Parse ``writeTo`` bytes (V1 or V2)."""
        if len(data) < 12:
            raise XskipperFormatError(f"Spark Bloom filter payload of {len(data)} bytes is too short")
        version, k = struct.unpack_from(">ii", data, 0)
        if version == 1:
            seed, (n,), off = 0, struct.unpack_from(">i", data, 8), 12
        elif version == 2:
            if len(data) < 16:
                raise XskipperFormatError("Spark Bloom filter V2 payload is truncated")
            seed, n = struct.unpack_from(">ii", data, 8)
            off = 16
        else:
            raise XskipperFormatError(f"unknown Spark Bloom filter payload version {version}")
        if n < 0 or len(data) != off + 8 * n:
            raise XskipperFormatError(
                f"Spark Bloom filter payload declares {n} words but holds {len(data) - off} bytes for them")
        words = np.frombuffer(data, dtype=">u8", count=n, offset=off).astype(np.uint64)
        return cls(k, words, version, seed)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, SparkBloomFilter) and self.version == other.version
                and self.num_hashes == other.num_hashes and self.seed == other.seed
                and np.array_equal(self.words, other.words))

    def __repr__(self) -> str:
        return (f"SparkBloomFilter(version={self.version}, k={self.num_hashes}, "
                f"bits={self.bit_size}, set={int(np.unpackbits(self.words.view(np.uint8)).sum())})")
