"""DELTA_BINARY_PACKED pages we write, read back by pyarrow, on inputs whose block headers have
min-delta varints of different lengths (the case where a layout shortcut that looked only at the
total head length put bytes in the wrong place; see _kernels/layout.interleave)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc

pq = pytest.importorskip("pyarrow.parquet")


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(129, 20_000), scale=st.sampled_from([1, 100, 10**6, 10**12]),
       dtype=st.sampled_from(["int32", "int64"]))
def test_random_blocks_read_back_by_pyarrow(seed, n, scale, dtype):
    rng = np.random.default_rng(seed)
    # per-block offsets of very different sizes make the min-delta varints 1 to 9 bytes long
    steps = rng.integers(-scale, scale + 1, n) * rng.choice([0, 1, 1000, 10**6], n)
    values = np.cumsum(steps).astype(dtype, casting="unsafe")
    buf = io.BytesIO()
    pc.write_table({"x": values}, buf, column_encoding={"x": "delta_binary_packed"}, use_dictionary=False,
                   data_page_size=4096)
    got = pq.read_table(io.BytesIO(buf.getvalue())).column("x").to_numpy()
    np.testing.assert_array_equal(got, values)


@pytest.mark.parametrize("seed", [0, 1, 18, 42, 44])   # 18, 42 and 44 broke before the fix
def test_sparse_nulls_read_back_by_pyarrow(seed):
    # Sparse nulls give definition levels with many RLE runs whose headers have different
    # lengths; such pages were once laid out wrongly (unreadable levels).
    rng = np.random.default_rng(seed)
    n = 12_853 + seed * 1001
    values = [None if rng.random() < 0.001 else int(v) for v in rng.integers(0, 10**9, n)]
    buf = io.BytesIO()
    pc.write_table({"x": values}, buf)
    assert pq.read_table(io.BytesIO(buf.getvalue())).column("x").to_pylist() == values
