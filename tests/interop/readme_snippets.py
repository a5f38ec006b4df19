"""The docs' marked examples: a python block right after a marker naming its test.

The docs runner (``tests/docs/test_docs_examples.py``) executes every block of every page;
a block marked ``<!-- executed by tests/interop/<test_file> -->`` is also run by that
test, which checks what it wrote with an outside reader.
"""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _page_with(marker: str) -> Path:
    found = [p for p in sorted(DOCS.rglob("*.md")) if marker in p.read_text(encoding="utf-8")]
    assert len(found) == 1, f"the marker {marker!r} must be on one docs page, found {found}"
    return found[0]


def docs_snippet(test_file: str) -> tuple[Path, str]:
    """(page, the python block that follows ``<!-- executed by tests/interop/<test_file> -->``)."""
    marker = f"<!-- executed by tests/interop/{test_file} -->"
    page = _page_with(marker)
    text = page.read_text(encoding="utf-8")
    assert text.count(marker) == 1, "the marker must appear once"
    found = re.search(re.escape(marker) + r"\s*```python\n(.*?)```", text, re.S)
    assert found, "the marker must be followed by a python block"
    return page, found.group(1)
