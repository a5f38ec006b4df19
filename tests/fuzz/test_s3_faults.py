"""A short run of the S3 fault campaign (``python -m tests.fuzz.s3_faults``): reads and
writes through a proxy that resets, truncates, delays and trickles replies and answers
500 / 503, in front of moto.  Every operation ends with the fault-free result, a
ParquetError or the client's own I/O error after its retries; never different data, a
hang, another exception, or a visible object that is not the whole table written."""

from __future__ import annotations

import pytest

pytest.importorskip("moto.server")
pytest.importorskip("s3fs")

from tests.fuzz.s3_faults import OPERATIONS, Campaign  # noqa: E402


@pytest.mark.slow
def test_operations_through_faults_are_right_or_refused() -> None:
    camp = Campaign(seed=29, rate=0.25, deadline=90.0)
    try:
        outcomes = []
        for name in OPERATIONS + ("read_table", "iter_batches", "write_table"):
            outcome, detail = camp.run_one(name)
            outcomes.append(outcome)
            assert outcome in ("ok", "refused", "io_error"), detail
        assert sum(camp.proxy.injected.values()) >= 10, camp.proxy.injected   # faults were met
        assert "ok" in outcomes
    finally:
        camp.close()


@pytest.mark.slow
def test_the_proxy_passes_requests_untouched_at_rate_zero() -> None:
    camp = Campaign(seed=1, rate=0.0, deadline=60.0)
    try:
        for name in ("read_table", "iter_batches", "write_table"):
            assert camp.run_one(name) == ("ok", "")
        assert not camp.proxy.injected and camp.proxy.requests > 0
    finally:
        camp.close()
