"""first_occurrence_codes against a Python dict, on both strategies."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
