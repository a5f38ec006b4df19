"""The capsule interface needs no pyarrow: with pyarrow blocked, polars (and duckdb)
exchange tables with us both ways, and nothing of ours tries to import pyarrow."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = textwrap.dedent("""
    import sys
    sys.modules["pyarrow"] = None          # any "import pyarrow" now raises ImportError
    import datetime
    import parquet_core as pc
    import polars as pl

    df = pl.DataFrame({"i": [1, None, 3], "s": ["x", None, "a string longer than 12"],
                       "t": [datetime.datetime(2020, 1, 1), None, datetime.datetime(1999, 5, 5)],
                       "l": [[1, 2], None, []], "st": [{"a": 1}, None, {"a": 2}],
                       "c": pl.Series(["u", "v", "u"], dtype=pl.Categorical)})
    pc.write_table(df, sys.argv[1], row_group_size=2)
    table = pc.read_table(sys.argv[1])
    back = pl.DataFrame(table)
    assert back.equals(df.with_columns(pl.col("c").cast(pl.String))), (back, df)
    assert pl.from_arrow(table).struct.unnest().equals(back)
    assert pc.ParquetFile(sys.argv[1]).metadata.num_row_groups == 2
    if "duckdb" in sys.argv[2:]:
        import duckdb
        tbl = table
        assert duckdb.sql("select count(*), sum(i) from tbl").fetchall() == [(3, 4)]
        rel = duckdb.sql("select 7 as x, 'y' as s")
        assert pc.as_table(rel).to_pydict() == {"x": [7], "s": ["y"]}
    assert sys.modules["pyarrow"] is None
    print("ok")
""")


@pytest.mark.parametrize("extra", [[], ["duckdb"]])
def test_polars_round_trip_with_pyarrow_blocked(tmp_path, extra):
    pytest.importorskip("polars")
    if extra:
        pytest.importorskip("duckdb")
    script = tmp_path / "no_pyarrow.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "f.parquet"), *extra], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == "ok"
