"""The DELTA_BINARY_PACKED stream header read in one loop when the page has 40 bytes or
more after it (issue 32: a page's fixed cost); the same values and the same refusals
as reading each varint on its own.  Headers are written here byte by byte from the
spec (``<block size> <miniblocks> <count> <zigzag first value>``, ULEB128 each)."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core.encodings.delta_binary_packed import decode_delta_binary_packed
from parquet_core.errors import ParquetFormatError
from tests.unit.encodings.golden import uleb as _uleb


@pytest.mark.parametrize("tail", [0, 64])
@pytest.mark.parametrize("first", [0, -1, 2**63 - 1, -(2**63)])
def test_one_value_streams_give_their_first_value(tail: int, first: int) -> None:
    # total 1: no blocks; the first value's zigzag varint is up to 10 bytes
    zz = (first << 1) ^ (first >> 63)
    raw = _uleb(128) + _uleb(4) + _uleb(1) + _uleb(zz & (2**64 - 1))
    values, end = decode_delta_binary_packed(raw + bytes(tail), 0, np.int64)
    assert values.tolist() == [first] and end == len(raw)


@pytest.mark.parametrize("tail", [0, 64])
def test_padded_varints_are_read_as_their_value(tail: int) -> None:
    # a count of 1 written in 3 bytes (0x81 0x80 0x00) is still 1
    raw = _uleb(128) + _uleb(4) + bytes([0x81, 0x80, 0x00]) + _uleb(14)
    values, end = decode_delta_binary_packed(raw + bytes(tail), 0, np.int64)
    assert values.tolist() == [7] and end == len(raw)


@pytest.mark.parametrize("tail", [0, 64])
def test_too_long_and_too_large_varints_are_refused(tail: int) -> None:
    eleven = bytes([0x80] * 10 + [0x00])
    with pytest.raises(ParquetFormatError, match="longer than 10 bytes"):
        decode_delta_binary_packed(_uleb(128) + _uleb(4) + _uleb(1) + eleven + bytes(tail), 0, np.int64)
    over = bytes([0xFF] * 9 + [0x02])        # 65 bits
    with pytest.raises(ParquetFormatError, match="does not fit in 64 bits"):
        decode_delta_binary_packed(_uleb(128) + over + _uleb(1) + _uleb(0) + bytes(tail), 0, np.int64)


@pytest.mark.parametrize("tail", [0, 64])
def test_header_fields_are_checked(tail: int) -> None:
    with pytest.raises(ParquetFormatError, match="not a positive multiple"):
        decode_delta_binary_packed(_uleb(128) + _uleb(3) + _uleb(5) + _uleb(0) + bytes(tail), 0, np.int64)
    with pytest.raises(ParquetFormatError, match="at most 4 expected"):
        decode_delta_binary_packed(_uleb(128) + _uleb(4) + _uleb(5) + _uleb(0) + bytes(tail), 0, np.int64,
                                   max_count=4)
