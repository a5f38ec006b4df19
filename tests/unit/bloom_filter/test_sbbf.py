"""SplitBlockBloomFilter against the spec's pseudocode, and its sizing against the spec's table."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.bloom_filter import SALT, SplitBlockBloomFilter, hash_values
from parquet_core.bloom_filter.sizing import (
    SPEC_TABLE,
    bits_per_value,
    model_fpp,
    optimal_num_bytes,
)
from parquet_core.constants import PhysicalType as PT

_SETTINGS = settings(derandomize=True, max_examples=40, deadline=None)

# The salt as printed in parquet-format BloomFilter.md.
SPEC_SALT = [0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31]


def spec_insert(words: list[list[int]], h: int) -> None:
    """filter_insert / block_insert transcribed from the spec, one Python int at a time."""
    z = len(words)
    i = ((h >> 32) * z) >> 32
    x = h & 0xFFFFFFFF
    for k in range(8):
        words[i][k] |= 1 << (((x * SPEC_SALT[k]) & 0xFFFFFFFF) >> 27)


def spec_check(words: list[list[int]], h: int) -> bool:
    z = len(words)
    i = ((h >> 32) * z) >> 32
    x = h & 0xFFFFFFFF
    return all(words[i][k] >> (((x * SPEC_SALT[k]) & 0xFFFFFFFF) >> 27) & 1 for k in range(8))


def spec_bitset(words: list[list[int]]) -> bytes:
    return b"".join(w.to_bytes(4, "little") for block in words for w in block)


def test_salt_is_the_spec_salt() -> None:
    assert SALT.tolist() == SPEC_SALT


@_SETTINGS
@given(st.lists(st.integers(0, 2**64 - 1), max_size=200), st.integers(1, 40),
       st.lists(st.integers(0, 2**64 - 1), max_size=50))
def test_matches_spec_pseudocode(hashes: list[int], blocks: int, probes: list[int]) -> None:
    # Block counts that are not powers of two follow the same formulas.
    bf = SplitBlockBloomFilter(32 * blocks)
    bf.insert_hashes(np.array(hashes, dtype=np.uint64))
    ref = [[0] * 8 for _ in range(blocks)]
    for h in hashes:
        spec_insert(ref, h)
    assert bf.bitset() == spec_bitset(ref)
    queries = hashes + probes
    got = bf.check_hashes(np.array(queries, dtype=np.uint64)).tolist()
    assert got == [spec_check(ref, h) for h in queries]


def test_each_insert_sets_one_bit_per_word_of_one_block() -> None:
    bf = SplitBlockBloomFilter(1024)
    bf.insert_hashes(np.array([0x0123456789ABCDEF], dtype=np.uint64))
    words = bf.words
    touched = np.flatnonzero(words.any(axis=1))
    assert touched.tolist() == [((0x01234567 * 32) >> 32)]
    assert [bin(int(w)).count("1") for w in words[touched[0]]] == [1] * 8


def test_no_false_negatives_and_duplicates() -> None:
    rng = np.random.default_rng(3)
    h = rng.integers(0, 2**64 - 1, 50_000, dtype=np.uint64)
    bf = SplitBlockBloomFilter(8192)
    bf.insert_hashes(np.concatenate([h, h[:1000]]))  # duplicates within one call
    assert bf.check_hashes(h).all()
    before = bf.bitset()
    bf.insert_hashes(h)  # idempotent
    assert bf.bitset() == before


def test_physical_value_api() -> None:
    bf = SplitBlockBloomFilter(256)
    bf.insert(np.array([1, 2, 3], dtype=np.int32))
    bf.insert(np.array([10**12], dtype=np.int64))
    bf.insert([b"abc", "d\u00e9f"])
    bf.insert(np.array([[1] * 12], dtype=np.uint8), PT.INT96)
    assert bf.might_contain(np.int32(2)) and bf.might_contain(3, PT.INT32)
    assert bf.might_contain(10**12, PT.INT64)
    assert bf.might_contain("d\u00e9f") and bf.might_contain(b"abc")
    assert bf.might_contain(np.ones(12, dtype=np.uint8))
    assert bf.check([b"abc", b"zzz-not-there"]).tolist()[0]
    with pytest.raises(TypeError):
        bf.might_contain(3)  # INT32 or INT64? the bytes differ
    # the same number hashes differently as INT32 and INT64
    assert hash_values([7], PT.INT32)[0] != hash_values([7], PT.INT64)[0]


def test_serialisation_roundtrip() -> None:
    bf = SplitBlockBloomFilter(2048)
    bf.insert(np.arange(500, dtype=np.int64))
    raw = bf.to_bytes()
    again = SplitBlockBloomFilter.from_bytes(raw)
    assert again == bf and again.bitset() == bf.bitset()
    # the header is the 16 bytes parquet-cpp and parquet-java write for a 2048-byte filter
    assert raw[:16] == bytes.fromhex("1580201c1c00001c1c00001c1c000000")


@pytest.mark.parametrize("bad", [0, 31, 33, 48, -32, 2**31])
def test_sizes_must_be_whole_blocks(bad: int) -> None:
    with pytest.raises(ValueError):
        SplitBlockBloomFilter(bad)


# -- sizing -----------------------------------------------------------------

def test_model_reproduces_the_spec_table_and_example() -> None:
    for bits, fpp in SPEC_TABLE:
        ndv = round(1024 * 256 / bits)
        assert model_fpp(1024 * 32, ndv) == pytest.approx(fpp, rel=0.05)
    # "A filter that uses 1024 blocks and has had 26,214 hash values inserted
    # will have a false positive probability of around 1.26%"
    assert model_fpp(1024 * 32, 26_214) == pytest.approx(0.0126, abs=0.0002)


def test_spec_formula() -> None:
    p = 0.01
    assert bits_per_value(p) == pytest.approx(-8 / math.log(1 - p ** (1 / 8)))


@pytest.mark.parametrize("ndv", [0, 1, 10, 999, 1000, 12_345, 100_000, 10**6, 10**8])
@pytest.mark.parametrize("fpp", [0.1, 0.05, 0.01, 0.001])
def test_optimal_num_bytes(ndv: int, fpp: float) -> None:
    size = optimal_num_bytes(ndv, fpp)
    assert size >= 32 and size & (size - 1) == 0
    if size < 128 * 2**20:
        assert model_fpp(size, ndv) <= fpp
        if size > 32:  # the next smaller power of two would miss the target
            assert model_fpp(size // 2, ndv) > fpp


def test_optimal_num_bytes_is_capped() -> None:
    assert optimal_num_bytes(10**9, 0.01, max_bytes=1 << 20) == 1 << 20
    assert optimal_num_bytes(10**9, 0.01, max_bytes=(1 << 20) + 5) == 1 << 20
    assert optimal_num_bytes(10**9, 0.01, max_bytes=40) == 32
    with pytest.raises(ValueError):
        optimal_num_bytes(10, 1.5)
    with pytest.raises(ValueError):
        optimal_num_bytes(10, 0.01, max_bytes=16)


def spec_table_fpp(bits: float) -> float:
    """The spec's table, interpolated linearly in log(fpp) between its rows."""
    xs = [b for b, _ in SPEC_TABLE]
    ys = [math.log(p) for _, p in SPEC_TABLE]
    return math.exp(float(np.interp(bits, xs, ys)))


@pytest.mark.parametrize("ndv", [1_000, 10_000, 100_000])
@pytest.mark.parametrize("fpp", [0.01, 0.05])
def test_measured_false_positive_rate(ndv: int, fpp: float) -> None:
    """Insert ndv distinct int64 values, probe 400k others, count the 'maybe's."""
    rng = np.random.default_rng(ndv + int(fpp * 1000))
    values = rng.choice(2**40, size=ndv, replace=False).astype(np.int64)
    bf = SplitBlockBloomFilter.for_ndv(ndv, fpp)
    bf.insert(values)
    assert bf.check(values).all()
    probes = rng.integers(2**41, 2**62, 400_000, dtype=np.int64)  # disjoint from the inserted range
    measured = float(bf.check(probes).mean())
    bits = bf.num_bytes * 8 / ndv
    expected = spec_table_fpp(bits) if bits <= SPEC_TABLE[-1][0] else model_fpp(bf.num_bytes, ndv)
    assert measured <= fpp
    # within the spec's figure for this many bits per value (sampling error allowed)
    sigma = math.sqrt(expected / len(probes))
    assert abs(measured - expected) <= 0.25 * expected + 4 * sigma, (measured, expected, bits)


@pytest.mark.parametrize("scratch_bits", [0, 1 << 40])
@pytest.mark.parametrize("num_bytes,n", [(32, 1), (32, 500), (1 << 16, 3), (1 << 16, 20_000), (96, 50)])
def test_both_insert_strategies_match_the_spec(monkeypatch: pytest.MonkeyPatch, scratch_bits: int,
                                               num_bytes: int, n: int) -> None:
    import parquet_core.bloom_filter.sbbf as sbbf

    monkeypatch.setattr(sbbf, "_SCRATCH_BITS", scratch_bits)  # 0: always bitwise_or.at
    hashes = np.random.default_rng(n).integers(0, 2**64 - 1, n, dtype=np.uint64)
    bf = SplitBlockBloomFilter(num_bytes)
    bf.insert_hashes(hashes[: n // 2])
    bf.insert_hashes(hashes[n // 2:])  # a second batch ORs into the first
    ref = [[0] * 8 for _ in range(num_bytes // 32)]
    for h in hashes.tolist():
        spec_insert(ref, h)
    assert bf.bitset() == spec_bitset(ref)


@pytest.mark.parametrize("bits,fpp", [row for row in SPEC_TABLE if row[1] >= 0.001])
def test_measured_rate_at_the_spec_table_ratios(bits: float, fpp: float) -> None:
    """1024 blocks filled at the table's bits per value give the table's rate."""
    rng = np.random.default_rng(int(bits * 10))
    ndv = round(1024 * 256 / bits)
    bf = SplitBlockBloomFilter(1024 * 32)
    bf.insert_hashes(rng.integers(0, 2**64 - 1, ndv, dtype=np.uint64))
    probes = rng.integers(0, 2**64 - 1, 500_000, dtype=np.uint64)
    measured = float(bf.check_hashes(probes).mean())
    assert measured == pytest.approx(fpp, rel=0.15), measured
