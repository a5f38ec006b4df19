"""Smoke test of the selective-read benchmark harness (no timing assertions)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyarrow")


def test_runs_on_a_small_dataset(capsys):
    from benchmarks.pushdown_bench import main

    main(["--rows", "20000", "-n", "1"])
    out = capsys.readouterr().out
    assert "point id == x" in out and "Bloom key == absent" in out
