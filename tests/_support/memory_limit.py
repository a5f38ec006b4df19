"""Run a snippet in a child process whose address space is limited (the memory-bound tests
of tests/unit/file and tests/check)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

__all__ = ["GiB", "run_limited"]

ROOT = Path(__file__).resolve().parents[2]
GiB = 1 << 30


def run_limited(body: str, limit: int = 3 * GiB / 2) -> dict:
    """Run *body* (which sets ``result``) in a child limited to *limit* bytes of address
    space; returns ``result``, or ``{"escaped": exception type, "message": ...}``."""
    code = textwrap.dedent("""
        import json, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
        import numpy as np
        import parquet_core as pc
        from tests.unit.file.hostile_sizes import *
        def outcome(call):
            try:
                call()
            except pc.ParquetError as exc:
                return {{"type": type(exc).__name__, "message": str(exc),
                         "notes": list(getattr(exc, "__notes__", ()))}}
            except BaseException as exc:
                return {{"type": "escaped " + type(exc).__name__, "message": str(exc)}}
            return {{"type": "ok"}}
        result = None
    """).format(limit=int(limit)) + textwrap.dedent(body) + "\nprint(json.dumps(result))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
