"""first_occurrence_codes against a Python dict, on both strategies."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels import unique
from parquet_core._kernels.unique import first_occurrence_codes


def reference(keys: list[int]) -> tuple[list[int], list[int]]:
    seen: dict[int, int] = {}
    first: list[int] = []
    codes = []
    for i, k in enumerate(keys):
        if k not in seen:
            seen[k] = len(first)
            first.append(i)
        codes.append(seen[k])
    return first, codes


@settings(max_examples=80, deadline=None, derandomize=True)
@given(keys=st.lists(st.integers(0, 30), max_size=200), scale=st.sampled_from([1, 2**40, -(2**50)]),
       dtype=st.sampled_from([np.int64, np.uint64]))
def test_matches_reference(keys: list[int], scale: int, dtype: type) -> None:
    arr = (np.asarray(keys, dtype=np.int64) * scale).astype(dtype)
    first, codes = first_occurrence_codes(arr)
    assert (first.tolist(), codes.tolist()) == reference(arr.tolist())
    assert first.dtype == np.int64 and codes.dtype == np.int32


@pytest.mark.parametrize("keys", [
    np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, np.iinfo(np.int64).min]),
    np.array([2**64 - 1, 0, 2**64 - 1], dtype=np.uint64),
    np.random.default_rng(1).integers(0, 2**62, 20_000),
    np.random.default_rng(2).integers(0, 50, 20_000).astype(np.int8),
    np.array([True, False, True]),
])
def test_extremes_and_both_paths(keys: np.ndarray) -> None:
    first, codes = first_occurrence_codes(keys)
    assert (first.tolist(), codes.tolist()) == reference(keys.tolist())


def test_empty_and_misuse() -> None:
    first, codes = first_occurrence_codes(np.zeros(0, np.int64))
    assert first.size == 0 and codes.size == 0
    with pytest.raises(TypeError):
        first_occurrence_codes(np.zeros(3, np.float64))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(keys=st.lists(st.integers(-(2**62), 2**62), min_size=1, max_size=3000),
       repeat=st.integers(1, 4), cost=st.integers(1, 9), budget=st.integers(0, 5000))
def test_budget_stops_on_a_prefix_that_passes_it(keys: list[int], repeat: int, cost: int, budget: int) -> None:
    arr = np.repeat(np.asarray(keys, dtype=np.int64), repeat)
    first, codes = first_occurrence_codes(arr, costs=cost, budget=budget)
    p = len(codes)
    ref_first, ref_codes = reference(arr[:p].tolist())
    assert first.tolist() == ref_first and codes.tolist() == ref_codes
    if p < arr.size:
        assert len(first) * cost > budget


def test_budget_with_per_key_costs_stops_early_on_distinct_keys() -> None:
    keys = np.random.default_rng(3).integers(0, 2**60, 200_000)
    costs = np.random.default_rng(4).integers(1, 20, keys.size)
    first, codes = first_occurrence_codes(keys, costs=costs, budget=50_000)
    assert len(codes) < keys.size // 2
    assert int(costs[first].sum()) > 50_000
    assert first.tolist() == reference(keys[:len(codes)].tolist())[0]


def _numpy_reference(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # independent of the hash table: sort-based first occurrences, ranked by row
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return np.sort(first), rank[inverse.reshape(-1)]


@settings(max_examples=12, deadline=None, derandomize=True)
@given(card=st.sampled_from([1, 3, 50, 700, 5000]), late=st.integers(0, 40),
       n=st.sampled_from([70_000, 140_000, 300_000]), seed=st.integers(0, 2**16),
       budget=st.sampled_from([None, 2_000, 10**9]))
def test_repeated_keys_across_many_steps(card: int, late: int, n: int, seed: int, budget) -> None:
    # past the first hashing step, rows whose key is already in the table are
    # settled by one probe (the lookup path); newcomers still arrive late
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, card, n).astype(np.int64) * np.int64(0x9E3779B97F4A7C15 >> 2)
    if late:
        where = rng.integers(n // 2, n, late)
        keys[where] = rng.integers(-(2**62), 2**62, late)
    first, codes = first_occurrence_codes(keys, costs=8, budget=budget)
    p = len(codes)
    ref_first, ref_codes = _numpy_reference(keys[:p])
    assert np.array_equal(first, ref_first) and np.array_equal(codes, ref_codes)
    if budget is not None and p < n:
        assert 8 * len(first) > budget


@pytest.mark.parametrize("late", [5_000, 40_000, 199_999])
def test_small_range_key_first_seen_late(late: int) -> None:
    """A low-cardinality column whose last key appears long after the others
    (past the prefix the small-range path starts from)."""
    rng = np.random.default_rng(late)
    keys = rng.integers(-3, 4, 200_000).astype(np.int32)
    keys[late] = 1000
    first, codes = first_occurrence_codes(keys)
    # expected from np.unique: first rows sorted, codes by first-row rank
    uniq, idx, inv = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(idx)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    assert np.array_equal(first, np.sort(idx))
    assert np.array_equal(codes, rank[inv.reshape(-1)])
    assert codes.dtype == np.int32 and first.dtype == np.int64


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_small_range_many_keys_first_seen_late_and_repeated(seed: int) -> None:
    """A skewed column (taxi-like location ids): rare keys first appear at
    scattered rows past the prefix, interleaved, and repeat after; the late
    rows are numbered on their own, after the prefix's keys."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, 301) ** 1.5
    keys = (rng.choice(300, 120_000, p=weights / weights.sum()) + 7).astype(np.int32)
    uniq, idx, inv = np.unique(keys, return_index=True, return_inverse=True)
    assert int(idx.max()) > 4 * unique._PREFIX_START    # some keys come late
    first, codes = first_occurrence_codes(keys)
    order = np.argsort(idx)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    assert np.array_equal(first, np.sort(idx))
    assert np.array_equal(codes, rank[inv.reshape(-1)])
    assert (first.tolist(), codes.tolist()) == reference(keys.tolist())


def test_budget_that_a_small_span_cannot_pass_covers_every_row() -> None:
    """Keys spanning 7 values at cost 4 cannot pass a budget of 100: all rows are
    grouped (the same result as without a budget)."""
    keys = np.tile(np.array([5, 3, 9, 3, 4, 8, 6, 7], dtype=np.int64), 5000)
    first, codes = first_occurrence_codes(keys, costs=4, budget=100)
    assert codes.size == keys.size
    assert list(first) == [0, 1, 2, 4, 5, 6, 7]
    assert list(codes[:8]) == [0, 1, 2, 1, 3, 4, 5, 6]
    assert np.array_equal(codes, np.tile(codes[:8], 5000))


@pytest.mark.parametrize("late_new", [False, True])
@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32])
def test_few_wide_keys(late_new: bool, dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    # few distinct keys spread over a wide range (the bit patterns of a low-cardinality
    # double column): the small collision-free table, or (a key first seen after the
    # first rows) the general grouping; both must agree with the dict
    rng = np.random.default_rng(7)
    distinct = (rng.integers(-(2**30), 2**30, 9) * (2**31 if dtype != np.int32 else 1)).astype(dtype)
    keys = distinct[rng.integers(0, 9, 70_000)]
    if late_new:
        keys[60_000] = dtype(12345)
    else:   # every key is in the first rows: no open-addressing table is needed
        monkeypatch.setattr(unique, "_hashed", None)
    first, codes = first_occurrence_codes(keys)
    assert (first.tolist(), codes.tolist()) == reference(keys.tolist())


def test_few_wide_keys_under_a_budget() -> None:
    rng = np.random.default_rng(8)
    keys = (rng.integers(0, 20, 50_000) * 2**40).astype(np.int64)
    want = reference(keys.tolist())
    first, codes = first_occurrence_codes(keys, costs=8, budget=1000)   # 20 keys fit: whole answer
    assert (first.tolist(), codes.tolist()) == want
    first, codes = first_occurrence_codes(keys, costs=8, budget=80)     # must stop early: a prefix
    assert len(first) > 10 and codes.tolist() == want[1][:len(codes)]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32])
@pytest.mark.parametrize("edge", ["min", "max"])
def test_small_span_narrow_keys_at_their_type_edges(dtype: type, edge: str) -> None:
    """The small-span path widens narrow keys to intp as it subtracts the
    minimum: keys at either end of their type, with some first seen late."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    base = info.min if edge == "min" else info.max - 99
    keys = (base + rng.integers(0, 90, 3 * unique._PREFIX_START)).astype(dtype)
    keys[-5:] = np.array([base + 99, base + 95, base + 99, base, base + 97]).astype(dtype)
    first, codes = first_occurrence_codes(keys)
    assert (first.tolist(), codes.tolist()) == reference(keys.tolist())


@pytest.mark.parametrize("missing", [None, 1, 5, 8])
def test_small_span_whole_or_all_but_one_key_in_the_prefix(missing: int | None) -> None:
    """Every key of the span in the prefix (no late rows to look for), or all
    but one, which first appears far past the prefix (its rows must be found)."""
    rng = np.random.default_rng(11)
    keys = rng.integers(0, 10, 10 * unique._PREFIX_START).astype(np.int64)
    if missing is not None:
        keys[keys == missing] = (missing + 1) % 10
        keys[[-700, -3]] = missing
        keys[0], keys[1] = 0, 9          # the span stays 0..9
    first, codes = first_occurrence_codes(keys)
    assert (first.tolist(), codes.tolist()) == reference(keys.tolist())


@pytest.mark.parametrize(("dtype", "span"), [
    (dtype, span) for dtype in (np.int8, np.int32, np.int64, np.uint64)
    for span in (1, 2, 254, 255, 256, 300)
    if span <= int(np.iinfo(dtype).max) - int(np.iinfo(dtype).min) + 1])    # int8 holds 256 keys
@pytest.mark.parametrize("late", [False, True])
def test_small_span_byte_codes_and_wider_spans(dtype: type, span: int, late: bool) -> None:
    """Spans below 256 take byte codes (255 marks a key the prefix did not hold), wider
    ones the general lookup: every code, the prefix's 254 keys and late keys included,
    keys at the low end of their type and (wide types) far from zero."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(span)
    base = info.min if dtype in (np.int8, np.int32) else (-(2**40) if dtype is np.int64 else 2**63)
    n = 4 * unique._PREFIX_START
    offsets = rng.integers(0, span, n)
    if late and span > 1:
        head = offsets[:unique._PREFIX_START]
        head[head >= span // 2] = 0                  # the upper half first seen late
        offsets[-1] = span - 1
    keys = np.array([base + int(x) for x in offsets.tolist()], dtype=dtype)
    first, codes = first_occurrence_codes(keys)
    assert codes.dtype == np.int32 and first.dtype == np.int64
    assert (first.tolist(), codes.tolist()) == reference(keys.tolist())


@pytest.mark.parametrize("distinct", [1, 3, 100, 600])
@pytest.mark.parametrize("budget", [None, 40, 10**6])
@pytest.mark.parametrize("late", [False, True])
def test_spread_hint_gives_the_same_result(distinct: int, budget: int | None, late: bool) -> None:
    """``spread=True`` (float bit patterns) tries the few-keys table first: the same
    first rows and codes as without the hint, budget or not, a late new key included."""
    rng = np.random.default_rng(distinct)
    values = np.round(rng.normal(size=distinct) * 100, 2)
    keys = values[rng.integers(0, distinct, 3 * unique._PREFIX_START)].view(np.int64)
    if late:
        keys[-2] = np.float64(12345.5).view(np.int64)  # first seen far past the prefix
    costs = None if budget is None else 8
    plain = first_occurrence_codes(keys, costs=costs, budget=budget)
    hinted = first_occurrence_codes(keys, costs=costs, budget=budget, spread=True)
    assert plain[0].tolist() == hinted[0].tolist() and plain[1].tolist() == hinted[1].tolist()
    if budget is None:
        assert (hinted[0].tolist(), hinted[1].tolist()) == reference(keys.tolist())


@settings(max_examples=40, deadline=None, derandomize=True)
@given(card=st.sampled_from([1, 2, 200, 255, 256, 257, 300, 512, 700, 65_535, 65_536, 65_537]),
       kind=st.sampled_from(["narrow", "offset", "wide", "float"]),
       late=st.integers(0, 3), seed=st.integers(0, 2**16), budget=st.sampled_from([None, 2_000]))
def test_narrow_codes_equal_the_int32_codes(card: int, kind: str, late: int, seed: int,
                                            budget: int | None) -> None:
    """``narrow=True`` gives the int32 path's codes in the narrowest type that holds
    them (uint8 up to 256 groups, uint16 up to 65,536): on every strategy (byte codes
    of a span under 256, the few-keys table, the wider direct table, the hash table),
    with keys first seen past the prefix and under a budget.  A narrowing that wraps
    (a code over 255 kept in a byte) changes the values and fails here."""
    rng = np.random.default_rng(seed)
    n = max(3 * unique._PREFIX_START, 2 * card)
    offsets = np.concatenate((rng.permutation(card), rng.integers(0, card, n - card)))
    if late and card > 2:
        head = offsets[:unique._PREFIX_START]
        head[head >= card // 2] = 0                  # the upper keys first seen late
        offsets[-late:] = card - 1 - np.arange(late)
    if kind == "narrow":
        keys = offsets.astype(np.int32)
    elif kind == "offset":
        keys = offsets.astype(np.int64) - 2**40
    elif kind == "wide":                             # far wider than the count: hashed
        keys = offsets.astype(np.int64) * 2**33 + 7
    else:                                            # doubles' bit patterns (few-keys table)
        keys = (offsets * 0.25 + 0.1).view(np.int64)
    spread = kind == "float"
    costs = None if budget is None else 8
    first32, codes32 = first_occurrence_codes(keys, costs=costs, budget=budget, spread=spread)
    first, codes = first_occurrence_codes(keys, costs=costs, budget=budget, spread=spread, narrow=True)
    assert codes32.dtype == np.int32
    assert codes.dtype == unique.narrow_code_dtype(first.size)
    assert np.array_equal(first, first32)
    assert np.array_equal(codes.astype(np.int64), codes32.astype(np.int64))
    if budget is None:
        assert int(codes.max()) == first.size - 1


@pytest.mark.parametrize(("groups", "dtype"), [(0, np.uint8), (1, np.uint8), (256, np.uint8),
                                               (257, np.uint16), (65_536, np.uint16),
                                               (65_537, np.int32)])
def test_narrow_code_dtype_edges(groups: int, dtype: type) -> None:
    assert unique.narrow_code_dtype(groups) == np.dtype(dtype)
    codes = np.arange(groups, dtype=np.int32)
    narrowed = unique.narrowed_codes(codes, groups)
    assert narrowed.dtype == np.dtype(dtype) and np.array_equal(narrowed, codes)


@pytest.mark.parametrize("d", [200, 256, 257, 300, 512])
def test_narrow_few_keys_table_past_256_keys(d: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The few-keys table holds up to 512 keys: its narrow codes must be uint16 past
    256.  Random keys rarely hash without collisions at that count, so these are made
    to land on slots 0..d-1 under the first multiplier (slot s: ``s << shift`` times
    the multiplier's inverse modulo 2**64); the hash table is unset to prove the path."""
    bits = max(4, (4 * d - 1).bit_length())
    mult = unique._FEW_MULTIPLIERS[0]
    inv = pow(mult, -1, 2**64)
    distinct = np.array([((s << (64 - bits)) * inv) % 2**64 for s in range(d)], dtype=np.uint64)
    rng = np.random.default_rng(d)
    keys = distinct[np.concatenate((rng.permutation(d), rng.integers(0, d, 3 * unique._PREFIX_START)))]
    monkeypatch.setattr(unique, "_hashed", None)
    first, codes = first_occurrence_codes(keys.view(np.int64), spread=True, narrow=True)
    assert codes.dtype == unique.narrow_code_dtype(d) and first.size == d
    assert (first.tolist(), codes.tolist()) == reference(keys.tolist())


@pytest.mark.parametrize("span", [255, 256, 65_535, 65_536])
def test_narrow_small_span_lookup_at_its_edges(span: int) -> None:
    """The small-span lookup makes uint16 codes for spans up to 2**16, 0xFFFF marking
    keys the prefix did not hold (also a code, 65,535, at the edge, but only once the
    late keys are numbered): the last code and keys first seen late must come out as
    in the int32 lookup."""
    rng = np.random.default_rng(span)
    keys = rng.integers(0, span, 2 * span + unique._PREFIX_START)
    keys[:unique._PREFIX_START] %= 7                 # most keys first seen late
    keys[-span:] = rng.permutation(span)             # every key of the span appears
    first32, codes32 = first_occurrence_codes(keys)
    first, codes = first_occurrence_codes(keys, narrow=True)
    assert codes.dtype == unique.narrow_code_dtype(span) and int(codes.max()) == span - 1
    assert np.array_equal(first, first32) and np.array_equal(codes.astype(np.int32), codes32)
