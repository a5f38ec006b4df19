"""Type inference from Python values (parquet_core.table.infer through as_table).

The Python values themselves are the truth: a column must come back from
``to_pylist`` as given (tz-aware datetimes as the same instants in UTC), and
where pyarrow infers the same type its ``pa.array`` must agree with ours.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal, localcontext

import numpy as np
import pytest

from parquet_core._kernels.binary import ByteArrays
from parquet_core.interop.arrow_types import arrow_type
from parquet_core.schema.pyvalues import Interval
from parquet_core.schema.types import DataType
from parquet_core.table.ingest import as_table
from tests.unit.table.ingest_helpers import schema_error

pa = pytest.importorskip("pyarrow")

UTC = dt.timezone.utc
PLUS2 = dt.timezone(dt.timedelta(hours=2))
MINUS5 = dt.timezone(dt.timedelta(hours=-5, minutes=-30))


def _col(values):
    return as_table({"c": values}).column("c")


@pytest.mark.parametrize("values, type_name", [
    ([True, None, False], "bool"),
    ([1, None, -3, 2**63 - 1, -(2**63)], "int64"),
    ([1, 2**63, 2**64 - 1, None], "uint64"),
    ([1.5, None, float("inf"), -0.0], "float64"),
    ([1, 2.5, None, 3], "float64"),
    (["a", None, "é€", "😀", ""], "string"),
    ([b"x", None, b"", b"\x00\xff"], "binary"),
    ([dt.date(2020, 2, 29), None, dt.date(1, 1, 1), dt.date(9999, 12, 31)], "date"),
    ([np.int8(3), 4, np.uint16(5)], "int64"),
    ([np.float32(0.5), 1], "float64"),
    ([np.str_("x"), "y"], "string"),
    ([np.True_, False], "bool"),
])
def test_simple_kinds_round_trip_and_match_pyarrow(values, type_name):
    arr = _col(values)
    assert arr.type == DataType(type_name)
    assert arr.to_pylist() == [None if v is None else (v.item() if isinstance(v, np.generic) else v)
                               for v in values]
    # pyarrow infers int64 for big ints and fails; uint64 is our documented extension
    plain = [v.item() if isinstance(v, np.generic) else v for v in values]
    expected = pa.array(plain, type=pa.uint64() if type_name == "uint64" else None)
    assert expected.type == arrow_type(arr.type)
    assert arr.to_pylist() == expected.to_pylist()
    if arr.validity is not None:
        assert arr.validity.tolist() == [v is not None for v in values]


def test_storage_layouts_follow_the_types_table():
    t = as_table({
        "d": [dt.date(1970, 1, 2)], "t": [dt.time(0, 0, 1)], "ts": [dt.datetime(1970, 1, 1, 0, 0, 1)],
        "u": [uuid.UUID(int=1)], "i": [Interval(1, 2, 3)], "s": ["ab"],
    })
    assert t["d"].values.dtype == np.int32 and t["d"].values.tolist() == [1]
    assert t["t"].values.dtype == np.int64 and t["t"].values.tolist() == [1_000_000]
    assert t["ts"].values.dtype == np.int64 and t["ts"].values.tolist() == [1_000_000]
    assert t["u"].values.shape == (1, 16) and t["u"].values.dtype == np.uint8
    assert bytes(t["u"].values[0]) == uuid.UUID(int=1).bytes
    assert t["i"].values.shape == (1, 12)
    assert bytes(t["i"].values[0]) == (1).to_bytes(4, "little") + (2).to_bytes(4, "little") + (3).to_bytes(4, "little")
    assert isinstance(t["s"].values, ByteArrays) and t["s"].values.to_pylist() == [b"ab"]


def test_null_slots_hold_zero_filler():
    t = as_table({"i": [None, 5], "s": [None, "xy"], "ts": [None, dt.datetime(2000, 1, 1)],
                  "u": [None, uuid.UUID(int=7)]})
    assert t["i"].values[0] == 0
    assert t["s"].values.lengths().tolist() == [0, 2]
    assert t["ts"].values[0] == 0
    assert not t["u"].values[0].any()


def test_bytes_like_values():
    arr = _col([bytearray(b"ab"), memoryview(b"cde"), b"f", None])
    assert arr.type == DataType("binary")
    assert arr.to_pylist() == [b"ab", b"cde", b"f", None]


def test_naive_datetimes_are_not_adjusted():
    values = [dt.datetime(2020, 1, 1, 12, 30, 0, 123456), None, dt.datetime(1900, 1, 1)]
    arr = _col(values)
    assert arr.type == DataType("timestamp", unit="us")
    assert arr.to_pylist() == values
    assert arr.values.tolist()[0] == pa.scalar(values[0], pa.timestamp("us")).value


def test_aware_datetimes_are_converted_to_utc():
    values = [dt.datetime(2020, 1, 1, 12, tzinfo=PLUS2), None, dt.datetime(2020, 6, 1, 1, tzinfo=MINUS5),
              dt.datetime(2020, 1, 1, tzinfo=UTC)]
    arr = _col(values)
    assert arr.type == DataType("timestamp", unit="us", tz="UTC")
    assert arr.to_pylist() == [None if v is None else v.astimezone(UTC) for v in values]
    # pyarrow agrees on the instants
    expected = pa.array([None if v is None else v.astimezone(UTC) for v in values], pa.timestamp("us", "UTC"))
    assert arr.values.tolist() == expected.fill_null(0).cast(pa.int64()).to_pylist()


def test_times_in_microseconds():
    values = [dt.time(0), dt.time(23, 59, 59, 999999), None, dt.time(12, 0, 0, 1)]
    arr = _col(values)
    assert arr.type == DataType("time", unit="us")
    assert arr.to_pylist() == values
    assert arr.values.tolist() == pa.array(values, pa.time64("us")).fill_null(0).cast(pa.int64()).to_pylist()


@pytest.mark.parametrize("values", [
    [Decimal("1.25"), Decimal("-100.5"), None],
    [Decimal("0.001"), Decimal("12345")],
    [Decimal("0")],
    [Decimal("1E+3"), Decimal("0.00")],
    [Decimal("123456789012345678901234567890.12")],
    [Decimal("-99999999999999999.9"), 7],
])
def test_decimals_get_the_smallest_covering_type(values):
    arr = _col(values)
    p, s = arr.type.precision, arr.type.scale
    assert arr.to_pylist() == values
    # scale counts the fractional digits each value is written with (Decimal("1.50")
    # has 2), precision the digits then needed: pyarrow infers the same type
    assert pa.array(values).type == pa.decimal128(p, s)
    with localcontext() as ctx:
        ctx.prec = 100
        present = [Decimal(v) for v in values if v is not None]
        assert all(v == v.quantize(Decimal(1).scaleb(-s)) for v in present)
    if p <= 18:
        assert arr.values.dtype == np.int64
    else:
        assert arr.values.dtype == np.uint8 and arr.values.ndim == 2


def test_uuid_and_interval():
    ids = [uuid.UUID(int=i * 2**100 + 5) for i in range(3)] + [None]
    assert _col(ids).type == DataType("uuid", byte_width=16)
    assert _col(ids).to_pylist() == ids
    iv = [Interval(0, 1, 2), None, Interval(2**32 - 1, 0, 2**32 - 1)]
    assert _col(iv).type == DataType("interval", byte_width=12)
    assert _col(iv).to_pylist() == iv


@pytest.mark.parametrize("values", [[None, None], []])
def test_all_null_or_empty_is_null_type(values):
    arr = _col(values)
    assert arr.type == DataType("null")
    assert arr.null_count == len(values)
    assert pa.array(values).type == pa.null()


@pytest.mark.parametrize("values, row, match", [
    ([1, "a"], 1, "str"),
    (["a", None, 1], 2, "int"),
    ([1, 2.0, None, "x"], 3, "str"),
    ([True, 1], 1, "int"),
    ([1.5, Decimal(1)], 1, "Decimal"),
    ([dt.date(2020, 1, 1), dt.datetime(2020, 1, 1)], 1, "datetime"),
    ([None, object()], 1, "object"),
    ([dt.timedelta(1)], 0, "timedelta"),
    ([1, 2, np.datetime64("2020-01-01")], 2, "datetime64"),
    ([None, int], 1, "type"),
    ([0, 2**64], 1, "64 bits"),
    ([-(2**63) - 1], 0, "64 bits"),
    ([-1, 5, 2**63], 2, "negative"),
    ([dt.datetime(2020, 1, 1), None, dt.datetime(2020, 1, 1, tzinfo=UTC)], 2, "naive and tz-aware"),
    ([dt.datetime(2020, 1, 1, tzinfo=UTC), dt.datetime(2020, 1, 1)], 1, "naive and tz-aware"),
    ([Decimal(1), Decimal("NaN")], 1, "NaN"),
    (["ok", "\ud800"], 1, "surrogate"),
    ([dt.time(1), dt.time(2, tzinfo=UTC)], 1, "tzinfo"),
    ([Interval(0, 0, 0), Interval(0, -1, 0)], 1, "unsigned"),
])
def test_incompatible_values_name_column_and_first_row(values, row, match):
    with schema_error("c", row, match):
        as_table({"c": values})


def test_generators_and_tuples_are_columns():
    t = as_table({"a": (x for x in range(3)), "b": (1, 2, 3), "c": range(3)})
    assert t.to_pydict() == {"a": [0, 1, 2], "b": [1, 2, 3], "c": [0, 1, 2]}



def _one_row_table(pc, t):
    from parquet_core.table.arrays import Array

    if t.name == "int96":
        return pc.Table(pc.Schema([pc.field("x", t)]), [Array(t, np.zeros((1, 12), dtype=np.uint8))], 1)
    value = {"null": None, "bool": True, "int8": 1, "uint16": 1, "uint64": 1, "float16": 1.5, "float32": 1.5,
             "date": dt.date(2020, 1, 1), "time": dt.time(1, 2, 3),
             "timestamp": dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc), "decimal": Decimal("1.25"),
             "string": "a", "binary": b"a", "fixed_size_binary": b"abcde", "uuid": uuid.UUID(int=5),
             "interval": Interval(1, 2, 3)}[t.name]
    return {"x": [value]}


def test_empty_arrays_have_their_types_storage():
    """An empty array holds the same storage kind as a read of that type; Arrow takes it."""
    import io

    import parquet_core as pc
    from parquet_core.table.arrays import empty_array

    types = [pc.null(), pc.bool_(), pc.int8(), pc.uint16(), pc.uint64(), pc.float16(), pc.float32(), pc.date(),
             pc.time("ms"), pc.time("ns"), pc.timestamp("us", utc=True), pc.decimal(10, 2), pc.decimal(30, 2),
             pc.string(), pc.binary(), pc.fixed_size_binary(5), pc.uuid(), pc.interval(), pc.int96()]
    for t in types:
        empty = empty_array(pc.field("x", t))
        assert len(empty) == 0 and empty.to_pylist() == []
        buf = io.BytesIO()
        pc.write_table(_one_row_table(pc, t), buf, schema=pc.schema([pc.field("x", t)]))
        full = pc.read_table(io.BytesIO(buf.getvalue())).column("x")
        assert type(full.values) is type(empty.values), t
        if isinstance(full.values, np.ndarray) and t.name != "null":   # null: any placeholder storage
            assert (full.values.dtype, full.values.shape[1:]) == (empty.values.dtype, empty.values.shape[1:]), t
        pytest.importorskip("pyarrow")
        assert pc.Table(pc.Schema([pc.field("x", t)]), [empty], 0).to_arrow().num_rows == 0, t


def test_pandas_timestamps_keep_nanoseconds_and_datetime64_scalars_infer_their_unit():
    import io

    pd = pytest.importorskip("pandas")
    pq = pytest.importorskip("pyarrow.parquet")
    import parquet_core as pc
    from parquet_core.errors import ParquetSchemaError
    from parquet_core.table.ingest import as_array

    stamps = [pd.Timestamp("1955-12-17 00:12:06.074463678"), None, pd.Timestamp("2262-04-11 23:47:16.854775807")]
    arr = as_array(stamps)
    assert arr.type == DataType("timestamp", unit="ns")
    buf = io.BytesIO()
    pc.write_table({"t": stamps}, buf)
    got = pq.read_table(io.BytesIO(buf.getvalue())).column("t").cast("int64").to_pylist()
    assert got == [s.value if s is not None else None for s in stamps]      # pandas' exact ns
    # microsecond-exact Timestamps stay microseconds, tz-aware ones UTC
    assert as_array([pd.Timestamp("2020-01-01 00:00:00.000001", tz="Europe/Paris")]).type == \
        DataType("timestamp", unit="us", tz="UTC")
    for unit, want in [("s", "ms"), ("ms", "ms"), ("us", "us"), ("ns", "ns"), ("D", "ms")]:
        a = as_array([np.datetime64("2021-03-04", unit), np.datetime64("1999-12-31", unit)])
        assert a.type == DataType("timestamp", unit=want), unit
        assert a.values.tolist() == np.array(["2021-03-04", "1999-12-31"], f"M8[{want}]").view("i8").tolist()
    with pytest.raises(ParquetSchemaError, match="NaT"):
        as_array([np.datetime64("2021-03-04", "s"), np.datetime64("NaT", "s")])
