"""Decimals to Arrow (``to_arrow``, ``to_pandas``, filtered reads, the C-interface export):
every Parquet storage of every width gives pyarrow's values, without a Python
``Decimal`` per value (issue 32: FIXED_LEN_BYTE_ARRAY went through ``to_pylist``)."""

from __future__ import annotations

import os
from decimal import Context, Decimal

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core._kernels.binary import ByteArrays
from parquet_core.schema.types import DataType
from parquet_core.interop.arrow import array_to_arrow
from parquet_core.table import arrays as arrays_mod

_WIDE = Context(prec=100)   # the default context rounds to 28 digits
DATA = os.environ.get("PARQUET_TEST_DATA", "/work/shared/parquet-testing/data")


@pytest.fixture
def no_pylist(monkeypatch):
    """Make a per-value conversion fail loudly: the bulk paths must not call to_pylist."""
    def refuse(self):  # type: ignore[no-untyped-def]
        raise AssertionError("decimal conversion went through Array.to_pylist")
    monkeypatch.setattr(arrays_mod.Array, "to_pylist", refuse)


def _unscaled(precision: int, n: int, seed: int) -> list[int | None]:
    rng = np.random.default_rng(seed)
    top = 10**precision - 1
    vals: list[int | None] = [top, -top, 0, -1, 1, None]
    for _ in range(n):
        digits = int(rng.integers(1, precision + 1))
        v = int("".join(str(d) for d in rng.integers(0, 10, digits)))
        vals.append(-v if rng.integers(0, 2) else v)
    vals[len(vals) // 2] = None
    return vals


def _arrow_decimals(precision: int, scale: int, seed: int) -> pa.Array:
    typ = pa.decimal128(precision, scale) if precision <= 38 else pa.decimal256(precision, scale)
    return pa.array([None if v is None else Decimal(v).scaleb(-scale, _WIDE) for v in _unscaled(precision, 40, seed)],
                    typ)


def _check_file(path) -> None:  # type: ignore[no-untyped-def]
    want = pq.read_table(path, use_threads=False)
    got = pc.read_table(path).to_arrow()
    # to_arrow() restores decimal32 / decimal64 from ARROW:schema, as pyarrow does
    assert got.schema.types == want.schema.types
    assert got.equals(want)
    # the C-interface export keeps the Parquet type (decimal128 for a decimal32 column): compare values
    exported = pa.table(pc.read_table(path))
    assert exported.cast(want.schema).equals(want)
    assert pc.read_table(path).to_pandas().equals(want.to_pandas())


@pytest.mark.parametrize("precision", list(range(1, 39)))
def test_fixed_len_byte_array_decimal128_each_width(tmp_path, no_pylist, precision):
    # pyarrow stores decimal128(p) as FIXED_LEN_BYTE_ARRAY of the fewest bytes: 1..16
    path = tmp_path / "d.parquet"
    scale = precision // 3
    pq.write_table(pa.table({"d": _arrow_decimals(precision, scale, precision)}), path)
    col = pq.ParquetFile(path).schema.column(0)
    assert col.physical_type == "FIXED_LEN_BYTE_ARRAY"
    _check_file(path)


@pytest.mark.parametrize("precision", [39, 40, 42, 45, 47, 50, 52, 55, 57, 60, 62, 64, 67, 69, 72, 74, 76])
def test_fixed_len_byte_array_decimal256_wide_widths(tmp_path, no_pylist, precision):
    # widths 17..32 bytes
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"d": _arrow_decimals(precision, 5, precision)}), path)
    assert pq.ParquetFile(path).schema.column(0).length > 16
    _check_file(path)


@pytest.mark.parametrize("precision", [1, 4, 9, 10, 15, 18])
def test_integer_stored_decimals(tmp_path, no_pylist, precision):
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"d": _arrow_decimals(precision, 2 if precision > 2 else 0, precision)}), path,
                   store_decimal_as_integer=True)
    assert pq.ParquetFile(path).schema.column(0).physical_type == ("INT32" if precision <= 9 else "INT64")
    _check_file(path)


@pytest.mark.parametrize("typ", [pa.decimal32(9, 2), pa.decimal64(18, 3), pa.decimal64(12, 0)])
def test_decimal32_and_decimal64_arrow_types(tmp_path, no_pylist, typ):
    path = tmp_path / "d.parquet"
    arr = _arrow_decimals(typ.precision, typ.scale, 3).cast(typ)
    pq.write_table(pa.table({"d": arr}), path)
    _check_file(path)


def test_byte_array_decimals_of_the_corpus(no_pylist):
    path = os.path.join(DATA, "byte_array_decimal.parquet")
    if not os.path.exists(path):
        pytest.skip("parquet-testing corpus not found")
    assert pq.ParquetFile(path).schema.column(0).physical_type == "BYTE_ARRAY"
    _check_file(path)


@pytest.mark.parametrize("precision", [5, 20, 38, 60])
def test_byte_array_decimals_of_every_length(no_pylist, precision):
    # BYTE_ARRAY storage as the reader gives it: minimal big-endian values of 1..width bytes,
    # negatives, nulls (an empty slot) and an empty value, which counts as zero
    vals = _unscaled(precision, 60, precision + 100)
    raw = [b"" if v is None else v.to_bytes((v.bit_length() + 8) // 8, "big", signed=True) for v in vals]
    raw[3] = b""     # the value -1 stored with no bytes reads as 0
    vals[3] = 0
    validity = np.array([v is not None for v in vals])
    typ = pa.decimal128(precision, 3) if precision <= 38 else pa.decimal256(precision, 3)
    want = pa.array([None if v is None else Decimal(v).scaleb(-3, _WIDE) for v in vals], typ)
    col = pc.Array(DataType("decimal", precision=precision, scale=3), ByteArrays.from_pylist(raw), validity)
    assert array_to_arrow(col).equals(want)
    assert pa.array(col).equals(want)      # the C-interface export


def test_filtered_read_of_fixed_decimals(tmp_path, no_pylist):
    path = tmp_path / "d.parquet"
    n = 5000
    cents = np.arange(n, dtype=np.int64) * 37 - 90_000
    words = np.empty((n, 2), dtype="<i8")
    words[:, 0], words[:, 1] = cents, cents >> 63
    dec = pa.Array.from_buffers(pa.decimal128(15, 2), n, [None, pa.py_buffer(words)])
    pq.write_table(pa.table({"id": np.arange(n), "price": dec}), path, row_group_size=1000)
    flt = [("id", ">=", 1234), ("id", "<", 3456)]
    got = pc.read_table(path, filters=flt).to_arrow()
    want = pq.read_table(path, filters=flt, use_threads=False)
    assert got.equals(want)


def test_wider_fixed_bytes_than_arrow_holds_are_refused_when_they_carry_digits():
    dt = DataType("decimal", precision=38, scale=0, byte_width=20)
    ok = np.array([list(v.to_bytes(20, "big", signed=True)) for v in (-(10**37), 7)], dtype=np.uint8)
    assert array_to_arrow(pc.Array(dt, ok)).to_pylist() == [Decimal(-(10**37)), Decimal(7)]
    bad = np.array([list((2**150).to_bytes(20, "big", signed=True))], dtype=np.uint8)
    with pytest.raises(pc.ParquetSchemaError, match="row 0"):
        array_to_arrow(pc.Array(dt, bad))
