"""The docs' polars / duckdb example, executed as written (the block after its marker)."""

from __future__ import annotations


import pytest

import parquet_core as pc
from tests.interop.readme_snippets import docs_snippet

pytest.importorskip("polars")
pytest.importorskip("duckdb")


def _snippet() -> tuple:
    return docs_snippet("test_readme_capsule.py")


def test_readme_capsule_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scope: dict = {"pc": pc}
    page, code = _snippet()
    exec(compile(code, str(page), "exec"), scope)   # asserts inside
    # what the snippet claims, checked by an outside reader
    pq = pytest.importorskip("pyarrow.parquet")
    back = pq.read_table(tmp_path / "range.parquet")
    assert back.num_rows == 1_000_000 and back.column("twice").to_pylist()[-1] == 1_999_998
    assert pq.read_table(tmp_path / "visits.parquet").to_pydict() == \
        {"city": ["Oslo", "Lima", None], "visits": [3, None, 7]}
