"""ULEB128 and zigzag scalar readers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parquet_core._kernels.varint import (
    read_uleb128,
    read_zigzag,
    write_uleb128,
    zigzag_decode,
    zigzag_encode,
)
from parquet_core.errors import ParquetFormatError

KNOWN = [
    (0, b"\x00"),
    (1, b"\x01"),
    (127, b"\x7f"),
    (128, b"\x80\x01"),
    (300, b"\xac\x02"),
    (16384, b"\x80\x80\x01"),
    (2**63, b"\x80" * 9 + b"\x01"),
    (2**64 - 1, b"\xff" * 9 + b"\x01"),
]


@pytest.mark.parametrize("value,encoded", KNOWN)
def test_known_vectors(value: int, encoded: bytes) -> None:
    assert read_uleb128(encoded, 0) == (value, len(encoded))
    assert write_uleb128(value) == encoded


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_buffer_types_and_offset(kind: type) -> None:
    buf = kind(b"\xff\xac\x02\x05")
    assert read_uleb128(buf, 1) == (300, 3)
    assert read_uleb128(buf, 3) == (5, 4)


def test_numpy_input() -> None:
    arr = np.frombuffer(b"\x00\xac\x02", dtype=np.uint8)
    value, pos = read_uleb128(arr, 1)
    assert (value, pos) == (300, 3) and type(value) is int


def test_redundant_continuation_is_accepted() -> None:
    assert read_uleb128(b"\x80\x00", 0) == (0, 2)


@pytest.mark.parametrize("buf,pos", [
    (b"", 0),                     # nothing to read
    (b"\x80", 0),                 # ends inside the varint
    (b"\xff\xff", 0),
    (b"\x01", 1),                 # position at the end
    (b"\x80" * 10 + b"\x01", 0),  # 11 bytes: overlong
    (b"\xff" * 9 + b"\x02", 0),   # 10th byte sets bit 64
    (b"\x01", -1),                # negative position
])
def test_malformed(buf: bytes, pos: int) -> None:
    with pytest.raises(ParquetFormatError):
        read_uleb128(buf, pos)


@given(st.integers(0, 2**64 - 1), st.binary(max_size=5))
def test_round_trip(value: int, prefix: bytes) -> None:
    enc = write_uleb128(value)
    assert read_uleb128(prefix + enc + b"\x99", len(prefix)) == (value, len(prefix) + len(enc))


def test_zigzag_known() -> None:
    pairs = [(0, 0), (-1, 1), (1, 2), (-2, 3), (2, 4), (2**63 - 1, 2**64 - 2), (-(2**63), 2**64 - 1)]
    for signed, unsigned in pairs:
        assert zigzag_encode(signed) == unsigned
        assert zigzag_decode(unsigned) == signed


@given(st.integers(-(2**63), 2**63 - 1))
def test_zigzag_round_trip(n: int) -> None:
    enc = write_uleb128(zigzag_encode(n))
    assert read_zigzag(enc, 0) == (n, len(enc))


def test_write_rejects_out_of_range() -> None:
    with pytest.raises(ValueError):
        write_uleb128(-1)
    with pytest.raises(ValueError):
        write_uleb128(2**64)
