"""DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY encoders: pyarrow's bytes, round trips."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from tests.unit.encodings.arrow_encoded import arrow_value_pages, byte_arrays
from tests.unit.encodings.golden import uleb
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import Encoding as E
from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings import decode_values
from parquet_core.encodings.delta_binary_packed import decode_delta_binary_packed
from parquet_core.encodings.delta_byte_array import encode_delta_byte_array
from parquet_core.encodings.delta_length_byte_array import encode_delta_length_byte_array

RNG = np.random.default_rng(41)
ENCODERS = {"DELTA_LENGTH_BYTE_ARRAY": encode_delta_length_byte_array,
            "DELTA_BYTE_ARRAY": encode_delta_byte_array}


def sample(n: int) -> list[bytes]:
    keys = [b"key_%07d" % w for w in np.sort(RNG.integers(0, 10**7, n // 3))]
    urls = [b"https://example.org/" + b"a/" * int(k) + b"%d" % k
            for k in np.sort(RNG.integers(0, 40, n // 3))]          # long shared prefixes
    noise = [RNG.integers(0, 3, int(RNG.integers(0, 30)), dtype=np.uint8).tobytes()
             for _ in range(n - 2 * (n // 3))]                     # short, zeros, repeats
    return keys + urls + noise


@pytest.mark.parametrize("encoding", list(ENCODERS))
@pytest.mark.parametrize("n,base", [(1, 0), (2, 3), (200, 0), (30_000, 7)])
def test_byte_array_matches_pyarrow(encoding: str, n: int, base: int) -> None:
    items = sample(n)
    values = byte_arrays(items, base)
    for ours, theirs in arrow_value_pages(pa.array(items, pa.binary()), values, encoding):
        assert ENCODERS[encoding](ours) == theirs


@pytest.mark.parametrize("width", [1, 5, 16])
def test_fixed_len_delta_byte_array_matches_pyarrow(width: int) -> None:
    rows = RNG.integers(0, 2, (5000, width), dtype=np.uint8)
    rows[::7] = rows[1::7][: rows[::7].shape[0]] if width > 1 else rows[::7]
    arr = pa.array([r.tobytes() for r in rows], pa.binary(width))
    for ours, theirs in arrow_value_pages(arr, rows, "DELTA_BYTE_ARRAY"):
        assert encode_delta_byte_array(ours) == theirs


def test_spec_examples() -> None:
    words = [b"axis", b"axle", b"babble", b"babyhood"]
    dba = encode_delta_byte_array(ByteArrays.from_pylist(words))
    prefixes, pos = decode_delta_binary_packed(dba, 0, np.int32)
    suffix_lens, pos = decode_delta_binary_packed(dba, pos, np.int32)
    assert prefixes.tolist() == [0, 2, 0, 3] and suffix_lens.tolist() == [4, 2, 6, 5]
    assert dba[pos:] == b"axislebabbleyhood"
    dlba = encode_delta_length_byte_array(
        ByteArrays.from_pylist([b"Hello", b"World", b"Foobar", b"ABCDEF"]))
    lengths, pos = decode_delta_binary_packed(dlba, 0, np.int32)
    assert lengths.tolist() == [5, 5, 6, 6] and dlba[pos:] == b"HelloWorldFoobarABCDEF"


def test_empty_and_single() -> None:
    empty_dbp = uleb(128) + uleb(4) + uleb(0) + uleb(0)
    assert encode_delta_length_byte_array(ByteArrays.empty()) == empty_dbp
    assert encode_delta_byte_array(ByteArrays.empty()) == empty_dbp * 2
    assert decode_values(E.DELTA_BYTE_ARRAY, encode_delta_byte_array([b""]), 1, PT.BYTE_ARRAY,
                         None).to_pylist() == [b""]


def test_prefix_stops_at_the_shorter_value_and_at_embedded_zeros() -> None:
    words = [b"abc", b"abc\x00", b"abc", b"ab\x00\x00", b"ab\x00\x00\x00\x00\x00\x00\x00\x00x",
             b"ab\x00\x00\x00\x00\x00\x00\x00\x00y", b"", b"q" * 40, b"q" * 41, b"q" * 17]
    enc = encode_delta_byte_array(words)
    prefixes, _ = decode_delta_binary_packed(enc, 0, np.int32)
    assert prefixes.tolist() == [0, 3, 3, 2, 4, 10, 0, 0, 40, 17]
    assert decode_values(E.DELTA_BYTE_ARRAY, enc, len(words), PT.BYTE_ARRAY,
                         None).to_pylist() == words


@settings(max_examples=80, deadline=None, derandomize=True)
@given(items=st.lists(st.binary(max_size=30).map(lambda b: bytes(x % 3 for x in b)),
                      max_size=200),
       base=st.integers(0, 5), sort=st.booleans())
def test_round_trips(items: list[bytes], base: int, sort: bool) -> None:
    if sort:
        items = sorted(items)
    values = byte_arrays(items, base)
    for enc, fn in ((E.DELTA_LENGTH_BYTE_ARRAY, encode_delta_length_byte_array),
                    (E.DELTA_BYTE_ARRAY, encode_delta_byte_array)):
        got = decode_values(enc, fn(values), len(items), PT.BYTE_ARRAY, None)
        assert (got.to_pylist() if len(items) else []) == items


@settings(max_examples=30, deadline=None, derandomize=True)
@given(width=st.integers(0, 20), n=st.integers(0, 300), seed=st.integers(0, 2**32 - 1))
def test_fixed_len_round_trip(width: int, n: int, seed: int) -> None:
    rows = np.random.default_rng(seed).integers(0, 2, (n, width), dtype=np.uint8)
    got = decode_values(E.DELTA_BYTE_ARRAY, encode_delta_byte_array(rows), n,
                        PT.FIXED_LEN_BYTE_ARRAY, width)
    assert np.array_equal(np.asarray(got).reshape(n, width), rows)


def test_lists_and_arrays_are_accepted() -> None:
    assert encode_delta_length_byte_array([b"a", b"bc"]) == encode_delta_length_byte_array(
        ByteArrays.from_pylist([b"a", b"bc"]))
    with pytest.raises(ValueError):
        encode_delta_byte_array(np.zeros(4, np.uint8))           # not (n, w) rows
