"""interleave / row_prefixes against slicing by hand, few and many pieces."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core._kernels.layout import interleave, row_prefixes
from parquet_core._kernels.varint import read_uleb128, uleb128_matrix, zigzag_encode_array


@pytest.mark.parametrize("k", [0, 1, 5, 40, 500])
@pytest.mark.parametrize("uniform", [False, True])
def test_interleave(k: int, uniform: bool) -> None:
    rng = np.random.default_rng(k)
    hl = np.full(k, 4) if uniform else rng.integers(0, 6, k)
    bl = rng.integers(0, 9, k)
    heads = rng.integers(0, 256, int(hl.sum()), dtype=np.uint8)
    bodies = rng.integers(0, 256, int(bl.sum()), dtype=np.uint8)
    expect = bytearray()
    h = b = 0
    for i in range(k):
        expect += heads[h:h + hl[i]].tobytes() + bodies[b:b + bl[i]].tobytes()
        h += hl[i]
        b += bl[i]
    assert interleave(heads, hl, bodies, bl).tobytes() == bytes(expect)
    with pytest.raises(ValueError):
        interleave(heads, hl + 1, bodies, bl) if k else interleave(heads, [1], bodies, [0])


def test_row_prefixes() -> None:
    m = np.arange(12).reshape(3, 4)
    assert row_prefixes(m, np.array([0, 2, 4])).tolist() == [4, 5, 8, 9, 10, 11]


def test_uleb128_matrix_and_zigzag() -> None:
    values = np.array([0, 1, 127, 128, 300, 2**35, 2**64 - 1], dtype=np.uint64)
    mat, lens = uleb128_matrix(values)
    for row, length, v in zip(mat, lens, values.tolist()):
        assert read_uleb128(row.tobytes(), 0) == (v, length)
    assert uleb128_matrix(np.zeros(0, np.uint64))[1].size == 0
    zz = zigzag_encode_array(np.array([0, -1, 1, -2, 2**62, -(2**63)], dtype=np.int64))
    assert zz.tolist() == [0, 1, 2, 3, 2**63, 2**64 - 1]
    assert zigzag_encode_array(np.array([-1], dtype=np.int32)).tolist() == [1]
