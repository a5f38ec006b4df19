"""Where a threaded read's pool tasks wait: on a core, or asleep (the GIL), per kind of task.

    python -m benchmarks.thread_waits [--cases urls,lineitem] [--rows 300000] [-n 15]

Linux only.  Each pool task's wall time splits, from ``/proc/thread-self/schedstat``
(the kernel's per-thread counters: time on a CPU, time runnable but waiting for one),
into **CPU**, **runqueue** (ready, no free core: other processes' load) and **asleep**
(the rest: the thread blocked, which for the decode pool's tasks is waiting for the GIL;
they take no other lock and do no I/O, and page faults count as CPU).  The calling
thread is measured the same way over the whole ``read_table(path).to_arrow()``.

``threads_critical_path`` shows the CPU each worker spends; this shows what the tasks
lose besides it.  The asleep column is the GIL's cost to the read: time a task could have
run on a free core but waited for another thread's Python or a numpy call too short to
release the GIL.  On a loaded machine it also holds the time a GIL holder spent preempted
(the holder is in the runqueue while the others sleep), so compare it between trees run
alternately, or read it on a quiet machine.  Per case: the median over the reads of each
kind's totals per read (ms), and of the read's wall time.
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc
from benchmarks import real_tables_bench as rt
from parquet_core.file import scan

_STAT = "/proc/thread-self/schedstat"


def _sched() -> tuple[float, float]:
    """This thread's time on a CPU and time waiting in the runqueue so far, in seconds."""
    with open(_STAT) as f:
        on_cpu, waiting, _ = f.read().split()
    return int(on_cpu) / 1e9, int(waiting) / 1e9


def _kind(fn: Callable[..., Any], args: tuple[Any, ...]) -> str:
    """A task's name: the function a pool job runs (through a batch or a partial)."""
    if getattr(fn, "__name__", "") == "_run_batch" and len(args) == 2:
        tasks, batch = args
        names = sorted({_kind(tasks[i], ()) for i in batch})
        return "+".join(names)
    while isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(fn, "__name__", type(fn).__name__)


class _Spy:
    """The decode pool, each task's wall, CPU and runqueue time added to its kind's totals."""

    def __init__(self, pool: Any, log: dict[str, list[float]]) -> None:
        self.pool, self.log = pool, log
        self.lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        kind = _kind(fn, args)

        def run() -> Any:
            wall = time.perf_counter()
            cpu, queued = _sched()
            try:
                return fn(*args, **kwargs)
            finally:
                cpu2, queued2 = _sched()
                wall = time.perf_counter() - wall
                with self.lock:
                    row = self.log[kind]
                    row[0] += 1
                    row[1] += wall
                    row[2] += cpu2 - cpu
                    row[3] += queued2 - queued
        return self.pool.submit(run)


def measure(path: str, repeats: int) -> tuple[float, list[float], dict[str, list[float]]]:
    """Medians over *repeats* default-threads reads: the wall time, the calling thread's
    [wall, CPU, runqueue], and per task kind [tasks, wall, CPU, runqueue] (seconds)."""
    real = scan.decode_pool
    walls: list[float] = []
    calling: list[list[float]] = []
    kinds: dict[str, list[list[float]]] = defaultdict(list)
    try:
        pc.read_table(path).to_arrow()      # warm: the pool started, the file cached
        for _ in range(repeats):
            log: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
            spy = _Spy(real(), log)
            scan.decode_pool = lambda s=spy: s  # type: ignore[assignment,misc]
            gc.collect()
            wall = time.perf_counter()
            cpu, queued = _sched()
            pc.read_table(path).to_arrow()
            cpu2, queued2 = _sched()
            wall = time.perf_counter() - wall
            walls.append(wall)
            calling.append([wall, cpu2 - cpu, queued2 - queued])
            for k, row in log.items():
                kinds[k].append(row)
    finally:
        scan.decode_pool = real

    def med(xs: list[float]) -> float:
        xs = sorted(xs)
        return xs[len(xs) // 2] if xs else 0.0

    per_kind = {k: [med([r[i] for r in rows]) for i in range(4)] for k, rows in kinds.items()}
    return med(walls), [med([c[i] for c in calling]) for i in range(3)], per_kind


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.thread_waits",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="urls,lineitem,timestamps,taxi")
    ap.add_argument("--rows", type=int, default=300_000)
    ap.add_argument("--repeats", "-n", type=int, default=15)
    ap.add_argument("--cache-dir", default=os.environ.get("PQC_BENCH_CACHE", tempfile.gettempdir()))
    args = ap.parse_args(argv)
    if not os.path.exists(_STAT):
        print(f"{_STAT} is missing: Linux only")
        return 1
    print(f"{'case':11} {'wall':>6}  {'task':28} {'n':>3} {'wall':>6} {'CPU':>6} {'runq':>6} {'asleep':>6}"
          "   (ms per read, medians)")
    for case in args.cases.split(","):
        make, opts = rt.CASES[case]
        path = os.path.join(args.cache_dir, f"real_{case}_{args.rows}_{pa.__version__}.parquet")
        if not os.path.exists(path):
            pq.write_table(make(args.rows), path, **opts)
        wall, calling, kinds = measure(path, args.repeats)
        rows = [("calling thread", 1.0, *calling)] + sorted(
            ((k, *v) for k, v in kinds.items()), key=lambda r: -r[2])
        for i, (kind, n, w, c, q) in enumerate(rows):
            head = f"{case:11} {wall * 1e3:6.1f}" if i == 0 else " " * 18
            asleep = "" if i == 0 else f"{(w - c - q) * 1e3:6.1f}"   # the calling thread waits on the tasks
            print(f"{head}  {kind[:28]:28} {n:3.0f} {w * 1e3:6.1f} {c * 1e3:6.1f} {q * 1e3:6.1f} {asleep:>6}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
