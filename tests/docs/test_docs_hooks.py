"""docs/hooks.py: contributed pages leave the nav while absent; API pages list every public name."""

from __future__ import annotations

from tests._support.docs_hooks import hooks
from tests.docs.doc_examples import DOCS


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


def _pc_entries(pages: dict[str, str]) -> dict[str, list[str]]:
    """``::: parquet_core.<name>`` (top-level names only) -> the pages holding it."""
    import re

    where: dict[str, list[str]] = {}
    for path, text in pages.items():
        for name in re.findall(r"^::: parquet_core\.([A-Za-z_][A-Za-z0-9_]*)$", text, re.M):
            where.setdefault(name, []).append(path)
    return where


def test_every_parquet_core_name_is_on_exactly_one_area_page():
    import parquet_core

    pages = hooks.pc_pages()
    assert len(pages) == len(hooks.PC_AREAS) + 1 and hooks.PC_INDEX in pages
    where = _pc_entries(pages)
    assert set(where) == set(parquet_core.__all__)
    assert {n: p for n, p in where.items() if len(p) != 1} == {}
    assert "::: " not in pages[hooks.PC_INDEX]
    for name in parquet_core.__all__:           # the index links each name to its page
        assert f"[`{name}`]({hooks.pc_assignment()[name].slug}.md#parquet_core.{name})" in pages[hooks.PC_INDEX]


def test_the_areas_split_the_reference():
    """No page is the whole reference again: names are spread by area, "Other" holds the leftovers."""
    assigned = hooks.pc_assignment()
    slugs = {n: a.slug for n, a in assigned.items()}
    assert slugs["read_table"] == "reading" and slugs["write_table"] == "writing"
    assert slugs["write_to_dataset"] == "datasets" and slugs["Table"] == "tables"
    assert slugs["int64"] == "types" and slugs["Schema"] == "types"
    assert slugs["col"] == "filters" and slugs["CryptoFactory"] == "encryption"
    assert slugs["check"] == "check" and slugs["variant"] == "formats" and slugs["ParquetError"] == "errors"
    assert max(sum(a is area for a in assigned.values()) for area in hooks.PC_AREAS) < len(assigned) // 2
    cli = hooks.pc_pages()["api/parquet_core/cli.md"]
    assert "::: parquet_core.cli.main" in cli


def test_a_new_public_name_lands_on_the_other_page(monkeypatch):
    import parquet_core

    def brand_new_helper():
        """A public function no area claims."""

    brand_new_helper.__module__ = "parquet_core.somewhere_new"
    monkeypatch.setattr(parquet_core, "brand_new_helper", brand_new_helper, raising=False)
    monkeypatch.setattr(parquet_core, "__all__", [*parquet_core.__all__, "brand_new_helper"])
    where = _pc_entries(hooks.pc_pages())
    assert where["brand_new_helper"] == ["api/parquet_core/other.md"]


def test_the_parquet_core_nav_lists_every_area_page():
    nav = hooks._prune([{"API": [{"parquet_core": hooks.PC_INDEX}]}], present=set())
    (section,) = nav[0]["API"]
    pages = [target for item in section["parquet_core"] for target in item.values()]
    assert sorted(pages) == sorted(hooks.pc_pages())
