"""Issue 32: ``to_pandas()`` of decimal and date columns builds its objects without the
per-value ``to_pylist``/``py_values`` path (unscaled integers from numpy, each distinct value
made once when few are distinct), and gives pyarrow's frame: the same values, and for
decimals the same exponent (``str`` equal, not only ``==``).

Oracle: ``pq.read_table(f).to_pandas()`` of the same file.
"""

from __future__ import annotations

import io
from decimal import Context, Decimal

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.interop import pandas_out
from parquet_core.table import arrays as arrays_mod

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

_WIDE = Context(prec=200)


@pytest.fixture
def no_per_value(monkeypatch):
    """The bulk paths must not go through to_pylist or py_values."""
    def refuse(*_a, **_k):  # type: ignore[no-untyped-def]
        raise AssertionError("went through a per-value conversion")
    monkeypatch.setattr(arrays_mod.Array, "to_pylist", refuse)
    monkeypatch.setattr(pandas_out, "py_values", refuse)


def _frames(table, **write):  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    pq.write_table(table, buf, **write)
    data = buf.getvalue()
    return pc.read_table(io.BytesIO(data)).to_pandas(), pq.read_table(io.BytesIO(data)).to_pandas()


def _same(got, want) -> None:  # type: ignore[no-untyped-def]
    pd.testing.assert_frame_equal(got, want)
    for name in want.columns:
        # Decimal('1.5') == Decimal('1.50'): compare the text, which shows the exponent
        assert [None if v is None else str(v) for v in got[name]] == \
            [None if v is None else str(v) for v in want[name]], name


def _decimals(typ, unscaled, mask=None):  # type: ignore[no-untyped-def]
    vals = [Decimal(int(v)).scaleb(-typ.scale, _WIDE) for v in unscaled]
    return pa.array(vals, typ, mask=mask)


@pytest.mark.parametrize("typ,store_int", [
    (pa.decimal128(4, 2), True),      # INT32
    (pa.decimal128(15, 2), True),     # INT64
    (pa.decimal128(15, 2), False),    # FIXED_LEN_BYTE_ARRAY(7)
    (pa.decimal128(38, 10), False),   # FIXED_LEN_BYTE_ARRAY(16)
    (pa.decimal256(60, 5), False),    # FIXED_LEN_BYTE_ARRAY(26)
    (pa.decimal32(9, 3), False),
    (pa.decimal64(18, 0), False),
], ids=["int32", "int64", "flba7", "flba16", "flba26", "decimal32", "decimal64-scale0"])
@pytest.mark.parametrize("distinct", [5, 100_000], ids=["few", "many"])
def test_decimals_of_every_storage(no_per_value, typ, store_int, distinct):
    rng = np.random.default_rng(distinct)
    n = 3000
    top = min(10 ** typ.precision - 1, 2**62)
    pool = rng.integers(-top, top, distinct, dtype=np.int64)
    unscaled = pool[rng.integers(0, distinct, n)]
    unscaled[:3] = [0, -1, top]
    mask = rng.random(n) < 0.1
    table = pa.table({"d": _decimals(typ, unscaled, mask)})
    got, want = _frames(table, store_decimal_as_integer=store_int)
    _same(got, want)


def test_decimals_wider_than_64_bits(no_per_value):
    # values past 2**63 take a Python int each; the others still come from numpy
    typ = pa.decimal256(70, 4)
    big = [10**69 - 1, -(10**69) + 1, 2**64, -(2**63) - 1, 2**63, 7, 0, -5]
    unscaled = big * 300
    table = pa.table({"d": pa.array([Decimal(v).scaleb(-4, _WIDE) for v in unscaled], typ)})
    got, want = _frames(table)
    _same(got, want)


def test_byte_array_decimals(no_per_value):
    # BYTE_ARRAY storage (pyarrow does not write it): the reader's own column against the
    # Decimals computed here
    from parquet_core._kernels.binary import ByteArrays
    from parquet_core.interop.pandas_objects import decimal_objects
    from parquet_core.schema.types import DataType

    vals = [0, 1, -1, 12345, -12345, 2**70, -(2**70)] * 200
    raw = [v.to_bytes((v.bit_length() + 8) // 8, "big", signed=True) for v in vals]
    col = pc.Array(DataType("decimal", precision=30, scale=3), ByteArrays.from_pylist(raw), None)
    got = decimal_objects(pd, col).tolist()
    assert [str(v) for v in got] == [str(Decimal(v).scaleb(-3, _WIDE)) for v in vals]


@pytest.mark.parametrize("distinct", [30, 5000], ids=["few", "many"])
def test_dates(no_per_value, distinct):
    rng = np.random.default_rng(distinct)
    n = 6000
    days = rng.integers(-719162, 2932896, distinct)[rng.integers(0, distinct, n)].astype(np.int32)
    mask = rng.random(n) < 0.1
    table = pa.table({"d": pa.array(days, pa.date32(), mask=mask), "e": pa.array(days, pa.date32())})
    got, want = _frames(table)
    _same(got, want)


def test_few_distinct_decimals_share_one_object():
    typ = pa.decimal128(15, 2)
    table = pa.table({"d": _decimals(typ, np.array([105, -3] * 2000))})
    got, _ = _frames(table)
    assert len({id(v) for v in got["d"]}) == 2
