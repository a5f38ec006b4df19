"""The fuzzer's per-mutant bound on ``pqc_check`` and its regression seeds (issue 29)."""

from __future__ import annotations

from tests.fuzz.exercise import CHECK_CPU_FLOOR, CHECK_READ_RATIO, slow_check
from tests.fuzz.seeds import REGRESSIONS, regression_seeds


def test_a_check_within_its_bound_is_no_finding():
    assert slow_check({"read_table": 0.1, "pqc_check": CHECK_CPU_FLOOR}) is None
    # a big file: check may take CHECK_READ_RATIO times its reads on top of the floor
    assert slow_check({"read_metadata": 1.0, "read_table": 1.0, "read_nocrc": 1.0,
                       "pqc_check": CHECK_CPU_FLOOR + CHECK_READ_RATIO * 3.0 - 0.1}) is None


def test_a_check_over_its_bound_is_a_timeout_finding():
    kind, details = slow_check({"read_metadata": 0.01, "read_table": 0.02, "pqc_check": CHECK_CPU_FLOOR + 1.0})
    assert kind == "timeout" and details["op"] == "pqc_check" and details["exc_type"] == "SlowCheck"
    assert "bound" in details["message"]


def test_the_regression_files_are_seeds():
    names = {s.name for s in regression_seeds()}
    assert names == {f"regressions/{p.name}" for p in REGRESSIONS.glob("*.parquet")}
    assert "regressions/external-chunk-file-path-dot.parquet" in names
    small = {s.name for s in regression_seeds(1024)}
    assert small and small < names
