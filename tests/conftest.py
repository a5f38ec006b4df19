"""Shared test configuration: where the Apache conformance corpus lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis' per-example deadline is a timing assertion: on a loaded machine
# (CI shares 2 cores) it fails correct code. Tests that want a deadline set it.
settings.register_profile("parquet-core", deadline=None)
settings.load_profile("parquet-core")

_DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "parquet-testing" / "data"


def corpus_dir() -> Path:
    """The parquet-testing ``data`` directory (``PARQUET_TEST_DATA`` overrides)."""
    return Path(os.environ.get("PARQUET_TEST_DATA", str(_DEFAULT)))


@pytest.fixture(scope="session")
def corpus() -> Path:
    """Path of the conformance corpus; skips the test when it is absent."""
    d = corpus_dir()
    if not d.is_dir():
        pytest.skip(f"parquet-testing corpus not found at {d} (set PARQUET_TEST_DATA)")
    return d
