"""encode_values / valid_encodings dispatch: every supported pair round trips, others fail clearly."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import Encoding as E
from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings import ENCODERS, decode_values, encode_values, valid_encodings

RNG = np.random.default_rng(47)
N = 300

WRITABLE = {
    PT.BOOLEAN: {E.PLAIN, E.RLE},
    PT.INT32: {E.PLAIN, E.DELTA_BINARY_PACKED, E.BYTE_STREAM_SPLIT},
    PT.INT64: {E.PLAIN, E.DELTA_BINARY_PACKED, E.BYTE_STREAM_SPLIT},
    PT.INT96: {E.PLAIN},
    PT.FLOAT: {E.PLAIN, E.BYTE_STREAM_SPLIT, E.ALP},
    PT.DOUBLE: {E.PLAIN, E.BYTE_STREAM_SPLIT, E.ALP},
    PT.BYTE_ARRAY: {E.PLAIN, E.DELTA_LENGTH_BYTE_ARRAY, E.DELTA_BYTE_ARRAY},
    PT.FIXED_LEN_BYTE_ARRAY: {E.PLAIN, E.DELTA_BYTE_ARRAY, E.BYTE_STREAM_SPLIT},
}


def values_of(pt: PT) -> tuple[object, int | None]:
    if pt == PT.BOOLEAN:
        return RNG.random(N) < 0.5, None
    if pt in (PT.INT32, PT.INT64):
        dt = np.int32 if pt == PT.INT32 else np.int64
        info = np.iinfo(dt)
        return RNG.integers(info.min, info.max, N, dtype=dt, endpoint=True), None
    if pt in (PT.FLOAT, PT.DOUBLE):
        return RNG.standard_normal(N).astype(np.float32 if pt == PT.FLOAT else np.float64), None
    if pt == PT.INT96:
        return RNG.integers(0, 256, (N, 12), dtype=np.uint8), None
    if pt == PT.FIXED_LEN_BYTE_ARRAY:
        return RNG.integers(0, 3, (N, 6), dtype=np.uint8), 6
    return ByteArrays.from_pylist([bytes(RNG.integers(97, 100, int(RNG.integers(0, 9)),
                                                      dtype=np.uint8)) for _ in range(N)]), None


def test_valid_encodings() -> None:
    for pt, encs in WRITABLE.items():
        assert valid_encodings(pt) == {int(e) for e in encs}
    assert set(ENCODERS) == {int(e) for e in set().union(*WRITABLE.values())}


@pytest.mark.parametrize("pt", list(PT))
def test_every_supported_pair_round_trips(pt: PT) -> None:
    vals, tl = values_of(pt)
    for enc in WRITABLE[pt]:
        got = decode_values(enc, encode_values(enc, vals, pt, tl), N, pt, tl)
        if isinstance(vals, ByteArrays):
            assert got.to_pylist() == vals.to_pylist()
        else:
            assert np.array_equal(np.asarray(got), vals), (pt, enc)


@pytest.mark.parametrize("pt", list(PT))
def test_unsupported_pairs_name_encoding_and_type(pt: PT) -> None:
    vals, tl = values_of(pt)
    for enc in set(E) - WRITABLE[pt]:
        with pytest.raises(ValueError, match=f"{enc.name}.*{pt.name}"):
            encode_values(enc, vals, pt, tl)


def test_misuse() -> None:
    with pytest.raises(ValueError, match="unknown physical type"):
        encode_values(E.PLAIN, [1], 42)
    with pytest.raises(ValueError, match=r"encoding UNKNOWN\(99\)"):
        encode_values(99, [1], PT.INT32)
    with pytest.raises(ValueError, match="FIXED_LEN_BYTE_ARRAY"):
        encode_values(E.PLAIN, np.zeros((2, 3), np.uint8), PT.FIXED_LEN_BYTE_ARRAY, 4)
    with pytest.raises(ValueError, match="encode_dictionary_indices"):
        encode_values(E.RLE_DICTIONARY, [0], PT.INT32)


def test_empty_pages_decode_to_nothing() -> None:
    for pt, encs in WRITABLE.items():
        vals, tl = values_of(pt)
        empty = vals.slice(0, 0) if isinstance(vals, ByteArrays) else vals[:0]
        for enc in encs:
            buf = encode_values(enc, empty, pt, tl)
            assert len(decode_values(enc, buf, 0, pt, tl)) == 0
