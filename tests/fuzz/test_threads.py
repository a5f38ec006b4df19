"""A short run of the thread campaign (``python -m tests.fuzz.threads``): threads sharing
one ParquetFile and one ParquetDataset get what the same calls gave single-threaded."""

from __future__ import annotations

import pytest

from tests.fuzz.threads import run


@pytest.mark.slow
def test_shared_file_and_dataset_across_threads() -> None:
    res = run(threads=4, operations=24, seed=29, deadline=240.0)
    assert res["operations"] == 24 and res["distinct"] > 5
    assert not res["findings"], res["findings"]
