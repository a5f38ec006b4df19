"""Every example of the docs pages runs, page by page, in a fresh folder (see doc_examples)."""

from __future__ import annotations

import pytest

from tests.docs.doc_examples import DOCS, ROOT, blocks, example_pages, pages, run_page


@pytest.mark.parametrize("page", example_pages(spark=False), ids=lambda p: str(p.relative_to(DOCS)))
def test_page_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_page(page) > 0


def test_every_guide_has_examples():
    """The guides and getting started carry examples that run (not only prose)."""
    guides = [p for p in pages() if p.parent.name == "guide" or p.name == "getting-started.md"]
    assert len(guides) >= 12
    for p in guides:
        if p.name in {"performance.md"}:
            continue
        assert any(b.kind in ("python", "console") for b in blocks(p)), p.relative_to(ROOT)


def test_python_blocks_are_all_seen():
    """Every ```python fence is one the runner runs (no marker typo hides one)."""
    for p in pages():
        text = p.read_text(encoding="utf-8")
        fences = text.count("\n```python")
        assert fences == sum(b.kind == "python" for b in blocks(p)), p.relative_to(ROOT)
