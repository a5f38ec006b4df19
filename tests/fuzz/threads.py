"""Thread campaign: many threads share one ParquetFile and one ParquetDataset.

    python -m tests.fuzz.threads --threads 8 --operations 400 --seed 1

Each thread draws operations (seeded per thread): ``read`` of a random set of
columns, ``read_row_group``, ``iter_batches`` at a random batch size, metadata
and schema access, a dataset ``read`` and ``to_table`` with a filter, all on the
same two shared objects; every result is compared with the one the same call
gave single-threaded before the threads started.  A difference, an exception or
a thread still running at the deadline is a finding.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pyarrow as pa

import parquet_core as pc

COLUMNS = ["id", "x", "s", "l", "m"]


def _write(folder: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(7)
    n = 6_000
    table = pa.table({
        "id": pa.array(np.arange(n)),
        "x": pa.array(rng.normal(size=n), mask=rng.random(n) < 0.1),
        "s": pa.array([None if i % 11 == 0 else f"s{i % 257}" for i in range(n)]),
        "l": pa.array([None if i % 13 == 0 else list(range(i % 6)) for i in range(n)], pa.list_(pa.int32())),
        "m": pa.array([[(f"k{j}", j) for j in range(i % 3)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
        "part": pa.array([f"p{i % 4}" for i in range(n)]),
    })
    one = folder / "one.parquet"
    pc.write_table(table, str(one), row_group_size=1_000)
    ds = folder / "ds"
    pc.write_to_dataset(table, str(ds), partition_cols=["part"])
    return one, ds


def _operations(pf: Any, ds: Any, rng: random.Random) -> tuple[str, Callable[[], Any]]:
    kind = rng.choice(["read", "read_row_group", "iter_batches", "metadata", "dataset", "dataset_filter"])
    if kind == "read":
        cols = sorted(rng.sample(COLUMNS, rng.randint(1, len(COLUMNS))))
        return f"read{cols}", lambda: pf.read(columns=cols).to_arrow()
    if kind == "read_row_group":
        i = rng.randrange(pf.metadata.num_row_groups)
        return f"read_row_group({i})", lambda: pf.read_row_group(i).to_arrow()
    if kind == "iter_batches":
        size = rng.choice([1, 97, 1_000, 4_096])
        cols = sorted(rng.sample(COLUMNS, rng.randint(1, len(COLUMNS))))
        return (f"iter_batches({size}, {cols})",
                lambda: pa.concat_tables(b.to_arrow() for b in pf.iter_batches(batch_size=size, columns=cols)))
    if kind == "metadata":
        def meta() -> Any:
            md = pf.metadata
            return (md.num_rows, md.num_row_groups, [md.row_group(i).num_rows for i in range(md.num_row_groups)],
                    str(pf.schema), [md.row_group(i).column(0).statistics.max for i in range(md.num_row_groups)])
        return "metadata", meta
    if kind == "dataset":
        return "dataset.read", lambda: ds.read().to_arrow().sort_by("id")
    return ("dataset.read(filter)",
            lambda: ds.read(filters=[("id", "<", 2_500)]).to_arrow().sort_by("id"))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, pa.Table):
        return isinstance(b, pa.Table) and a.equals(b)
    return bool(a == b)


def run(threads: int, operations: int, seed: int, deadline: float = 300.0) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        one, folder = _write(Path(tmp))
        pf = pc.ParquetFile(str(one))
        ds = pc.ParquetDataset(str(folder))
        expected: dict[str, Any] = {}
        plans = []
        for t in range(threads):
            rng = random.Random(seed * 1_000 + t)
            plan = [_operations(pf, ds, rng) for _ in range(operations // threads)]
            plans.append(plan)
            for name, op in plan:
                if name not in expected:
                    expected[name] = op()          # single-threaded, before any thread runs
        findings: list[str] = []
        lock = threading.Lock()
        barrier = threading.Barrier(threads)

        def worker(plan: list[tuple[str, Callable[[], Any]]]) -> None:
            barrier.wait()
            for name, op in plan:
                try:
                    got = op()
                except Exception as exc:   # noqa: BLE001 - every exception is a finding
                    with lock:
                        findings.append(f"{name}: {type(exc).__name__}: {exc}")
                    continue
                if not _same(got, expected[name]):
                    with lock:
                        findings.append(f"{name}: differs from the single-threaded result")

        t0 = time.monotonic()
        workers = [threading.Thread(target=worker, args=(p,), daemon=True) for p in plans]
        for w in workers:
            w.start()
        for w in workers:
            w.join(max(deadline - (time.monotonic() - t0), 0.1))
        hung = sum(w.is_alive() for w in workers)
        if hung:
            findings.append(f"{hung} threads still running after {deadline} s")
        pf.close()
        return {"threads": threads, "operations": sum(len(p) for p in plans), "distinct": len(expected),
                "seconds": round(time.monotonic() - t0, 1), "findings": findings}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.threads", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--operations", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    res = run(args.threads, args.operations, args.seed)
    for k, v in res.items():
        if k != "findings":
            print(f"{k}: {v}")
    print(f"findings: {len(res['findings'])}")
    for f in res["findings"][:50]:
        print("  " + f)
    return 1 if res["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
