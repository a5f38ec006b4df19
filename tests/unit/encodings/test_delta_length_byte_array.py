"""DELTA_LENGTH_BYTE_ARRAY."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parquet_core.encodings.delta_binary_packed import encode_delta_binary_packed
from parquet_core.encodings.delta_length_byte_array import (
    decode_delta_length_byte_array,
    encode_delta_length_byte_array,
)
from parquet_core.errors import ParquetFormatError


def test_spec_example() -> None:
    values = [b"Hello", b"World", b"Foobar", b"ABCDEF"]
    buf = encode_delta_binary_packed(np.array([5, 5, 6, 6]), np.int32) + b"HelloWorldFoobarABCDEF"
    assert encode_delta_length_byte_array(values) == buf
    out = decode_delta_length_byte_array(buf, 4)
    assert out.to_pylist() == values
    assert out.offsets.tolist() == [0, 5, 10, 16, 22]


def test_data_is_zero_copy() -> None:
    buf = np.frombuffer(encode_delta_length_byte_array([b"abc", b"", b"de"]), dtype=np.uint8)
    out = decode_delta_length_byte_array(buf, 3)
    assert np.shares_memory(out.data, buf)
    assert out.to_pylist() == [b"abc", b"", b"de"]


def test_empty() -> None:
    assert len(decode_delta_length_byte_array(b"", 0)) == 0
    assert decode_delta_length_byte_array(encode_delta_length_byte_array([b""] * 3), 3).to_pylist() \
        == [b""] * 3


@given(st.lists(st.binary(max_size=40), max_size=300))
def test_round_trip(values: list[bytes]) -> None:
    buf = encode_delta_length_byte_array(values) + b"trailing"
    assert decode_delta_length_byte_array(buf, len(values)).to_pylist() == values


def test_malformed() -> None:
    good = encode_delta_length_byte_array([b"ab", b"cde"])
    with pytest.raises(ParquetFormatError):
        decode_delta_length_byte_array(good[:-1], 2)          # data truncated
    with pytest.raises(ParquetFormatError):
        decode_delta_length_byte_array(good, 3)               # count mismatch
    with pytest.raises(ParquetFormatError):
        decode_delta_length_byte_array(good, 1)
    negative = encode_delta_binary_packed(np.array([3, -1]), np.int32) + b"abcd"
    with pytest.raises(ParquetFormatError):
        decode_delta_length_byte_array(negative, 2)
    with pytest.raises(ParquetFormatError):
        decode_delta_length_byte_array(b"", -1)
    with pytest.raises(ParquetFormatError):
        decode_delta_length_byte_array(b"", 2)
