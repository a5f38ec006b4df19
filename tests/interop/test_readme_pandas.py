"""The README's pandas round trip, executed as written (the block after its marker)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import parquet_core as pc

pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")

_README = Path(__file__).resolve().parents[2] / "README.md"
_MARKER = "<!-- executed by tests/interop/test_readme_pandas.py -->"


def _snippet() -> str:
    text = _README.read_text(encoding="utf-8")
    assert text.count(_MARKER) == 1, "the README marker must appear once"
    found = re.search(re.escape(_MARKER) + r"\s*```python\n(.*?)```", text, re.S)
    assert found, "the marker must be followed by a python block"
    return found.group(1)


def test_readme_pandas_round_trip_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scope: dict = {"pc": pc}
    exec(compile(_snippet(), str(_README), "exec"), scope)   # asserts inside
    df = scope["df"]
    # what the snippet claims it shows
    assert isinstance(df.index, pd.Index) and df.index.name == "id"
    assert str(df["city"].dtype) == "category" and "Rome" in df["city"].cat.categories
    assert str(df["seen"].dtype.tz) == "Europe/Paris" and str(df["visits"].dtype) == "Int64"
    # pyarrow reads the file to the same frame
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "frame.parquet", engine="pyarrow"), df)
