"""The writer processes of ``test_dataset_write_atomic.py``: separate processes that write
a dataset and can be SIGKILLed at any moment.

They are forked from the suite's fork server (``tests/_support/forkserver.py``), which
imported this module (and so parquet-core and its writer) once.  A writer started as a
script cost an interpreter start plus the writer's imports (~0.5 s of CPU with bytecode
cached, ~1 s without), and the module starts ~50 writers.
A forked writer is still its own process with its own pid, killed with SIGKILL, exactly
as a writer started from a script was.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import parquet_core as pc
from parquet_core.errors import ParquetError


def version_columns(which: str) -> dict[str, list]:
    """Version A: 300 rows, n = 0..299; version B: 500 rows, n = 1000..1499; k = n % 3."""
    start, count = (0, 300) if which == "A" else (1000, 500)
    n = list(range(start, start + count))
    return {"n": n, "k": [i % 3 for i in n], "v": [float(i) * 0.5 for i in n]}


def _load_the_writer() -> None:
    """Import what a partitioned write imports lazily, once, in the fork server."""
    with tempfile.TemporaryDirectory() as tmp:
        pc.write_to_dataset(version_columns("A"), os.path.join(tmp, "ds"), partition_cols=["k"])


def writer(conn, root: str, versions: str, go: str, behavior: str) -> None:
    """Write each version of *versions* over *root* in turn; messages to *conn*:
    ``ready`` (before the clock starts), ``conflict ...`` (exit 3) or ``done``."""
    tables = {w: version_columns(w) for w in set(versions)}
    # load the writer before the clock starts, so the kill and the race hit writes
    pc.write_to_dataset(tables[versions[0]], f"{root}-warm-{os.getpid()}", partition_cols=["k"])
    conn.send("ready")
    while go != "-" and not os.path.exists(go):      # the parent starts racing writers at once
        time.sleep(0.0005)
    for w in versions:
        try:
            pc.write_to_dataset(tables[w], root, partition_cols=["k"], max_rows_per_file=60,
                                existing_data_behavior=behavior)
        except (ParquetError, FileExistsError) as exc:
            conn.send(f"conflict {type(exc).__name__} {exc}")
            sys.exit(3)
    conn.send("done")


class Writer:
    """A writer process started by :func:`start`: ``ready()``, ``kill()``, ``finish()``."""

    def __init__(self, root: str, versions: str, go: str, behavior: str) -> None:
        ctx = _context()
        self._conn, child = ctx.Pipe(duplex=False)
        self.process = ctx.Process(target=writer, args=(child, root, versions, go, behavior), daemon=True)
        self.process.start()
        child.close()
        self.messages: list[str] = []

    def _receive(self, timeout: float) -> str | None:
        if self._conn.poll(timeout):
            try:
                msg = self._conn.recv()
            except EOFError:
                return None
            self.messages.append(msg)
            return msg
        return None

    def ready(self, timeout: float = 120) -> None:
        msg = self._receive(timeout)
        assert msg == "ready", (msg, self.process.exitcode)

    def kill(self) -> None:
        self.process.kill()
        self.process.join()

    def finish(self, timeout: float = 120) -> int:
        """Wait for the end; returns the exit code (0 written, 3 refused) after reading every message."""
        self.process.join(timeout)
        assert self.process.exitcode is not None, f"writer still running after {timeout} s"
        while self._receive(0) is not None:
            pass
        return self.process.exitcode


def start(root: str, versions: str, go: str = "-", behavior: str = "delete_matching") -> Writer:
    return Writer(root, versions, go, behavior)


def _context():
    from tests._support import forkserver

    return forkserver.context()


# the fork server imports this module before it forks any writer (the tests import it when
# they start their first writer, and write datasets anyway)
_load_the_writer()
