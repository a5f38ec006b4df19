"""Smoke test of the encryption benchmark harness (no timing assertions)."""

from __future__ import annotations

import json

from benchmarks import encryption_bench


def test_encryption_bench_runs_and_checks(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out_json = tmp_path / "enc.json"
    assert encryption_bench.main(["--rows", "3000", "-n", "1", "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "MISMATCH" not in out and "n/a" not in out
    rows = json.loads(out_json.read_text())["results"]
    assert len(rows) == 6
    assert all(r["pc_file_read_by_pyarrow_equal"] and r["pc_read_equal"] for r in rows)
