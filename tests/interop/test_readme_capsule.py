"""The README's polars / duckdb example, executed as written (the block after its marker)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import parquet_core as pc

pytest.importorskip("polars")
pytest.importorskip("duckdb")

_README = Path(__file__).resolve().parents[2] / "README.md"
_MARKER = "<!-- executed by tests/interop/test_readme_capsule.py -->"


def _snippet() -> str:
    text = _README.read_text(encoding="utf-8")
    assert text.count(_MARKER) == 1, "the README marker must appear once"
    found = re.search(re.escape(_MARKER) + r"\s*```python\n(.*?)```", text, re.S)
    assert found, "the marker must be followed by a python block"
    return found.group(1)


def test_readme_capsule_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scope: dict = {"pc": pc}
    exec(compile(_snippet(), str(_README), "exec"), scope)   # asserts inside
    # what the snippet claims, checked by an outside reader
    pq = pytest.importorskip("pyarrow.parquet")
    back = pq.read_table(tmp_path / "range.parquet")
    assert back.num_rows == 1_000_000 and back.column("twice").to_pylist()[-1] == 1_999_998
    assert pq.read_table(tmp_path / "visits.parquet").to_pydict() == \
        {"city": ["Oslo", "Lima", None], "visits": [3, None, 7]}
