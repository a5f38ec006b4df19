"""The docs pages' Spark examples (blocks after ``<!-- docs: spark -->``), run with the
session's SparkSession as ``spark``, after the page's other blocks (see tests/docs/doc_examples)."""

from __future__ import annotations

import pytest

from tests.docs.doc_examples import DOCS, blocks, example_pages, run_page

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("page", example_pages(spark=True), ids=lambda p: str(p.relative_to(DOCS)))
def test_page_spark_examples_run(page, spark, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ran = run_page(page, spark=spark)
    assert ran >= sum(1 for b in blocks(page) if b.spark)


def test_readme_spark_example_runs(spark, tmp_path, monkeypatch, capsys):
    """The README's "Spark in one screen", with its /data/... paths moved under tmp_path."""
    import parquet_core as pc
    import spark_adapter
    from tests.docs.doc_examples import README, readme_block

    monkeypatch.chdir(tmp_path)
    table, out = tmp_path / "table", tmp_path / "out"
    table.mkdir()
    pc.write_table({"id": [1, 6, 7, 8], "name": ["a", "a", "b", "c"],
                    "country": ["fr", "de", "fr", "it"]}, str(table / "part-0.parquet"))
    block = readme_block("Spark in one screen", "python")
    assert "/data/table" in block.code and "/data/out" in block.code
    code = block.code.replace("/data/table", str(table)).replace("/data/out", str(out))
    spark_adapter.register(spark)      # the README relies on the installed discovery shim
    scope = {"spark": spark}
    exec(compile("\n" * block.line + code, str(README), "exec"), scope)
    assert sorted((r.id, r.name) for r in scope["df"].collect()) == [(6, "a"), (7, "b")]
    back = pc.read_table(str(out))
    assert sorted(back.column("id").to_pylist()) == [6, 7]
    assert sorted(back.column("country").to_pylist()) == ["de", "fr"]
    shown = capsys.readouterr().out                 # the pqmeta .show()
    assert "column_path" in shown and "row_group" in shown
