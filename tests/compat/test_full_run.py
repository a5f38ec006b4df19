"""The whole matrix over every installed reader (slow: minutes, Spark's start included)."""

from __future__ import annotations

import pytest

from parquet_core.compat.features import select
from parquet_core.compat.runner import run


@pytest.mark.slow
def test_full_run_every_cell_has_a_verdict() -> None:
    result = run(select(), timeout=120, progress=False)
    for row in result.rows:
        # parquet_core reads back every feature it writes
        assert row.results["pc"].verdict == "ok", (row.feature, row.results["pc"])
        for name, cell in row.results.items():
            assert cell.verdict in ("ok", "different", "refused", "crash", "n/a"), (row.feature, name)
            if cell.verdict in ("different", "refused", "crash"):
                assert cell.detail, (row.feature, name)
