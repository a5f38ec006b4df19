"""The fuzz harness tells a starved worker (runnable, little CPU) from a stuck one (asleep)."""

from __future__ import annotations

import subprocess
import sys
import time

from tests.fuzz.harness import _runnable


def _child(code: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", code])


def test_sleeping_process_is_not_runnable() -> None:
    proc = _child("import time; time.sleep(30)")
    try:
        time.sleep(0.5)
        assert not _runnable(proc.pid)
    finally:
        proc.kill()
        proc.wait()


def test_busy_process_is_runnable() -> None:
    proc = _child("while True: pass")
    try:
        time.sleep(0.3)
        # a busy loop is running or queued for a CPU: state R in either case (a sample can
        # catch it in the kernel for a moment, so a few samples are taken)
        seen = []
        for _ in range(20):
            seen.append(_runnable(proc.pid))
            time.sleep(0.01)
        assert any(seen)
    finally:
        proc.kill()
        proc.wait()


def test_gone_process_is_not_runnable() -> None:
    proc = _child("pass")
    proc.wait()
    assert not _runnable(proc.pid)
