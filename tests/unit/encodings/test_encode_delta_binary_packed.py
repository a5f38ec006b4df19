"""DELTA_BINARY_PACKED encoder: byte-identical to pyarrow, exact round trips at the extremes."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from tests.unit.encodings.arrow_encoded import arrow_value_pages
from tests.unit.encodings.golden import uleb
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.constants import Encoding as E
from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings import encode_values
from parquet_core.encodings.delta_binary_packed import (
    decode_delta_binary_packed,
    encode_delta_binary_packed,
)

RNG = np.random.default_rng(23)


def zz(n: int) -> bytes:
    return uleb((n << 1) ^ (n >> 63) if n < 0 else n << 1)


def column(dtype: str, n: int) -> np.ndarray:
    info = np.iinfo(dtype)
    k = n // 5 + 1
    parts = [RNG.integers(info.min, info.max, k, dtype=dtype, endpoint=True),
             np.cumsum(RNG.integers(-50, 50, k)).astype(dtype),
             np.repeat(RNG.integers(-9, 9, k // 10 + 1), 10).astype(dtype)[:k],
             np.full(k, info.max, dtype=dtype),
             np.tile(np.array([info.min, info.max], dtype=dtype), k)[:k]]
    return np.concatenate(parts)[:n].astype(dtype)


@pytest.mark.parametrize("dtype,pt", [("int32", PT.INT32), ("int64", PT.INT64)])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 127, 128, 129, 255, 256, 257, 260, 1000, 40_000])
def test_matches_pyarrow(dtype: str, pt: PT, n: int) -> None:
    vals = column(dtype, n)
    assert vals.size == n
    pages = list(arrow_value_pages(pa.array(vals), vals, "DELTA_BINARY_PACKED"))
    assert len(pages) >= (n > 0)      # pyarrow writes no data page for an empty chunk
    for ours, theirs in pages:
        assert encode_values(E.DELTA_BINARY_PACKED, ours, pt) == theirs


def test_spec_examples() -> None:
    # Encodings.md examples 1 and 2 (block size 8, one miniblock)
    ex1 = encode_delta_binary_packed(np.array([1, 2, 3, 4, 5]), np.int64, block_size=8,
                                     miniblocks=1)
    assert ex1 == uleb(8) + uleb(1) + uleb(5) + zz(1) + zz(1) + bytes([0])
    ex2 = encode_delta_binary_packed(np.array([7, 5, 3, 1, 2, 3, 4, 5]), np.int64,
                                     block_size=8, miniblocks=1)
    # relative deltas 0 0 0 3 3 3 3 (+1 padding value 0) at 2 bits, LSB first
    assert ex2 == uleb(8) + uleb(1) + uleb(8) + zz(7) + zz(-2) + bytes([2]) + \
        bytes([0b11000000, 0b00111111])


def test_last_block_unused_miniblocks_have_width_zero_and_no_bytes() -> None:
    vals = np.arange(10, dtype=np.int64) * 1000 + np.arange(10) % 3
    enc = encode_delta_binary_packed(vals, np.int64)
    header = uleb(128) + uleb(4) + uleb(10) + zz(0)
    assert enc.startswith(header)
    rest = enc[len(header):]
    min_delta = zz(int(np.diff(vals).min()))
    assert rest.startswith(min_delta)
    widths = rest[len(min_delta):len(min_delta) + 4]
    assert widths[1:] == bytes(3) and widths[0] > 0
    assert len(rest) == len(min_delta) + 4 + 32 * widths[0] // 8   # miniblock 0 padded to 32


def test_int32_wraps_in_32_bits() -> None:
    info = np.iinfo(np.int32)
    vals = np.array([info.max, info.min, info.max, 0, -1, info.min, info.min], dtype=np.int32)
    enc = encode_delta_binary_packed(vals, np.int32)
    wrapped = (np.diff(vals.astype(np.int64)) + 2**31) % 2**32 - 2**31   # deltas mod 2**32
    at = len(uleb(128) + uleb(4) + uleb(7) + zz(int(vals[0])) + zz(int(wrapped.min())))
    assert max(enc[at:at + 4]) <= 32     # widths never exceed the physical width
    np.testing.assert_array_equal(decode_delta_binary_packed(enc, 0, np.int32)[0], vals)


def test_int64_extremes_need_64_bits() -> None:
    info = np.iinfo(np.int64)
    vals = np.array([info.min, info.max] * 20, dtype=np.int64)
    enc = encode_delta_binary_packed(vals, np.int64)
    np.testing.assert_array_equal(decode_delta_binary_packed(enc, 0, np.int64)[0], vals)


def test_bad_layouts_are_rejected() -> None:
    for block, mini in [(0, 1), (128, 0), (128, 3), (12, 3), (100, 4)]:
        with pytest.raises(ValueError):
            encode_delta_binary_packed(np.arange(3), np.int64, block_size=block, miniblocks=mini)
    with pytest.raises(ValueError):
        encode_delta_binary_packed(np.arange(3), np.int16)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(
    dtype=st.sampled_from([np.int32, np.int64]),
    config=st.sampled_from([(128, 4), (256, 4), (128, 1), (8, 1), (64, 8), (256, 8)]),
    n=st.integers(0, 1100),
    style=st.sampled_from(["full", "small", "walk", "const", "sorted"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_round_trip(dtype: type, config: tuple[int, int], n: int, style: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    if style == "full":
        vals = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    elif style == "small":
        vals = rng.integers(-3, 4, n).astype(dtype)
    elif style == "walk":
        vals = np.cumsum(rng.integers(-1000, 1000, n)).astype(dtype)
    elif style == "const":
        vals = np.full(n, info.min, dtype=dtype)
    else:
        vals = np.sort(rng.integers(info.min, info.max, n, dtype=dtype))
    enc = encode_delta_binary_packed(vals, dtype, block_size=config[0], miniblocks=config[1])
    got, end = decode_delta_binary_packed(enc, 0, dtype)
    assert end == len(enc)
    np.testing.assert_array_equal(got, vals)
