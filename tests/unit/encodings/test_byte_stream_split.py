"""BYTE_STREAM_SPLIT."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings.byte_stream_split import (
    decode_byte_stream_split,
    encode_byte_stream_split,
)
from parquet_core.errors import ParquetFormatError


def test_spec_example() -> None:
    encoded = bytes.fromhex("AA00A3BB11B4CC22C5DD33D6")
    out = decode_byte_stream_split(encoded, 3, PT.FLOAT)
    assert out.dtype == np.dtype("<f4")
    assert out.view(np.uint8).tobytes() == bytes.fromhex("AABBCCDD00112233A3B4C5D6")


@pytest.mark.parametrize("pt,dtype", [(PT.INT32, "<i4"), (PT.INT64, "<i8"), (PT.FLOAT, "<f4"),
                                      (PT.DOUBLE, "<f8")])
def test_numeric_round_trip(pt: int, dtype: str) -> None:
    vals = (np.random.default_rng(0).standard_normal(1001) * 1e6).astype(dtype)
    out = decode_byte_stream_split(encode_byte_stream_split(vals, pt), vals.size, pt)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, vals)


@given(width=st.integers(1, 17), rows=st.integers(0, 60), seed=st.integers(0, 1000))
def test_fixed_len_round_trip(width: int, rows: int, seed: int) -> None:
    # includes FLOAT16 (width 2) and decimal widths
    vals = np.random.default_rng(seed).integers(0, 256, (rows, width), dtype=np.uint8)
    out = decode_byte_stream_split(encode_byte_stream_split(vals, PT.FIXED_LEN_BYTE_ARRAY, width),
                                   rows, PT.FIXED_LEN_BYTE_ARRAY, width)
    assert out.shape == (rows, width)
    np.testing.assert_array_equal(out, vals)


def test_float16() -> None:
    halfs = np.array([1.0, -2.5, np.inf, 0.0], dtype="<f2")
    enc = encode_byte_stream_split(halfs.view(np.uint8).reshape(4, 2), PT.FIXED_LEN_BYTE_ARRAY, 2)
    out = decode_byte_stream_split(enc, 4, PT.FIXED_LEN_BYTE_ARRAY, 2)
    np.testing.assert_array_equal(out.reshape(-1).view("<f2"), halfs)


def test_more_streams_than_values_uses_buffer_stride() -> None:
    vals = np.arange(6, dtype="<i4")
    out = decode_byte_stream_split(encode_byte_stream_split(vals, PT.INT32), 4, PT.INT32)
    assert out.tolist() == [0, 1, 2, 3]


def test_zero_width_and_empty() -> None:
    assert decode_byte_stream_split(b"", 3, PT.FIXED_LEN_BYTE_ARRAY, 0).shape == (3, 0)
    assert decode_byte_stream_split(b"", 0, PT.DOUBLE).size == 0


@pytest.mark.parametrize("buf,count,pt,width", [
    (bytes(7), 1, PT.DOUBLE, None),                 # not a multiple of 8
    (bytes(8), 3, PT.INT32, None),                  # too few values
    (bytes(8), 1, PT.FIXED_LEN_BYTE_ARRAY, None),   # no type length
    (bytes(8), 1, PT.BYTE_ARRAY, None),             # unsupported type
    (bytes(8), -1, PT.INT32, None),
])
def test_malformed(buf: bytes, count: int, pt: int, width: int | None) -> None:
    with pytest.raises(ParquetFormatError):
        decode_byte_stream_split(buf, count, pt, width)
