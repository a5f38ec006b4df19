"""Bit-packed dictionary indices looked up as values a key at a time
(``_kernels/dict_lanes``, issue 32): every key of every narrow width against the spec's
LSB-first packing decoded one value at a time (tests/_support/rle_reference.py) and a plain
``dictionary[index]``; indices outside the dictionary are refused (None)."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core._kernels.dict_lanes import LANE_WIDTHS, decode_group_values, decode_groups_at, lane_table
from tests._support.rle_reference import ref_decode
from tests.unit.encodings.golden import pack_lsb, uleb


def _expected(body: bytes, w: int, groups: int, dictionary: np.ndarray) -> list:
    # a bit-packed run header in front of the groups makes them one run for the reference
    idx = ref_decode(uleb(groups << 1 | 1) + body, w, groups * 8)
    return [dictionary[i] for i in idx]


@pytest.mark.parametrize("w", sorted(LANE_WIDTHS))
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_every_key_gives_the_dictionary_values_of_its_indices(w, dtype) -> None:
    rng = np.random.default_rng(w)
    dictionary = (rng.permutation(1 << w) * 3 - 5).astype(dtype)
    # every byte value (and every 12-bit key at w=3) appears
    vals = [int(v) for v in rng.integers(0, 1 << w, 8 * 4096)]
    vals[:1 << w] = list(range(1 << w))
    body = pack_lsb(vals, w)
    groups = len(vals) // 8
    buf = np.frombuffer(body + bytes(8), dtype=np.uint8)
    got = decode_group_values(buf, groups, lane_table(dictionary, w))
    assert got is not None and got.dtype == dictionary.dtype
    assert got.tolist() == _expected(body, w, groups, dictionary)


@pytest.mark.parametrize("w, size", [(1, 1), (2, 3), (3, 5), (3, 7), (4, 9)])
def test_an_index_outside_the_dictionary_is_refused(w, size) -> None:
    dictionary = np.arange(size, dtype=np.int64) * 10
    inside = [k % size for k in range(64)]
    body = pack_lsb(inside, w)
    table = lane_table(dictionary, w)
    buf = np.frombuffer(body + bytes(8), dtype=np.uint8)
    got = decode_group_values(buf, 8, table)
    assert got is not None and got.tolist() == _expected(body, w, 8, dictionary)
    outside = inside[:37] + [size] + inside[38:]
    buf = np.frombuffer(pack_lsb(outside, w) + bytes(8), dtype=np.uint8)
    assert decode_group_values(buf, 8, table) is None


def test_an_empty_dictionary_refuses_every_index() -> None:
    table = lane_table(np.zeros(0, dtype=np.float64), 2)
    assert decode_group_values(np.zeros(16, dtype=np.uint8), 1, table) is None


@pytest.mark.parametrize("w", sorted(LANE_WIDTHS))
def test_groups_are_read_where_they_lie(w) -> None:
    # groups at scattered offsets among other bytes (run headers, RLE values), the last
    # one followed by only w bytes (the zero padding after a page's bytes)
    rng = np.random.default_rng(20 + w)
    dictionary = rng.random(1 << w)
    buf = bytearray()
    at, expected = [], []
    for _ in range(200):
        buf += bytes(rng.integers(0, 256, int(rng.integers(0, 5))).tolist())
        vals = rng.integers(0, 1 << w, 8).tolist()
        at.append(len(buf))
        buf += pack_lsb(vals, w)
        expected += [dictionary[v] for v in vals]
    buf += bytes(w)
    got = decode_groups_at(np.frombuffer(bytes(buf), dtype=np.uint8), np.array(at, dtype=np.intp),
                           lane_table(dictionary, w))
    assert got is not None and got.tolist() == expected
