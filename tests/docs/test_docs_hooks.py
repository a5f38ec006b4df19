"""docs/hooks.py: contributed pages leave the nav while absent; API pages list every public name."""

from __future__ import annotations

import importlib.util

from tests.docs.doc_examples import DOCS

_spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hooks)


def test_absent_contributed_pages_leave_the_nav():
    nav = [{"Home": "index.md"},
           {"Spark": [{"Sources": "guide/spark.md"}, {"Deployment": "spark-deployment.md"}]},
           {"Robustness": "robustness-campaign.md"},
           {"Only optional": [{"Compat": "compat.md"}]}]
    assert hooks._prune(nav, present=set()) == [
        {"Home": "index.md"}, {"Spark": [{"Sources": "guide/spark.md"}]}]
    assert hooks._prune(nav, present={"spark-deployment.md", "robustness-campaign.md", "compat.md"}) == nav


def test_a_page_that_is_not_contributed_is_never_dropped():
    """A missing guide is not silently left out: mkdocs' strict build reports it."""
    nav = [{"Reading": "guide/nonexistent.md"}]
    assert hooks._prune(nav, present=set()) == nav


def test_api_page_has_an_entry_per_public_name():
    import spark_adapter

    page = hooks.api_page("spark_adapter", ["spark_adapter"], "intro")
    for name in spark_adapter.__all__:
        assert f"::: spark_adapter.{name}\n" in page


def test_a_stale_rule_table_warns(caplog):
    """A warning fails ``mkdocs build --strict``: a page whose rule table differs from the code's."""
    from types import SimpleNamespace

    from parquet_core.validation import rules_table

    page = SimpleNamespace(file=SimpleNamespace(src_path="guide/check.md"))
    fresh = f"<!-- rules:start -->\n{rules_table()}\n<!-- rules:end -->"
    with caplog.at_level("WARNING"):
        hooks.on_page_markdown(fresh, page, {}, None)
    assert not caplog.records
    stale = fresh.replace("| `bloom.header` |", "| `bloom.headers` |")
    assert stale != fresh
    with caplog.at_level("WARNING"):
        hooks.on_page_markdown(stale, page, {}, None)
    assert any("rule table is stale" in r.getMessage() for r in caplog.records)
