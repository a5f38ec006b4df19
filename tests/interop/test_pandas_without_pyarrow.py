"""pandas without pyarrow: in a subprocess where pyarrow cannot be imported, DataFrames are
written, read and converted back, and give the frames pyarrow gives (computed here, with
pyarrow, and handed over pickled); pyarrow then reads the file written without it back to
the original frame, and that file's footer is the one we write with pyarrow installed."""

from __future__ import annotations

import datetime as dt
import io
import os
import pickle
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

import parquet_core as pc
from tests._support.no_pyarrow import BLOCK_PYARROW

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = BLOCK_PYARROW + textwrap.dedent("""
    import pickle
    import pandas as pd
    import parquet_core as pc

    cases = pickle.load(open(sys.argv[1], "rb"))
    for name, case in cases.items():
        frame, theirs, want_theirs = case["frame"], case["theirs"], case["want_theirs"]
        out = f"{sys.argv[2]}/{name}.parquet"
        pc.write_table(frame, out, row_group_size=2)
        pd.testing.assert_frame_equal(pc.read_table(out).to_pandas(), case["want_ours"])
        pd.testing.assert_frame_equal(pc.read_pandas(out).to_pandas(), case["want_ours"])
        # a file pyarrow wrote, read as pyarrow reads it
        pd.testing.assert_frame_equal(pc.read_table(theirs).to_pandas(), want_theirs)
    # and only pyarrow can do this: say so, naming it
    try:
        pc.read_table(out).to_pandas(types_mapper=pd.ArrowDtype)
    except pc.ParquetError as exc:
        assert "needs pyarrow" in str(exc), exc
    else:
        raise AssertionError("types_mapper without pyarrow did not raise")
    assert not [m for m in sys.modules if m.split(".")[0] == "pyarrow"]
    print("ok")
""")


def _cases():
    tz = pd.date_range("2024-03-30 12:00", periods=4, freq="13h", tz="Europe/Oslo")
    base = pd.DataFrame({
        "i": [1, 2, 3, 4], "I": pd.array([1, None, 3, None], "Int64"), "f": [1.5, None, 2.5, 3.0],
        "b": pd.array([True, None, False, True], "boolean"), "s": pd.array(["x", None, "z", "é"], "string"),
        "o": ["a", None, "b", "c"], "by": [b"\x00", None, b"b", b""],
        "cat": pd.Categorical(["lo", None, "hi", "lo"], categories=["lo", "hi", "unused"], ordered=True),
        "tz": tz, "naive": pd.to_datetime(["2020-01-01", None, "1999-12-31 23:59:59.123456", "2000-02-29"],
                                format="ISO8601"),
        "td": pd.to_timedelta([1, None, -5, 86400], "s"),
        "dec": [Decimal("1.50"), None, Decimal("-2.25"), Decimal("10.00")],
        "date": [dt.date(2020, 1, 1), None, dt.date(1970, 1, 1), dt.date(9999, 12, 31)],
        "li": [[1, 2], None, [], [3]],
    })
    frames = {
        "named": base.set_index(pd.Index(["r1", "r2", "r3", "r4"], name="key")),
        "range": base.set_index(pd.RangeIndex(5, 13, 2, name="n")),
        "multi": base.set_index(pd.MultiIndex.from_arrays([[1, 1, 2, 2], tz], names=["k", None])),
    }
    frames["named"].columns.name = "fields"
    frames["named"].attrs = {"origin": "test"}
    cases = {}
    for name, frame in frames.items():
        buf = io.BytesIO()
        pq.write_table(pa.Table.from_pandas(frame), buf, row_group_size=2)
        cases[name] = {"frame": frame, "theirs_bytes": buf.getvalue(),
                       "want_theirs": pq.read_table(io.BytesIO(buf.getvalue())).to_pandas(),
                       "want_ours": frame}
    return cases


@pytest.mark.slow
def test_pandas_round_trips_with_pyarrow_blocked(tmp_path):
    cases = _cases()
    for name, case in cases.items():
        theirs = tmp_path / f"theirs_{name}.parquet"
        theirs.write_bytes(case.pop("theirs_bytes"))
        case["theirs"] = str(theirs)
    (tmp_path / "cases.pickle").write_bytes(pickle.dumps(cases))
    script = tmp_path / "no_pyarrow.py"
    script.write_text(_SCRIPT)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, str(script), str(tmp_path / "cases.pickle"), str(out_dir)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "ok"
    for name, case in cases.items():
        written = (out_dir / f"{name}.parquet").read_bytes()
        # pyarrow reads the file written without it back to the original frame
        pd.testing.assert_frame_equal(pq.read_table(io.BytesIO(written)).to_pandas(), case["frame"])
        # and its footer is the one written with pyarrow installed: one conversion path
        buf = io.BytesIO()
        pc.write_table(case["frame"], buf, row_group_size=2)
        assert pq.read_metadata(io.BytesIO(written)).metadata == pq.read_metadata(buf).metadata


def test_docs_example_runs_with_pyarrow_blocked(tmp_path):
    """The first example of docs/pandas.md, as written, in a process where pyarrow cannot load."""
    text = (ROOT / "docs" / "pandas.md").read_text()
    example = text.split("```python\n", 1)[1].split("```", 1)[0]
    script = tmp_path / "example.py"
    script.write_text(_SCRIPT.split("import pandas as pd", 1)[0] + example
                      + "\nassert 'pyarrow' not in sys.modules\nprint('ok')\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "ok"
    # pyarrow reads the file the example wrote back to the same frame
    back = pq.read_table(tmp_path / "frame.parquet").to_pandas()
    assert str(back["city"].dtype) == "category" and str(back["wait"].dtype) == "timedelta64[ns]"
    assert str(back["seen"].dtype.tz) == "Europe/Paris" and back.index.name == "id"
