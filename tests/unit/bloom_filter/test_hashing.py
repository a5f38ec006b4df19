"""Which bytes each physical type hashes (PLAIN, byte arrays without the length prefix)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from parquet_core._kernels.binary import ByteArrays
from parquet_core.bloom_filter import hash_values
from parquet_core.constants import PhysicalType as PT
from parquet_core.errors import UnsupportedFeatureError

xxhash = pytest.importorskip("xxhash")
H = xxhash.xxh64_intdigest


def test_plain_bytes_per_type() -> None:
    assert hash_values([-7], PT.INT32).tolist() == [H(struct.pack("<i", -7))]
    assert hash_values([-7], PT.INT64).tolist() == [H(struct.pack("<q", -7))]
    assert hash_values([1.5], PT.FLOAT).tolist() == [H(struct.pack("<f", 1.5))]
    assert hash_values([1.5], PT.DOUBLE).tolist() == [H(struct.pack("<d", 1.5))]
    assert hash_values([b"abc"], PT.BYTE_ARRAY).tolist() == [H(b"abc")]  # no length prefix
    assert hash_values(["\u00e9"], PT.BYTE_ARRAY).tolist() == [H("\u00e9".encode())]
    row = np.arange(12, dtype=np.uint8).reshape(1, 12)
    assert hash_values(row, PT.INT96).tolist() == [H(row.tobytes())]
    assert hash_values(row[:, :5], PT.FIXED_LEN_BYTE_ARRAY, 5).tolist() == [H(row[0, :5].tobytes())]
    # FLBA given as ByteArrays or bytes
    ba = ByteArrays.from_pylist([b"12345", b"abcde"])
    assert hash_values(ba, PT.FIXED_LEN_BYTE_ARRAY, 5).tolist() == [H(b"12345"), H(b"abcde")]
    assert hash_values([b"12345"], PT.FIXED_LEN_BYTE_ARRAY, 5).tolist() == [H(b"12345")]


def test_inference_and_same_bit_unsigned() -> None:
    u = np.array([2**32 - 1], dtype=np.uint32)
    assert hash_values(u).tolist() == hash_values(np.array([-1], dtype=np.int32)).tolist()
    u64 = np.array([2**64 - 1], dtype=np.uint64)
    assert hash_values(u64, PT.INT64).tolist() == [H(struct.pack("<q", -1))]
    assert hash_values(np.array([1.5], dtype=np.float32)).tolist() == [H(struct.pack("<f", 1.5))]
    assert hash_values(ByteArrays.from_pylist([b"x"])).tolist() == [H(b"x")]
    # narrower ints widen to the physical type (an int8 column stores INT32)
    assert hash_values(np.array([-3], dtype=np.int8), PT.INT32).tolist() == [H(struct.pack("<i", -3))]


def test_refusals() -> None:
    with pytest.raises(UnsupportedFeatureError):
        hash_values(np.array([True]))
    with pytest.raises(UnsupportedFeatureError):
        hash_values([True], PT.BOOLEAN)
    with pytest.raises(TypeError):
        hash_values([1, 2])  # INT32 or INT64?
    with pytest.raises(ValueError):
        hash_values([2**40], PT.INT32)
    with pytest.raises(TypeError):
        hash_values(["x"], PT.INT64)
    with pytest.raises(ValueError):
        hash_values(np.zeros((2, 4), np.uint8), PT.FIXED_LEN_BYTE_ARRAY, 5)
    with pytest.raises(ValueError):
        hash_values(ByteArrays.from_pylist([b"ab", b"abc"]), PT.FIXED_LEN_BYTE_ARRAY)
    with pytest.raises(ValueError):
        hash_values([1], 42)
