"""PLAIN encoder: byte-identical to pyarrow's pages, and round trips through our decoder."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from tests.unit.encodings.arrow_encoded import arrow_value_pages, byte_arrays
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings.plain import decode_plain, encode_plain, encode_plain_byte_array

RNG = np.random.default_rng(31)
N = 25_000


@pytest.mark.parametrize("dtype,pt", [("int32", PT.INT32), ("int64", PT.INT64),
                                      ("float32", PT.FLOAT), ("float64", PT.DOUBLE)])
def test_numeric_matches_pyarrow(dtype: str, pt: PT) -> None:
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        vals = RNG.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    else:
        vals = RNG.standard_normal(N).astype(dtype)
        vals[:4] = [np.nan, -0.0, np.inf, -np.inf]
    for ours, theirs in arrow_value_pages(pa.array(vals), vals, "PLAIN"):
        assert encode_plain(ours, pt) == theirs


def test_boolean_matches_pyarrow() -> None:
    for n in (0, 1, 7, 8, 9, N):
        vals = RNG.random(n) < 0.3
        pages = list(arrow_value_pages(pa.array(vals, pa.bool_()), vals, "PLAIN"))
        for ours, theirs in pages:
            assert encode_plain(ours, PT.BOOLEAN) == theirs


def strings(n: int) -> list[bytes]:
    out = [b"key_%07d" % w for w in np.sort(RNG.integers(0, 10**7, n // 2))]
    out += [RNG.integers(0, 256, int(RNG.integers(0, 40)), dtype=np.uint8).tobytes()
            for _ in range(n - n // 2)]
    return out


@pytest.mark.parametrize("base", [0, 5])
def test_byte_array_matches_pyarrow(base: int) -> None:
    items = strings(N)
    values = byte_arrays(items, base)
    for ours, theirs in arrow_value_pages(pa.array(items, pa.binary()), values, "PLAIN"):
        assert encode_plain(ours, PT.BYTE_ARRAY) == theirs


def test_equal_length_strings_match_pyarrow() -> None:
    items = [RNG.integers(0, 256, 6, dtype=np.uint8).tobytes() for _ in range(5000)]
    for ours, theirs in arrow_value_pages(pa.array(items, pa.binary()), byte_arrays(items, 3),
                                          "PLAIN"):
        assert encode_plain(ours, PT.BYTE_ARRAY) == theirs


def test_fixed_len_byte_array_matches_pyarrow() -> None:
    rows = RNG.integers(0, 256, (N, 7), dtype=np.uint8)
    arr = pa.array([r.tobytes() for r in rows], pa.binary(7))
    for ours, theirs in arrow_value_pages(arr, rows, "PLAIN"):
        assert encode_plain(ours, PT.FIXED_LEN_BYTE_ARRAY, 7) == theirs


def test_spec_layout_of_byte_array() -> None:
    # spec: 4-byte little-endian length followed by the bytes
    assert encode_plain(ByteArrays.from_pylist([b"ab", b"", b"xyz"]), PT.BYTE_ARRAY) == \
        b"\x02\x00\x00\x00ab" + b"\x00\x00\x00\x00" + b"\x03\x00\x00\x00xyz"


def test_empty_inputs() -> None:
    assert encode_plain(ByteArrays.empty(), PT.BYTE_ARRAY) == b""
    assert encode_plain(np.zeros(0, np.int32), PT.INT32) == b""
    assert encode_plain(np.zeros(0, np.bool_), PT.BOOLEAN) == b""
    assert encode_plain(np.zeros((0, 12), np.uint8), PT.INT96) == b""
    assert encode_plain_byte_array(ByteArrays.empty()).size == 0


def test_all_empty_strings_and_lists() -> None:
    assert encode_plain([b""] * 3, PT.BYTE_ARRAY) == bytes(12)
    assert encode_plain([b"a", b"bc"], PT.BYTE_ARRAY) == encode_plain(
        ByteArrays.from_pylist([b"a", b"bc"]), PT.BYTE_ARRAY)


def test_int96_round_trip() -> None:
    rows = RNG.integers(0, 256, (50, 12), dtype=np.uint8)
    assert np.array_equal(decode_plain(encode_plain(rows, PT.INT96), 50, PT.INT96), rows)


def test_misuse() -> None:
    with pytest.raises(ValueError):
        encode_plain(np.zeros((3, 4), np.uint8), PT.FIXED_LEN_BYTE_ARRAY, 5)
    with pytest.raises(ValueError):
        encode_plain(np.zeros((3, 11), np.uint8), PT.INT96)
    with pytest.raises(ValueError):
        encode_plain([1], 99)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(items=st.lists(st.binary(max_size=70), max_size=300), base=st.integers(0, 9))
def test_byte_array_round_trip(items: list[bytes], base: int) -> None:
    buf = encode_plain(byte_arrays(items, base), PT.BYTE_ARRAY)
    assert decode_plain(buf, len(items), PT.BYTE_ARRAY).to_pylist() == items
