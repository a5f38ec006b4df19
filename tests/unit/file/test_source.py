"""File sources: a failed open leaves nothing behind and reports nothing twice."""

from __future__ import annotations

import gc
import sys

import pytest

import parquet_core as pc


def test_missing_file_raises_once_and_leaks_nothing(tmp_path, monkeypatch):
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with pytest.raises(FileNotFoundError):
        pc.read_table(tmp_path / "absent.parquet")
    gc.collect()
    assert unraisable == []  # no AttributeError from a half-built source's finaliser
