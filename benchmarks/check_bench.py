"""How long ``pqc check`` takes, against reading the same files.

Two measurements (issue 19):

1. ``check --level data`` (every value decoded and compared with the
   metadata) against a full ``pc.read_table`` of the same files, and
   pyarrow's ``read_table`` for scale. The aim is at most 2x the read.
2. ``check --level footer`` over a folder of many small files (default
   1,000): the footer-only sweep of a lake.

Both go through ``pqc check`` itself (``parquet_core.cli.main``, in-process,
output discarded), so argument parsing and report rendering are counted.

    python benchmarks/check_bench.py [--rows N] [--files F] [--many 1000] [--repeat R]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import tempfile
import time
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc
from parquet_core.cli import main as pqc


def _table(n: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ints = rng.integers(0, 1_000_000, n)
    return pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "v": pa.array(rng.standard_normal(n)),
        "k": pa.array(ints.astype(np.int32), mask=rng.random(n) < 0.1),
        "s": pa.array([f"name-{i % 5000}" for i in ints]),
        "t": pa.array(ints * 1_000_000, pa.timestamp("us")),
    })


def _time(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time of *repeat* runs, in seconds."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def _quiet_pqc(args: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()):
        return pqc(args)


def bench_data(folder: str, rows: int, files: int, repeat: int) -> dict[str, float]:
    paths = []
    for i in range(files):
        p = os.path.join(folder, f"data-{i}.parquet")
        pq.write_table(_table(rows, i), p, row_group_size=max(1, rows // 4), write_page_index=True)
        paths.append(p)
    status = _quiet_pqc(["check", "--level", "data", *paths])
    if status != 0:
        raise SystemExit(f"pqc check found problems in pyarrow's files (exit {status})")
    return {
        "check_data": _time(lambda: _quiet_pqc(["check", "--level", "data", *paths]), repeat),
        "check_pages": _time(lambda: _quiet_pqc(["check", "--level", "pages", *paths]), repeat),
        "pc_read_table": _time(lambda: [pc.read_table(p) for p in paths], repeat),
        "pc_read_table_1t": _time(lambda: [pc.read_table(p, use_threads=False) for p in paths], repeat),
        "pa_read_table": _time(lambda: [pq.read_table(p) for p in paths], repeat),
    }


def bench_footers(folder: str, many: int, repeat: int) -> dict[str, float]:
    small = _table(200, 0)
    for i in range(many):
        pq.write_table(small, os.path.join(folder, f"f-{i:05d}.parquet"))
    paths = sorted(os.path.join(folder, f) for f in os.listdir(folder))
    return {"check_footer_many": _time(lambda: _quiet_pqc(["check", "--level", "footer", *paths]), repeat)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=500_000, help="rows per file (data benchmark)")
    ap.add_argument("--files", type=int, default=2, help="files (data benchmark)")
    ap.add_argument("--many", type=int, default=1000, help="files in the footer sweep")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        d = bench_data(a, args.rows, args.files, args.repeat)
        f = bench_footers(b, args.many, args.repeat)
    print(f"data:   {args.files} files x {args.rows} rows, 5 columns (median of {args.repeat})")
    print(f"  pqc check --level data   {d['check_data']:.3f} s  "
          f"({d['check_data'] / d['pc_read_table']:.2f}x pc.read_table)")
    print(f"  pqc check --level pages  {d['check_pages']:.3f} s")
    print(f"  pc.read_table            {d['pc_read_table']:.3f} s  (threads; check is single-threaded: "
          f"{d['check_data'] / d['pc_read_table_1t']:.2f}x the read with use_threads=False, "
          f"{d['pc_read_table_1t']:.3f} s)")
    print(f"  pyarrow read_table       {d['pa_read_table']:.3f} s")
    print(f"footer: {args.many} files")
    print(f"  pqc check --level footer {f['check_footer_many']:.3f} s  "
          f"({1000 * f['check_footer_many'] / args.many:.2f} ms per file)")


if __name__ == "__main__":
    main()
