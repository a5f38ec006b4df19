"""Golden pages from an independent writer: pyarrow, with every encoding it can emit."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from tests.unit.encodings.arrow_pages import arrow_pages

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import Encoding as E
from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings import decode_values
from parquet_core.encodings.plain import decode_plain

RNG = np.random.default_rng(2024)
N = 30_000


def decoded_column(array: pa.Array, pt: PT, type_length: int | None = None, **options: object
                   ) -> tuple[list[object], set[int]]:
    """Decode every data page of ``array``'s chunk (gathering dictionaries) into one list."""
    pages = arrow_pages(array, **options)
    dictionary = None
    out: list[object] = []
    encodings = set()
    for page in pages:
        if page.kind == "dictionary":
            dictionary = decode_plain(page.values, page.num_values, pt, type_length)
            continue
        count = page.num_values - (page.num_nulls or 0)
        encodings.add(page.encoding)
        values = decode_values(page.encoding, page.values, count, pt, type_length)
        if page.encoding in (E.PLAIN_DICTIONARY, E.RLE_DICTIONARY):
            assert dictionary is not None
            values = dictionary.take(values) if isinstance(dictionary, ByteArrays) \
                else dictionary[values]
        if isinstance(values, ByteArrays):
            out += values.to_pylist()
        elif values.ndim == 2:
            out += [bytes(r) for r in values]
        else:
            out += values.tolist()
    return out, encodings


def ints(dtype: str) -> np.ndarray:
    info = np.iinfo(dtype)
    parts = [np.cumsum(RNG.integers(-50, 50, N // 3)), RNG.integers(info.min, info.max, N // 3,
                                                                    endpoint=True, dtype=dtype),
             np.repeat(RNG.integers(0, 10, N // 30), 10)]
    return np.concatenate(parts).astype(dtype)


def strings(n: int = N) -> list[str]:
    words = [f"key_{w:07d}" for w in np.sort(RNG.integers(0, 10**7, n // 2))]
    words += ["".join(chr(c) for c in RNG.integers(97, 123, int(RNG.integers(0, 30))))
              for _ in range(n - n // 2)]
    return words


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("dtype,pt", [("int32", PT.INT32), ("int64", PT.INT64)])
def test_delta_binary_packed(version: str, dtype: str, pt: PT) -> None:
    vals = ints(dtype)
    out, encs = decoded_column(pa.array(vals), pt, use_dictionary=False, data_page_version=version,
                               column_encoding={"x": "DELTA_BINARY_PACKED"})
    assert encs == {E.DELTA_BINARY_PACKED}
    assert out == vals.tolist()


@pytest.mark.parametrize("encoding", ["DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "PLAIN"])
def test_byte_array_encodings(encoding: str) -> None:
    vals = strings()
    out, encs = decoded_column(pa.array(vals), PT.BYTE_ARRAY, use_dictionary=False,
                               column_encoding={"x": encoding})
    assert encs == {int(E[encoding])}
    assert out == [v.encode() for v in vals]


def test_delta_byte_array_fixed_len() -> None:
    vals = [bytes(r) for r in np.sort(RNG.integers(0, 4, (N, 6), dtype=np.uint8), axis=0)]
    out, encs = decoded_column(pa.array(vals, pa.binary(6)), PT.FIXED_LEN_BYTE_ARRAY, 6,
                               use_dictionary=False, column_encoding={"x": "DELTA_BYTE_ARRAY"})
    assert encs == {E.DELTA_BYTE_ARRAY}
    assert out == vals


@pytest.mark.parametrize("arrow_type,pt,width", [
    (pa.float32(), PT.FLOAT, None), (pa.float64(), PT.DOUBLE, None),
    (pa.int32(), PT.INT32, None), (pa.int64(), PT.INT64, None),
    (pa.float16(), PT.FIXED_LEN_BYTE_ARRAY, 2),
])
def test_byte_stream_split(arrow_type: pa.DataType, pt: PT, width: int | None) -> None:
    vals = (RNG.standard_normal(N) * 1000).astype(arrow_type.to_pandas_dtype())
    out, encs = decoded_column(pa.array(vals, arrow_type), pt, width, use_dictionary=False,
                               column_encoding={"x": "BYTE_STREAM_SPLIT"})
    assert encs == {E.BYTE_STREAM_SPLIT}
    if width:
        assert out == [v.tobytes() for v in vals]
    else:
        np.testing.assert_array_equal(np.asarray(out, dtype=vals.dtype), vals)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_booleans(version: str) -> None:
    vals = np.concatenate([RNG.random(N) < 0.5, np.ones(500, bool), np.zeros(700, bool)])
    out, encs = decoded_column(pa.array(vals), PT.BOOLEAN, use_dictionary=False,
                               data_page_version=version)
    assert encs <= {E.PLAIN, E.RLE}
    assert out == vals.tolist()


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_dictionary_pages(version: str) -> None:
    vals = np.concatenate([RNG.integers(0, 300, N), np.repeat(RNG.integers(0, 300, 300), 40)])
    out, encs = decoded_column(pa.array(vals), PT.INT64, data_page_version=version)
    assert encs <= {E.RLE_DICTIONARY, E.PLAIN_DICTIONARY}
    assert out == vals.tolist()
    svals = strings(5000)
    sout, _ = decoded_column(pa.array(svals), PT.BYTE_ARRAY, data_page_version=version)
    assert sout == [s.encode() for s in svals]


def test_plain_fixed_width_types() -> None:
    for arrow_type, pt in [(pa.int32(), PT.INT32), (pa.float64(), PT.DOUBLE)]:
        vals = (RNG.standard_normal(5000) * 1000).astype(arrow_type.to_pandas_dtype())
        out, encs = decoded_column(pa.array(vals), pt, use_dictionary=False)
        assert encs == {E.PLAIN}
        assert out == vals.tolist()
    vals16 = [bytes(r) for r in RNG.integers(0, 256, (3000, 16), dtype=np.uint8)]
    out, _ = decoded_column(pa.array(vals16, pa.binary(16)), PT.FIXED_LEN_BYTE_ARRAY, 16,
                            use_dictionary=False)
    assert out == vals16


def test_nullable_v2_pages_decode_only_non_null_values() -> None:
    vals = RNG.integers(0, 1000, 5000).astype(np.int64)
    mask = RNG.random(5000) < 0.3
    arr = pa.array(vals, mask=mask)
    out, _ = decoded_column(arr, PT.INT64, use_dictionary=False,
                            column_encoding={"x": "DELTA_BINARY_PACKED"})
    assert out == vals[~mask].tolist()
