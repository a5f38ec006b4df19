"""Fixtures over the xskipper conformance resources (paths and helpers in tests/_support/xskipper.py)."""

from __future__ import annotations

import os

import pytest

from tests._support.xskipper import END_TO_END, XSKIPPER, exclusive_stored_prefix


@pytest.fixture(scope="session")
def xskipper_root() -> str:
    if not os.path.isdir(END_TO_END):
        pytest.skip(f"xskipper resources not found at {XSKIPPER}")
    return XSKIPPER


@pytest.fixture
def stored_prefix():
    with exclusive_stored_prefix() as prefix:
        yield prefix
