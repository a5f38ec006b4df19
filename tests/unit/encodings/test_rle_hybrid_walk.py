"""The run-size walk of the RLE/bit-packing hybrid scan (``rle_hybrid._walk_rest``, issue 32):
streams of runs every 20-60 values, built here run by run from the spec's grammar, so the
expected values are the generated ones; errors must match the run-by-run loop's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from parquet_core.encodings import rle_hybrid
from parquet_core.encodings.rle_hybrid import decode_dictionary_indices, decode_rle_hybrid
from parquet_core.errors import ParquetFormatError
from tests.unit.encodings.golden import pack_lsb, uleb


def _stream(rng: np.random.Generator, w: int, runs: int, long_every: int = 0) -> tuple[bytearray, list[int]]:
    """Alternating RLE runs (8-40 values; every *long_every*-th one 64+ values: a two-byte
    header) and bit-packed runs (1-8 groups), plus zero-length runs now and then."""
    top = (1 << w) - 1
    buf = bytearray()
    values: list[int] = []
    for r in range(runs):
        if r % 17 == 5:
            buf += uleb(0) + bytes((w + 7) // 8)       # an empty RLE run
            buf += uleb(1)                               # an empty bit-packed run
        n = int(rng.integers(64, 300)) if long_every and r % long_every == long_every - 1 \
            else int(rng.integers(8, 41))
        v = int(rng.integers(0, top + 1))
        buf += uleb(n << 1) + v.to_bytes((w + 7) // 8, "little")
        values += [v] * n
        groups = int(rng.integers(1, 9))
        vals = rng.integers(0, top + 1, groups * 8).tolist()
        buf += uleb((groups << 1) | 1) + pack_lsb(vals, w)
        values += vals
    return buf, values


def _loop_only(buf: bytes, w: int, count: int):  # type: ignore[no-untyped-def]
    saved = rle_hybrid._PROBE_RUNS
    rle_hybrid._PROBE_RUNS = 10**9          # the run-by-run loop alone
    try:
        return decode_rle_hybrid(buf, w, count)
    finally:
        rle_hybrid._PROBE_RUNS = saved


@pytest.mark.parametrize("w", [1, 2, 3, 5, 8, 9, 12, 16, 17, 24, 31])
@pytest.mark.parametrize("long_every", [0, 7])
def test_walk_gives_the_generated_values(w, long_every) -> None:
    rng = np.random.default_rng(w * 10 + long_every)
    buf, values = _stream(rng, w, 400, long_every)
    buf += b"\x07\xff\x03"                             # bytes after the runs are not values
    for count in (len(values), len(values) - 3, len(values) // 2, 40 * 33):
        got = decode_rle_hybrid(bytes(buf), w, count)
        assert got.tolist() == values[:count]
        _, end = rle_hybrid.decode_hybrid(np.frombuffer(bytes(buf), np.uint8), w, count)
        _, loop_end = _loop_only_end(bytes(buf), w, count)
        assert end == loop_end


def _loop_only_end(buf: bytes, w: int, count: int):  # type: ignore[no-untyped-def]
    saved = rle_hybrid._PROBE_RUNS
    rle_hybrid._PROBE_RUNS = 10**9
    try:
        return rle_hybrid.decode_hybrid(np.frombuffer(buf, np.uint8), w, count)
    finally:
        rle_hybrid._PROBE_RUNS = saved


def test_walk_through_dictionary_indices_with_a_cut_short_last_body() -> None:
    rng = np.random.default_rng(3)
    w = 9
    buf, values = _stream(rng, w, 300)
    vals = rng.integers(0, 512, 16).tolist()
    body = pack_lsb(vals, w)
    buf += uleb((2 << 1) | 1) + body[:(11 * w + 7) // 8]   # only the bytes of the 11 values used
    values += vals[:11]
    got = decode_dictionary_indices(bytes([w]) + bytes(buf), len(values))
    assert got.tolist() == values


def _same_error(buf: bytes, w: int, count: int) -> None:
    with pytest.raises(ParquetFormatError) as fast:
        decode_rle_hybrid(buf, w, count)
    with pytest.raises(ParquetFormatError) as loop:
        _loop_only(buf, w, count)
    assert str(fast.value) == str(loop.value)


def test_walk_refuses_what_the_loop_refuses() -> None:
    rng = np.random.default_rng(11)
    w = 5
    buf, values = _stream(rng, w, 300)
    # an RLE value too wide for 5 bits, deep in the stream
    bad = bytearray(buf)
    tail, _ = _stream(rng, w, 200)
    bad += uleb(10 << 1) + bytes([0x20]) + tail
    _same_error(bytes(bad), w, len(values) + 10 + 50)
    # data ending inside a bit-packed body, and before enough values
    _same_error(bytes(buf[:-3]), w, len(values))
    _same_error(bytes(buf), w, len(values) + 1)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), w=st.integers(1, 32), runs=st.integers(40, 400),
       cut=st.integers(0, 40), long_every=st.sampled_from([0, 3, 11]))
def test_walk_equals_the_loop(seed, w, runs, cut, long_every) -> None:
    rng = np.random.default_rng(seed)
    buf, values = _stream(rng, w, runs, long_every)
    data = bytes(buf[:len(buf) - cut])
    count = len(values)
    try:
        want = _loop_only_end(data, w, count)
    except ParquetFormatError:
        # (the words may differ where the dense vectorised scan ran instead: narrow widths)
        with pytest.raises(ParquetFormatError):
            rle_hybrid.decode_hybrid(np.frombuffer(data, np.uint8), w, count)
        return
    got = rle_hybrid.decode_hybrid(np.frombuffer(data, np.uint8), w, count)
    assert got[0].tolist() == want[0].tolist() == values
    assert got[1] == want[1]
