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
    site, _ = built_site
    for package, page in ((parquet_core, "api/parquet_core"), (spark_adapter, "api/spark_adapter")):
        html = (site / page / "index.html").read_text(encoding="utf-8")
        for name in package.__all__:
            assert f'id="{package.__name__}.{name}"' in html, f"{package.__name__}.{name} has no API entry"


def test_api_signatures_show_writer_option_defaults(built_site):
    """write_table's signature shows the options table's defaults, not the source's ``_D[...]``."""
    site, _ = built_site
    html = (site / "api/parquet_core" / "index.html").read_text(encoding="utf-8")
    entry = html[html.index('id="parquet_core.write_table"'):]
    entry = re.sub(r"<[^>]+>", "", entry[:entry.index('id="parquet_core.write_to_dataset"')])
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
