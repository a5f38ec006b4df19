"""The canonical value forms and their comparison (values from the standard library, not from us)."""

from __future__ import annotations

import datetime as dt
import decimal
import uuid

import pytest

from parquet_core.compat.canonical import compare, from_arrow, from_python


def test_python_forms() -> None:
    utc = dt.timezone.utc
    assert from_python(float("nan")) == "f:nan"
    assert from_python(-0.0) == "f:-0.0" != from_python(0.0)
    assert from_python(decimal.Decimal("1.20")) == "d:1.20"
    assert from_python(b"\x00\xff") == "b:00ff"
    assert from_python(uuid.UUID(int=1)) == "b:" + "00" * 15 + "01"
    # 2020-01-01T00:00:00Z is 1577836800 s after the epoch
    assert from_python(dt.datetime(2020, 1, 1, tzinfo=utc)) == "tsz:1577836800000000000"
    assert from_python(dt.datetime(2020, 1, 1)) == "ts:1577836800000000000"
    assert from_python(dt.date(1970, 1, 2)) == "date:1"
    assert from_python(dt.time(0, 0, 1)) == "t:1000000000"
    assert from_python({"a": [1, None]}) == {"a": [1, None]}


def test_arrow_forms_match_python_forms() -> None:
    pa = pytest.importorskip("pyarrow")
    t = pa.table({"ts": pa.array([1_577_836_800_000], pa.timestamp("ms", tz="UTC")),
                  "t": pa.array([1_000_000], pa.time64("us")),
                  "h": pa.array([1.5], pa.float16()) if hasattr(pa, "float16") else pa.array([1.5]),
                  "m": pa.array([[("a", 1)]], pa.map_(pa.string(), pa.int64())),
                  "d": pa.array([decimal.Decimal("1.20")], pa.decimal128(4, 2))})
    got = from_arrow(t)
    assert got == {"ts": ["tsz:1577836800000000000"], "t": ["t:1000000000"], "h": ["f:1.5"],
                   "m": [[["a", 1]]], "d": ["d:1.20"]}


def test_compare_verdicts() -> None:
    assert compare({"v": [1, "f:nan"]}, {"v": [1, "f:nan"]}) == ("ok", "")
    verdict, how = compare({"v": ["f:-0.0"]}, {"v": ["f:0.0"]})
    assert verdict == "different" and "v[0]" in how
    assert compare({"v": ["tsz:5"]}, {"v": ["ts:5"]})[0] == "different"     # the UTC flag matters
    assert compare({"v": ["abc"]}, {"v": ["b:" + b"abc".hex()]}) == ("ok", "text read as binary")
    assert compare({"v": [1]}, {"w": [1]})[0] == "different"
    assert compare({"v": [1, 2]}, {"v": [1]})[1] == "v: 1 rows, expected 2"
    # pandas-based readers: NaN for null and floats for integers are representations
    assert compare({"v": [1, None]}, {"v": ["f:1.0", "f:nan"]}, loose=True)[0] == "ok"
    assert compare({"v": [1, None]}, {"v": ["f:1.0", "f:nan"]})[0] == "different"


def test_map_entries_as_key_value_structs() -> None:
    """polars 1.x has no map type: a map comes back as a list of {key, value} structs."""
    expected = {"m": [[["a", 1], ["b", None]], None]}
    got = {"m": [[{"key": "a", "value": 1}, {"key": "b", "value": None}], None]}
    assert compare(expected, got) == ("ok", "map entries as key/value structs")
    assert compare(expected, {"m": [[{"key": "a", "value": 2}, {"key": "b", "value": None}], None]})[0] \
        == "different"


def test_float16_without_a_halffloat_cast() -> None:
    """FLOAT16 values as floats (pyarrow before 16, which cannot cast halffloat, takes the numpy route:
    exercised by the pyarrow 15 measurement, docs/compat-notes.md)."""
    pa = pytest.importorskip("pyarrow")
    np = pytest.importorskip("numpy")
    arr = pa.array(np.array([1.5, -2.0], dtype=np.float16), type=pa.float16())
    assert from_arrow(pa.table({"h": arr})) == {"h": ["f:1.5", "f:-2.0"]}
