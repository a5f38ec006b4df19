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




def test_check_takes_the_readers_memory_limits(tmp_path):
    """``pc.check`` decodes under ``max_page_bytes`` / ``max_decoded_bytes`` given to it (it
    always used the defaults, and took no such option): a lowered limit leaves the page
    unchecked with a ``check.memory-limit`` warning naming the option, a raised one
    checks it, and a bad value is refused as by the readers."""
    import numpy as np
    import pyarrow as pa

    import parquet_core as pc

    path = tmp_path / "one_page.parquet"
    pc.write_table(pa.table({"x": np.arange(200_000, dtype=np.int64)}), path, use_dictionary=False,
                   data_page_size=1 << 30, data_page_row_count_limit=1 << 30)
    assert [f.rule for f in pc.check(path).findings if f.severity != "info"] == []
    for kw, option in ((dict(max_page_bytes=100_000), "max_page_bytes"),
                       (dict(max_decoded_bytes=1_000_000), "max_decoded_bytes")):
        report = pc.check(path, **kw)
        found = [f for f in report.findings if f.rule == "check.memory-limit"]
        assert found and option in found[0].message, report.findings
    report = pc.check(path, max_page_bytes=10 << 20, max_decoded_bytes=10 << 20)
    assert not [f for f in report.findings if f.rule == "check.memory-limit"]
    with pytest.raises((ValueError, TypeError)):
        pc.check(path, max_page_bytes=-1)


def test_pqc_check_takes_the_limits(tmp_path):
    import json
    import os
    import subprocess
    import sys

    import numpy as np
    import pyarrow as pa

    import parquet_core as pc

    path = tmp_path / "one_page.parquet"
    pc.write_table(pa.table({"x": np.arange(200_000, dtype=np.int64)}), path, use_dictionary=False,
                   data_page_size=1 << 30, data_page_row_count_limit=1 << 30)
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    run = [sys.executable, "-m", "parquet_core.cli", "check", "--json", str(path)]
    out = subprocess.run(run + ["--max-page-bytes", "100000"], capture_output=True, text=True, env=env)
    rules = [f["rule"] for f in json.loads(out.stdout)["findings"]]
    assert "check.memory-limit" in rules, out
    bad = subprocess.run(run + ["--max-decoded-bytes", "0"], capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "--max-decoded-bytes" in bad.stderr and "Traceback" not in bad.stderr
