"""Issue 31: ``coerce_int96_timestamp_unit="s"`` and INT96 inside lists, maps and structs,
as pyarrow reads them; values with no exact count in the unit are refused, never wrapped.

Oracle: ``pq.read_table`` / ``pq.ParquetFile`` with the same option on the same file (files
pyarrow writes with ``use_deprecated_int96_timestamps=True``, the corpus'
``int96_from_spark.parquet``, and INT96 bytes written raw), and pyarrow's ``to_pandas`` /
``to_pylist`` of its own result.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.errors import UnsupportedFeatureError
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.table.arrays import Array, Table

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

UNITS = ["s", "ms", "us"]
# pre-1970 values with sub-second parts (floored, not truncated), and far dates
_MS = [-1500, 1500, None, -999, 10**14, -62135596800000, -1]


def _nested_file(store_schema: bool) -> bytes:
    ts = pa.timestamp("ms")
    t = pa.table({
        "t": pa.array(_MS, ts), "tz": pa.array(_MS, pa.timestamp("ms", "UTC")),
        "l": pa.array([[-1500, 1], None, [], [None], [5], [-1], [7]], pa.list_(ts)),
        "m": pa.array([[("a", -1)], None, [], [("b", None)], [], [("c", -1001)], []], pa.map_(pa.string(), ts)),
        "st": pa.array([{"x": -1, "y": [-1]}, None, {"x": None, "y": None}, {"x": 2, "y": []}, None, None,
                        {"x": -62135596800000, "y": [None]}],
                       pa.struct([("x", ts), ("y", pa.list_(ts))])),
        "i": list(range(len(_MS))),
    })
    buf = io.BytesIO()
    pq.write_table(t, buf, use_deprecated_int96_timestamps=True, store_schema=store_schema, row_group_size=3)
    return buf.getvalue()


def _same(got, want):
    got = got if isinstance(got, pa.Table) else got.to_arrow()
    assert [f.type for f in got.schema] == [f.type for f in want.schema]
    assert got.equals(want)


@pytest.mark.parametrize("store_schema", [False, True])
@pytest.mark.parametrize("unit", UNITS)
def test_nested_and_seconds_as_pyarrow(unit, store_schema):
    data = _nested_file(store_schema)
    want = pq.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit)
    got = pc.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit)
    _same(got, want)
    assert got.to_pylist() == want.to_pylist()
    ours, theirs = (pc.ParquetFile(io.BytesIO(data), coerce_int96_timestamp_unit=unit),
                    pq.ParquetFile(io.BytesIO(data), coerce_int96_timestamp_unit=unit))
    _same(ours.read_row_group(1), theirs.read_row_group(1))
    _same(pa.concat_tables([b.to_arrow() for b in ours.iter_batches(batch_size=2)]),
          pa.Table.from_batches(list(theirs.iter_batches(batch_size=2))))


@pytest.mark.parametrize("store_schema", [False, True])
def test_seconds_to_pandas_as_pyarrow(store_schema):
    pd = pytest.importorskip("pandas")
    data = _nested_file(store_schema)
    want = pq.read_table(io.BytesIO(data), coerce_int96_timestamp_unit="s", columns=["t", "tz", "i"])
    got = pc.read_table(io.BytesIO(data), coerce_int96_timestamp_unit="s", columns=["t", "tz", "i"])
    pd.testing.assert_frame_equal(got.to_pandas(), want.to_pandas())


def test_a_seconds_table_writes_as_pyarrow_writes_seconds():
    """Parquet has no seconds unit: written as milliseconds, as pyarrow writes timestamp[s]."""
    got = pc.read_table(io.BytesIO(_nested_file(False)), coerce_int96_timestamp_unit="s", columns=["t", "l", "st"])
    want = pq.read_table(io.BytesIO(_nested_file(False)), coerce_int96_timestamp_unit="s", columns=["t", "l", "st"])
    ours, theirs = io.BytesIO(), io.BytesIO()
    pc.write_table(got, ours)
    pq.write_table(want, theirs)
    back = pq.read_table(io.BytesIO(ours.getvalue()))
    assert back.equals(pq.read_table(io.BytesIO(theirs.getvalue())))
    assert back.schema.field("t").type == pa.timestamp("ms")
    # and as INT96 again: the same instants
    again = io.BytesIO()
    pc.write_table(got, again, use_deprecated_int96_timestamps=True)
    _same(pc.read_table(io.BytesIO(again.getvalue()), coerce_int96_timestamp_unit="s"), want)


def test_spark_corpus_file(tmp_path):
    root = os.environ.get("PARQUET_TEST_DATA")
    path = Path(root or "") / "int96_from_spark.parquet"
    if not root or not path.exists():
        pytest.skip("PARQUET_TEST_DATA / int96_from_spark.parquet not available")
    for unit in UNITS:
        # its last value is Spark's wrapped-around encoding (a negative nanosecond field), which
        # pyarrow reads as a date in the year 11 million: refused rather than given
        with pytest.raises(UnsupportedFeatureError, match="column 'a'.*negative nanosecond"):
            pc.read_table(path, coerce_int96_timestamp_unit=unit)
    # its other rows (2024, year 9999, a null), as pyarrow reads them
    head = tmp_path / "head.parquet"
    pc.write_table(pc.read_table(path).slice(0, 5), head)
    for unit in UNITS:
        want = pq.read_table(head, coerce_int96_timestamp_unit=unit)
        _same(pc.read_table(head, coerce_int96_timestamp_unit=unit), want)
        assert want.column(0).to_pylist() == \
            pq.read_table(path, coerce_int96_timestamp_unit=unit).column(0).slice(0, 5).to_pylist()


_E = 2_440_588    # the Julian day of 1970-01-01
_DAY_NS = 86_400 * 10**9


def _raw_file(pairs) -> bytes:
    """A file of one INT96 column holding (Julian day, nanoseconds) exactly as given."""
    rec = np.zeros(len(pairs), np.dtype([("nanos", "<i8"), ("days", "<u4")]))
    rec["days"] = [d for d, _ in pairs]
    rec["nanos"] = [n for _, n in pairs]
    raw = rec.view(np.uint8).reshape(-1, 12)
    buf = io.BytesIO()
    pc.write_table(Table(Schema([Field("t", DataType("int96"))]), [Array(DataType("int96"), raw)], len(pairs)), buf)
    return buf.getvalue()


@pytest.mark.parametrize("unit", UNITS)
def test_exact_values_match_pyarrow_at_the_edges(unit):
    # a nanosecond field past the day carries into the next ones; Julian days past 2**31
    # are read unsigned (seconds and milliseconds still fit)
    pairs = [(_E - 1, _DAY_NS - 1), (_E - 1, 500_000_000), (_E - 3, 2 * _DAY_NS + 7), (1, 0),
             (_E + 106_000, 5), (_E - 106_000, 5)]
    if unit in ("s", "ms"):
        pairs += [(2**32 - 1, _DAY_NS - 1), (2**31, 0)]
    data = _raw_file(pairs)
    want = pq.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit)
    _same(pc.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit), want)


@pytest.mark.parametrize("unit, pair, why", [
    ("us", (_E + 200_000_000, 0), "outside the int64 range of timestamp\\[us\\]"),
    ("us", (2**31, 0), "outside the int64 range"),
    ("s", (_E, -1), "negative nanosecond"),
    ("ms", (0, 5_000_000_000), "day 0"),
])
def test_values_pyarrow_would_wrap_are_refused(unit, pair, why):
    data = _raw_file([(_E, 0), pair])
    with pytest.raises(UnsupportedFeatureError, match=f"coerce_int96_timestamp_unit='{unit}'.*column 't'.*{why}"):
        pc.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit)
    with pytest.raises(UnsupportedFeatureError, match=why):
        list(pc.ParquetFile(io.BytesIO(data), coerce_int96_timestamp_unit=unit).iter_batches())
    # a null slot is never looked at
    rec = pc.read_table(io.BytesIO(data))
    assert rec.num_rows == 2


def test_nested_refusal_names_the_path():
    rec = np.zeros(2, np.dtype([("nanos", "<i8"), ("days", "<u4")]))
    rec["days"] = [_E, _E]
    rec["nanos"] = [0, -5]
    raw = rec.view(np.uint8).reshape(-1, 12)
    from parquet_core.table.nested import ListArray

    item = Field("element", DataType("int96"))
    lt = DataType("list", fields=(item,))
    col = ListArray(lt, np.array([0, 2], np.int64), Array(DataType("int96"), raw))
    buf = io.BytesIO()
    pc.write_table(Table(Schema([Field("l", lt)]), [col], 1), buf)
    with pytest.raises(UnsupportedFeatureError, match="column 'l.element'"):
        pc.read_table(io.BytesIO(buf.getvalue()), coerce_int96_timestamp_unit="s")
