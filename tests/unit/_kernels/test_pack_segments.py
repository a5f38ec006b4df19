"""pack_segments (the hybrid writer's literal runs) against pack_bits segment by segment.

The reference is the general packer (itself checked bit by bit against the
spec's LSB-first order in test_bitpack_pack.py): each segment zero-padded to
whole groups of 8 and packed alone, the results back to back.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.bitpack import pack_bits, pack_segments


def _reference(v: np.ndarray, starts: list[int], lengths: list[int], widths: list[int]) -> bytes:
    out = []
    for s, n, w in zip(starts, lengths, widths):
        seg = np.concatenate((v[s:s + n], np.zeros(-n % 8, dtype=v.dtype)))
        out.append(pack_bits(seg, w, validate=False).tobytes())
    return b"".join(out)


@st.composite
def _cases(draw: st.DrawFn) -> tuple[np.ndarray, list[int], list[int], list[int]]:
    """Segments (not overlapping, in any order, gaps between) each with its own width
    (or one width for all), filled with all-equal, alternating or random values."""
    dtype = draw(st.sampled_from([np.uint8, np.uint16]))
    top = 8 * np.dtype(dtype).itemsize
    nseg = draw(st.integers(0, 6))
    one_width = draw(st.booleans())
    w_all = draw(st.integers(0, top))
    pieces, starts, lengths, widths = [], [], [], []
    at = 0
    for _ in range(nseg):
        gap = draw(st.integers(0, 9))
        n = draw(st.integers(0, 40))
        w = w_all if one_width else draw(st.integers(0, top))
        kind = draw(st.sampled_from(["random", "equal", "alternating", "max"]))
        hi = (1 << w) - 1
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        if kind == "random":
            seg = rng.integers(0, hi + 1, n)
        elif kind == "equal":
            seg = np.full(n, int(rng.integers(0, hi + 1)))
        elif kind == "alternating":
            seg = np.where(np.arange(n) % 2 == 0, hi, 0)
        else:
            seg = np.full(n, hi)
        # the gap holds values of the full range: they must not leak into a padded group
        pieces.append(np.full(gap, (1 << top) - 1))
        pieces.append(seg)
        starts.append(at + gap)
        lengths.append(n)
        widths.append(w)
        at += gap + n
    pieces.append(np.full(draw(st.integers(0, 9)), (1 << top) - 1))
    v = np.concatenate(pieces).astype(dtype) if pieces else np.zeros(0, dtype)
    order = draw(st.permutations(list(range(nseg))))
    return v, [starts[i] for i in order], [lengths[i] for i in order], [widths[i] for i in order]


@settings(max_examples=400)
@given(_cases())
def test_same_bytes_as_packing_each_segment(case: tuple[np.ndarray, list[int], list[int], list[int]]) -> None:
    v, starts, lengths, widths = case
    got = pack_segments(v, np.array(starts, dtype=np.int64), np.array(lengths, dtype=np.int64),
                        np.array(widths, dtype=np.int64))
    assert got.tobytes() == _reference(v, starts, lengths, widths)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_long_segments_every_width(dtype: type) -> None:
    rng = np.random.default_rng(5)
    top = 8 * np.dtype(dtype).itemsize
    for w in range(top + 1):
        v = rng.integers(0, 1 << w, 5003).astype(dtype)
        starts, lengths = [0, 1003, 2011, 4999], [1003, 1000, 2981, 4]
        got = pack_segments(v, np.array(starts), np.array(lengths), np.full(4, w))
        assert got.tobytes() == _reference(v, starts, lengths, [w] * 4)


def test_misuse_is_refused() -> None:
    with pytest.raises(TypeError):
        pack_segments(np.zeros(8, dtype=np.uint32), np.array([0]), np.array([8]), np.array([3]))
    with pytest.raises(ValueError):
        pack_segments(np.zeros(8, dtype=np.uint8), np.array([0]), np.array([8]), np.array([9]))
    assert pack_segments(np.zeros(0, dtype=np.uint8), np.array([], dtype=np.int64),
                         np.array([], dtype=np.int64), np.array([], dtype=np.int64)).size == 0
