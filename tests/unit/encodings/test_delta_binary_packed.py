"""DELTA_BINARY_PACKED: spec examples, wrap-around, miniblock padding, malformed input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.encodings.delta_binary_packed import (
    decode_delta_binary_packed,
    encode_delta_binary_packed,
)
from parquet_core.errors import ParquetFormatError
from tests._support.delta_reference import ref_decode
from tests.unit.encodings.golden import uleb


def zz(n: int) -> bytes:
    return uleb((n << 1) ^ (n >> 63) if n < 0 else n << 1)




def header(block: int = 128, mini: int = 4, total: int = 100, first: int = 0) -> bytes:
    return uleb(block) + uleb(mini) + uleb(total) + zz(first)


# -- spec examples (block size 8: invalid for writers, accepted by readers) -----------

def test_spec_example_1() -> None:
    buf = bytes([8, 1, 5, 2, 2, 0])  # header 8,1,5,first=1; block min=1, width 0
    values, end = decode_delta_binary_packed(buf, 0, np.int64)
    assert values.tolist() == [1, 2, 3, 4, 5] and end == len(buf)


def test_spec_example_2() -> None:
    # 7 5 3 1 2 3 4 5: min delta -2, width 2, packed 0 0 0 3 3 3 3 (+ padding)
    buf = bytes([8, 1, 8, 14, 3, 2, 0xC0, 0x3F])
    values, end = decode_delta_binary_packed(buf, 0, np.int32)
    assert values.tolist() == [7, 5, 3, 1, 2, 3, 4, 5] and end == len(buf)
    assert values.dtype == np.int32


def test_spec_example_2_with_garbage_padding() -> None:
    buf = bytes([8, 1, 8, 14, 3, 2, 0xC0, 0xFF])  # padding bits may be arbitrary
    assert decode_delta_binary_packed(buf, 0, np.int32)[0].tolist() == [7, 5, 3, 1, 2, 3, 4, 5]


# -- counts 0 and 1, embedding -------------------------------------------------------------

def test_zero_and_one_value_have_no_blocks() -> None:
    values, end = decode_delta_binary_packed(uleb(128) + uleb(4) + uleb(0) + zz(0), 0, np.int64)
    assert values.size == 0 and end == 5  # uleb(128) takes two bytes
    buf = b"xx" + uleb(128) + uleb(4) + uleb(1) + zz(-77) + b"tail"
    values, end = decode_delta_binary_packed(buf, 2, np.int64)
    assert values.tolist() == [-77] and buf[end:] == b"tail"


def test_end_position_inside_larger_buffer() -> None:
    vals = np.arange(1000, dtype=np.int64) ** 2
    enc = encode_delta_binary_packed(vals)
    buf = b"\x01\x02\x03" + enc + b"rest"
    got, end = decode_delta_binary_packed(buf, 3, np.int64)
    np.testing.assert_array_equal(got, vals)
    assert buf[end:] == b"rest"


# -- wrap-around and extreme widths -----------------------------------------------------

def test_int32_wraps_modulo_2_32() -> None:
    vals = np.array([2**31 - 1, -(2**31), 2**31 - 1, 0, -1, -(2**31)], dtype=np.int32)
    enc = encode_delta_binary_packed(vals, np.int32)
    np.testing.assert_array_equal(decode_delta_binary_packed(enc, 0, np.int32)[0], vals)


def test_int32_min_delta_outside_int32_range() -> None:
    # a writer computing deltas in 64 bits: min delta 2**32 + 1 acts as +1 mod 2**32
    buf = uleb(8) + uleb(1) + uleb(3) + zz(5) + zz(2**32 + 1) + bytes([0])
    assert decode_delta_binary_packed(buf, 0, np.int32)[0].tolist() == [5, 6, 7]


def test_int64_full_range_width_64() -> None:
    info = np.iinfo(np.int64)
    vals = np.array([info.min, info.max, info.min, 0, info.max, -1], dtype=np.int64)
    enc = encode_delta_binary_packed(vals, np.int64, block_size=32, miniblocks=1)
    assert 64 in enc  # a miniblock width byte of 64
    np.testing.assert_array_equal(decode_delta_binary_packed(enc, 0, np.int64)[0], vals)


def test_int32_width_32() -> None:
    # alternating extremes would wrap to deltas of +-1; random full-range
    # values give deltas spanning the whole int32 range
    vals = np.random.default_rng(1).integers(-(2**31), 2**31, 200, dtype=np.int64).astype(np.int32)
    enc = encode_delta_binary_packed(vals, np.int32)
    assert 32 in enc
    np.testing.assert_array_equal(decode_delta_binary_packed(enc, 0, np.int32)[0], vals)


# -- miniblock padding --------------------------------------------------------------------

def test_unused_miniblocks_may_have_garbage_widths_and_no_bytes() -> None:
    # 10 values -> 9 deltas, all in miniblock 0 of 4 (32 values each); the
    # other three widths are garbage and their bodies are absent
    body = bytes(12)  # miniblock 0: width 3, 32 values -> 12 bytes of zero deltas
    buf = header(128, 4, 10, first=100) + zz(-1) + bytes([3, 250, 99, 255]) + body
    values, end = decode_delta_binary_packed(buf + b"next", 0, np.int64)
    assert values.tolist() == list(range(100, 90, -1))
    assert end == len(buf)


def test_last_miniblock_may_lack_its_padding_bytes() -> None:
    # deltas alternate in {4, -1}: min delta -1, relative deltas {5, 0}: width 3
    vals = np.arange(40, dtype=np.int64) * 3 + np.arange(40) % 5
    enc = encode_delta_binary_packed(vals, np.int64, block_size=128, miniblocks=4)
    assert decode_delta_binary_packed(enc, 0, np.int64)[1] == len(enc)
    # 39 deltas: 32 in miniblock 0, 7 in miniblock 1 (12 bytes, 3 needed)
    trimmed = enc[:-9]
    got, end = decode_delta_binary_packed(trimmed, 0, np.int64)
    np.testing.assert_array_equal(got, vals)
    assert end == len(trimmed)
    with pytest.raises(ParquetFormatError):
        decode_delta_binary_packed(enc[:-10], 0, np.int64)


def test_many_blocks_mixed_widths() -> None:
    rng = np.random.default_rng(5)
    parts = [rng.integers(0, 2, 300), rng.integers(-(2**40), 2**40, 300), np.zeros(300, np.int64),
             rng.integers(-(2**62), 2**62, 300), np.full(300, 7)]
    vals = np.cumsum(np.concatenate(parts)).astype(np.int64)
    enc = encode_delta_binary_packed(vals)
    got, end = decode_delta_binary_packed(enc, 0, np.int64)
    np.testing.assert_array_equal(got, vals)
    assert end == len(enc)
    assert got.tolist() == ref_decode(enc, 64)[0]


@settings(max_examples=120, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from([np.int32, np.int64]),
    config=st.sampled_from([(128, 4), (128, 1), (256, 8), (8, 1), (32, 2), (64, 8)]),
    n=st.integers(0, 700),
)
def test_round_trip(data: st.DataObject, dtype: type, config: tuple[int, int], n: int) -> None:
    info = np.iinfo(dtype)
    style = data.draw(st.sampled_from(["full", "small", "walk"]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    if style == "full":
        vals = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    elif style == "small":
        vals = rng.integers(-3, 4, n).astype(dtype)
    else:
        vals = np.cumsum(rng.integers(-1000, 1000, n)).astype(dtype)
    block, mini = config
    enc = encode_delta_binary_packed(vals, dtype, block_size=block, miniblocks=mini)
    got, end = decode_delta_binary_packed(enc, 0, dtype)
    assert got.dtype == dtype and end == len(enc)
    np.testing.assert_array_equal(got, vals)
    ref, ref_end = ref_decode(enc, 32 if dtype == np.int32 else 64)
    assert got.tolist() == ref and ref_end == end


# -- malformed ---------------------------------------------------------------------------

@pytest.mark.parametrize("buf,dtype", [
    (b"", np.int64),                                            # no header
    (uleb(128) + uleb(4), np.int64),                            # truncated header
    (header(block=0), np.int64),                                # zero block size
    (header(mini=0), np.int64),                                 # zero miniblocks
    (header(block=128, mini=3), np.int64),                      # not a divisor
    (header(block=12, mini=3, total=2), np.int64),              # 4 values per miniblock
    (header(total=2**31), np.int64),                            # absurd count
    (header(total=10**6), np.int64),                            # count with no blocks behind it
    (header(total=5) + zz(0), np.int64),                        # widths missing
    (header(total=5) + zz(0) + bytes([65, 0, 0, 0]) + bytes(260), np.int32),  # width > 64
    (header(total=5) + zz(0) + bytes([65, 0, 0, 0]) + bytes(260), np.int64),  # width > 64
    (header(total=5) + zz(0) + bytes([8, 0, 0, 0]) + bytes(3), np.int64),     # body truncated
    (header(total=300) + zz(0) + bytes([1, 1, 1, 1]) + bytes(16), np.int64),  # block truncated
    (header(total=300) + zz(0) + bytes([70, 1, 1, 1]) + bytes(4000), np.int64),  # full block width
])
def test_malformed(buf: bytes, dtype: type) -> None:
    with pytest.raises(ParquetFormatError):
        decode_delta_binary_packed(buf, 0, dtype)


def test_max_count_guard() -> None:
    enc = encode_delta_binary_packed(np.arange(50))
    with pytest.raises(ParquetFormatError):
        decode_delta_binary_packed(enc, 0, np.int64, max_count=49)
    assert decode_delta_binary_packed(enc, 0, np.int64, max_count=50)[0].size == 50


def test_bad_position_and_dtype() -> None:
    with pytest.raises(ParquetFormatError):
        decode_delta_binary_packed(b"\x00", 5, np.int64)
    with pytest.raises(ValueError):
        decode_delta_binary_packed(b"\x00", 0, np.float64)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=80), dtype=st.sampled_from([np.int32, np.int64]))
def test_garbage_never_leaks_other_errors(data: bytes, dtype: type) -> None:
    try:
        values, end = decode_delta_binary_packed(data, 0, dtype, max_count=10_000)
    except ParquetFormatError:
        return
    assert end <= len(data) and values.dtype == dtype


def test_int32_widths_above_32_wrap() -> None:
    """Some writers compute INT32 deltas in 64 bits (widths up to 33): read leniently, wrapped."""
    from parquet_core.encodings.delta_binary_packed import encode_delta_binary_packed

    values = np.array([-2**31, 2**31 - 1, -2**31, 0, 2**31 - 1] * 30, dtype=np.int32)
    wide = encode_delta_binary_packed(values.astype(np.int64), np.int64)
    got, _ = decode_delta_binary_packed(wide, 0, np.int32)
    np.testing.assert_array_equal(got, values)
