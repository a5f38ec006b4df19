"""The README is the short front page: its Python, CLI and Spark examples run (the Spark one in
``tests/spark/test_docs_spark_examples.py``) and its links lead into docs/."""

from __future__ import annotations

import re

from tests.docs.doc_examples import README, ROOT, readme_block, run_console


def test_readme_is_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) < 250


def test_readme_links_exist():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        assert (ROOT / link).is_file(), f"README links to {link}, which is not there"


def run_python_example(scope: dict) -> None:
    block = readme_block("Python in one screen", "python")
    exec(compile("\n" * block.line + block.code, str(README), "exec"), scope)


def test_readme_python_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    run_python_example(scope)
    assert scope["table"].to_pylist() == [{"id": 3, "name": "c"}]


def test_readme_cli_example_runs(tmp_path, monkeypatch, capsys):
    """Each ``$ pqc ...`` line of the CLI screen exits 0 on the files the Python screen wrote."""
    import parquet_core as pc

    monkeypatch.chdir(tmp_path)
    run_python_example({})                              # writes data.parquet
    pc.write_table({"id": [1, 2], "name": ["a", "b"]}, "a.parquet")
    pc.write_table({"id": [3], "score": [0.5]}, "b.parquet")   # other columns: --union-schema
    block = readme_block("The command line in one screen", "console")
    commands = [ln for ln in block.code.splitlines() if ln.startswith("$ pqc ")]
    assert len(commands) >= 5
    run_console(block)
    assert (tmp_path / "out.parquet").is_file()
    merged = pc.read_table("all.parquet")
    assert merged.num_rows == 3 and set(merged.column_names) == {"id", "name", "score"}
    assert sorted(merged.column("id").to_pylist()) == [1, 2, 3]
