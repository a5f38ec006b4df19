"""``row_sums_into`` against ``np.cumsum(a, axis=-1)`` for every shape class it splits on
(1-D, few short rows summed as one, few long rows one by one, more than numpy's 500 rows),
with sums that wrap."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels import running
from parquet_core._kernels.running import row_sums_into

_DTYPES = [np.uint32, np.uint64, np.int32, np.int64, np.int8]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_DTYPES), st.integers(0, 12), st.integers(0, 40), st.integers(0, 2**32 - 1),
       st.booleans(), st.booleans())
def test_matches_cumsum(dt: type, rows: int, width: int, seed: int, one_d: bool, strided: bool) -> None:
    rng = np.random.default_rng(seed)
    info = np.iinfo(dt)
    base = rng.integers(info.min, info.max, (rows, width + 3), dtype=dt, endpoint=True)
    a = base[:, 3:] if strided else np.ascontiguousarray(base[:, 3:])   # DBP passes column slices
    if one_d:
        a = a.reshape(-1)
    want = np.cumsum(a, axis=-1, dtype=dt)
    out = np.empty(a.shape, dtype=dt)
    assert row_sums_into(a, out) is out
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("shape", [(3, running._ROW_BY_ROW + 5), (running.NUMPY_THREAD_MIN + 1, 7)])
def test_long_rows_and_many_rows(shape: tuple[int, int]) -> None:
    a = np.random.default_rng(1).integers(0, 2**64 - 1, shape, dtype=np.uint64, endpoint=True)
    out = np.empty_like(a)
    np.testing.assert_array_equal(row_sums_into(a, out), np.cumsum(a, axis=-1, dtype=np.uint64))
