"""BYTE_STREAM_SPLIT encoder: byte-identical to pyarrow for every supported type."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from tests.unit.encodings.arrow_encoded import arrow_value_pages

from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings.byte_stream_split import (
    decode_byte_stream_split,
    encode_byte_stream_split,
)

RNG = np.random.default_rng(43)


@pytest.mark.parametrize("dtype,pt", [("int32", PT.INT32), ("int64", PT.INT64),
                                      ("float32", PT.FLOAT), ("float64", PT.DOUBLE)])
@pytest.mark.parametrize("n", [1, 3, 30_000])
def test_numeric_matches_pyarrow(dtype: str, pt: PT, n: int) -> None:
    vals = RNG.integers(-(2**31), 2**31, n).astype(dtype)
    if dtype.startswith("float"):
        vals = RNG.standard_normal(n).astype(dtype)
        vals[0] = np.nan
    for ours, theirs in arrow_value_pages(pa.array(vals), vals, "BYTE_STREAM_SPLIT"):
        assert encode_byte_stream_split(ours, pt) == theirs


@pytest.mark.parametrize("width", [1, 2, 3, 16])
def test_fixed_len_matches_pyarrow(width: int) -> None:
    rows = RNG.integers(0, 256, (3000, width), dtype=np.uint8)
    arr = pa.array([r.tobytes() for r in rows], pa.binary(width))
    for ours, theirs in arrow_value_pages(arr, rows, "BYTE_STREAM_SPLIT"):
        assert encode_byte_stream_split(ours, PT.FIXED_LEN_BYTE_ARRAY, width) == theirs


def test_spec_example() -> None:
    raw = bytes.fromhex("AABBCCDD 00112233 A3B4C5D6".replace(" ", ""))
    vals = np.frombuffer(raw, dtype="<f4")
    assert encode_byte_stream_split(vals, PT.FLOAT) == bytes.fromhex("AA00A3BB11B4CC22C5DD33D6")


def test_edges() -> None:
    assert encode_byte_stream_split(np.zeros(0, np.float64), PT.DOUBLE) == b""
    assert encode_byte_stream_split(np.zeros((4, 0), np.uint8), PT.FIXED_LEN_BYTE_ARRAY, 0) == b""
    vals = np.array([1, -1, 2**31 - 1], dtype=np.int64)
    enc = encode_byte_stream_split(vals, PT.INT64)
    assert np.array_equal(decode_byte_stream_split(enc, 3, PT.INT64), vals)
    with pytest.raises(ValueError):
        encode_byte_stream_split(np.zeros((2, 3), np.uint8), PT.FIXED_LEN_BYTE_ARRAY, 4)
    with pytest.raises(ValueError):
        encode_byte_stream_split(np.zeros(2, np.int32), PT.BYTE_ARRAY)
