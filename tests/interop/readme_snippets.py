"""The README's executed examples: a python block right after a marker naming its test."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_snippet(test_file: str) -> str:
    """The python block that follows ``<!-- executed by tests/interop/<test_file> -->``."""
    marker = f"<!-- executed by tests/interop/{test_file} -->"
    text = README.read_text(encoding="utf-8")
    assert text.count(marker) == 1, "the README marker must appear once"
    found = re.search(re.escape(marker) + r"\s*```python\n(.*?)```", text, re.S)
    assert found, "the marker must be followed by a python block"
    return found.group(1)
