"""Bit unpacking kernels against the spec's examples and a big-integer reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.bitpack import (
    as_uint8,
    pack_bits,
    pack_bits_msb,
    packed_size,
    unpack_bits,
    unpack_bits_msb,
)
from parquet_core.errors import ParquetFormatError


def ref_unpack_lsb(buf: bytes, width: int, count: int) -> list[int]:
    """Reference: the whole buffer as one little-endian integer, value i at bit i*width."""
    big = int.from_bytes(buf, "little")
    mask = (1 << width) - 1
    return [(big >> (i * width)) & mask for i in range(count)]


def ref_unpack_msb(buf: bytes, width: int, count: int) -> list[int]:
    """Reference: the buffer as one big-endian integer, value i from the top."""
    big = int.from_bytes(buf, "big")
    nbits = len(buf) * 8
    mask = (1 << width) - 1
    return [(big >> (nbits - (i + 1) * width)) & mask for i in range(count)]


def random_values(rng: np.random.Generator, width: int, n: int) -> np.ndarray:
    if width == 0:
        return np.zeros(n, dtype=np.uint64)
    hi = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    lo = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    v = (hi << np.uint64(32)) | lo
    if width < 64:
        v &= np.uint64((1 << width) - 1)
    return v


# -- spec examples ---------------------------------------------------------------------

def test_spec_lsb_example() -> None:
    # Encodings.md, RLE/bit-packing hybrid note 1: 0..7 at width 3
    assert unpack_bits(bytes([0x88, 0xC6, 0xFA]), 3, 8).tolist() == list(range(8))
    assert pack_bits(np.arange(8), 3).tobytes() == bytes([0x88, 0xC6, 0xFA])


def test_spec_msb_example() -> None:
    # Encodings.md, deprecated bit-packed: 0..7 at width 3
    assert unpack_bits_msb(bytes([0x05, 0x39, 0x77]), 3, 8).tolist() == list(range(8))
    assert pack_bits_msb(np.arange(8), 3).tobytes() == bytes([0x05, 0x39, 0x77])


# -- every width, both orders ----------------------------------------------------------

@pytest.mark.parametrize("width", range(65))
def test_all_widths_round_trip(width: int) -> None:
    rng = np.random.default_rng(width)
    for n in (1, 7, 8, 9, 31, 100, 4099):
        values = random_values(rng, width, n)
        packed = pack_bits(values, width)
        assert packed.size == packed_size(n, width)
        raw = packed.tobytes()
        got = unpack_bits(raw, width, n)
        assert got.dtype == (np.uint32 if width <= 32 else np.uint64)
        np.testing.assert_array_equal(got, values)
        if n <= 100:
            assert got.tolist() == ref_unpack_lsb(raw, width, n)
        packed_msb = pack_bits_msb(values, width).tobytes()
        got_msb = unpack_bits_msb(packed_msb, width, n)
        np.testing.assert_array_equal(got_msb, values)
        if n <= 100:
            assert got_msb.tolist() == ref_unpack_msb(packed_msb, width, n)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(min_size=0, max_size=300), width=st.integers(0, 64), count=st.integers(0, 300))
def test_arbitrary_bytes_match_reference(data: bytes, width: int, count: int) -> None:
    need = (count * width + 7) // 8
    if need > len(data):
        with pytest.raises(ParquetFormatError):
            unpack_bits(data, width, count)
        with pytest.raises(ParquetFormatError):
            unpack_bits_msb(data, width, count)
        return
    assert unpack_bits(data, width, count).tolist() == ref_unpack_lsb(data[:need], width, count)
    assert unpack_bits_msb(data, width, count).tolist() == ref_unpack_msb(data[:need], width, count)


def test_large_exact_buffer_is_not_over_read() -> None:
    # many groups (direct strided path) and a buffer with no slack at all
    rng = np.random.default_rng(7)
    for width in (3, 13, 25, 26, 33, 57, 61, 63):
        n = 100_003
        values = random_values(rng, width, n)
        raw = pack_bits(values, width).tobytes()
        assert len(raw) == packed_size(n, width)
        np.testing.assert_array_equal(unpack_bits(raw, width, n), values)
        np.testing.assert_array_equal(
            unpack_bits_msb(pack_bits_msb(values, width).tobytes(), width, n), values)


def test_only_a_prefix_is_read() -> None:
    raw = pack_bits(np.arange(20) % 8, 3).tobytes() + b"\xff" * 10
    assert unpack_bits(raw, 3, 20).tolist() == [i % 8 for i in range(20)]


# -- edges -----------------------------------------------------------------------------

def test_width_zero_and_empty() -> None:
    assert unpack_bits(b"", 0, 5).tolist() == [0] * 5
    assert unpack_bits(b"", 7, 0).size == 0
    assert unpack_bits_msb(b"", 0, 3).tolist() == [0, 0, 0]
    assert unpack_bits(b"", 40, 0).dtype == np.uint64


def test_max_widths() -> None:
    v32 = np.array([0, 1, 2**31, 2**32 - 1], dtype=np.uint64)
    assert unpack_bits(pack_bits(v32, 32), 32, 4).tolist() == v32.tolist()
    v64 = np.array([0, 2**63, 2**64 - 1, 12345], dtype=np.uint64)
    assert unpack_bits(pack_bits(v64, 64), 64, 4).tolist() == v64.tolist()
    assert unpack_bits_msb(pack_bits_msb(v64, 64), 64, 4).tolist() == v64.tolist()


@pytest.mark.parametrize("width,count,size", [(65, 1, 100), (-1, 1, 100), (3, -1, 100), (3, 9, 3), (64, 2, 15)])
def test_malformed(width: int, count: int, size: int) -> None:
    with pytest.raises(ParquetFormatError):
        unpack_bits(bytes(size), width, count)
    with pytest.raises(ParquetFormatError):
        unpack_bits_msb(bytes(size), width, count)


@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview", "array", "strided", "u32"])
def test_input_buffer_types(kind: str) -> None:
    raw = bytes([0x88, 0xC6, 0xFA, 0x00])
    buf: object = {
        "bytes": raw,
        "bytearray": bytearray(raw),
        "memoryview": memoryview(raw),
        "array": np.frombuffer(raw, dtype=np.uint8),
        "strided": np.repeat(np.frombuffer(raw, dtype=np.uint8), 2)[::2],
        "u32": np.frombuffer(raw, dtype="<u4"),
    }[kind]
    assert unpack_bits(buf, 3, 8).tolist() == list(range(8))
    assert as_uint8(buf).tobytes() == raw


def test_pack_rejects_bad_values() -> None:
    with pytest.raises(ValueError):
        pack_bits([8], 3)
    with pytest.raises(ValueError):
        pack_bits([-1], 3)
    with pytest.raises(ValueError):
        pack_bits([1], 65)


@pytest.mark.parametrize("width", [2, 4])
@pytest.mark.parametrize("count", [0, 1, 3, 5, 8, 13, 4097])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int16])
def test_byte_lane_widths_into(width: int, count: int, dtype: type) -> None:
    """Widths that divide a byte are looked up a byte at a time (issue 32): the same values
    as the big-integer reference, whatever the count's remainder, only the bytes the
    values need read, the output's other slots untouched."""
    from parquet_core._kernels.bitpack import unpack_bits_into

    rng = np.random.default_rng(width * 100 + count)
    need = (count * width + 7) // 8
    buf = rng.integers(0, 256, need).astype(np.uint8).tobytes()
    out = np.full(count + 3, 99, dtype=dtype)
    unpack_bits_into(buf, width, count, out)
    assert out[:count].tolist() == ref_unpack_lsb(buf, width, count)
    assert out[count:].tolist() == [99, 99, 99]
    if need:
        with pytest.raises(ParquetFormatError):
            unpack_bits_into(buf[:need - 1], width, count, out)
