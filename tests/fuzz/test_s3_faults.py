"""A short run of the S3 fault campaign (``python -m tests.fuzz.s3_faults``): reads and
writes through a proxy that resets, truncates, delays and trickles replies and answers
500 / 503, in front of moto.  Every operation ends with the fault-free result, a
ParquetError or the client's own I/O error after its retries; never different data, a
hang, another exception, or a visible object that is not the whole table written.
(A small table and short delays keep it quick; ``test_s3_give_up.py`` covers the
client giving up.)"""

from __future__ import annotations

from typing import Iterator

import pytest

pytest.importorskip("moto.server")
pytest.importorskip("s3fs")

from tests.fuzz.s3_faults import Campaign  # noqa: E402


@pytest.fixture(scope="module")
def camp() -> Iterator[Campaign]:
    c = Campaign(seed=29, rate=0.3, deadline=60.0, rows=300, delay=0.05)
    try:
        yield c
    finally:
        c.close()


def test_the_proxy_passes_requests_untouched_when_disabled(camp: Campaign) -> None:
    before, injected = camp.proxy.requests, sum(camp.proxy.injected.values())
    camp.proxy.enabled = False
    try:
        for name in ("read_table", "write_table"):
            assert camp.run_one(name) == ("ok", "")
    finally:
        camp.proxy.enabled = True
    assert sum(camp.proxy.injected.values()) == injected and camp.proxy.requests > before


def _run(camp: Campaign, names: tuple[str, ...]) -> list[str]:
    outcomes = []
    for name in names:
        outcome, detail = camp.run_one(name)
        outcomes.append(outcome)
        assert outcome in ("ok", "refused", "io_error"), detail
    return outcomes


def test_file_operations_through_faults_are_right_or_refused(camp: Campaign) -> None:
    before = sum(camp.proxy.injected.values())
    outcomes = _run(camp, ("read_table", "file_read", "read_row_group", "iter_batches", "write_table"))
    assert sum(camp.proxy.injected.values()) - before >= 2, camp.proxy.injected   # faults were met
    assert "ok" in outcomes


@pytest.mark.slow
def test_dataset_operations_through_faults_are_right_or_refused(camp: Campaign) -> None:
    # a dataset write makes ~60 requests (locks, markers, commit record): ~10 s here
    before = sum(camp.proxy.injected.values())
    outcomes = _run(camp, ("dataset_read", "write_to_dataset"))
    assert sum(camp.proxy.injected.values()) - before >= 2, camp.proxy.injected
    assert set(outcomes) <= {"ok", "refused", "io_error"}
