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
