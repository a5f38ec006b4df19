"""pandas input to as_table: our own conversion, compared with pyarrow's.

Truth: ``pa.Table.from_pandas(df, preserve_index=False)`` for the same frame,
cast to our documented type choices (dictionaries decoded, time zones as UTC).
The pandas-only route (pyarrow hidden) must give the same values.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from decimal import Decimal

import numpy as np
import pytest

import parquet_core as pc
import parquet_core.interop.pandas as pandas_interop
from parquet_core.interop.ingest import as_table
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.table.arrays import Table
from tests.unit.table.ingest_helpers import schema_error

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")


@pytest.fixture
def no_pyarrow(monkeypatch):
    """Make the pandas route believe pyarrow is not installed."""
    monkeypatch.setattr(pandas_interop, "_arrow_module", lambda: None)


def _frame():
    n = 6
    return pd.DataFrame({
        "i64": np.arange(n, dtype=np.int64) - 2,
        "u8": np.arange(n, dtype=np.uint8),
        "f32": np.linspace(0, 1, n, dtype=np.float32),
        "f_nan": [1.0, np.nan, 3.0, None, 5.0, 6.0],
        "b": [True, False] * 3,
        "s": ["a", None, "é", "", "😀", "z"],
        "Int16": pd.array([1, None, 3, 4, None, -6], dtype="Int16"),
        "boolean": pd.array([True, None, False, True, True, None], dtype="boolean"),
        "string": pd.array(["x", None, "y", "z", "w", "v"], dtype="string"),
        "cat": pd.Categorical(["lo", "hi", None, "lo", "hi", "lo"]),
        "ts": pd.to_datetime(["2020-01-01", None, "1999-12-31 23:59:59.5", "2020-01-02", "2021-06-01",
                              "1970-01-01"], format="ISO8601"),
        "tz": pd.to_datetime(["2020-01-01", None, "2020-06-01", "2020-01-01", "2020-01-01", "2020-01-01"])
              .tz_localize("Europe/Paris"),
        "d": [dt.date(2020, 1, i + 1) for i in range(n)],
        "dec": [Decimal("1.25"), None, Decimal("-3.5"), Decimal("0"), Decimal("10"), Decimal("0.01")],
        "bin": [b"x", b"", None, b"\x00", b"yz", b"q"],
    })


def _pyarrow_truth(df, ours):
    expected = pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None)
    return expected.cast(ours.to_arrow().schema)


def test_frame_matches_pyarrow():
    df = _frame()
    table = as_table(df)
    assert table.column_names == list(df.columns)
    # the converted table carries what pyarrow would write for the frame
    want = pa.Table.from_pandas(df).schema
    ours_meta, their_meta = json.loads(table.metadata[b"pandas"]), json.loads(want.metadata[b"pandas"])
    assert ours_meta.pop("creator") == {"library": "parquet-core", "version": pc.__version__}
    their_meta.pop("creator")
    assert ours_meta == their_meta
    # ARROW:schema: ours (encoded without pyarrow) holds pyarrow's types
    assert pa.ipc.read_schema(pa.py_buffer(base64.b64decode(table.metadata[b"ARROW:schema"]))).equals(want)
    plain = Table(table.schema, table.columns, table.num_rows)   # without that metadata
    assert plain.to_arrow().equals(_pyarrow_truth(df, plain))
    assert table.schema.field("cat").type == DataType("string")
    assert table.schema.field("tz").type == DataType("timestamp", unit="ns", tz="UTC")
    assert table.schema.field("f_nan").type == DataType("float64")
    assert table.column("f_nan").validity.tolist() == [True, False, True, False, True, True]


def test_pandas_only_route_gives_the_same_values(no_pyarrow):
    df = _frame().drop(columns=["cat", "tz"])     # those need pandas metadata: refused below
    ours = as_table(df)
    truth = pa.Table.from_pandas(df, preserve_index=False)
    for name in df.columns:
        got = ours.column(name).to_pylist()
        want = truth.column(name).to_pylist()
        if name == "ts":  # nanosecond pandas timestamps come back as datetimes when exact
            want = [None if v is None else v.to_pydatetime() if hasattr(v, "to_pydatetime") else v
                    for v in want]
        assert got == want, name
    # the nullable extension types keep their width on this route too
    assert ours.schema.field("Int16").type == DataType("int16")
    assert ours.schema.field("boolean").type == DataType("bool")


def test_index_is_kept_as_pyarrow_keeps_it_and_names_become_str():
    df = pd.DataFrame({0: [1, 2], "b": [3, 4]}, index=[10, 20])
    with pytest.warns(UserWarning, match="mixed type"):      # pyarrow's own warning
        want = pa.Table.from_pandas(df)
        t = as_table(df)
    assert t.column_names == want.column_names == ["0", "b", "__index_level_0__"] and t.num_rows == 2
    ranged = as_table(pd.DataFrame({"a": [1, 2]}, index=pd.RangeIndex(5, 9, 2, name="r")))
    assert ranged.column_names == ["a"]                          # a RangeIndex lives in the metadata
    assert b'"kind": "range"' in ranged.metadata[b"pandas"]


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"a": [1, 2]}, index=[10, 20]),
    pd.DataFrame({"c": pd.Categorical(["x", "y"])}),
    pd.DataFrame({"z": pd.to_datetime(["2020-01-01"] * 2).tz_localize("Europe/Paris")}),
    pd.DataFrame({"td": pd.to_timedelta([1, 2], "s")}),
    pd.DataFrame({"p": pd.period_range("2020-01", periods=2, freq="M")}),
    pd.DataFrame({"iv": pd.arrays.IntervalArray.from_breaks([0.5, 1, 2])}),
], ids=["index", "category", "zone", "timedelta", "period", "interval"])
def test_one_conversion_with_and_without_pyarrow(monkeypatch, frame):
    # periods and intervals too (issue 31): pandas' Arrow extension types, made without pyarrow
    with_pyarrow = as_table(frame)
    monkeypatch.setattr(pandas_interop, "_arrow_module", lambda: None)
    without = as_table(frame)
    assert without.equals(with_pyarrow, check_metadata=True)


def test_mixed_object_column_names_column_and_row():
    df = pd.DataFrame({"ok": [1, 2, 3], "mixed": [1, 2, "three"]})
    with schema_error("mixed", 2):
        as_table(df)


def test_mixed_object_column_without_pyarrow(no_pyarrow):
    df = pd.DataFrame({"mixed": ["a", None, 3.5]})
    with schema_error("mixed", 2):
        as_table(df)


def test_schema_is_enforced_on_frames():
    df = pd.DataFrame({"a": [1, 2, 300], "b": ["x", "y", None]})
    schema = Schema([Field("a", DataType("int16")), Field("b", DataType("string"))])
    t = as_table(df, schema)
    assert t.schema == schema and t.column("a").values.dtype == np.int16
    with schema_error("a", 2, "out of range"):
        as_table(df, Schema([Field("a", DataType("int8")), Field("b", DataType("string"))]))
    with schema_error("b", 2, "non-nullable"):
        as_table(df, Schema([Field("a", DataType("int64")), Field("b", DataType("string"), False)]))


def test_schema_on_the_pandas_only_route(no_pyarrow):
    df = pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "d": [10**30, None]})
    schema = Schema([Field("a", DataType("int8")), Field("d", DataType("decimal", precision=31, scale=0))])
    t = as_table(df, schema)
    assert t.to_pydict() == {"a": [1, None], "d": [Decimal(10**30), None]}


def test_series_in_a_mapping():
    t = as_table({"s": pd.Series(["a", None]), "n": pd.Series([1.5, np.nan]),
                  "z": pd.Series(pd.to_datetime(["2020-01-01", None]).tz_localize("UTC"))})
    assert t.to_pydict()["s"] == ["a", None]
    assert t.to_pydict()["n"] == [1.5, None]
    assert t.schema.field("z").type == DataType("timestamp", unit="ns", tz="UTC")


def test_duplicate_column_names_are_refused():
    df = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with schema_error("a", match="more than once"):
        as_table(df)


def test_pandas_missing_sentinels_in_plain_lists_are_null():
    t = as_table({"ts": [pd.Timestamp("2020-01-01"), pd.NaT], "i": [1, pd.NA]})
    assert t.to_pydict() == {"ts": [dt.datetime(2020, 1, 1), None], "i": [1, None]}
