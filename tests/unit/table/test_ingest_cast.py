"""as_table with an explicit schema: casts, validation, error messages.

Truth: the input values, and pyarrow (``pa.array(values, type)``) for what an
exact cast yields; refusals must name the column and the first bad row.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import numpy as np
import pytest

from parquet_core.errors import ParquetSchemaError
from parquet_core.interop.arrow_types import arrow_type
from parquet_core.schema.pyvalues import Interval
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.table.arrays import Array, Table
from parquet_core.table.ingest import as_table
from tests.unit.table.ingest_helpers import schema_error

pa = pytest.importorskip("pyarrow")

UTC = dt.timezone.utc


def _cast(values, dtype, nullable=True, **kw):
    schema = Schema([Field("c", dtype, nullable)])
    return as_table({"c": values}, schema, **kw).column("c")


def _arrow(arr):
    table = Table(Schema([Field("c", arr.type)]), [arr])
    return table.to_arrow().column(0).combine_chunks()


# ---------------------------------------------------------------- integers

INT_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("name", INT_TYPES)
def test_integers_at_the_limits_fit(name):
    info = np.iinfo(name)
    values = [int(info.min), None, int(info.max), 0]
    arr = _cast(values, DataType(name))
    assert arr.values.dtype == np.dtype(name)
    assert arr.to_pylist() == values
    assert _arrow(arr).equals(pa.array(values, getattr(pa, name)()))


@pytest.mark.parametrize("name", INT_TYPES)
def test_integers_out_of_range_are_refused(name):
    info = np.iinfo(name)
    for bad in (int(info.max) + 1, int(info.min) - 1):
        if not -(2**63) <= bad < 2**64:
            continue  # cannot even be inferred; covered by the inference tests
        with schema_error("c", 2, "out of range"):
            _cast([0, None, bad, 1], DataType(name))
        with pytest.raises((pa.ArrowInvalid, OverflowError)):  # pyarrow refuses too
            pa.array([bad], getattr(pa, name)())


def test_numpy_integers_range_checked_vectorised():
    src = np.array([1, 2, 70000, 3], dtype=np.int64)
    with schema_error("c", 2, "out of range"):
        _cast(src, DataType("int16"))
    assert _cast(src, DataType("int32")).values.dtype == np.int32
    with schema_error("c", 0, "out of range"):
        _cast(np.array([2**63], dtype=np.uint64), DataType("int64"))
    with schema_error("c", 1, "out of range"):
        _cast(np.array([0, -1]), DataType("uint64"))


def test_integral_floats_are_accepted_fractional_refused():
    arr = _cast([1.0, None, -3.0], DataType("int8"))
    assert arr.to_pylist() == [1, None, -3]
    assert pa.array([1.0, None, -3.0], pa.int8()).to_pylist() == [1, None, -3]
    with schema_error("c", 1, "fractional"):
        _cast([1.0, 2.5], DataType("int32"))
    with pytest.raises(pa.ArrowInvalid):  # pyarrow's safe cast refuses too
        pa.array([1.0, 2.5]).cast(pa.int32())
    with schema_error("c", 2, "fractional"):
        _cast(np.array([1.0, 2.0, np.nan]), DataType("int64"))
    with schema_error("c", 0, "out of range"):
        _cast(np.array([2.0**63]), DataType("int64"))
    assert _cast(np.array([2.0**63]), DataType("uint64")).to_pylist() == [2**63]


def test_bools_and_text_are_not_numbers():
    with schema_error("c", 0, "bool"):
        _cast([True], DataType("int8"))
    with schema_error("c", 1, "string"):
        _cast([None, "1"], DataType("float64"))


def test_floats_narrow_and_widen():
    arr = _cast([1, 2.5, None], DataType("float32"))
    assert arr.values.dtype == np.float32 and arr.to_pylist() == [1.0, 2.5, None]
    assert _cast(np.array([0.5], np.float64), DataType("float16")).values.dtype == np.float16


# ---------------------------------------------------------------- decimals

@pytest.mark.parametrize("p, s", [(5, 2), (18, 4), (19, 0), (38, 10), (60, 3)])
def test_decimals_store_per_precision(p, s):
    largest = Decimal("9" * (p - s) + ("." + "9" * s if s else ""))
    values = [largest, None, largest.copy_negate(), Decimal(-1).scaleb(-s), Decimal(0), 7]
    arr = _cast(values, DataType("decimal", precision=p, scale=s))
    assert arr.to_pylist() == [None if v is None else Decimal(v) for v in values]
    if p <= 18:
        assert arr.values.dtype == np.int64
    else:
        w = arr.values.shape[1]
        # the fewest bytes whose two's complement holds p digits (LogicalTypes.md)
        assert arr.values.dtype == np.uint8
        assert 10**p - 1 <= 2 ** (8 * w - 1) - 1 and 10**p - 1 > 2 ** (8 * (w - 1) - 1) - 1
        assert arr.type == DataType("decimal", precision=p, scale=s)
    typ = pa.decimal128(p, s) if p <= 38 else pa.decimal256(p, s)
    assert _arrow(arr).equals(pa.array(values, typ))


def test_decimal_rescale_is_exact_or_refused():
    assert _cast([Decimal("1.5"), Decimal("1.230")], DataType("decimal", precision=5, scale=2)) \
        .to_pylist() == [Decimal("1.50"), Decimal("1.23")]
    with schema_error("c", 1, "without rounding"):
        _cast([Decimal("1.5"), Decimal("1.234")], DataType("decimal", precision=9, scale=2))
    with schema_error("c", 0, "without rounding"):
        _cast([Decimal("1000.00")], DataType("decimal", precision=5, scale=2))
    with schema_error("c", 1, "without rounding"):
        _cast([1, 10**30], DataType("decimal", precision=30, scale=0))
    big = [10**37, -(10**37) + 1, None]
    assert _cast(big, DataType("decimal", precision=38, scale=0)).to_pylist() == big


def test_decimal_to_decimal_from_tables():
    src = _cast([Decimal("12.345"), None], DataType("decimal", precision=10, scale=3))
    table = Table(Schema([Field("c", src.type)]), [src])
    narrow = as_table(table, Schema([Field("c", DataType("decimal", precision=20, scale=5))]))
    assert narrow.column("c").to_pylist() == [Decimal("12.34500"), None]
    back = as_table(narrow, Schema([Field("c", DataType("decimal", precision=6, scale=3))]))
    assert back.column("c").to_pylist() == [Decimal("12.345"), None]
    with schema_error("c", 0, "without rounding"):
        as_table(narrow, Schema([Field("c", DataType("decimal", precision=6, scale=2))]))


def test_floats_are_refused_for_decimals():
    with schema_error("c", 0, "float64"):
        _cast([1.5], DataType("decimal", precision=5, scale=2))


# ---------------------------------------------------------------- text and bytes

def test_invalid_utf8_is_refused_unless_disabled():
    values = [b"ok", None, b"\xc3", b"\xa9"]  # the last two are valid only together
    with schema_error("c", 2, "UTF-8"):
        _cast(values, DataType("string"))
    with schema_error("c", 0, "UTF-8"):
        _cast(np.array([b"\xff"]), DataType("json"))
    assert _cast(values, DataType("enum"), validate_utf8=False).values.to_pylist() == [b"ok", b"", b"\xc3", b"\xa9"]
    assert _cast([b"caf\xc3\xa9"], DataType("string")).to_pylist() == ["café"]


def test_text_and_binary_interchange():
    assert _cast(["é"], DataType("binary")).to_pylist() == ["é".encode()]
    assert _cast(np.array(["x", "y"]), DataType("json")).to_pylist() == ["x", "y"]


def test_fixed_size_binary_lengths():
    arr = _cast([b"abc", None, b"xyz"], DataType("fixed_size_binary", byte_width=3))
    assert arr.values.shape == (3, 3) and arr.to_pylist() == [b"abc", None, b"xyz"]
    assert _arrow(arr).equals(pa.array([b"abc", None, b"xyz"], pa.binary(3)))
    with schema_error("c", 1, "length"):
        _cast([b"abc", b"ab"], DataType("fixed_size_binary", byte_width=3))
    with schema_error("c", 0, "16"):
        _cast(np.zeros((1, 8), np.uint8), DataType("uuid", byte_width=16))


def test_uuid_from_uuid_and_bytes():
    u = uuid.UUID(int=12345)
    assert _cast([u, None], DataType("uuid", byte_width=16)).to_pylist() == [u, None]
    assert _cast([u.bytes, None], DataType("uuid", byte_width=16)).to_pylist() == [u, None]
    with schema_error("c", 0, "16 bytes"):
        _cast([u.bytes[:15]], DataType("uuid", byte_width=16))


def test_interval():
    iv = [Interval(1, 2, 3), None]
    assert _cast(iv, DataType("interval", byte_width=12)).to_pylist() == iv


# ---------------------------------------------------------------- temporal

def test_timestamp_units_change_exactly():
    ns = np.array([1_000, 2_000_000, -3_000], dtype="M8[ns]")
    assert _cast(ns, DataType("timestamp", unit="us")).values.tolist() == [1, 2_000, -3]
    with schema_error("c", 1, "lose precision"):
        _cast(np.array([1_000, 1_001], dtype="M8[ns]"), DataType("timestamp", unit="us"))
    with pytest.raises(pa.ArrowInvalid):  # pyarrow's safe cast refuses too
        pa.array(np.array([1_001], dtype="M8[ns]")).cast(pa.timestamp("us"))
    when = [dt.datetime(2020, 1, 1, 0, 0, 0, 5), None]
    arr = _cast(when, DataType("timestamp", unit="ns"))
    assert _arrow(arr).equals(pa.array(when, pa.timestamp("ns")))
    with schema_error("c", 0, "overflow"):
        _cast([dt.datetime(9999, 1, 1)], DataType("timestamp", unit="ns"))


def test_timestamp_tz_must_match():
    aware = [dt.datetime(2020, 1, 1, tzinfo=UTC)]
    naive = [None, dt.datetime(2020, 1, 1)]
    assert _cast(aware, DataType("timestamp", unit="ms", tz="UTC")).values.tolist() == [1577836800000]
    with schema_error("c", 0, "tz-aware"):
        _cast(aware, DataType("timestamp", unit="us"))
    with schema_error("c", 1, "naive"):
        _cast(naive, DataType("timestamp", unit="us", tz="UTC"))
    with schema_error("c", 0, "naive"):
        _cast(np.array([0], "M8[us]"), DataType("timestamp", unit="us", tz="UTC"))
    # integers are counts of the column's unit, whatever its tz
    assert _cast(np.array([5]), DataType("timestamp", unit="us", tz="UTC")).values.tolist() == [5]


def test_dates():
    d = [dt.date(2020, 1, 1), None]
    arr = _cast(d, DataType("date"))
    assert arr.values.dtype == np.int32 and arr.to_pylist() == d
    assert _cast(np.array(["2020-01-01"], "M8[us]"), DataType("date")).to_pylist() == [dt.date(2020, 1, 1)]
    with schema_error("c", 1, "midnight"):
        _cast(np.array(["2020-01-01", "2020-01-01T01"], "M8[us]"), DataType("date"))
    assert _cast([dt.date(1970, 1, 3)], DataType("timestamp", unit="ms")).values.tolist() == [2 * 86_400_000]


def test_times():
    t = [dt.time(1, 2, 3, 4000), None]
    ms = _cast(t, DataType("time", unit="ms"))
    assert ms.values.dtype == np.int32 and ms.to_pylist() == t
    assert _arrow(ms).equals(pa.array(t, pa.time32("ms")))
    assert _cast(t, DataType("time", unit="ns")).values.dtype == np.int64
    with schema_error("c", 0, "lose precision"):
        _cast([dt.time(0, 0, 0, 1)], DataType("time", unit="ms"))
    with schema_error("c", 1, "time of day"):
        _cast(np.array([0, 86_400_000]), DataType("time", unit="ms"))


# ---------------------------------------------------------------- nulls and shape

def test_nulls_in_non_nullable_field():
    with schema_error("c", 2, "non-nullable"):
        _cast([1, 2, None], DataType("int32"), nullable=False)
    with schema_error("c", 1, "non-nullable"):
        _cast(np.ma.masked_array(["a", "b"], [False, True]), DataType("string"), nullable=False)
    arr = _cast([1, 2], DataType("int32"), nullable=False)
    assert arr.validity is None


@pytest.mark.parametrize("dtype", [DataType("int32"), DataType("string"), DataType("uuid", byte_width=16),
                                   DataType("decimal", precision=30, scale=2), DataType("null"),
                                   DataType("time", unit="ms"), DataType("fixed_size_binary", byte_width=4)])
def test_all_null_column_takes_any_type(dtype):
    arr = _cast([None, None], dtype)
    assert arr.type == dtype and arr.null_count == 2
    assert _arrow(arr).equals(pa.nulls(2, arrow_type(dtype)))
    with schema_error("c", 0, "non-nullable"):
        _cast([None], dtype, nullable=False)


def test_null_type_refuses_values():
    with schema_error("c", 1, "null"):
        _cast([None, 1], DataType("null"))


def test_column_lengths_must_agree():
    with schema_error("b", match="2 rows.*'a' has 3"):
        as_table({"a": [1, 2, 3], "b": np.array([1, 2])})
    with schema_error("b", match="4 rows"):
        as_table({"a": [1, 2, 3], "b": (x for x in range(4))})


def test_schema_names_must_match_and_order_follows_schema():
    schema = Schema([Field("b", DataType("int8")), Field("a", DataType("string"))])
    t = as_table({"a": ["x"], "b": [1]}, schema)
    assert t.column_names == ["b", "a"] and t.schema == schema
    with schema_error("a", match="not in the data"):
        as_table({"b": [1]}, schema)
    with schema_error("z", match="not in the schema"):
        as_table({"a": ["x"], "b": [1], "z": [0]}, schema)
    assert as_table({"a": ["x"], "b": [1]}, list(schema)).schema == schema


def test_table_without_schema_is_returned_and_with_schema_is_checked():
    t = as_table({"a": [1, None]})
    assert as_table(t) is t
    with schema_error("a", 1, "non-nullable"):
        as_table(t, Schema([Field("a", DataType("int64"), nullable=False)]))
    bad = Table(Schema([Field("s", DataType("string"))]),
                [Array(DataType("string"), as_table({"s": [b"\xff"]}).column("s").values)])
    with schema_error("s", 0, "UTF-8"):
        as_table(bad, bad.schema)
    assert as_table(bad, bad.schema, validate_utf8=False).num_rows == 1


def test_misuse_raises_type_and_value_errors():
    with pytest.raises(TypeError):
        as_table([1, 2, 3])
    with pytest.raises(TypeError):
        as_table({"a": "abc"})
    with pytest.raises(TypeError):
        as_table({"a": 5})
    with pytest.raises(TypeError):
        as_table({1: [1]})
    with pytest.raises(TypeError):
        as_table({"a": [1]}, schema={"a": "int"})
    with pytest.raises(ValueError):
        as_table({"a": [1]}, [Field("a", DataType("int8")), Field("a", DataType("int8"))])
    with pytest.raises(ParquetSchemaError):
        as_table({"a": [1]}, [Field("a", DataType("list"))])
