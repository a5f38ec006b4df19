"""``check.memory-limit``: a chunk too large to check within the reader's memory limits is a
warning, never ``check.internal`` (issue 29, item 4). The files declare 2**31 - 1 slots in a
few bytes (see ``tests/unit/file/hostile_sizes.py``); each check runs in a child whose
address space is capped, so a regression cannot take the machine's memory."""

from __future__ import annotations

import pytest

from tests._support.memory_limit import GiB, run_limited


@pytest.mark.parametrize("build", ["null_run_file()", "long_list_file()", "null_run_file(300_000_000)"])
def test_check_reports_a_memory_limit_not_an_internal_failure(build):
    got = run_limited(f"""
        report = pc.check({build})
        result = [[f.rule, f.severity, f.message] for f in report.findings]
    """, limit=GiB)
    rules = [r for r, _, _ in got]
    assert "check.internal" not in rules, got
    assert "check.memory-limit" in rules, got
    assert all(sev == "warning" for r, sev, _ in got if r == "check.memory-limit")


