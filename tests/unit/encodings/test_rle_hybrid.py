"""RLE / bit-packing hybrid: levels, booleans and dictionary indices."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.encodings.rle_hybrid import (
    decode_dictionary_indices,
    decode_levels_v1,
    decode_rle_booleans,
    decode_rle_hybrid,
    encode_rle_hybrid,
)
from parquet_core.errors import ParquetFormatError
from tests._support.rle_reference import bp_run, ref_decode
from tests.unit.encodings.golden import uleb


def rle_run(value: int, n: int, width: int) -> bytes:
    return uleb(n << 1) + value.to_bytes((width + 7) // 8, "little")


# -- spec and hand-built vectors -------------------------------------------------------

def test_spec_bit_packed_example() -> None:
    buf = bytes([0x03, 0x88, 0xC6, 0xFA])  # 1 group of 8 values, width 3
    out = decode_rle_hybrid(buf, 3, 8)
    assert out.tolist() == list(range(8)) and out.dtype == np.int32


def test_rle_run() -> None:
    buf = bytes([0x14, 0x05])  # 10 times the value 5, width 3
    assert decode_rle_hybrid(buf, 3, 10).tolist() == [5] * 10


def test_mixed_runs_and_multi_byte_values() -> None:
    width = 12
    buf = rle_run(4000, 300, width) + bp_run(list(range(16)), width) + rle_run(7, 5, width)
    expect = [4000] * 300 + list(range(16)) + [7] * 5
    assert decode_rle_hybrid(buf, width, len(expect)).tolist() == expect
    # fewer values than the runs declare: the tail is ignored
    assert decode_rle_hybrid(buf, width, 305).tolist() == expect[:305]


def test_padding_of_last_bit_packed_run() -> None:
    buf = bp_run([1, 2, 3], 2)  # one group: 3 real values + 5 padding
    assert decode_rle_hybrid(buf, 2, 3).tolist() == [1, 2, 3]


def test_last_bit_packed_run_may_be_short_of_padding_bytes() -> None:
    # 3 groups declared at width 8 (24 bytes) but only the 10 values used are present
    buf = uleb(3 << 1 | 1) + bytes(range(10))
    assert decode_rle_hybrid(buf, 8, 10).tolist() == list(range(10))


def test_zero_length_runs_are_skipped() -> None:
    buf = rle_run(1, 0, 1) + uleb(1) + rle_run(1, 4, 1)  # empty RLE run, empty bit-packed run
    assert decode_rle_hybrid(buf, 1, 4).tolist() == [1, 1, 1, 1]


def test_width_zero_reads_nothing() -> None:
    assert decode_rle_hybrid(b"", 0, 5).tolist() == [0] * 5
    assert decode_rle_hybrid(b"", 4, 0).tolist() == []


def test_width_32_returns_uint32() -> None:
    buf = rle_run(2**32 - 1, 3, 32) + bp_run([2**31, 1, 2, 3, 4, 5, 6, 7], 32)
    out = decode_rle_hybrid(buf, 32, 11)
    assert out.dtype == np.uint32
    assert out.tolist() == [2**32 - 1] * 3 + [2**31, 1, 2, 3, 4, 5, 6, 7]


def test_long_header_varint() -> None:
    buf = uleb(200_000 << 1) + b"\x01"
    assert decode_rle_hybrid(buf, 1, 200_000).sum() == 200_000


def test_many_runs_batched_path() -> None:
    rng = np.random.default_rng(3)
    parts: list[bytes] = []
    expect: list[int] = []
    for _ in range(400):
        if rng.random() < 0.5:
            v, n = int(rng.integers(0, 32)), int(rng.integers(1, 40))
            parts.append(rle_run(v, n, 5))
            expect += [v] * n
        else:
            vals = rng.integers(0, 32, int(rng.integers(1, 5)) * 8).tolist()
            parts.append(bp_run(vals, 5))
            expect += vals
    buf = b"".join(parts)
    assert decode_rle_hybrid(buf, 5, len(expect)).tolist() == expect
    # ending inside the last bit-packed run
    assert decode_rle_hybrid(buf, 5, len(expect) - 3).tolist() == expect[:-3]


@settings(max_examples=150, deadline=None)
@given(
    width=st.integers(1, 32),
    runs=st.lists(st.tuples(st.booleans(), st.integers(1, 70), st.integers(0, 2**32 - 1)),
                  min_size=1, max_size=40),
    cut=st.integers(0, 10),
    min_repeat=st.integers(1, 10),
)
def test_round_trip_against_reference(width: int, runs: list[tuple[bool, int, int]], cut: int,
                                      min_repeat: int) -> None:
    values: list[int] = []
    mask = (1 << width) - 1
    for repeat, n, v in runs:
        values += [v & mask] * n if repeat else [(v + i * 7919) & mask for i in range(n)]
    buf = encode_rle_hybrid(np.asarray(values, dtype=np.uint64), width, min_repeat=min_repeat)
    count = max(0, len(values) - cut)
    got = decode_rle_hybrid(buf, width, count)
    assert got.astype(np.int64).tolist() == values[:count] == ref_decode(buf, width, count)


# -- helpers with prefixes -------------------------------------------------------------

def test_levels_v1() -> None:
    body = rle_run(1, 6, 1) + bp_run([0, 1, 0, 1, 0, 1, 0, 1], 1)
    page = b"\xee" + struct.pack("<I", len(body)) + body + b"VALUES"
    levels, used = decode_levels_v1(page, 1, 1, 14)
    assert levels.tolist() == [1] * 6 + [0, 1] * 4
    assert used == 4 + len(body)
    assert page[1 + used:] == b"VALUES"


def test_levels_v1_malformed() -> None:
    with pytest.raises(ParquetFormatError):
        decode_levels_v1(b"\x01\x00", 0, 1, 1)        # no room for the length
    with pytest.raises(ParquetFormatError):
        decode_levels_v1(struct.pack("<I", 10) + b"\x02\x01", 0, 1, 1)  # length past end
    with pytest.raises(ParquetFormatError):
        decode_levels_v1(struct.pack("<I", 2) + b"\x02\x01", 0, 1, 2)   # too few values
    with pytest.raises(ParquetFormatError):
        decode_levels_v1(b"\x00" * 8, -1, 1, 1)


def test_rle_booleans() -> None:
    body = rle_run(1, 3, 1) + bp_run([0, 1, 1, 0, 0, 0, 0, 1], 1)
    out = decode_rle_booleans(struct.pack("<I", len(body)) + body, 11)
    assert out.dtype == np.bool_
    assert out.tolist() == [True] * 3 + [False, True, True, False, False, False, False, True]
    assert decode_rle_booleans(b"", 0).tolist() == []


def test_dictionary_indices() -> None:
    buf = bytes([3]) + bytes([0x03, 0x88, 0xC6, 0xFA]) + rle_run(6, 4, 3)
    idx = decode_dictionary_indices(buf, 12)
    assert idx.dtype == np.int32
    assert idx.tolist() == list(range(8)) + [6] * 4
    assert decode_dictionary_indices(b"", 0).tolist() == []
    assert decode_dictionary_indices(b"\x00", 3).tolist() == [0, 0, 0]


def test_dictionary_indices_width_32() -> None:
    ok = bytes([32]) + rle_run(2**31 - 1, 2, 32)
    assert decode_dictionary_indices(ok, 2).tolist() == [2**31 - 1] * 2
    with pytest.raises(ParquetFormatError):
        decode_dictionary_indices(bytes([32]) + rle_run(2**31, 2, 32), 2)


# -- malformed -------------------------------------------------------------------------

@pytest.mark.parametrize("buf,width,count", [
    (b"", 3, 1),                        # no data at all
    (b"\x80", 3, 1),                    # truncated header varint
    (b"\x14", 3, 10),                   # RLE run without its value
    (b"\x14\x05", 3, 11),               # data ends before count values
    (b"\x05\x88\xc6\xfa", 3, 16),       # bit-packed run of 2 groups, 1 present
    (b"\x14\x09", 3, 10),               # repeated value wider than the bit width
    (b"\x02\x00\x00\x00\x00\x01", 33, 1),  # bit width above 32
    (b"\x02\x01", 1, -1),               # negative count
    (b"\x02\x01", 1, 2**31),            # count above the page limit
])
def test_malformed(buf: bytes, width: int, count: int) -> None:
    with pytest.raises(ParquetFormatError):
        decode_rle_hybrid(buf, width, count)


def test_malformed_dictionary_indices() -> None:
    with pytest.raises(ParquetFormatError):
        decode_dictionary_indices(b"", 1)
    with pytest.raises(ParquetFormatError):
        decode_dictionary_indices(bytes([33, 2, 0]), 1)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=64), width=st.integers(0, 32), count=st.integers(0, 500))
def test_garbage_never_leaks_other_errors(data: bytes, width: int, count: int) -> None:
    for fn in (lambda: decode_rle_hybrid(data, width, count),
               lambda: decode_levels_v1(data, 0, width, count),
               lambda: decode_rle_booleans(data, count),
               lambda: decode_dictionary_indices(data, count)):
        try:
            out = fn()
        except ParquetFormatError:
            continue
        assert len(out[0] if isinstance(out, tuple) else out) == count
