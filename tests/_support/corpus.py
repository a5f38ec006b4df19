"""Where the parquet-testing corpus is (tests/conftest.py documents how to get it)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DEFAULT_CORPUS", "corpus_dir"]

#: ../shared/parquet-testing/data next to this checkout
DEFAULT_CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "parquet-testing" / "data"


def corpus_dir() -> Path:
    """The parquet-testing ``data`` directory (``PARQUET_TEST_DATA`` overrides)."""
    return Path(os.environ.get("PARQUET_TEST_DATA", str(DEFAULT_CORPUS)))
