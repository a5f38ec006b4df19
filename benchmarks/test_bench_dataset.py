"""bench_dataset's floor row: the bare listing counts what os.walk finds (no timing assertions)."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("pyarrow")


def test_bare_listing_counts_every_file(tmp_path) -> None:
    from benchmarks.bench_dataset import bare_listing, make_dataset

    root = str(tmp_path / "ds")
    make_dataset(root, 20)
    (tmp_path / "ds" / "p=0" / "empty").mkdir()
    expected = sum(len(files) for _, _, files in os.walk(root))
    assert expected == 21           # 20 data files and _metadata
    assert bare_listing(root) == expected
