"""interleave with heads of different lengths whose total looks uniform.

Regression: heads of 1, 3, 2 and 2 bytes sum to 4 x 2, and were laid out as
if each had 2 bytes (the RLE hybrid encoder then wrote a bit-packed body
after the next run's header: unreadable definition levels).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.layout import interleave
from parquet_core.encodings.rle_hybrid import decode_hybrid
from parquet_core.encodings.rle_hybrid_encoder import encode_levels_v2


def _reference(heads, head_lens, bodies, body_lens) -> bytes:
    out = bytearray()
    h = b = 0
    for hl, bl in zip(head_lens, body_lens):
        out += bytes(heads[h:h + hl]) + bytes(bodies[b:b + bl])
        h += hl
        b += bl
    return bytes(out)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 5)), min_size=1, max_size=200))
def test_interleave_matches_a_loop(pieces) -> None:
    head_lens = np.array([p[0] for p in pieces], dtype=np.int64)
    body_lens = np.array([p[1] for p in pieces], dtype=np.int64)
    heads = np.arange(int(head_lens.sum()), dtype=np.int64).astype(np.uint8)
    bodies = (np.arange(int(body_lens.sum()), dtype=np.int64) * 7 + 3).astype(np.uint8)
    got = interleave(heads, head_lens, bodies, body_lens).tobytes()
    assert got == _reference(heads, head_lens, bodies, body_lens)


@settings(max_examples=100, deadline=None)
@given(h=st.sampled_from([1, 2, 3, 4, 8]), k=st.integers(40, 300), seed=st.integers(0, 2**32 - 1))
def test_mixed_head_lengths_summing_to_a_uniform_total(h, k, seed) -> None:
    rng = np.random.default_rng(seed)
    head_lens = np.full(k, h, dtype=np.int64)
    # move bytes between heads (never the first): the total stays h * k
    for _ in range(int(rng.integers(1, 10))):
        i, j = rng.integers(1, k, 2)
        if head_lens[i] > 0:
            head_lens[i] -= 1
            head_lens[j] += 1
    body_lens = rng.integers(0, 4, k).astype(np.int64)
    heads = np.arange(int(head_lens.sum()), dtype=np.int64).astype(np.uint8)
    bodies = (np.arange(int(body_lens.sum()), dtype=np.int64) * 7 + 3).astype(np.uint8)
    assert interleave(heads, head_lens, bodies, body_lens).tobytes() == \
        _reference(heads, head_lens, bodies, body_lens)


def test_sparse_null_levels_round_trip() -> None:
    rng = np.random.default_rng(0)
    rng.random(1)
    rng.random(3697)
    levels = (rng.random(12853) >= 0.001).astype(np.int16)
    stream = encode_levels_v2(levels, 1)
    assert np.array_equal(decode_hybrid(np.frombuffer(stream, np.uint8), 1, levels.size)[0], levels)
