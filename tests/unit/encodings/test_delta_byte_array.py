"""DELTA_BYTE_ARRAY (front coding), including every reconstruction strategy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core.encodings.delta_byte_array as dba
from parquet_core.encodings.delta_binary_packed import encode_delta_binary_packed
from parquet_core.encodings.delta_byte_array import decode_delta_byte_array, encode_delta_byte_array
from parquet_core.encodings.delta_length_byte_array import encode_delta_length_byte_array
from parquet_core.errors import ParquetFormatError


def raw(prefixes: list[int], suffixes: list[bytes]) -> bytes:
    """Build a page from explicit prefix lengths and suffixes (no validation)."""
    return (encode_delta_binary_packed(np.asarray(prefixes, dtype=np.int64), np.int32)
            + encode_delta_length_byte_array(suffixes))


def ref_decode(prefixes: list[int], suffixes: list[bytes]) -> list[bytes]:
    out: list[bytes] = []
    prev = b""
    for p, s in zip(prefixes, suffixes):
        prev = prev[:p] + s
        out.append(prev)
    return out


def test_spec_example() -> None:
    values = [b"axis", b"axle", b"babble", b"babyhood"]
    buf = raw([0, 2, 0, 3], [b"axis", b"le", b"babble", b"yhood"])
    assert encode_delta_byte_array(values) == buf
    assert decode_delta_byte_array(buf, 4).to_pylist() == values


def test_empty_and_no_shared_prefixes() -> None:
    assert len(decode_delta_byte_array(b"", 0)) == 0
    values = [b"a", b"b", b"", b"cd"]
    assert decode_delta_byte_array(encode_delta_byte_array(values), 4).to_pylist() == values


def test_fixed_len_byte_array() -> None:
    rows = np.array([[1, 2, 3], [1, 2, 4], [1, 9, 9], [1, 9, 9]], dtype=np.uint8)
    out = decode_delta_byte_array(encode_delta_byte_array(rows), 4, 3)
    assert out.shape == (4, 3) and out.dtype == np.uint8
    np.testing.assert_array_equal(out, rows)
    assert decode_delta_byte_array(b"", 0, 5).shape == (0, 5)
    with pytest.raises(ParquetFormatError):
        decode_delta_byte_array(encode_delta_byte_array(rows), 4, 4)  # wrong width


def test_long_common_prefix_chain() -> None:
    # every value copies from a chain reaching back to the first value
    values = [b"common_prefix_" + str(i).encode() for i in range(5000)]
    values.sort()
    assert decode_delta_byte_array(encode_delta_byte_array(values), len(values)).to_pylist() == values


def test_uniform_lengths_dense_path() -> None:
    values = [b"user_%010d" % v for v in sorted(np.random.default_rng(1).integers(0, 10**9, 3000))]
    assert decode_delta_byte_array(encode_delta_byte_array(values), len(values)).to_pylist() == values


def test_one_long_value_sparse_single_tier() -> None:
    # very different lengths (no dense matrix) but short prefixes (one tier)
    values = [b"k%03d" % i for i in range(300)]
    values.insert(150, b"k1" + b"z" * 5000)
    prefixes = [0]
    for a, b in itertools.pairwise(values):
        k = 0
        while k < min(len(a), len(b)) and a[k] == b[k]:
            k += 1
        prefixes.append(k)
    assert max(prefixes) < 8
    assert decode_delta_byte_array(encode_delta_byte_array(values), len(values)).to_pylist() == values


def test_long_prefix_outliers_use_tiers() -> None:
    rng = np.random.default_rng(2)
    values: list[bytes] = []
    for i in range(400):
        if i % 50 == 0:
            stem = bytes(rng.integers(97, 100, 3000, dtype=np.uint8))
            values += [stem + b"x", stem + b"yy", stem[:1500] + b"q"]
        values.append(bytes(rng.integers(97, 100, int(rng.integers(1, 12)), dtype=np.uint8)))
    assert decode_delta_byte_array(encode_delta_byte_array(values), len(values)).to_pylist() == values


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=12).map(lambda b: bytes(x % 3 + 97 for x in b)), max_size=200),
       st.booleans())
def test_round_trip(values: list[bytes], sort: bool) -> None:
    if sort:
        values = sorted(values)
    assert decode_delta_byte_array(encode_delta_byte_array(values), len(values)).to_pylist() == values


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.binary(max_size=30)), min_size=1, max_size=120))
def test_explicit_prefixes_against_reference(pairs: list[tuple[int, bytes]]) -> None:
    prefixes: list[int] = []
    suffixes: list[bytes] = []
    prev_len = 0
    for want, suffix in pairs:
        p = min(want, prev_len) if prefixes else 0
        prefixes.append(p)
        suffixes.append(suffix)
        prev_len = p + len(suffix)
    out = decode_delta_byte_array(raw(prefixes, suffixes), len(pairs))
    assert out.to_pylist() == ref_decode(prefixes, suffixes)


@pytest.mark.parametrize("prefixes,suffixes", [
    ([1], [b"a"]),                   # the first value has no predecessor
    ([0, 3], [b"ab", b"c"]),         # prefix longer than the previous value
    ([0, -1], [b"ab", b"c"]),        # negative prefix
])
def test_invalid_prefixes(prefixes: list[int], suffixes: list[bytes]) -> None:
    with pytest.raises(ParquetFormatError):
        decode_delta_byte_array(raw(prefixes, suffixes), len(prefixes))


def test_stream_count_mismatches() -> None:
    buf = raw([0, 1], [b"ab", b"c"])
    with pytest.raises(ParquetFormatError):
        decode_delta_byte_array(buf, 3)
    suffix_short = (encode_delta_binary_packed(np.array([0, 1]), np.int32)
                    + encode_delta_length_byte_array([b"ab"]))
    with pytest.raises(ParquetFormatError):
        decode_delta_byte_array(suffix_short, 2)
    with pytest.raises(ParquetFormatError):
        decode_delta_byte_array(buf[:-1], 2)


def test_decoded_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # front coding can inflate: 1000 copies of a 100-byte value
    buf = raw([0] + [100] * 999, [b"x" * 100] + [b""] * 999)
    assert len(decode_delta_byte_array(buf, 1000)) == 1000
    monkeypatch.setattr(dba, "MAX_DECODED_BYTES", 50_000)
    with pytest.raises(ParquetFormatError):
        decode_delta_byte_array(buf, 1000)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=80), count=st.integers(0, 50), width=st.sampled_from([None, 2]))
def test_garbage_never_leaks_other_errors(data: bytes, count: int, width: int | None) -> None:
    try:
        out = decode_delta_byte_array(data, count, width)
    except ParquetFormatError:
        return
    assert len(out) == count
