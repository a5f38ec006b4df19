"""Issue 32, the pool decision: one thread vs the default threads vs the pool forced, per table shape.

    python -m benchmarks.pool_matrix [--shapes taxi:300000:0,taxi:6000000:1048576,...] [-n 7]

A shape is ``case:rows:row_group_rows`` (0: one row group), the case one of
``real_tables_bench``'s (taxi, lineitem, urls, timestamps) or ``wide`` (500 float64
columns).  Files are written by pyarrow (the case's settings) under ``--cache-dir``.
Each round reads the file from memory with one thread, with ``use_threads=True`` (the
decision as it is), with the pool forced (``scan.pool_plan`` answering yes, its tasks unchanged), and
pyarrow's default (all cores), alternated in one process; reported: best and median
wall ms of each, how many tasks the default read submitted to
the pool (0: inline), the best CPU ms of our three reads, and the gains (one thread / default, one thread / forced).
Wall-clock times need an idle-ish machine and a scheduling group of their own
(``setsid sh -c 'echo -15 > /proc/self/autogroup; exec nice -n -15 python -m ...'``).
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable
from unittest import mock

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc
from benchmarks.real_tables_bench import CASES, WIDE_COLS
from parquet_core.file import scan

SHAPES = ",".join(f"{c}:{n}:{g}" for c in ("taxi", "lineitem", "timestamps", "urls")
                  for n in (300_000, 1_000_000, 6_000_000) for g in (0, 131072, 1048576)
                  if g < n) + ",wide:20000:0,wide:60000:20000"


def wide_table(rows: int) -> pa.Table:
    rng = np.random.default_rng(6)
    return pa.table({f"c{i:03d}": rng.random(rows) for i in range(WIDE_COLS)})


def shape_file(case: str, rows: int, group: int, cache: str) -> str:
    path = os.path.join(cache, f"pool_{case}_{rows}_{group}_{pa.__version__}.parquet")
    if not os.path.exists(path):
        table, opts = (wide_table(rows), {}) if case == "wide" else (CASES[case][0](rows), CASES[case][1])
        pq.write_table(table, path + ".tmp", row_group_size=group or rows, **opts)
        os.replace(path + ".tmp", path)
    return path


class Spy:
    """Counts submissions to the decode pool."""

    def __init__(self) -> None:
        self.n = 0
        pool = scan.decode_pool()
        self._submit = pool.submit
        pool.submit = self.submit  # type: ignore[method-assign]

    def submit(self, *a: Any, **k: Any) -> Any:
        self.n += 1
        return self._submit(*a, **k)


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def measure(path: str, rounds: int) -> dict[str, Any]:
    data = Path(path).read_bytes()

    def ours(threads: bool) -> Callable[[], Any]:
        return lambda: pc.read_table(io.BytesIO(data), use_threads=threads).to_arrow()

    def forced() -> Any:    # the pool whatever the decision, the same tasks
        plan = getattr(scan, "pool_plan", None)
        if plan is None:    # a tree before pool_plan
            with mock.patch.object(scan, "worth_threads", lambda *a: True):
                return ours(True)()
        with mock.patch.object(scan, "pool_plan", lambda *a: (True, plan(*a)[1])):
            return ours(True)()

    def theirs() -> Any:
        return pq.read_table(pa.BufferReader(data))

    spy = Spy()
    expect = theirs()
    assert ours(True)().equals(expect) and forced().equals(expect)
    spy.n = 0
    ours(True)()
    tasks = spy.n
    runs: dict[str, list[float]] = {k: [] for k in ("one", "default", "forced", "pa")}
    cpu: dict[str, list[float]] = {k: [] for k in ("one", "default", "forced")}
    cores = os.cpu_count() or 1
    modes = [("one", ours(False)), ("default", ours(True)), ("forced", forced)]
    for r in range(rounds):
        # each mode first in turn (the read after pyarrow's pays for fresh memory pages)
        for k, fn in modes[r % 3:] + modes[:r % 3]:
            w, c = timed(fn)
            runs[k].append(w)
            cpu[k].append(c)
        pa.set_cpu_count(cores)
        pa.set_io_thread_count(cores)
        runs["pa"].append(timed(theirs)[0])
    out: dict[str, Any] = {"tasks": tasks, "cpu": {k: min(v) for k, v in cpu.items()}}
    for k, v in runs.items():
        out[k] = (min(v), statistics.median(v))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.pool_matrix", description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--rounds", "-n", type=int, default=7)
    ap.add_argument("--cache-dir", default=os.environ.get("PQC_BENCH_CACHE", tempfile.gettempdir()))
    args = ap.parse_args(argv)
    os.makedirs(args.cache_dir, exist_ok=True)
    print(f"{'shape':30} {'tasks':>5} {'1t ms':>13} {'default':>13} {'forced':>13} {'pa dflt':>13} "
          f"{'cpu 1t/dflt/forced':>20} {'gain':>6} {'forced':>6}")
    for spec in args.shapes.split(","):
        case, rows, group = spec.split(":")
        path = shape_file(case, int(rows), int(group), args.cache_dir)
        r = measure(path, args.rounds)
        one, dflt, frc, theirs = r["one"], r["default"], r["forced"], r["pa"]
        print(f"{spec:30} {r['tasks']:5d} " + " ".join(f"{b * 1e3:6.1f}/{m * 1e3:6.1f}" for b, m in (one, dflt, frc, theirs))
              + " " + "/".join(f"{r['cpu'][k] * 1e3:.1f}" for k in ("one", "default", "forced"))
              + f" {one[0] / dflt[0]:5.2f}x {one[0] / frc[0]:5.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
