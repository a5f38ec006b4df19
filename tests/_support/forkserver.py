"""The suite's ``multiprocessing`` fork server, for tests whose children only need
parquet-core and a helper module of the tests.

A spawned child (or a ``python script.py`` subprocess) is an interpreter start plus the
imports of parquet-core and its writer or reader: ~0.5 s of CPU with bytecode cached,
~1 s without, per child.  The fork server imports the modules below once and forks each
child from that state; a child is still a process of its own (own pid, own limits,
killable).  A process has one fork server and its preload list is fixed when it starts,
so every user's module is loaded by ``forkserver_preload``.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import ForkServerContext

#: imports the modules whose functions the children run, and warms them
PRELOAD = ["tests._support.forkserver_preload"]


def context() -> ForkServerContext:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx
