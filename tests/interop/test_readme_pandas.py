"""The docs' pandas round trip, executed as written (the block after its marker)."""

from __future__ import annotations


import pytest

import parquet_core as pc
from tests.interop.readme_snippets import docs_snippet

pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")


def _snippet() -> tuple:
    return docs_snippet("test_readme_pandas.py")


def test_readme_pandas_round_trip_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scope: dict = {"pc": pc}
    page, code = _snippet()
    exec(compile(code, str(page), "exec"), scope)   # asserts inside
    df = scope["df"]
    # what the snippet claims it shows
    assert isinstance(df.index, pd.Index) and df.index.name == "id"
    assert str(df["city"].dtype) == "category" and "Rome" in df["city"].cat.categories
    assert str(df["seen"].dtype.tz) == "Europe/Paris" and str(df["visits"].dtype) == "Int64"
    # pyarrow reads the file to the same frame
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "frame.parquet", engine="pyarrow"), df)


def test_readme_pandas_round_trip_runs_without_pyarrow(tmp_path):
    """The same snippet in a process where importing pyarrow fails: pandas alone suffices."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    block = (
        "import sys\n"
        "class BlockPyarrow:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'pyarrow' or name.startswith('pyarrow.'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, BlockPyarrow())\n"
        "import parquet_core as pc\n"
        + _snippet()[1]
        + "\nassert 'pyarrow' not in sys.modules\nprint('ok')\n")
    script = tmp_path / "snippet.py"
    script.write_text(block)
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(root)), timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
