"""Fixtures: the datasets real Kartothek 5.3 wrote (helpers in tests/_support/kartothek.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._support.kartothek import SHARED


@pytest.fixture(scope="session")
def ktk_store() -> Path:
    store = SHARED / "store"
    if not store.is_dir():
        pytest.skip(f"Kartothek fixtures not found at {store}")
    return store
