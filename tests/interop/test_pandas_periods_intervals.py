"""Issue 31, pandas without pyarrow: period and interval columns (and index levels).

pyarrow stores them as the extension types pandas registers with it (``pandas.period``: int64
ordinals and the frequency; ``pandas.interval``: a struct of the bounds, the subtype and the
closed side).  Oracles: files pyarrow writes (``pa.Table.from_pandas``), pyarrow's own
``to_pandas`` of them, and pyarrow reading back what we write.  The same conversions run in a
subprocess where pyarrow cannot be imported.  Sparse columns are refused, as pyarrow refuses them."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import parquet_core as pc
from tests._support.no_pyarrow import BLOCK_PYARROW

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
# pandas registers its extension types with pyarrow when it first converts one; pyarrow's
# reading of a file holding them (ignore_metadata=True, the schema) depends on it: register now
pytest.importorskip("pandas.core.arrays.arrow.extension_types")

ROOT = Path(__file__).resolve().parents[2]


def _frame():
    return pd.DataFrame({
        "month": pd.period_range("2020-01", periods=4, freq="M"),
        "quarter": pd.period_range("2020-01", periods=4, freq="Q-DEC"),
        "week": pd.period_range("2020-01-01", periods=4, freq="W-SUN"),
        "two_days": pd.period_range("2020-01-01", periods=4, freq="2D"),
        "hour": pd.array([pd.Period("2020-01-01 10:00", freq="h"), None, None,
                          pd.Period("1969-12-31 23:00", freq="h")]),
        "ints": pd.arrays.IntervalArray.from_breaks([0, 1, 2, 3, 4], closed="both"),
        "floats": pd.arrays.IntervalArray.from_tuples([(0.5, 1.0), None, (-2.0, 3.5), None], closed="left"),
        "open": pd.arrays.IntervalArray.from_breaks([0.0, 1, 2, 3, 4], closed="neither"),
        "times": pd.arrays.IntervalArray.from_breaks(pd.date_range("2020-01-01", periods=5, freq="13h")),
        "seconds": pd.arrays.IntervalArray.from_breaks(
            pd.to_datetime(["2020", "2021", "2022", "2023", "2024"]).astype("datetime64[s]")),
        "spans": pd.arrays.IntervalArray.from_breaks(pd.to_timedelta([0, 1, 2, 3, 4], unit="s")),
        "plain": [1, 2, 3, 4],
    }, index=pd.period_range("2001", periods=4, freq="Y", name="year"))


def _pyarrow_file(frame) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame), buf, row_group_size=3)
    return buf.getvalue()


def _ours(frame) -> bytes:
    buf = io.BytesIO()
    pc.write_table(frame, buf, row_group_size=3)
    return buf.getvalue()


def test_a_file_pyarrow_wrote_reads_as_pyarrow_reads_it():
    theirs = _pyarrow_file(_frame())
    want = pq.read_table(io.BytesIO(theirs)).to_pandas()
    assert str(want["month"].dtype) == "period[M]" and str(want.index.dtype) == "period[Y-DEC]"
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(theirs)).to_pandas(), want)
    pd.testing.assert_frame_equal(pc.read_pandas(io.BytesIO(theirs)).to_pandas(), want)


def test_the_extension_type_decides_without_pandas_metadata():
    """pyarrow (pandas' types registered) keeps the dtypes under ignore_metadata=True: they
    come from ARROW:schema's extension types, not the pandas metadata."""
    theirs = _pyarrow_file(_frame())
    want = pq.read_table(io.BytesIO(theirs)).to_pandas(ignore_metadata=True)
    assert str(want["ints"].dtype) == "interval[int64, both]"
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(theirs)).to_pandas(ignore_metadata=True), want)


def test_a_selection_of_columns_keeps_the_dtypes():
    theirs = _pyarrow_file(_frame())
    want = pq.read_table(io.BytesIO(theirs), columns=["floats", "hour"]).to_pandas()
    got = pc.read_table(io.BytesIO(theirs), columns=["floats", "hour"]).to_pandas()
    pd.testing.assert_frame_equal(got, want)


def test_what_we_write_pyarrow_reads_back_to_the_frame():
    frame = _frame()
    ours = _ours(frame)
    pd.testing.assert_frame_equal(pq.read_table(io.BytesIO(ours)).to_pandas(), frame)
    # the Arrow types pyarrow's own conversion gives (extension types, their metadata)
    theirs = _pyarrow_file(frame)
    assert pq.read_schema(io.BytesIO(ours)).remove_metadata() == pq.read_schema(io.BytesIO(theirs)).remove_metadata()
    for name in ("month", "floats", "spans", "year"):
        a, b = pq.read_schema(io.BytesIO(ours)).field(name).type, pq.read_schema(io.BytesIO(theirs)).field(name).type
        assert a.__arrow_ext_serialize__() == b.__arrow_ext_serialize__()
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(ours)).to_pandas(), frame)


@pytest.mark.parametrize("sparse", [pd.arrays.SparseArray([0, 0, 1]), pd.arrays.SparseArray([0.5, np.nan, 1.0])],
                         ids=["int", "float"])
def test_sparse_columns_are_refused_naming_the_column_and_dtype(tmp_path, sparse):
    frame = pd.DataFrame({"ok": [1, 2, 3], "sp": sparse})
    with pytest.raises(TypeError, match="Sparse"):
        pa.Table.from_pandas(frame)          # pyarrow refuses them
    for call in (lambda: pc.write_table(frame, tmp_path / "x.parquet"), lambda: pc.as_table(frame),
                 lambda: pc.write_table(frame, tmp_path / "y.parquet",
                                        schema=pc.Schema([pc.Field("ok", pc.int64()), pc.Field("sp", pc.int64())]))):
        with pytest.raises(pc.UnsupportedFeatureError) as exc:
            call()
        assert "'sp'" in str(exc.value) and str(sparse.dtype) in str(exc.value)


_SCRIPT = BLOCK_PYARROW + textwrap.dedent("""
    import io
    import pickle
    import pandas as pd
    import parquet_core as pc

    case = pickle.load(open(sys.argv[1], "rb"))
    theirs = io.BytesIO(case["theirs"])
    pd.testing.assert_frame_equal(pc.read_table(theirs).to_pandas(), case["want"])
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(case["theirs"])).to_pandas(ignore_metadata=True),
                                  case["want_bare"])
    pc.write_table(case["frame"], sys.argv[2], row_group_size=3)
    pd.testing.assert_frame_equal(pc.read_table(sys.argv[2]).to_pandas(), case["frame"])
    try:
        pc.write_table(pd.DataFrame({"sp": pd.arrays.SparseArray([0, 1])}), sys.argv[2] + ".x")
    except pc.UnsupportedFeatureError as exc:
        assert "'sp'" in str(exc) and "Sparse[int64, 0]" in str(exc), exc
    else:
        raise AssertionError("a sparse column was written")
    assert not [m for m in sys.modules if m.split(".")[0] == "pyarrow"]
    print("ok")
""")


def test_periods_and_intervals_with_pyarrow_blocked(tmp_path):
    frame = _frame()
    theirs = _pyarrow_file(frame)
    case = {"frame": frame, "theirs": theirs, "want": pq.read_table(io.BytesIO(theirs)).to_pandas(),
            "want_bare": pq.read_table(io.BytesIO(theirs)).to_pandas(ignore_metadata=True)}
    (tmp_path / "case.pickle").write_bytes(pickle.dumps(case))
    script = tmp_path / "no_pyarrow.py"
    script.write_text(_SCRIPT)
    out = tmp_path / "ours.parquet"
    run = subprocess.run([sys.executable, str(script), str(tmp_path / "case.pickle"), str(out)], cwd=tmp_path,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "ok"
    # pyarrow reads what was written without it back to the frame; the footer is the one we
    # write with pyarrow installed (one conversion path)
    pd.testing.assert_frame_equal(pq.read_table(out).to_pandas(), frame)
    assert pq.read_metadata(out).metadata == pq.read_metadata(io.BytesIO(_ours(frame))).metadata
