"""Smoke test of the many-small-files benchmark harness (no timing assertions)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyarrow")


def test_runs_on_a_few_small_files(tmp_path, capsys):
    from benchmarks.many_files_bench import main

    main(["--data", str(tmp_path / "data"), "--files", "3", "--rows", "2000", "-n", "1"])
    out = capsys.readouterr().out
    assert "3 files" in out and "pc read / pa read" in out
