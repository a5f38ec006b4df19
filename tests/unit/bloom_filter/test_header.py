"""Bloom filter header + bitset bytes: layout, and every kind of bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.bloom_filter import SplitBlockBloomFilter, parse_filter, parse_header, serialize_filter
from parquet_core.errors import ParquetError, ParquetFormatError, UnsupportedFeatureError
from parquet_core.thrift import pt, serialize


def header_bytes(num_bytes: int | None = 1024, *, algorithm: bytes | None = None,
                 hash_: bytes | None = None, compression: bytes | None = None) -> bytes:
    """Compact-protocol header written field by field, so any field can be broken.

    A union member is ``<field header> 00`` (an empty struct); ``algorithm``
    etc. replace the whole union body when given.
    """
    out = b""
    last = 0
    if num_bytes is not None:
        z = (num_bytes << 1) ^ (num_bytes >> 63)  # zigzag i32
        var = b""
        while True:
            b = z & 0x7F
            z >>= 7
            var += bytes([b | (0x80 if z else 0)])
            if not z:
                break
        out += b"\x15" + var  # field 1, type i32
        last = 1
    for fid, body in ((2, algorithm), (3, hash_), (4, compression)):
        out += bytes([((fid - last) << 4) | 0x0C]) + (b"\x1c\x00\x00" if body is None else body)
        last = fid
    return out + b"\x00"


def test_our_writer_and_the_hand_encoding_agree() -> None:
    bf = SplitBlockBloomFilter(1024)
    raw = serialize_filter(bf)
    assert raw[:-1024] == header_bytes(1024)
    assert parse_header(raw) == (1024, len(raw) - 1024)


def test_parse_with_offset_and_trailing_bytes() -> None:
    bf = SplitBlockBloomFilter(64)
    bf.insert([b"k"])
    blob = b"junk" + serialize_filter(bf) + b"more"
    got, used = parse_filter(blob, 4)
    assert got == bf and used == len(blob) - 8
    with pytest.raises(ParquetFormatError, match="follow"):
        SplitBlockBloomFilter.from_bytes(serialize_filter(bf) + b"x")


def test_huge_claimed_size_is_checked_before_allocating() -> None:
    raw = header_bytes(2**31 - 32) + bytes(64)
    with pytest.raises(ParquetFormatError, match="truncated"):
        parse_filter(raw)


@pytest.mark.parametrize("n", [0, -32, 31, 33, 1000])
def test_size_not_whole_blocks(n: int) -> None:
    with pytest.raises(ParquetFormatError, match="32-byte blocks"):
        parse_filter(header_bytes(n) + bytes(2048))


def test_non_power_of_two_block_count_is_read() -> None:
    # The spec defines z blocks for any 1 <= z < 2**31; the multiply-shift
    # block choice needs no power of two.
    bf, used = parse_filter(header_bytes(96) + bytes(96))
    assert bf.num_blocks == 3 and used == len(header_bytes(96)) + 96


def test_truncated_bitset() -> None:
    with pytest.raises(ParquetFormatError, match="truncated"):
        parse_filter(header_bytes(1024) + bytes(1023))
    with pytest.raises(ParquetFormatError, match="truncated"):
        parse_filter(header_bytes(1024) + bytes(2048), 0, len(header_bytes(1024)) + 100)


@pytest.mark.parametrize("field", ["algorithm", "hash_", "compression"])
def test_unknown_union_member(field: str) -> None:
    # member id 2 of the union: a struct we do not know
    raw = header_bytes(32, **{field: b"\x2c\x00\x00"}) + bytes(32)
    with pytest.raises(UnsupportedFeatureError):
        parse_filter(raw)


@pytest.mark.parametrize("drop", ["numBytes", "algorithm", "hash", "compression"])
def test_missing_required_field(drop: str) -> None:
    h = pt.BloomFilterHeader(
        numBytes=32, algorithm=pt.BloomFilterAlgorithm(BLOCK=pt.SplitBlockAlgorithm()),
        hash=pt.BloomFilterHash(XXHASH=pt.XxHash()),
        compression=pt.BloomFilterCompression(UNCOMPRESSED=pt.Uncompressed()))
    setattr(h, drop, None)
    with pytest.raises(ParquetFormatError, match=drop):
        parse_filter(serialize(h) + bytes(32))


def test_truncated_header_and_empty_input() -> None:
    for raw in (b"", header_bytes(32)[:5], b"\x15"):
        with pytest.raises(ParquetFormatError):
            parse_filter(raw)


def test_error_names_the_file_offset() -> None:
    with pytest.raises(ParquetFormatError) as info:
        parse_filter(header_bytes(1024), file_offset=777)
    assert any("777" in note for note in info.value.__notes__)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_crash(data: bytes) -> None:
    try:
        bf, used = parse_filter(data)
    except ParquetError:
        return
    assert used <= len(data) and bf.num_bytes % 32 == 0


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.integers(0, 40), st.integers(0, 255))
def test_corrupted_valid_filter_never_crashes(pos: int, byte: int) -> None:
    bf = SplitBlockBloomFilter(64)
    bf.insert(np.arange(10, dtype=np.int64))
    raw = bytearray(serialize_filter(bf))
    raw[pos % len(raw)] = byte
    try:
        parse_filter(bytes(raw))
    except ParquetError:
        pass
