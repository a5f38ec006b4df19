"""``pc.parse_partition_value``: the one folder text -> value conversion (issue 17), and
``pc.Partitioning(inference="spark")`` for Python reads of Spark-written folders.

Expected values come from Python's own renderings (``str``, ``isoformat``, ``format``) of
the generated values, or from pyarrow, never from our output."""

from __future__ import annotations

import datetime as dt
import decimal
import math
from zoneinfo import ZoneInfo

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.errors import ParquetSchemaError

parse = pc.parse_partition_value

_INTS = {"int8": (-(2**7), 2**7 - 1), "int16": (-(2**15), 2**15 - 1), "int32": (-(2**31), 2**31 - 1),
         "int64": (-(2**63), 2**63 - 1), "uint8": (0, 255), "uint16": (0, 2**16 - 1),
         "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}


@pytest.mark.parametrize("name", sorted(_INTS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_ints_round_trip(name, data):
    lo, hi = _INTS[name]
    v = data.draw(st.integers(lo, hi))
    typ = pc.DataType(name)
    assert parse(str(v), typ, "c") == v
    with pytest.raises(ParquetSchemaError, match=r"column 'c'.*out of range"):
        parse(str(data.draw(st.sampled_from([lo - 1, hi + 1]))), typ, "c")


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_float64_round_trip(v):
    got = parse(str(v), pc.float64(), "c")
    assert (math.isnan(got) and math.isnan(v)) or got == v
    got = parse(repr(v) + "d", pc.float64()) if math.isfinite(v) else got   # Spark's suffix
    assert (math.isnan(got) and math.isnan(v)) or got == v


@pytest.mark.parametrize("text, want", [("NaN", math.nan), ("Infinity", math.inf), ("-Infinity", -math.inf),
                                        ("1.5f", 1.5), ("1.0E10", 1e10), (".5", 0.5), ("7.", 7.0), (" 2 ", 2.0)])
def test_float_spark_forms(text, want):
    got = parse(text, pc.float32())
    assert (math.isnan(got) and math.isnan(want)) or got == want


@settings(max_examples=200, deadline=None)
@given(st.dates())
def test_date_round_trip(v):
    assert parse(v.isoformat(), pc.date32(), "c") == v


@settings(max_examples=200, deadline=None)
@given(st.datetimes(), st.sampled_from([" ", "T"]))
def test_naive_timestamp_round_trip(v, sep):
    assert parse(v.isoformat(sep), pc.timestamp("us"), "c") == v
    ms = v.replace(microsecond=v.microsecond // 1000 * 1000)
    assert parse(ms.isoformat(sep), pc.timestamp("ms"), "c") == ms


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=dt.datetime(1901, 1, 1), max_value=dt.datetime(2100, 1, 1)),
       st.sampled_from(["UTC", "Europe/Paris", "America/Los_Angeles", "Asia/Kolkata"]))
def test_aware_timestamp_is_wall_clock_in_zone(v, zone):
    # Spark writes the session zone's wall clock; the value is that instant in UTC
    want = v.replace(tzinfo=ZoneInfo(zone)).astimezone(dt.timezone.utc)
    got = parse(v.isoformat(" "), pc.timestamp("us", tz="UTC"), "c", tz=zone)
    assert got == want and got.utcoffset() == dt.timedelta(0)


def test_timestamp_forms():
    ts = pc.timestamp("us")
    assert parse("2024-01-02", ts) == dt.datetime(2024, 1, 2)                 # a date alone: midnight
    assert parse("2024-01-02 10:00:00.5", ts) == dt.datetime(2024, 1, 2, 10, 0, 0, 500000)
    assert parse("2024-01-02 10:00:00.123456000", ts) == dt.datetime(2024, 1, 2, 10, 0, 0, 123456)
    got = parse("2024-01-02 10:00:00.123456789", pc.timestamp("ns"))
    assert (got.microsecond, got.nanosecond) == (123456, 789)
    assert parse("2024-01-02 10:00:00", pc.timestamp("us", tz="UTC")) == \
        dt.datetime(2024, 1, 2, 10, tzinfo=dt.timezone.utc)                   # tz=None: UTC


@settings(max_examples=200, deadline=None)
@given(st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-10**9, max_value=10**9))
def test_decimal_round_trip(v):
    got = parse(format(v, "f"), pc.decimal(13, 3), "c")
    assert got == v and got.as_tuple().exponent == -3
    assert parse(format(v, "E"), pc.decimal(13, 3), "c") == v                 # exponent form too


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_string_and_binary(v):
    assert parse(v, pc.string()) == v
    assert parse(v, pc.binary()) == v.encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("typ", [pc.int32(), pc.float64(), pc.string(), pc.date32(), pc.null()])
def test_null(typ):
    assert parse(None, typ) is None
    assert parse("__HIVE_DEFAULT_PARTITION__", typ) is None


def test_bool():
    assert parse("true", pc.bool_()) is True and parse("FALSE", pc.bool_()) is False


@pytest.mark.parametrize("text, typ", [
    ("1_000", pc.int32()), (" 1", pc.int64()), ("1.0", pc.int32()), ("", pc.int32()), ("x", pc.float64()),
    ("1e", pc.float64()), ("yes", pc.bool_()), ("2024-02-30", pc.date32()), ("20240102", pc.date32()),
    ("2024-01-02 25:00:00", pc.timestamp("us")), ("2024-01-02 10:00", pc.timestamp("us")),
    ("2024-01-02 10:00:00.1234567", pc.timestamp("us")), ("2024-01-02 10:00:00.1234", pc.timestamp("ms")),
    ("1.25", pc.decimal(3, 1)), ("1000", pc.decimal(3, 0)), ("1e", pc.decimal(5, 0)), ("NaN", pc.decimal(5, 0)),
])
def test_bad_text_names_column_and_value(text, typ):
    with pytest.raises(ParquetSchemaError, match=rf"column 'col': folder value {text!r} is not a valid"):
        parse(text, typ, "col")


def test_bad_zone_and_unsupported_type():
    with pytest.raises(ParquetSchemaError, match="unknown time zone"):
        parse("2024-01-02 10:00:00", pc.timestamp("us", tz="UTC"), "c", tz="Mars/Base")
    with pytest.raises(ParquetSchemaError, match="cannot be a partition column"):
        parse("1", pc.list_(pc.int32()), "c")


def test_unknown_inference():
    with pytest.raises(ValueError, match="inference"):
        pc.Partitioning("hive", inference="hive")


# ------------------------------------------------------------------------- datasets
def _folders(root, values, key="p"):
    for i, v in enumerate(values):
        folder = root / f"{key}={pc.dataset.partitioning.encode_value(v)}" if v is not None else \
            root / f"{key}=__HIVE_DEFAULT_PARTITION__"
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({"n": [i]}), str(folder / f"part-{i}.parquet"))


@pytest.mark.parametrize("values, typ, want", [
    (["1", "3000000000"], pc.int64(), [1, 3000000000]),
    (["1", "1.5"], pc.float64(), [1.0, 1.5]),
    (["2024-01-02", "2024-02-03"], pc.date32(), [dt.date(2024, 1, 2), dt.date(2024, 2, 3)]),
    (["2024-01-02", "2024-01-02 10:00:00.5"], pc.timestamp("us", tz="UTC"),
     [dt.datetime(2024, 1, 2, tzinfo=dt.timezone.utc), dt.datetime(2024, 1, 2, 10, 0, 0, 500000, tzinfo=dt.timezone.utc)]),
    (["1", "123456789012345678901"], pc.decimal(21, 0),
     [decimal.Decimal(1), decimal.Decimal("123456789012345678901")]),
    (["true", None], pc.string(), ["true", None]),
])
def test_dataset_spark_inference(tmp_path, values, typ, want):
    _folders(tmp_path, values)
    part = pc.Partitioning("hive", inference="spark")
    t = pc.read_table(str(tmp_path), partitioning=part)
    assert t.schema.field("p").type == typ
    rows = dict(zip(t.column("n").to_pylist(), t.column("p").to_pylist()))
    assert [rows[i] for i in range(len(values))] == want
    ds = pc.ParquetDataset(str(tmp_path), partitioning=part)
    assert ds.partitioning.inference == "spark" and ds.partitioning.schema.field("p").type == typ
    # the default stays pyarrow's inference, as pyarrow.parquet itself infers (a dictionary)
    want_pa = pq.read_table(str(tmp_path)).schema.field("p").type
    got_pa = pc.read_table(str(tmp_path)).to_arrow().schema.field("p").type
    assert got_pa == want_pa


def test_dataset_spark_inference_time_zone(tmp_path):
    _folders(tmp_path, ["2024-01-02 10:00:00"])
    t = pc.read_table(str(tmp_path), partitioning=pc.Partitioning("hive", inference="spark",
                                                                   time_zone="Europe/Paris"))
    assert t.column("p").to_pylist() == [dt.datetime(2024, 1, 2, 9, tzinfo=dt.timezone.utc)]


def test_dataset_given_timestamp_and_decimal_types(tmp_path):
    # the pyarrow policy with a schema: the conversion covers timestamps and decimals too
    _folders(tmp_path, ["2024-01-02 10:00:00"], key="t")
    schema = pc.schema([pc.field("t", pc.timestamp("ms"))])
    t = pc.read_table(str(tmp_path), partitioning=schema)
    assert t.column("t").to_pylist() == [dt.datetime(2024, 1, 2, 10)]
    with pytest.raises(ParquetSchemaError, match="partition column 't'"):
        pc.read_table(str(tmp_path), partitioning=pc.schema([pc.field("t", pc.int32())]))
