"""Smoke test of the nested write benchmark harness (no timing assertions)."""

from __future__ import annotations

from benchmarks import nested_write_bench


def test_nested_write_bench_runs_and_checks(capsys) -> None:  # type: ignore[no-untyped-def]
    assert nested_write_bench.main(["--rows", "2000", "-n", "1"]) == 0
    out = capsys.readouterr().out
    assert "WRONG" not in out
    assert out.count(" ok") == 5
