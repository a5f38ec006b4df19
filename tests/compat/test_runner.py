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


def test_a_child_that_closed_its_output_is_not_a_timeout(tmp_path: Path, monkeypatch) -> None:
    """A child that exits closes its output before the kernel lets it be reaped: the runner
    must not read "still running" as "timed out" (it did, now and then, after 0.003 s)."""
    proc = ReaderProcess(FAKE, timeout=3, memory=1 << 30).start()
    try:
        assert proc.proc is not None
        real_poll = proc.proc.poll
        calls = {"n": 0}

        def not_reaped_yet():   # read()'s own look, then the first look after the EOF, see it running
            calls["n"] += 1
            return None if calls["n"] <= 2 else real_poll()

        monkeypatch.setattr(proc.proc, "poll", not_reaped_yet)
        cell = proc.read(str(tmp_path / "exit.parquet"), Written("x", {"v": [1, 2]}))
        assert cell.verdict == "crash" and "exit code 3" in cell.detail, cell.detail
    finally:
        proc.stop()
