"""Issue 31: a partitioned ``write_to_dataset`` of a DataFrame in a process where pyarrow cannot
be imported keeps the Arrow types of the stored columns (zones, durations, categoricals): each
file's ``ARROW:schema`` is narrowed to them without pyarrow.  Oracle: what pyarrow reads back
from the same write done with pyarrow installed, and from ``pyarrow.parquet.write_to_dataset``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import parquet_core as pc
from tests._support.no_pyarrow import BLOCK_PYARROW

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = BLOCK_PYARROW + textwrap.dedent("""
    sys.path.insert(0, sys.argv[2])
    import parquet_core as pc
    from frames import frame

    pc.write_to_dataset(frame(), sys.argv[1], partition_cols=["p"], max_rows_per_file=1,
                        basename_template="part-{i}.parquet")
    assert not [m for m in sys.modules if m.split(".")[0] == "pyarrow"]
""")

_FRAMES = textwrap.dedent("""
    import pandas as pd


    def frame():
        return pd.DataFrame({
            "p": [1, 1, 2],
            "t": pd.date_range("2024-03-30 12:00", periods=3, freq="13h", tz="Europe/Oslo"),
            "d": pd.to_timedelta([1, None, 3], "s"),
            "c": pd.Categorical(["x", "y", "x"], categories=["y", "x"], ordered=True),
            "v": [1.5, 2.5, None],
        }, index=pd.Index([7, 8, 9], name="ix"))
""")


def test_partitioned_frame_keeps_its_arrow_types_without_pyarrow(tmp_path):
    (tmp_path / "frames.py").write_text(_FRAMES)
    (tmp_path / "script.py").write_text(_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, str(tmp_path / "script.py"), str(tmp_path / "blocked"), str(tmp_path)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        from frames import frame
    finally:
        sys.path.remove(str(tmp_path))
    df = frame()
    pc.write_to_dataset(df, tmp_path / "with", partition_cols=["p"], max_rows_per_file=1,
                        basename_template="part-{i}.parquet")
    pq.write_to_dataset(pa.Table.from_pandas(df), tmp_path / "pyarrow", partition_cols=["p"])
    blocked, with_pa = pq.read_table(tmp_path / "blocked"), pq.read_table(tmp_path / "with")
    theirs = pq.read_table(tmp_path / "pyarrow")
    assert blocked.schema.equals(with_pa.schema, check_metadata=True)
    assert blocked.schema.equals(theirs.schema)
    assert blocked.schema.field("t").type == pa.timestamp("ns", tz="Europe/Oslo")
    assert blocked.schema.field("d").type == pa.duration("ns")
    files = sorted(f.relative_to(tmp_path / "blocked") for f in (tmp_path / "blocked").rglob("*.parquet"))
    assert len(files) == 3 and files == sorted(f.relative_to(tmp_path / "with")
                                               for f in (tmp_path / "with").rglob("*.parquet"))
    for f in files:   # each file's footer: the same Arrow schema and pandas metadata as with pyarrow
        assert pq.read_schema(tmp_path / "blocked" / f).equals(pq.read_schema(tmp_path / "with" / f),
                                                               check_metadata=True)
    got = blocked.to_pandas().sort_index()
    want = theirs.to_pandas().sort_index()
    pd.testing.assert_frame_equal(got, want)
