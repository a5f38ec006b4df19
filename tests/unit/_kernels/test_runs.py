"""Window copies of byte runs (``_kernels/runs.py``) against plain Python slicing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels import runs
from parquet_core._kernels.runs import gather_runs, window_view


@pytest.mark.parametrize("width", [16, 24, 64, 512])
@pytest.mark.parametrize("n", [1, 7, 5000, 200_000])
def test_numpy_writes_overlapping_windows_in_index_order(width: int, n: int) -> None:
    """The undocumented numpy behaviour the window copies rely on.

    Element ``i`` of a fancy assignment into overlapping windows must be
    written after element ``i - 1``: each window's tail is overwritten by the
    next one, so only the first ``lengths[i]`` bytes of every window survive.
    If a numpy release changes this, this test fails (and the module's own
    check, ``windows_in_order``, switches the kernels to their exact path).
    """
    rng = np.random.default_rng(n + width)
    lengths = rng.integers(0, width + 1, n).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    total = int(offsets[-1])
    src = rng.integers(0, 256, total + 3 * n + width, dtype=np.uint8)
    starts = offsets[:-1] + 3 * np.arange(n)          # runs separated by 3 junk bytes
    out = np.zeros(total + width, dtype=np.uint8)
    window_view(out, width)[offsets[:-1]] = window_view(src, width)[starts]
    expect = b"".join(src[s:s + ln].tobytes() for s, ln in zip(starts.tolist(), lengths.tolist()))
    assert out[:total].tobytes() == expect
    assert runs.windows_in_order()


def reference(src: bytes, starts: list[int], lengths: list[int]) -> bytes:
    return b"".join(src[s:s + ln] for s, ln in zip(starts, lengths))


def run_case(src: bytes, pieces: list[tuple[int, int]]) -> None:
    starts = [min(a, len(src)) for a, _ in pieces]
    lengths = [min(ln, len(src) - s) for s, (_, ln) in zip(starts, pieces)]
    st_arr = np.array(starts, dtype=np.int64)
    ln_arr = np.array(lengths, dtype=np.int64)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(ln_arr, out=offsets[1:])
    got = gather_runs(np.frombuffer(src, dtype=np.uint8), st_arr, ln_arr, offsets)
    assert got.tobytes() == reference(src, starts, lengths)


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=0, max_size=3000),
       st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 600)), max_size=60))
def test_gather_runs_matches_slicing(src: bytes, pieces: list[tuple[int, int]]) -> None:
    """Random runs: empty ones, runs longer than the window, runs ending at the buffer end."""
    run_case(src, pieces)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3000), st.sampled_from([0, 8, 40, 300, 5000]))
def test_gather_runs_many_runs(seed: int, n: int, max_len: int) -> None:
    """Many runs over a large source: exact edge path (few runs near the end) and tails."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 256, 200_000, dtype=np.uint8).tobytes()
    lens = rng.integers(0, max_len + 1, n)
    starts = rng.integers(0, len(src), n)
    starts[: n // 10] = len(src) - lens[: n // 10]      # runs flush with the end
    run_case(src, list(zip(starts.tolist(), lens.tolist())))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(50, 4000), st.sampled_from([20, 64, 200, 3000]),
       st.integers(1, 6))
def test_gather_runs_few_edge_runs_anywhere(seed: int, n: int, max_len: int, n_edge: int) -> None:
    """A handful of runs ending at (or near) the end of a big source, at random places in
    the output: their clamped windows are rewritten exactly, and the runs after them
    (written later) are intact."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 256, 150_000, dtype=np.uint8).tobytes()
    lens = rng.integers(0, max_len + 1, n)
    starts = rng.integers(0, len(src) - max_len, n)
    at = rng.choice(n, size=min(n_edge, n), replace=False)
    starts[at] = len(src) - lens[at] - rng.integers(0, 3, at.size)
    starts = np.maximum(starts, 0)
    run_case(src, list(zip(starts.tolist(), lens.tolist())))


def test_gather_runs_small_source_is_padded() -> None:
    """A dictionary-sized source whose last value is gathered many times."""
    vals = [b"a" * 3, b"\xff" * 70, b"", "é€".encode()]
    src = b"".join(vals)
    starts, acc = [], 0
    for v in vals:
        starts.append(acc)
        acc += len(v)
    idx = np.random.default_rng(0).integers(0, len(vals), 10_000)
    run_case(src, [(starts[i], len(vals[i])) for i in idx.tolist()])


def test_exact_fallback_when_order_is_not_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runs, "windows_in_order", lambda: False)
    rng = np.random.default_rng(5)
    src = rng.integers(0, 256, 5000, dtype=np.uint8).tobytes()
    run_case(src, list(zip(rng.integers(0, 5000, 300).tolist(), rng.integers(0, 90, 300).tolist())))



@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2000), st.sampled_from([0, 5, 30, 300]),
       st.sampled_from([0, 3, 40]), st.sampled_from([1_000, 100_000]))
def test_scatter_runs_places_runs_between_gaps(seed: int, n: int, max_len: int, max_gap: int,
                                                src_size: int) -> None:
    """Runs land at their destinations (gap bytes are free); edge runs included."""
    from parquet_core._kernels.runs import scatter_runs
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 256, src_size, dtype=np.uint8)
    lens = rng.integers(0, min(max_len, src_size) + 1, n).astype(np.int64)
    starts = rng.integers(0, src_size - lens + 1).astype(np.int64) if n else lens
    if n:
        starts[rng.random(n) < 0.05] = 0
        flush = rng.random(n) < 0.05
        starts[flush] = src_size - lens[flush]
    gaps = rng.integers(0, max_gap + 1, n).astype(np.int64)
    dst = np.cumsum(gaps + lens) - lens if n else lens
    total = int(dst[-1] + lens[-1] + rng.integers(0, 3)) if n else 0
    out = scatter_runs(src, starts, lens, dst, total)
    assert out.size == total
    for s, ln, d in zip(starts.tolist(), lens.tolist(), dst.tolist()):
        assert out[d:d + ln].tobytes() == src[s:s + ln].tobytes()


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(100, 400), (0, 1500), (200, 200), (30, 60)]))
def test_gather_runs_in_blocks_matches_slicing(seed: int, lens_range: tuple[int, int]) -> None:
    """Wide windows are assigned block by block (spill across block borders included)."""
    rng = np.random.default_rng(seed)
    n = 9000
    src = rng.integers(0, 256, 300_000, dtype=np.uint8).tobytes()
    lens = rng.integers(lens_range[0], lens_range[1] + 1, n)
    starts = rng.integers(0, len(src) - lens + 1)
    flush = rng.random(n) < 0.01
    starts[flush] = len(src) - lens[flush]          # edge runs as well
    old = runs._BLOCK_BYTES
    runs._BLOCK_BYTES = 1          # the smallest block: 4096 windows
    try:
        run_case(src, list(zip(starts.tolist(), lens.tolist())))
    finally:
        runs._BLOCK_BYTES = old


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3000), st.sampled_from([5, 30, 300]),
       st.sampled_from([0, 3, 40]), st.sampled_from([1_000, 100_000]))
def test_scatter_runs_into_a_slice_writes_nothing_past_it(seed: int, n: int, max_len: int, max_gap: int,
                                                          src_size: int) -> None:
    """With *out* (a slice of a larger buffer that others fill beside it), the runs land as
    without it and no byte outside the slice changes: the windows near its end would spill."""
    from parquet_core._kernels.runs import scatter_runs
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 256, src_size, dtype=np.uint8)
    lens = rng.integers(0, min(max_len, src_size) + 1, n).astype(np.int64)
    starts = rng.integers(0, src_size - lens + 1).astype(np.int64)
    gaps = rng.integers(0, max_gap + 1, n).astype(np.int64)
    dst = np.cumsum(gaps + lens) - lens
    total = int(dst[-1] + lens[-1] + rng.integers(0, 3))
    guard = 600
    buf = np.full(total + 2 * guard, 0xA5, dtype=np.uint8)
    out = buf[guard:guard + total]
    got = scatter_runs(src, starts, lens, dst, total, out)
    assert got is out
    assert (buf[:guard] == 0xA5).all() and (buf[guard + total:] == 0xA5).all()
    for s, ln, d in zip(starts.tolist(), lens.tolist(), dst.tolist()):
        assert out[d:d + ln].tobytes() == src[s:s + ln].tobytes()
    with pytest.raises(ValueError):
        scatter_runs(src, starts, lens, dst, total, buf[:total + 1])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 400), st.integers(1, 400), st.sampled_from([40, 300, 3000]))
def test_gather_runs_in_parts_keeps_the_earlier_parts(seed: int, n1: int, n2: int, max_len: int) -> None:
    """Parts gathered one after another into one buffer: the second part's copy (its few
    long runs make tail windows, before which its pages are touched) writes only its own
    bytes and spill past them, never the first part's."""
    from parquet_core._kernels.runs import GATHER_SPILL, gather_runs
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 256, 50_000, dtype=np.uint8)
    lens = rng.integers(0, max_len + 1, n1 + n2).astype(np.int64)
    lens[rng.integers(0, n1 + n2, 3)] = max_len * 4      # a few long runs: tail windows
    starts = rng.integers(0, src.size - lens + 1).astype(np.int64)
    offsets = np.zeros(n1 + n2 + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    buf = np.full(int(offsets[-1]) + GATHER_SPILL, 0xA5, dtype=np.uint8)
    gather_runs(src, starts[:n1], lens[:n1], offsets[:n1 + 1], out=buf)
    gather_runs(src, starts[n1:], lens[n1:], offsets[n1:], out=buf)
    want = b"".join(src[s:s + n].tobytes() for s, n in zip(starts.tolist(), lens.tolist()))
    assert buf[:offsets[-1]].tobytes() == want


def test_touch_pages_writes_one_byte_per_page_inside_the_range() -> None:
    from parquet_core._kernels.runs import _PAGE_BYTES, _touch_pages
    buf = np.full(20 * _PAGE_BYTES, 7, dtype=np.uint8)
    _touch_pages(buf, 1000, 1000 + 5 * _PAGE_BYTES + 3)
    changed = np.flatnonzero(buf != 7)
    assert changed.tolist() == [1000 + k * _PAGE_BYTES for k in range(6)]
