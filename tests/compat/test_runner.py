"""The runner's verdicts for readers that refuse, die, hang or run out of memory."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from parquet_core.compat.features import Written
from parquet_core.compat.runner import ReaderProcess

FAKE = "tests.compat.fake_readers"

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and process groups: Linux")


@pytest.mark.slow
def test_refused_crash_timeout_memory_then_recovers(tmp_path: Path) -> None:
    proc = ReaderProcess(FAKE, timeout=3, memory=1 << 30).start()
    try:
        want = Written("x", {"v": [1, 2]})
        assert proc.read(str(tmp_path / "fine.parquet"), want).verdict == "ok"
        cell = proc.read(str(tmp_path / "refuse.parquet"), want)
        assert (cell.verdict, cell.detail) == ("refused", "ValueError: no such thing")
        cell = proc.read(str(tmp_path / "exit.parquet"), want)
        assert cell.verdict == "crash" and "exit code 3" in cell.detail
        cell = proc.read(str(tmp_path / "sleep.parquet"), want)
        assert cell.verdict == "crash" and "timed out" in cell.detail
        cell = proc.read(str(tmp_path / "memory.parquet"), want)
        assert cell.verdict == "crash" and "memory" in cell.detail.lower()
        # a new child takes the next file
        assert proc.read(str(tmp_path / "fine.parquet"), Written("x", {"v": [1, 3]})).verdict == "different"
    finally:
        proc.stop()


def test_unavailable_reader_is_na(tmp_path: Path) -> None:
    proc = ReaderProcess("tests.compat.no_such_reader_module", timeout=3).start()
    try:
        cell = proc.read(str(tmp_path / "a.parquet"), Written("a", {}))
        assert cell.verdict == "n/a" and "unavailable" in cell.detail
    finally:
        proc.stop()
