"""What the suite's fork server (``tests/_support/forkserver.py``) loads before it forks:
the modules its children run and, by one small call of each, the modules parquet-core
imports lazily on first use (the fuzzer's exercise of a small file imports ~300 modules:
0.68 s of CPU the first time, 0.03 s after)."""

from __future__ import annotations

import os
import tempfile

import parquet_core as pc
from tests.dataset import atomic_writer  # noqa: F401  (its import writes a small dataset)
from tests.fuzz import harness  # noqa: F401
from tests.fuzz.exercise import exercise


def _warm() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "warm.parquet")
        pc.write_table({"i": [1, 2, None], "s": ["a", "b", "c"]}, path, write_statistics=True)
        with open(path, "rb") as fh:
            exercise(fh.read(), path, None)


_warm()
