"""``prefix_sum_runs_into``: equal bit-packed runs unpacked, each run's number added and the
values prefix-summed per page from its first value (DELTA_BINARY_PACKED's full blocks).
The runs are packed here from the spec (``golden.pack_lsb``) and the expected values are
running sums computed with Python integers, wrapped to the output's width."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core._kernels import prefix_runs
from parquet_core._kernels.prefix_runs import LANE_WIDTHS, prefix_sum_runs_into
from parquet_core.errors import ParquetFormatError
from tests.unit.encodings.golden import pack_lsb


def _runs(rng: np.random.Generator, w: int, n_runs: int, groups: int, gap: int) -> tuple[bytes, list[int]]:
    """*n_runs* bodies of *groups* groups of width *w*, each after *gap* junk bytes, then junk."""
    buf = bytearray()
    packed: list[int] = []
    for _ in range(n_runs):
        vals = [int(v) for v in rng.integers(0, 1 << w, groups * 8, dtype=np.uint64)]
        buf += rng.integers(0, 256, gap, dtype=np.uint8).tobytes()
        buf += pack_lsb(vals, w)
        packed += vals
    buf += rng.integers(0, 256, 5, dtype=np.uint8).tobytes()
    return bytes(buf), packed


def _expected(packed: list[int], plus: list[int], firsts: list[int], runs: int, groups: int,
              bits: int) -> list[list[int]]:
    per_run = groups * 8
    per_page = runs * per_run
    out = []
    for p, first in enumerate(firsts):
        acc = first
        row = [acc % 2**bits]
        for i in range(per_page):
            k = p * per_page + i
            acc += packed[k] + plus[k // per_run]
            row.append(acc % 2**bits)
        out.append(row)
    return out


@pytest.mark.parametrize("w", [2, 3, 6, 7, 9, 15, 17, 18, 24, 25, 26, 31, 32, 33, 40, 57])
@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
@pytest.mark.parametrize("pages", [1, 3])
def test_values_are_the_running_sums_of_the_spec(w: int, dtype: type, pages: int) -> None:
    rng = np.random.default_rng(w * 10 + pages)
    bits = np.dtype(dtype).itemsize * 8
    runs, groups, gap = 4, 3, 3
    buf, packed = _runs(rng, w, pages * runs, groups, gap)
    plus = rng.integers(0, 2**bits, pages * runs, dtype=dtype)
    plus[0] = 2**bits - 1                  # a negative min delta: sums wrap
    firsts = rng.integers(0, 2**bits, pages, dtype=dtype)
    firsts[-1] = 2**bits - 2
    n = runs * groups * 8
    # each page's row is a view into one column with a gap after it (as in a chunk whose
    # pages end with a partial block): nothing past a row's runs is written
    col = np.full(pages * (n + 1 + 4), 7, dtype=dtype)
    rows = col.reshape(pages, n + 5)
    stride = gap + groups * w
    starts = [gap + p * runs * stride for p in range(pages)]
    prefix_sum_runs_into(buf, starts, stride, runs, groups, w, plus, firsts, rows[:, :n + 1])
    want = _expected(packed, [int(x) for x in plus], [int(x) for x in firsts], runs, groups, bits)
    assert rows[:, :n + 1].tolist() == want
    assert (rows[:, n + 1:] == 7).all()


def test_pages_split_into_rounds_carry_nothing_across_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    # a round takes whole pages; rounds of one page each, and of two, give the same values
    rng = np.random.default_rng(8)
    w, runs, groups, gap, pages = 11, 5, 4, 2, 5
    buf, packed = _runs(rng, w, pages * runs, groups, gap)
    plus = rng.integers(0, 2**32, pages * runs, dtype=np.uint32)
    firsts = rng.integers(0, 2**32, pages, dtype=np.uint32)
    want = _expected(packed, [int(x) for x in plus], [int(x) for x in firsts], runs, groups, 32)
    for per_round in (1, 2 * runs * groups * 8, 10**6):
        monkeypatch.setattr(prefix_runs, "_ROUND_VALUES", per_round)
        out = np.zeros((pages, runs * groups * 8 + 1), dtype=np.uint32)
        stride = gap + groups * w
        prefix_sum_runs_into(np.frombuffer(buf, np.uint8), [gap + p * runs * stride for p in range(pages)],
                             stride, runs, groups, w, plus, firsts, out)
        assert out.tolist() == want, per_round


def test_a_buffer_short_of_the_last_body_is_refused() -> None:
    rng = np.random.default_rng(1)
    buf, _ = _runs(rng, 9, 6, 2, 1)
    body_end = 6 * (1 + 2 * 9)
    out = np.zeros((2, 3 * 16 + 1), dtype=np.uint64)
    plus, firsts = np.zeros(6, np.uint64), np.zeros(2, np.uint64)
    starts = [1, 1 + 3 * 19]
    with pytest.raises(ParquetFormatError, match="need"):
        prefix_sum_runs_into(buf[:body_end - 1], starts, 19, 3, 2, 9, plus, firsts, out)
    with pytest.raises(ParquetFormatError, match="need"):
        prefix_sum_runs_into(buf, [-1, 1], 19, 3, 2, 9, plus, firsts, out)
    prefix_sum_runs_into(buf[:body_end], starts, 19, 3, 2, 9, plus, firsts, out)   # exactly enough


@pytest.mark.parametrize("w, dtype", [(1, np.uint64), (58, np.uint64), (0, np.uint32), (6, np.int64)])
def test_widths_and_types_it_does_not_take_are_refused(w: int, dtype: type) -> None:
    assert w not in LANE_WIDTHS or np.dtype(dtype).kind != "u"
    out = np.zeros((1, 17), dtype=dtype)
    with pytest.raises(ValueError):
        prefix_sum_runs_into(bytes(100), [0], 64, 1, 2, w, np.zeros(1, dtype), np.zeros(1, dtype), out)


def test_rows_that_are_not_contiguous_are_refused() -> None:
    out = np.zeros((17, 2), dtype=np.uint32).T
    with pytest.raises(ValueError):
        prefix_sum_runs_into(bytes(100), [0, 20], 20, 1, 2, 6, np.zeros(2, np.uint32), np.zeros(2, np.uint32), out)


def test_pages_anywhere_in_the_buffer() -> None:
    # pages at uneven offsets (page headers, partial blocks between them), in any order
    rng = np.random.default_rng(12)
    w, runs, groups, gap = 13, 3, 2, 4
    stride = gap + groups * w
    bufs = [_runs(rng, w, runs, groups, gap) for _ in range(3)]
    lead = [7, 0, 30]
    joined = b"".join(bytes(n) + b for n, (b, _) in zip(lead, bufs))
    starts, at = [], 0
    for n, (b, _) in zip(lead, bufs):
        starts.append(at + n + gap)
        at += n + len(b)
    packed = [v for _, vals in bufs for v in vals]
    plus = rng.integers(0, 2**64, 3 * runs, dtype=np.uint64)
    firsts = rng.integers(0, 2**64, 3, dtype=np.uint64)
    out = np.zeros((3, runs * groups * 8 + 1), dtype=np.uint64)
    prefix_sum_runs_into(joined, starts, stride, runs, groups, w, plus, firsts, out)
    assert out.tolist() == _expected(packed, [int(x) for x in plus], [int(x) for x in firsts], runs, groups, 64)


@pytest.mark.parametrize("w", [2, 9, 18, 25])
def test_64_bit_sums_of_small_lanes_and_numbers_at_the_32_bit_edge(w: int) -> None:
    # steady timestamps: min deltas that fit, with 8 values of a group summed in 32 bits;
    # the largest such numbers with every packed value at its maximum (sums just below
    # 2**32 inside a group), then numbers one larger (64-bit lanes), then a negative one
    rng = np.random.default_rng(w + 40)
    runs, groups, gap, pages = 3, 5, 2, 2
    stride = gap + groups * w
    buf = bytearray()
    packed: list[int] = []
    for _ in range(pages * runs):
        buf += bytes(gap)
        vals = [(1 << w) - 1] * (groups * 8)
        buf += pack_lsb(vals, w)
        packed += vals
    buf += bytes(3)
    edge = (1 << 29) - (1 << w) - 1
    for top in (edge, edge + 1, 2**64 - 3):
        plus = np.full(pages * runs, top, dtype=np.uint64)
        plus[1] = rng.integers(0, 1000)
        firsts = np.array([2**64 - 10, 2**40], dtype=np.uint64)
        out = np.zeros((pages, runs * groups * 8 + 1), dtype=np.uint64)
        prefix_sum_runs_into(bytes(buf), [gap + p * runs * stride for p in range(pages)], stride, runs,
                             groups, w, plus, firsts, out)
        assert out.tolist() == _expected(packed, [int(x) for x in plus], [int(x) for x in firsts],
                                         runs, groups, 64), top


@pytest.mark.parametrize("per_round", [1, 40, 100])
def test_long_pages_are_summed_a_few_runs_at_a_time(monkeypatch: pytest.MonkeyPatch, per_round: int) -> None:
    # a page longer than a round: its runs go a few per round, each round continuing from
    # the last value of the one before (1 run, 2 runs, 6 runs of 16 values per round), the
    # last page's last body at the buffer's very end
    monkeypatch.setattr(prefix_runs, "_ROUND_VALUES", per_round)
    rng = np.random.default_rng(per_round)
    w, runs, groups, gap, pages = 20, 7, 2, 3, 2
    stride = gap + groups * w
    buf, packed = _runs(rng, w, pages * runs, groups, gap)
    buf = buf[:-5]
    plus = rng.integers(0, 2**64, pages * runs, dtype=np.uint64)
    firsts = rng.integers(0, 2**64, pages, dtype=np.uint64)
    out = np.zeros((pages, runs * groups * 8 + 1), dtype=np.uint64)
    prefix_sum_runs_into(buf, [gap + p * runs * stride for p in range(pages)], stride, runs, groups, w,
                         plus, firsts, out)
    assert out.tolist() == _expected(packed, [int(x) for x in plus], [int(x) for x in firsts], runs, groups, 64)


@pytest.mark.parametrize("per_round", [10**6, 40])
def test_pages_at_uneven_offsets_need_nothing_past_their_bodies(per_round: int,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # pages at uneven offsets with junk between them, the buffer ending where the last
    # body does; whole pages per round, or a few runs per round (long pages)
    monkeypatch.setattr(prefix_runs, "_ROUND_VALUES", per_round)
    rng = np.random.default_rng(21)
    w, runs, groups, gap = 18, 3, 4, 5
    stride = gap + groups * w
    buf = bytearray(rng.integers(0, 256, 2_000, dtype=np.uint8).tobytes())
    starts = [7, 300, 301 + runs * stride, 1_000]
    packed: list[int] = []
    for s in starts:
        for r in range(runs):
            vals = [int(v) for v in rng.integers(0, 1 << w, groups * 8, dtype=np.uint64)]
            buf[s + r * stride:s + r * stride + groups * w] = pack_lsb(vals, w)
            packed += vals
    data = np.frombuffer(bytes(buf[:starts[-1] + (runs - 1) * stride + groups * w]), np.uint8)
    for dtype in (np.uint32, np.uint64):
        bits = np.dtype(dtype).itemsize * 8
        plus = rng.integers(0, 2**bits, len(starts) * runs, dtype=dtype)
        firsts = rng.integers(0, 2**bits, len(starts), dtype=dtype)
        out = np.zeros((len(starts), runs * groups * 8 + 1), dtype=dtype)
        prefix_sum_runs_into(data, starts, stride, runs, groups, w, plus, firsts, out)
        assert out.tolist() == _expected(packed, [int(x) for x in plus], [int(x) for x in firsts],
                                         runs, groups, bits)
