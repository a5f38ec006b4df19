"""``decimal_le_rows`` against Python's own two's complement (``int.from_bytes(signed=True)``):
every fixed width 1..32 bytes into decimal128 / decimal256 rows, every storage (INT32, INT64,
FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY), values near each width's sign boundary, odd row counts
(the narrow reads run into the next row, so the last rows take a padded path), and
non-contiguous FIXED_LEN_BYTE_ARRAY input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import ParquetSchemaError
from parquet_core.table.decimal_words import decimal_le_rows


def _want(values: list[int], width: int) -> np.ndarray:
    """The reference rows, one Python int per value (a test oracle, not a bulk path)."""
    raw = b"".join(v.to_bytes(width, "little", signed=True) for v in values)
    return np.frombuffer(raw, dtype=np.uint8).reshape(len(values), width)


def _value(w: int) -> st.SearchStrategy[int]:
    lo, hi = -(1 << (8 * w - 1)), (1 << (8 * w - 1)) - 1
    edges = st.sampled_from([lo, lo + 1, -1, 0, 1, hi - 1, hi, -(1 << (8 * w - 9)) if w > 1 else -2])
    return st.one_of(edges, st.integers(lo, hi))


@st.composite
def _fixed_case(draw):  # type: ignore[no-untyped-def]
    width = draw(st.sampled_from([16, 32]))
    w = draw(st.integers(1, width))
    values = draw(st.lists(_value(w), min_size=0, max_size=40))
    return width, w, values


@settings(max_examples=300, deadline=None)
@given(_fixed_case(), st.sampled_from(["plain", "strided", "inner"]))
def test_fixed_len_bytes_match_int_from_bytes(case, layout):  # type: ignore[no-untyped-def]
    width, w, values = case
    raw = [v.to_bytes(w, "big", signed=True) for v in values]
    assert [int.from_bytes(b, "big", signed=True) for b in raw] == values
    flba = np.frombuffer(b"".join(raw), dtype=np.uint8).reshape(len(values), w)
    if layout == "strided":     # the same bytes inside wider rows: a non-contiguous (n, w) view
        wide = np.zeros((len(values), w + 3), dtype=np.uint8)
        wide[:, 1:w + 1] = flba
        flba = wide[:, 1:w + 1]
    elif layout == "inner":     # contiguous rows in the middle of a bigger buffer (0xFF around them)
        big = np.full((len(values) + 4, w), 0xFF, dtype=np.uint8)
        big[2:2 + len(values)] = flba
        flba = big[2:2 + len(values)]
    got = decimal_le_rows(flba, len(values), width)
    assert got.shape == (len(values), width) and got.dtype == np.uint8
    np.testing.assert_array_equal(got, _want(values, width))


@st.composite
def _variable_case(draw):  # type: ignore[no-untyped-def]
    width = draw(st.sampled_from([16, 32]))
    cap = draw(st.integers(0, width))      # the longest value's bytes; an empty value is zero
    sized = st.integers(0, cap).flatmap(lambda k: st.tuples(st.just(k), _value(k) if k else st.just(0)))
    return width, draw(st.lists(sized, max_size=40))


@settings(max_examples=200, deadline=None)
@given(_variable_case())
def test_byte_array_values_of_any_length(case):  # type: ignore[no-untyped-def]
    # each value in exactly its drawn number of big-endian bytes (not always minimal)
    width, sized = case
    values = [v for _, v in sized]
    raw = [v.to_bytes(k, "big", signed=True) for k, v in sized]
    got = decimal_le_rows(ByteArrays.from_pylist(raw), len(values), width)
    np.testing.assert_array_equal(got, _want(values, width))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("width", [16, 32])
def test_integer_storage(dtype, width):  # type: ignore[no-untyped-def]
    info = np.iinfo(dtype)
    values = [int(info.min), int(info.min) + 1, -1, 0, 1, int(info.max)]
    got = decimal_le_rows(np.array(values, dtype=dtype), len(values), width)
    np.testing.assert_array_equal(got, _want(values, width))


def test_wider_fixed_bytes_than_arrow_holds():
    values = [-(1 << 127), (1 << 127) - 1, -5]
    flba = np.frombuffer(b"".join(v.to_bytes(20, "big", signed=True) for v in values),
                         dtype=np.uint8).reshape(3, 20)
    np.testing.assert_array_equal(decimal_le_rows(flba, 3, 16), _want(values, 16))
    too_big = np.frombuffer((1 << 127).to_bytes(20, "big", signed=True), dtype=np.uint8).reshape(1, 20)
    with pytest.raises(ParquetSchemaError, match="row 0"):
        decimal_le_rows(too_big, 1, 16)
