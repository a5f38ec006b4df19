"""numpy columns (parquet_core.table.ingest_numpy through as_table).

Truth: the numpy input itself (``tolist``), pyarrow's own conversion of the
same array (``pa.array``), and Python's ``str.encode`` for text.
"""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core.schema.types import DataType
from parquet_core.table.ingest import as_table
from tests.unit.table.ingest_helpers import schema_error

pa = pytest.importorskip("pyarrow")

rng = np.random.default_rng(7)


def _col(arr):
    return as_table({"c": arr}).column("c")


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                   "uint64", "float16", "float32", "float64", "bool"])
def test_numeric_dtypes_keep_width_zero_copy(dtype):
    src = rng.integers(0, 100, 50).astype(dtype)
    arr = _col(src)
    assert arr.type == DataType(dtype)
    assert arr.validity is None
    assert np.shares_memory(arr.values, src)
    assert as_table({"c": src}).to_arrow().column(0).combine_chunks().equals(pa.array(src))


def test_big_endian_input_is_converted():
    src = np.array([1, -2, 300], dtype=">i4")
    arr = _col(src)
    assert arr.type == DataType("int32")
    assert arr.values.dtype.byteorder in ("=", "<")
    assert arr.values.tolist() == [1, -2, 300]


def test_masked_array_gives_validity_and_zero_filler():
    src = np.ma.masked_array([1.5, 99.0, np.nan, 3.0], mask=[False, True, True, False])
    arr = _col(src)
    assert arr.validity.tolist() == [True, False, False, True]
    assert arr.values.tolist() == [1.5, 0.0, 0.0, 3.0]
    assert src.data[1] == 99.0  # the caller's buffer is untouched
    expected = pa.array(src.data, mask=src.mask)
    assert as_table({"c": src}).to_arrow().column(0).combine_chunks().equals(expected)


def test_masked_array_without_masked_values_has_no_validity():
    assert _col(np.ma.masked_array([1, 2], mask=False)).validity is None


def test_nan_in_a_plain_float_array_is_a_value():
    arr = _col(np.array([np.nan, 1.0]))
    assert arr.validity is None and np.isnan(arr.values[0])


@pytest.mark.parametrize("unit", ["ms", "us", "ns"])
def test_datetime64_units_kept(unit):
    src = np.array(["2020-01-01T00:00:00.123", "NaT", "1969-12-31T23:59:59.999"], dtype=f"M8[{unit}]")
    arr = _col(src)
    assert arr.type == DataType("timestamp", unit=unit)
    assert arr.validity.tolist() == [True, False, True]
    expected = pa.array(src)  # pyarrow: NaT is null
    assert arr.values.tolist() == expected.fill_null(0).cast(pa.int64()).to_pylist()


@pytest.mark.parametrize("unit, factor", [("s", 1_000), ("m", 60_000), ("h", 3_600_000)])
def test_coarse_datetime64_becomes_milliseconds(unit, factor):
    src = np.array([1, -2, 0], dtype=f"M8[{unit}]")
    arr = _col(src)
    assert arr.type == DataType("timestamp", unit="ms")
    assert arr.values.tolist() == [factor, -2 * factor, 0]
    assert arr.values.tolist() == src.astype("M8[ms]").view(np.int64).tolist()


def test_seconds_overflowing_milliseconds_is_refused():
    src = np.array([0, 2**62], dtype="M8[s]")
    with schema_error("c", 1, "out of range"):
        _col(src)


@pytest.mark.parametrize("unit", ["D", "W", "M", "Y"])
def test_day_and_coarser_datetime64_is_a_date(unit):
    src = np.array([0, 5, "NaT"], dtype=f"M8[{unit}]")
    arr = _col(src)
    assert arr.type == DataType("date")
    assert arr.values.dtype == np.int32
    assert arr.to_pylist() == src.astype("M8[D]").astype(object).tolist()[:2] + [None]


def test_unicode_array_encodes_like_python():
    words = ["", "a", "é", "€uro", "😀x", "tab\tand\x00nul", "ÿ" * 30, "日本語"]
    src = np.array(rng.choice(words, 200))
    arr = _col(src)
    assert arr.type == DataType("string")
    assert arr.values.to_pylist() == [s.encode("utf-8") for s in src.tolist()]
    # pyarrow stops a numpy string at an embedded NUL; compare it on the others
    plain = src[np.char.find(src, "\x00") < 0]
    assert as_table({"c": plain}).to_arrow().column(0).combine_chunks().equals(pa.array(plain))


def test_unicode_surrogate_is_refused():
    with schema_error("c", 1, "surrogate"):
        _col(np.array(["ok", "\ud83d"]))


def test_bytes_array_is_binary_without_padding():
    src = np.array([b"ab", b"", b"a\x00b", b"xyz"])
    arr = _col(src)
    assert arr.type == DataType("binary")
    assert arr.to_pylist() == src.tolist()


def test_void_and_2d_uint8_are_fixed_size_binary():
    raw = rng.integers(0, 256, (4, 5), dtype=np.uint8)
    assert _col(raw).type == DataType("fixed_size_binary", byte_width=5)
    assert _col(raw).to_pylist() == [bytes(r) for r in raw]
    void = raw.view("V5").reshape(-1)
    assert _col(void).to_pylist() == [bytes(r) for r in raw]


def test_object_array_is_inferred_and_masked_object_array_too():
    assert _col(np.array([1, None, 3], dtype=object)).to_pylist() == [1, None, 3]
    masked = np.ma.masked_array(np.array(["a", "b", 5], dtype=object), mask=[False, False, True])
    arr = _col(masked)
    assert arr.type == DataType("string") and arr.to_pylist() == ["a", "b", None]


@pytest.mark.parametrize("src", [np.array([1j]), np.array([1], dtype="m8[s]"),
                                 np.array([1], dtype=np.longdouble) if np.longdouble != np.float64 else np.array([1j]),
                                 np.zeros(2, dtype=[("a", "i4")])])
def test_dtypes_without_a_parquet_type(src):
    with schema_error("c", match="no Parquet type"):
        _col(src)


def test_two_dimensional_non_bytes_is_misuse():
    with pytest.raises(ValueError, match="1-D"):
        _col(np.zeros((2, 2)))
