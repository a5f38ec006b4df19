"""Many pages of dictionary indices (and of levels) encoded together (one column chunk's).

Each page's stream is checked two ways: decoded back (our decoder is checked
against pyarrow and the spec elsewhere) to the generated indices, and byte for
byte against the one-page encoder, whose run choice the chunk-wide one must
reproduce (files written before and after this change stay identical).
"""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core.encodings.rle_hybrid import decode_dictionary_indices, decode_rle_hybrid
from parquet_core.encodings.rle_hybrid_encoder import (
    encode_dictionary_index_pages,
    encode_dictionary_indices,
    encode_level_pages,
    encode_levels_v1,
    encode_levels_v2,
)
from tests._support.rle_reference import ref_decode


def _runny(rng: np.random.Generator, n: int, card: int) -> np.ndarray:
    parts, total = [], 0
    while total < n:
        k = int(rng.integers(1, 40))
        part = rng.integers(0, card, k) if rng.random() < 0.5 else np.full(k, rng.integers(0, card))
        parts.append(part)
        total += k
    return np.concatenate(parts)[:n] if parts else np.zeros(0, dtype=np.int64)


@pytest.mark.parametrize("seed", range(40))
def test_same_bytes_as_page_by_page_and_decodes_back(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 4000))
    card = int(rng.choice([1, 2, 3, 5, 20, 300, 70000]))
    v = _runny(rng, n, card).astype(rng.choice([np.int32, np.int64]))
    cuts = rng.integers(0, n + 1, int(rng.integers(0, 7)))
    bounds = np.sort(np.concatenate(([0, n], cuts)))
    got = encode_dictionary_index_pages(v, bounds, card)
    assert len(got) == len(bounds) - 1
    for p, body in enumerate(got):
        page = v[bounds[p]:bounds[p + 1]]
        size = int(page.max()) + 1 if page.size else card
        assert body == encode_dictionary_indices(page, size)
        assert np.array_equal(decode_dictionary_indices(body, page.size), page)


@pytest.mark.parametrize("width", [9, 16, 17, 24, 25, 31])
def test_wide_run_values_decode_by_the_reference(width: int) -> None:
    """RLE runs whose value takes 2-4 bytes (the run heads carry them right after the
    varint), every page checked by the spec-grammar reference decoder."""
    rng = np.random.default_rng(width)
    top = (1 << width) - 1
    v = _runny(rng, 3000, 7) * (top // 7)
    v[rng.integers(0, 3000, 3)] = top            # the full width in some pages
    bounds = np.array([0, 1, 700, 701, 1900, 3000])
    got = encode_dictionary_index_pages(v, bounds, top + 1)
    for p, body in enumerate(got):
        page = v[bounds[p]:bounds[p + 1]]
        w = max(1, int(page.max()).bit_length())
        assert body[0] == w
        assert ref_decode(body[1:], w, page.size) == page.tolist()


def test_misuse_is_refused() -> None:
    v = np.array([0, 1, 2, 3])
    with pytest.raises(ValueError, match="outside a dictionary of 3"):
        encode_dictionary_index_pages(v, [0, 2, 4], 3)
    with pytest.raises(ValueError, match="bounds"):
        encode_dictionary_index_pages(v, [0, 3], 4)
    assert encode_dictionary_index_pages(v[:0], [0], 4) == []
    # a negative index is refused whatever the dtype and the dictionary's size (the check
    # reads the indices unsigned unless the dictionary is larger than the dtype's range)
    for dtype, size in ((np.int8, 3), (np.int8, 1000), (np.int32, 3), (np.int32, 2**31),
                        (np.int64, 3), (np.int64, 2**40)):
        bad = np.array([0, 2, -1, 1], dtype=dtype)
        with pytest.raises(ValueError, match="index -1 is outside"):
            encode_dictionary_index_pages(bad, [0, 2, 4], size)
    with pytest.raises(ValueError, match="index 200 is outside a dictionary of 200"):
        encode_dictionary_index_pages(np.array([3, 200], dtype=np.uint8), [0, 1, 2], 200)
    assert encode_dictionary_index_pages(v[:0], [0, 0], 4) == [bytes([2])]


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("length_prefix", [True, False])
def test_level_pages_same_bytes_as_page_by_page(seed: int, length_prefix: bool) -> None:
    rng = np.random.default_rng(100 + seed)
    max_level = int(rng.choice([1, 2, 3, 5]))
    n = int(rng.integers(0, 4000))
    levels = _runny(rng, n, max_level + 1).astype(rng.choice([np.int16, np.uint8, np.int32]))
    bounds = np.sort(np.concatenate(([0, n], rng.integers(0, n + 1, int(rng.integers(0, 7))))))
    got = encode_level_pages(levels, bounds, max_level, length_prefix=length_prefix)
    one = encode_levels_v1 if length_prefix else encode_levels_v2
    width = max_level.bit_length()
    for p, body in enumerate(got):
        page = levels[bounds[p]:bounds[p + 1]]
        assert body == one(page, max_level)
        runs = body[4:] if length_prefix else body
        assert np.array_equal(decode_rle_hybrid(runs, width, page.size), page)
    with pytest.raises(ValueError, match="exceeds the maximum level"):
        encode_level_pages(np.array([0, 4]), [0, 2], 3, length_prefix=True)


def _runs_by_loop(v: np.ndarray, bounds: np.ndarray, shortest: int) -> list[tuple[int, int]]:
    """Every maximal stretch of equal values inside one page, of at least *shortest* values,
    found one value at a time."""
    out = []
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        i = lo
        while i < hi:
            j = i + 1
            while j < hi and v[j] == v[i]:
                j += 1
            if j - i >= shortest:
                out.append((i, j - i))
            i = j
    return out


@pytest.mark.parametrize("seed", range(30))
def test_long_runs_are_the_stretches_a_loop_finds(seed: int) -> None:
    """The chunk-wide run finder lists exactly the long runs, cut at page bounds
    (also those touching the first and last value, and pages shorter than a run)."""
    from parquet_core.encodings.rle_hybrid_encoder import _long_runs
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 3000))
    v = _runny(rng, n, int(rng.choice([1, 2, 3, 40]))).astype(rng.choice([np.uint8, np.int32, np.int64]))
    cuts = rng.integers(0, n + 1, int(rng.integers(0, 8)))
    bounds = np.sort(np.concatenate(([0, n], cuts))).astype(np.int64)
    shortest = int(rng.choice([8, 12, 24, 30]))
    starts, lens = _long_runs(v, bounds, shortest)
    assert list(zip(starts.tolist(), lens.tolist())) == _runs_by_loop(v, bounds, shortest)
