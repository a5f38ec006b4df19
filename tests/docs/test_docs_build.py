"""The docs site builds with warnings as errors, and holds every page and public name."""

from __future__ import annotations

import re

import pytest

import parquet_core
import spark_adapter

pytestmark = pytest.mark.slow    # one mkdocs build per session (~10 s of CPU)


def test_strict_build_succeeds(built_site):
    site, done = built_site
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout[-4000:]}{done.stderr[-4000:]}"
    assert not re.search(r"^WARNING", done.stderr, re.M), done.stderr[-4000:]


def test_every_guide_page_is_built(built_site):
    site, _ = built_site
    for page in ("getting-started", "guide/reading", "guide/writing", "guide/datasets", "guide/interop",
                 "guide/encryption", "guide/formats", "guide/cli", "guide/check", "guide/spark",
                 "guide/integrations", "guide/errors", "guide/performance", "architecture", "changelog",
                 "contributing", "pyarrow-parameters"):
        assert (site / page / "index.html").is_file(), page
    assert (site / "search" / "search_index.json").is_file()


def test_api_reference_documents_every_public_name(built_site):
    """Each public name has its entry on exactly one built page."""
    site, _ = built_site
    for package, folder in ((parquet_core, "api/parquet_core"), (spark_adapter, "api/spark_adapter")):
        htmls = {p: p.read_text(encoding="utf-8") for p in (site / folder).rglob("index.html")}
        for name in package.__all__:
            holders = [p for p, html in htmls.items() if f'id="{package.__name__}.{name}"' in html]
            assert len(holders) == 1, f"{package.__name__}.{name}: API entries on {holders}"


def test_parquet_core_reference_is_split(built_site):
    site, _ = built_site
    sizes = {p.parent.name: p.stat().st_size for p in (site / "api/parquet_core").glob("*/index.html")}
    assert {"reading", "writing", "datasets", "tables", "types", "filters", "encryption", "check", "formats",
            "errors", "cli", "other"} <= set(sizes)
    assert (site / "api/parquet_core/index.html").is_file()


def test_api_signatures_show_writer_option_defaults(built_site):
    """write_table's signature shows the options table's defaults, not the source's ``_D[...]``."""
    site, _ = built_site
    html = (site / "api/parquet_core/writing" / "index.html").read_text(encoding="utf-8")
    entry = html[html.index('id="parquet_core.write_table"'):]
    entry = re.sub(r"<[^>]+>", "", entry)
    assert "_D[" not in entry and "{writer options}" not in entry
    assert "data_page_size: int | None = 1048576" in entry.replace("&quot;", '"')
    assert "compression_level" in entry


def test_changelog_page_includes_the_changelog(built_site):
    from pathlib import Path

    site, _ = built_site
    first = next(line for line in (Path(__file__).resolve().parents[2] / "CHANGELOG.md").read_text(
        encoding="utf-8").splitlines() if line.startswith("### "))
    html = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    words = re.sub(r"[`#]", "", first).strip().split()[0]
    assert words in html
