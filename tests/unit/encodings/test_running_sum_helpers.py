"""The helpers whose running sums stopped accumulating into their own input (issue 32:
numpy holds the GIL throughout such a call) against the plain numpy expression they stand
for.  ``tests/unit/_kernels/test_no_self_accumulate.py`` is the check that fails when a
running sum goes back in place."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.encodings.rle_hybrid import _JOIN_MIN_BYTES, _gather_bodies
from parquet_core.encodings.rle_validity import _gather, _repeat
from parquet_core.table.list_padding import stray_repeats


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(-2**40, 2**40), st.integers(1, 40)), min_size=1, max_size=60))
def test_repeat_is_np_repeat(pairs: list[tuple[int, int]]) -> None:
    values = np.array([v for v, _ in pairs], dtype=np.intp)
    lengths = np.array([k for _, k in pairs], dtype=np.intp)
    got = _repeat(values, lengths, int(lengths.sum()))
    assert got.dtype == np.intp
    np.testing.assert_array_equal(got, np.repeat(values, lengths))


def _bodies(draw: st.DrawFn, most: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random bytes and non-touching bodies (at least one header byte before each)."""
    spans = draw(st.lists(st.tuples(st.integers(1, 4), st.integers(1, most)), min_size=1, max_size=30))
    at, bodies, sizes = 0, [], []
    for gap, k in spans:
        at += gap
        bodies.append(at)
        sizes.append(k)
        at += k
    tail = draw(st.integers(0, 9))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = rng.integers(0, 256, at + tail, dtype=np.uint8)
    return a, np.array(bodies, dtype=np.intp), np.array(sizes, dtype=np.intp)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_validity_gather_is_concatenation(data: st.DataObject) -> None:
    a, bodies, nbytes = _bodies(data.draw, 31)       # short bodies: the running-sum path
    got = _gather(a, bodies, nbytes, a.size)
    want = np.concatenate([a[b:b + k] for b, k in zip(bodies, nbytes)])
    np.testing.assert_array_equal(got, want)


@settings(max_examples=80, deadline=None)
@given(st.data(), st.integers(1, 8))
def test_gather_bodies_is_concatenation(data: st.DataObject, w: int) -> None:
    groups = data.draw(st.lists(st.integers(1, (_JOIN_MIN_BYTES - 1) // w), min_size=1, max_size=20))
    p_take = np.array([g * 8 for g in groups], dtype=np.int64)
    gaps = data.draw(st.lists(st.integers(1, 3), min_size=len(groups), max_size=len(groups)))
    at, bodies = 0, []
    for gap, g in zip(gaps, groups):
        at += gap
        bodies.append(at)
        at += g * w
    short = data.draw(st.integers(0, groups[-1] * w - 1))   # the last body may run short
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    arr = rng.integers(0, 256, at - short, dtype=np.uint8)
    got = _gather_bodies(arr, w, np.array(bodies, dtype=np.int64), p_take)
    want = np.concatenate([arr[b:b + g * w] for b, g in zip(bodies, groups)])
    np.testing.assert_array_equal(got[:want.size], want)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), min_size=1, max_size=60))
def test_stray_repeats_against_a_loop(levels: list[tuple[int, int]]) -> None:
    """Each stray entry's opener (a running maximum of slot openings) against a Python loop
    over the docstring's rule."""
    reps = np.array([r for r, _ in levels], dtype=np.int16)
    defs = np.array([d for _, d in levels], dtype=np.int16)
    slot_rep, elem_def, null_below = 0, 3, 2
    padding, first_bad, opener = 0, -1, -1
    for i, (r, d) in enumerate(levels):
        if r <= slot_rep:
            opener = i
        elif r == slot_rep + 1 and d < elem_def:
            if opener >= 0 and levels[opener][1] < null_below and d == levels[opener][1]:
                padding += 1
            elif first_bad < 0:
                first_bad = i
    got = stray_repeats(reps, defs, slot_rep, elem_def, null_below)
    assert (got.padding, got.first_bad) == (padding, first_bad)
