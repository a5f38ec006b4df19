"""Deprecated BIT_PACKED (MSB-first) levels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parquet_core.encodings.bit_packed import decode_bit_packed, encode_bit_packed
from parquet_core.errors import ParquetFormatError


def ref_pack(values: list[int], width: int) -> bytes:
    """Reference MSB-first packer: a bit string, padded with zeros to whole bytes."""
    bits = "".join(format(v, f"0{width}b") for v in values) if width else ""
    bits += "0" * (-len(bits) % 8)
    return int(bits, 2).to_bytes(len(bits) // 8, "big") if bits else b""


def test_spec_example() -> None:
    levels, used = decode_bit_packed(bytes([0x05, 0x39, 0x77]), 3, 8)
    assert levels.tolist() == list(range(8)) and used == 3
    assert levels.dtype == np.int32


def test_spec_size_example() -> None:
    # 30 values of 2 bits take 8 bytes (the last 4 bits are padding)
    values = [i % 4 for i in range(30)]
    buf = ref_pack(values, 2) + b"\xff\xff"
    levels, used = decode_bit_packed(buf, 2, 30)
    assert used == 8 and levels.tolist() == values


def test_width_zero_and_empty() -> None:
    levels, used = decode_bit_packed(b"", 0, 4)
    assert levels.tolist() == [0] * 4 and used == 0
    levels, used = decode_bit_packed(b"", 5, 0)
    assert levels.size == 0 and used == 0


@given(st.integers(0, 16).flatmap(
    lambda w: st.tuples(st.just(w), st.lists(st.integers(0, (1 << w) - 1), max_size=200))))
def test_round_trip(case: tuple[int, list[int]]) -> None:
    width, values = case
    buf = ref_pack(values, width)
    assert encode_bit_packed(np.asarray(values, dtype=np.uint64), width) == buf
    levels, used = decode_bit_packed(buf + b"\x00", width, len(values))
    assert levels.tolist() == values and used == len(buf)


@pytest.mark.parametrize("buf,width,count", [
    (b"\x05\x39", 3, 8),   # one byte short
    (b"", 1, 1),
    (b"\x00" * 8, 33, 1),  # width above 32
    (b"\x00", 1, -1),
])
def test_malformed(buf: bytes, width: int, count: int) -> None:
    with pytest.raises(ParquetFormatError):
        decode_bit_packed(buf, width, count)
