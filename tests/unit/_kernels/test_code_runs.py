"""Runs of codes written back to back by one window copy per run
(``_kernels.code_runs``, issue 32), and the two kernels feeding it: groups of
packed values unpacked where they lie (``bitpack.unpack_groups_at``) and byte
dictionaries of one value length taken at byte codes (``ByteArrays.take``).
Expected values are built by plain Python loops (or ``np.unpackbits``), never by
the kernels under test."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core._kernels.bitpack import SLACK, unpack_groups, unpack_groups_at
from parquet_core._kernels.code_runs import copy_code_runs, fill_table, window_for
from tests.unit.encodings.golden import pack_lsb


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 300)), max_size=60),
       st.sampled_from([32, 64, 128, 256]), st.integers(0, 2**32 - 1))
def test_runs_copied_and_repeated_equal_a_python_loop(runs, width, seed) -> None:
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 256, 4096, dtype=np.uint8)        # the copied runs' source
    rows = 7
    fill = fill_table(rows, width, np.uint8)
    src = np.concatenate([pool, fill, np.zeros(width, dtype=np.uint8)])
    starts, lengths, repeated, expected = [], [], [], []
    for rep, n in runs:
        if rep:
            v = int(rng.integers(0, rows))
            starts.append(pool.size + v * width)
            expected += [v] * n
        else:
            at = int(rng.integers(0, pool.size - n + 1))
            starts.append(at)
            expected += pool[at:at + n].tolist()
        lengths.append(n)
        repeated.append(rep)
    total = sum(lengths)
    out = copy_code_runs(src, np.array(starts, dtype=np.int64), np.array(lengths, dtype=np.int64),
                         np.array(repeated, dtype=np.bool_), total, width)
    assert out is not None and out.size == total + width
    assert out[:total].tolist() == expected


def test_fill_rows_and_window_choice() -> None:
    t = fill_table(3, 4, np.uint16)
    assert t.dtype == np.uint16 and t.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    assert fill_table(3, 4, np.uint16) is t                  # kept
    assert window_for(300_000, 9_000) == 64 and window_for(600_000, 9_000) == 128 and window_for(300_000, 20_000) == 32
    assert window_for(1 << 20, 10) == 512 and window_for(0, 0) == 32


@pytest.mark.parametrize("w", [1, 2, 3, 4, 5, 7, 9, 12, 16])
def test_groups_unpacked_where_they_lie(w) -> None:
    rng = np.random.default_rng(w)
    groups = [rng.integers(0, 1 << w, 8).tolist() for _ in range(40)]
    buf = bytearray()
    at = []
    for g in groups:
        buf += bytes(int(rng.integers(0, 4)))          # bytes between the groups
        at.append(len(buf))
        buf += pack_lsb(g, w)
    buf += bytes(1)                                     # one spare byte (4-byte words at 3 bits)
    dtype = np.uint8 if w <= 8 else np.uint16
    out = np.full(8 * len(at) + 3, 99, dtype=dtype)
    unpack_groups_at(np.frombuffer(bytes(buf), dtype=np.uint8), np.array(at, dtype=np.int64), w, out)
    assert out[:8 * len(at)].tolist() == [v for g in groups for v in g]
    assert out[8 * len(at):].tolist() == [99] * 3        # nothing written past the groups


@pytest.mark.parametrize("w", [1, 2, 3, 5, 6, 7, 9, 11, 16])
@pytest.mark.parametrize("n", [0, 1, 37])
def test_groups_back_to_back_unpacked(w, n) -> None:
    # the bit-packed bodies copied together (odd widths of dictionary codes): n whole
    # groups from byte 0, SLACK bytes of any content after them
    rng = np.random.default_rng(100 * w + n)
    values = rng.integers(0, 1 << w, 8 * n).tolist()
    buf = bytes(pack_lsb(values, w)) + bytes(rng.integers(0, 256, SLACK, dtype=np.uint8))
    dtype = np.uint8 if w <= 8 else np.uint16
    out = np.full(8 * n + 3, 99, dtype=dtype)
    unpack_groups(np.frombuffer(buf, dtype=np.uint8), n, w, out)
    assert out[:8 * n].tolist() == values
    assert out[8 * n:].tolist() == [99] * 3             # nothing written past the groups
    with pytest.raises(ValueError):                      # no slack: refused, never read past
        unpack_groups(np.frombuffer(buf[:n * w + SLACK - 1], dtype=np.uint8), max(n, 1), w, out)


@pytest.mark.parametrize("size", [1, 3])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32])
def test_byte_values_of_one_length_taken_at_codes(size, dtype) -> None:
    values = [b"N", b"Y", b"Q"] if size == 1 else [b"abc", b"xyz"]
    d = ByteArrays.from_pylist(values)
    codes = np.random.default_rng(size).integers(0, len(values), 1000).astype(dtype)
    got = d.take(codes)
    assert got.to_pylist() == [values[c] for c in codes.tolist()]
    assert got.offsets.tolist() == list(range(0, 1001 * size, size))
    assert d.take(codes[:0]).to_pylist() == []
    with pytest.raises(IndexError):
        d.take(np.array([0, len(values)], dtype=dtype))        # out of range: refused
    empty = ByteArrays.from_pylist([b"", b""])
    assert empty.take(np.array([1, 0, 1], dtype=dtype)).to_pylist() == [b""] * 3
