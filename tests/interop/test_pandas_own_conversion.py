"""Issue 31: our own pandas conversion (no pyarrow inside) gives pyarrow's frames.

Oracle: pyarrow.  For every frame of the matrix, written by pyarrow
(``pq.write_table(pa.Table.from_pandas(df))``) and by us (``pc.write_table``):

* ``pc.read_table(f).to_pandas()`` equals ``pq.read_table(f).to_pandas()``;
* pyarrow reading our file gives the original frame back (where it gives it
  back from its own file too), and the same ``pandas`` metadata as its own
  file, but for the ``creator`` entry.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import warnings
from decimal import Decimal

import numpy as np
import pytest

import parquet_core as pc

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

N = 4


def _frames():
    oslo = pd.date_range("2021-03-27 22:00", periods=N, freq="7h", tz="Europe/Oslo")
    frames = {
        "numpy": pd.DataFrame({
            "i8": np.array([1, -2, 3, 127], "int8"), "u64": np.array([0, 1, 2**64 - 1, 5], "uint64"),
            "i32": np.array([1, 2, 3, 4], "int32"), "f32": np.array([1.5, np.nan, -0.0, 3], "float32"),
            "f64": [1.0, np.nan, np.inf, -2.5], "b": [True, False, True, False],
        }),
        "nullable": pd.DataFrame({
            "I8": pd.array([1, None, -3, 4], "Int8"), "I64": pd.array([None, 2**40, 3, None], "Int64"),
            "U32": pd.array([1, None, 2**32 - 1, 0], "UInt32"), "F64": pd.array([1.5, None, 2.0, 3.0], "Float64"),
            "B": pd.array([True, None, False, True], "boolean"), "S": pd.array(["a", None, "é", ""], "string"),
            "Inone": pd.array([None] * N, "Int64"),
        }),
        "objects": pd.DataFrame({
            "s": ["a", None, "bc", "ü"], "by": [b"x", None, b"", b"\x00\xff"],
            "dec": [Decimal("1.25"), None, Decimal("-3.5"), Decimal("1000.125")],
            "date": [dt.date(2020, 1, 1), None, dt.date(1, 1, 1), dt.date(9999, 12, 31)],
            "time": [dt.time(1, 2, 3), None, dt.time(23, 59, 59, 999999), dt.time(0)],
            "obj_dt": pd.Series([dt.datetime(2020, 1, 1, 1), None, dt.datetime(1999, 1, 1),
                                 dt.datetime(2000, 2, 29)], dtype=object),
            "none": [None] * N, "nan_str": ["x", np.nan, None, "y"],
            "obj_td": pd.Series([dt.timedelta(1), None, dt.timedelta(seconds=1, microseconds=5),
                                 dt.timedelta(0)], dtype=object),
        }),
        "temporal": pd.DataFrame({
            "ns": pd.to_datetime(["2020-01-01", None, "2262-04-11", "1677-09-22"]),
            "us": pd.Series(np.array(["2020-01-01", "NaT", "0001-01-01", "9999-12-31"], "datetime64[us]")),
            "ms": pd.Series(np.array(["2020-01-01T01:02:03.004", "NaT", "1970-01-01", "2000-01-01"],
                                     "datetime64[ms]")),
            "oslo": oslo, "oslo_us": oslo.as_unit("us"),
            "utc": pd.date_range("2020", periods=N, tz="UTC"),
            "fixed": pd.date_range("2020", periods=N, tz=dt.timezone(dt.timedelta(hours=-3, minutes=-30))),
            "td_ns": pd.to_timedelta([1, None, -3, 10**6], "s"),
            "td_us": pd.to_timedelta([1, None, -3, 10**6], "ms").as_unit("us"),
        }),
        "categorical": pd.DataFrame({
            "c": pd.Categorical(["b", "a", None, "b"], categories=["a", "b", "unused"]),
            "co": pd.Categorical(["lo", "hi", "lo", None], categories=["lo", "hi"], ordered=True),
            "ci": pd.Categorical([3, 1, 3, 1], categories=[1, 2, 3]),
            "call": pd.Categorical([None] * N, categories=["x"]),
        }),
        "nested": pd.DataFrame({
            "li": [[1, 2], None, [], [3]], "lin": [[1, None], [2], None, []],
            "ls": [["a"], ["b", None], None, []], "st": [{"a": 1, "b": "x"}, None, {"a": None, "b": None},
                                                         {"a": 4, "b": "z"}],
        }),
        "labels": pd.DataFrame({0: [1, 2, 3, 4], 1: ["a", "b", "c", "d"]}),
        "empty": pd.DataFrame({"a": pd.array([], "Int64"), "s": pd.Series([], dtype=object),
                               "t": pd.Series([], dtype="datetime64[ns]")}),
    }
    frames["labels"].columns.name = "level"
    frames["objects"].attrs = {"source": "test", "n": 4}
    return frames


def _indexes():
    return {
        "default": None,
        "range": pd.RangeIndex(10, 10 + 3 * N, 3, name="r"),
        "named": pd.Index([f"k{i}" for i in range(N)], name="key"),
        "unnamed_int": pd.Index([5, 6, 7, 8]),
        "multi": pd.MultiIndex.from_arrays([[1, 1, 2, 2], ["a", "b", "a", "b"]], names=["n", None]),
        "tz": pd.DatetimeIndex(pd.date_range("2020", periods=N, tz="Asia/Tokyo").tolist(), name="when"),
        "categorical": pd.CategoricalIndex(["x", "y", "x", "z"], name="cat"),
    }


_FRAMES = _frames()
_INDEXES = _indexes()


def _with_index(name, index):
    df = _FRAMES[name].copy()
    df.attrs = dict(_FRAMES[name].attrs)
    if index is not None and len(df) == N:
        df.index = index
    return df


def _ours(df, **kw):
    buf = io.BytesIO()
    pc.write_table(df, buf, **kw)
    return buf.getvalue()


def _theirs(df, **kw):
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(df), buf, **kw)
    return buf.getvalue()


def _equal(got, want):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)   # None vs NaN in object columns: same as pyarrow
        pd.testing.assert_frame_equal(got, want)
    assert got.attrs == want.attrs


@pytest.mark.parametrize("index", list(_INDEXES))
@pytest.mark.parametrize("frame", list(_FRAMES))
def test_frames_equal_pyarrows(frame, index):
    df = _with_index(frame, _INDEXES[index])
    for data in (_ours(df), _theirs(df)):
        want = pq.read_table(io.BytesIO(data)).to_pandas()
        _equal(pc.read_table(io.BytesIO(data)).to_pandas(), want)


# columns pyarrow itself does not give back as they were (from its own file as from ours)
_PYARROW_CHANGES = {"objects": ["obj_dt", "nan_str", "obj_td"], "nested": ["st"],
                    "temporal": ["fixed"]}   # a fixed offset comes back as pytz.FixedOffset


@pytest.mark.parametrize("index", list(_INDEXES))
@pytest.mark.parametrize("frame", list(_FRAMES))
def test_pyarrow_reads_our_file_to_the_original_frame(frame, index):
    df = _with_index(frame, _INDEXES[index])
    ours, theirs = _ours(df), _theirs(df)
    keep = [c for c in df.columns if c not in _PYARROW_CHANGES.get(frame, [])]
    got = pq.read_table(io.BytesIO(ours)).to_pandas()
    _equal(got[keep], pq.read_table(io.BytesIO(theirs)).to_pandas()[keep])
    if frame not in ("nested",):
        want = df[keep]
        if frame == "categorical":   # pyarrow keeps only string dictionaries
            want = want.assign(ci=np.asarray(df["ci"], dtype=np.int64))
        _equal(got[keep], want)
    # the same pandas metadata as pyarrow's, but for who wrote it
    meta = json.loads(pq.read_metadata(io.BytesIO(ours)).metadata[b"pandas"])
    expected = json.loads(pq.read_metadata(io.BytesIO(theirs)).metadata[b"pandas"])
    assert meta.pop("creator")["library"] == "parquet-core"
    expected.pop("creator")
    assert meta == expected


def test_row_groups_with_their_own_dictionaries_unify_as_pyarrow():
    df = pd.DataFrame({"c": pd.Categorical(["b", "a", "c", "a", "d", "b"], categories=["d", "c", "b", "a"])})
    for data in (_ours(df, row_group_size=2), _theirs(df, row_group_size=2)):
        _equal(pc.read_table(io.BytesIO(data)).to_pandas(), pq.read_table(io.BytesIO(data)).to_pandas())


@pytest.mark.parametrize("columns", [["s"], ["dec", "date"]])
def test_column_subsets_keep_the_index_as_pyarrow(columns):
    df = _with_index("objects", _INDEXES["named"])
    data = _ours(df)
    for kw in ({}, {"use_pandas_metadata": True}):
        want = pq.read_table(io.BytesIO(data), columns=columns, **kw).to_pandas()
        _equal(pc.read_table(io.BytesIO(data), columns=columns, **kw).to_pandas(), want)


def test_arrow_table_without_pandas_metadata_equals_pyarrows():
    table = pa.table({"d": pa.array([1, None, 3], pa.duration("ms")),
                      "t": pa.array([1, None, 3], pa.timestamp("us", tz="America/New_York")),
                      "dict": pa.array(["a", None, "a"]).dictionary_encode(),
                      "m": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int64())),
                      "u": pa.array([b"\x01" * 16, None, b"\x02" * 16], pa.uuid()),
                      "f16": pa.array([np.float16(1), None, np.float16(2)], pa.float16()),
                      "n": pa.nulls(3)})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    data = buf.getvalue()
    _equal(pc.read_table(io.BytesIO(data)).to_pandas(), pq.read_table(io.BytesIO(data)).to_pandas())


def test_ignore_metadata_as_pyarrow():
    df = _with_index("nullable", _INDEXES["named"])
    data = _ours(df)
    _equal(pc.read_table(io.BytesIO(data)).to_pandas(ignore_metadata=True),
           pq.read_table(io.BytesIO(data)).to_pandas(ignore_metadata=True))


def test_keywords_only_pyarrow_honours_go_through_pyarrow():
    data = _ours(pd.DataFrame({"a": [1, None]}))
    got = pc.read_table(io.BytesIO(data)).to_pandas(types_mapper=pd.ArrowDtype)
    _equal(got, pq.read_table(io.BytesIO(data)).to_pandas(types_mapper=pd.ArrowDtype))


def test_multiindex_levels_infer_their_dtype_as_pyarrow():
    """Levels come back as pyarrow hands them to pandas (a bool level with a null is bool)."""
    index = pd.MultiIndex.from_arrays([pd.array([True, None, False, True], "boolean"),
                                       pd.date_range("2020", periods=N, tz="Asia/Kolkata").tolist()],
                                      names=["flag", "when"])
    df = _with_index("nullable", index)
    for data in (_ours(df, row_group_size=3), _theirs(df, row_group_size=3)):
        _equal(pc.read_table(io.BytesIO(data)).to_pandas(), pq.read_table(io.BytesIO(data)).to_pandas())


def test_changing_the_frame_leaves_the_table_alone():
    table = pc.read_table(io.BytesIO(_ours(_with_index("numpy", _INDEXES["named"]))))
    before = table.to_pydict()
    df = table.to_pandas()
    df.iloc[0, :] = 0
    df["f64"].to_numpy()[1] = 99.0
    assert table.to_pydict() == before
