"""decode_values dispatch: supported combinations, errors, empty pages, fuzzing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import Encoding as E
from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings import REGISTRY, decode_values
from parquet_core.encodings.byte_stream_split import encode_byte_stream_split
from parquet_core.encodings.delta_binary_packed import encode_delta_binary_packed
from parquet_core.encodings.delta_byte_array import encode_delta_byte_array
from parquet_core.encodings.delta_length_byte_array import encode_delta_length_byte_array
from parquet_core.encodings.plain import encode_plain
from parquet_core.encodings.rle_hybrid import encode_rle_hybrid
from parquet_core.errors import ParquetFormatError, UnsupportedFeatureError

SUPPORTED = {
    E.PLAIN: set(PT),
    E.PLAIN_DICTIONARY: set(PT),
    E.RLE_DICTIONARY: set(PT),
    E.RLE: {PT.BOOLEAN},
    E.BIT_PACKED: set(),
    E.DELTA_BINARY_PACKED: {PT.INT32, PT.INT64},
    E.DELTA_LENGTH_BYTE_ARRAY: {PT.BYTE_ARRAY},
    E.DELTA_BYTE_ARRAY: {PT.BYTE_ARRAY, PT.FIXED_LEN_BYTE_ARRAY},
    E.BYTE_STREAM_SPLIT: {PT.INT32, PT.INT64, PT.FLOAT, PT.DOUBLE, PT.FIXED_LEN_BYTE_ARRAY},
    E.ALP: {PT.FLOAT, PT.DOUBLE},
}


def test_registry_keys_are_the_spec_enum() -> None:
    assert set(REGISTRY) == {int(e) for e in E}
    assert {k: set(v.physical_types) for k, v in REGISTRY.items()} == SUPPORTED


@pytest.mark.parametrize("enc", list(E))
@pytest.mark.parametrize("pt", list(PT))
def test_unsupported_combinations_name_both(enc: E, pt: PT) -> None:
    if pt in SUPPORTED[enc]:
        return
    with pytest.raises(UnsupportedFeatureError) as info:
        decode_values(enc, b"\x00" * 64, 1, pt, 4)
    assert enc.name in str(info.value) and pt.name in str(info.value)


@pytest.mark.parametrize("enc", [1, 11, 99, -1])
def test_unknown_encodings(enc: int) -> None:
    with pytest.raises(UnsupportedFeatureError, match=str(enc)):
        decode_values(enc, b"", 1, PT.INT32, None)


def test_unknown_physical_type_and_bad_counts() -> None:
    with pytest.raises(ParquetFormatError):
        decode_values(E.PLAIN, b"", 1, 8, None)
    with pytest.raises(ParquetFormatError):
        decode_values(E.PLAIN, b"", -1, PT.INT32, None)
    with pytest.raises(ParquetFormatError):
        decode_values(E.PLAIN, b"", 2**31, PT.INT32, None)


@pytest.mark.parametrize("enc", list(E))
@pytest.mark.parametrize("pt", list(PT))
def test_empty_pages(enc: E, pt: PT) -> None:
    if pt not in SUPPORTED[enc]:
        return
    out = decode_values(enc, b"", 0, pt, 3)
    assert len(out) == 0
    if enc in (E.PLAIN_DICTIONARY, E.RLE_DICTIONARY):
        assert out.dtype == np.int32
    elif pt == PT.BYTE_ARRAY:
        assert isinstance(out, ByteArrays)
    elif pt == PT.FIXED_LEN_BYTE_ARRAY:
        assert out.shape == (0, 3)
    elif pt == PT.INT96:
        assert out.shape == (0, 12)


def test_each_encoding_through_dispatch() -> None:
    ints = np.array([5, -3, 2**30, 0], dtype=np.int32)
    longs = np.array([2**62, -(2**62), 0, 7], dtype=np.int64)
    strings = [b"apple", b"apply", b"", b"banana"]
    flba = np.array([[1, 2], [1, 3], [9, 9]], dtype=np.uint8)

    assert decode_values(E.PLAIN, encode_plain(ints, PT.INT32), 4, PT.INT32, None).tolist() \
        == ints.tolist()
    assert decode_values(E.PLAIN, encode_plain(strings, PT.BYTE_ARRAY), 4, PT.BYTE_ARRAY,
                         None).to_pylist() == strings
    idx = decode_values(E.RLE_DICTIONARY, bytes([2]) + encode_rle_hybrid([0, 1, 2, 3, 3], 2), 5,
                        PT.DOUBLE, None)
    assert idx.dtype == np.int32 and idx.tolist() == [0, 1, 2, 3, 3]
    assert decode_values(E.PLAIN_DICTIONARY, bytes([1]) + encode_rle_hybrid([1, 0], 1), 2,
                         PT.BYTE_ARRAY, None).tolist() == [1, 0]
    rle = encode_rle_hybrid([1, 0, 1], 1)
    assert decode_values(E.RLE, len(rle).to_bytes(4, "little") + rle, 3, PT.BOOLEAN,
                         None).tolist() == [True, False, True]
    assert decode_values(E.DELTA_BINARY_PACKED, encode_delta_binary_packed(ints, np.int32), 4,
                         PT.INT32, None).tolist() == ints.tolist()
    assert decode_values(E.DELTA_BINARY_PACKED, encode_delta_binary_packed(longs), 4, PT.INT64,
                         None).tolist() == longs.tolist()
    assert decode_values(E.DELTA_LENGTH_BYTE_ARRAY, encode_delta_length_byte_array(strings), 4,
                         PT.BYTE_ARRAY, None).to_pylist() == strings
    assert decode_values(E.DELTA_BYTE_ARRAY, encode_delta_byte_array(strings), 4, PT.BYTE_ARRAY,
                         None).to_pylist() == strings
    np.testing.assert_array_equal(
        decode_values(E.DELTA_BYTE_ARRAY, encode_delta_byte_array(flba), 3,
                      PT.FIXED_LEN_BYTE_ARRAY, 2), flba)
    np.testing.assert_array_equal(
        decode_values(E.BYTE_STREAM_SPLIT, encode_byte_stream_split(longs, PT.INT64), 4, PT.INT64,
                      None), longs)
    np.testing.assert_array_equal(
        decode_values(E.BYTE_STREAM_SPLIT,
                      encode_byte_stream_split(flba, PT.FIXED_LEN_BYTE_ARRAY, 2), 3,
                      PT.FIXED_LEN_BYTE_ARRAY, 2), flba)


def test_delta_binary_packed_count_must_match() -> None:
    enc = encode_delta_binary_packed(np.arange(10))
    with pytest.raises(ParquetFormatError):
        decode_values(E.DELTA_BINARY_PACKED, enc, 9, PT.INT64, None)
    with pytest.raises(ParquetFormatError):
        decode_values(E.DELTA_BINARY_PACKED, enc, 11, PT.INT64, None)


def test_flba_without_type_length() -> None:
    with pytest.raises(ParquetFormatError):
        decode_values(E.DELTA_BYTE_ARRAY, encode_delta_byte_array([b"ab"]), 1,
                      PT.FIXED_LEN_BYTE_ARRAY, None)


COMBOS = [(e, p) for e in E for p in SUPPORTED[e]]


@settings(max_examples=600, deadline=None)
@given(combo=st.sampled_from(COMBOS), data=st.binary(max_size=96), count=st.integers(0, 200),
       type_length=st.sampled_from([None, 0, 1, 3, 16]))
def test_garbage_only_raises_format_errors(combo: tuple[E, PT], data: bytes, count: int,
                                           type_length: int | None) -> None:
    enc, pt = combo
    try:
        out = decode_values(enc, data, count, pt, type_length)
    except ParquetFormatError:
        return
    assert len(out) == count


def test_decoder_returning_the_wrong_count_raises_a_format_error(monkeypatch) -> None:
    """The value-count check is a real error, not an ``assert`` (gone under -O)."""
    import dataclasses

    spec = REGISTRY[E.PLAIN]
    short = dataclasses.replace(spec, decode=lambda buf, count, ptype, tl: np.zeros(count - 1, np.int32))
    monkeypatch.setitem(REGISTRY, E.PLAIN, short)
    with pytest.raises(ParquetFormatError, match="decoded to 2 values, but the page holds 3"):
        decode_values(E.PLAIN, b"\x00" * 12, 3, PT.INT32, None)
