"""``unpack_spaced_runs_into``: equal bit-packed runs separated by header bytes, unpacked in
place; the runs are packed here from the spec (``tests/unit/encodings/golden.pack_lsb``), so
the expected values are the generated ones."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core._kernels.bitpack import unpack_spaced_runs_into
from parquet_core.errors import ParquetFormatError
from tests.unit.encodings.golden import pack_lsb


def _stream(rng: np.random.Generator, w: int, runs: int, groups: int, gap: int,
            tail: int) -> tuple[bytes, list[int]]:
    """*runs* bodies of *groups* groups, each after *gap* junk bytes, then *tail* junk bytes."""
    buf = bytearray()
    values: list[int] = []
    for _ in range(runs):
        vals = rng.integers(0, 1 << w, groups * 8, dtype=np.uint64).tolist()
        buf += rng.integers(0, 256, gap, dtype=np.uint8).tobytes()
        buf += pack_lsb(vals, w)
        values += vals
    buf += rng.integers(0, 256, tail, dtype=np.uint8).tobytes()
    return bytes(buf), values


@pytest.mark.parametrize("w", [1, 2, 3, 5, 7, 8, 9, 12, 15, 16, 17, 21, 25, 26, 31, 32, 33, 57, 58, 63])
@pytest.mark.parametrize("tail", [0, 3, 20])
def test_spaced_runs_equal_the_packed_values(w: int, tail: int) -> None:
    rng = np.random.default_rng(w * 100 + tail)
    runs, groups, gap = 5, 7, 1
    buf, values = _stream(rng, w, runs, groups, gap, tail)
    out = np.zeros(len(values) + 3, dtype=np.uint64)
    unpack_spaced_runs_into(buf, gap, gap + groups * w, runs, groups, w, out)
    assert out[:len(values)].tolist() == values
    assert out[len(values):].tolist() == [0, 0, 0]      # nothing written past the runs


def test_many_runs_cross_the_block_size_into_int32() -> None:
    # more values than one fancy index takes at a time (the runs are decoded a block at a time)
    rng = np.random.default_rng(3)
    runs, groups, gap, w = 300, 63, 2, 15
    buf, values = _stream(rng, w, runs, groups, gap, 0)
    out = np.empty(len(values), dtype=np.int32)
    unpack_spaced_runs_into(np.frombuffer(buf, dtype=np.uint8), gap, gap + groups * w, runs, groups, w, out)
    assert out.tolist() == values


def test_a_buffer_short_of_the_last_body_is_refused() -> None:
    buf, _ = _stream(np.random.default_rng(1), 9, 3, 2, 1, 0)
    out = np.empty(48, dtype=np.int32)
    with pytest.raises(ParquetFormatError, match="need"):
        unpack_spaced_runs_into(buf[:-1], 1, 1 + 2 * 9, 3, 2, 9, out)


@pytest.mark.parametrize("w", [1, 6, 18, 25, 26, 40, 57, 63])
@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_plus_adds_one_number_per_run_wrapping_in_the_output_type(w: int, dtype: type) -> None:
    # DELTA_BINARY_PACKED adds each block's min delta to its values as they are stored;
    # the sums wrap modulo 2**32 or 2**64 like every delta of the column's width
    rng = np.random.default_rng(w)
    runs, groups, gap = 300, 4, 3           # more values than one fancy index takes at a time
    buf, values = _stream(rng, w, runs, groups, gap, 0)
    bits = np.dtype(dtype).itemsize * 8
    plus = rng.integers(0, 2**bits, runs, dtype=dtype)
    plus[:2] = 2**bits - 1                  # sums that wrap
    out = np.empty(len(values), dtype=dtype)
    unpack_spaced_runs_into(buf, gap, gap + groups * w, runs, groups, w, out, plus=plus)
    per = groups * 8
    want = [(v + int(plus[i // per])) % 2**bits for i, v in enumerate(values)]
    assert out.tolist() == want
