"""Streaming and threaded reads against pyarrow.

Two measurements, each side by side with pyarrow in the same conditions:

1. ``iter_batches`` on one huge row group (default 5M rows of the nine-column
   benchmark table, dict_snappy, one row group): time to the first batch and
   peak memory (in a fresh subprocess per measurement, so the
   numbers are not polluted by earlier runs), for the first batch only and
   for a full scan.  Peak memory is the process's VmHWM, reset after the
   imports and the footer (Linux ``/proc/self/clear_refs``), so it counts
   the read plus the resident interpreter and libraries.
2. Whole-file reads (default 1M rows, 1M-row row groups split in 8): wall
   time, best of N, of ``use_threads=False`` and ``use_threads=True`` for
   both engines; the ratios say how much threads give on this machine.

Run::

    python -m benchmarks.iter_batches_bench [--rows 5000000] [--read-rows 1000000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

_CHILD = r"""
import sys, time
path, engine, mode, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def rss(field):
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith(field))

if engine == "pc":
    import parquet_core as pc
    f = pc.ParquetFile(path)
else:
    import pyarrow.parquet as pq
    f = pq.ParquetFile(path)
with open("/proc/self/clear_refs", "w") as fh:   # reset the peak (VmHWM) to the current RSS
    fh.write("5")
base = rss("VmRSS:")
t0 = time.perf_counter()
it = f.iter_batches(batch_size=batch)
first = next(it)
t_first = time.perf_counter() - t0
rows = first.num_rows
if mode == "all":
    for b in it:
        rows += b.num_rows
t_all = time.perf_counter() - t0
peak = rss("VmHWM:")
print(t_first, t_all, base, peak, rows)
"""


def _child(path: str, engine: str, mode: str, batch: int) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _CHILD, path, engine, mode, str(batch)],
                         capture_output=True, text=True, check=True, cwd=str(Path(__file__).resolve().parent.parent))
    t_first, t_all, base, peak, rows = out.stdout.split()
    return {"first_s": float(t_first), "total_s": float(t_all), "base_mb": int(base) / 1024,
            "peak_mb": int(peak) / 1024, "rows": int(rows)}


def bench_batches(path: str, batch: int, repeat: int) -> dict[str, object]:
    res: dict[str, object] = {}
    for mode in ("first", "all"):
        for engine in ("pc", "pa"):
            runs = [_child(path, engine, mode, batch) for _ in range(repeat)]
            best = min(runs, key=lambda r: r["first_s"] if mode == "first" else r["total_s"])
            best["peak_mb"] = min(r["peak_mb"] for r in runs)
            res[f"{mode}_{engine}"] = best
    return res


def bench_threads(path: str, repeat: int) -> dict[str, float]:
    import pyarrow.parquet as pq

    import parquet_core as pc

    def best(fn: object) -> float:
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()  # type: ignore[operator]
            times.append(time.perf_counter() - t0)
        return min(times)

    return {
        "pc_1thread_s": best(lambda: pc.read_table(path, use_threads=False)),
        "pc_threads_s": best(lambda: pc.read_table(path, use_threads=True)),
        "pa_1thread_s": best(lambda: pq.read_table(path, use_threads=False)),
        "pa_threads_s": best(lambda: pq.read_table(path, use_threads=True)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--read-rows", type=int, default=1_000_000)
    ap.add_argument("--batch-size", type=int, default=65536)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--json", type=str, default=None)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.read_bench_data import VARIANTS, default_cache_dir, ensure_variant

    variant = next(v for v in VARIANTS if v.name == "dict_snappy")
    cache: dict[str, object] = {}
    big, _ = ensure_variant(default_cache_dir(), variant, args.rows, args.seed, args.rows, cache)  # type: ignore[arg-type]
    cache.clear()
    small, _ = ensure_variant(default_cache_dir(), variant, args.read_rows, args.seed,
                              max(args.read_rows // 8, 1), cache)  # type: ignore[arg-type]
    out: dict[str, object] = {"cpus": os.cpu_count(), "rows": args.rows, "batch_size": args.batch_size}
    b = bench_batches(str(big), args.batch_size, args.repeat)
    out["iter_batches"] = b
    t = bench_threads(str(small), args.repeat)
    out["threads"] = t
    print(f"iter_batches, {args.rows} rows in one row group, batch {args.batch_size}:")
    for mode in ("first", "all"):
        pc_r, pa_r = b[f"{mode}_pc"], b[f"{mode}_pa"]  # type: ignore[index]
        key = "first_s" if mode == "first" else "total_s"
        print(f"  {mode:5s}: time pc {pc_r[key]:.3f} s / pa {pa_r[key]:.3f} s = {pc_r[key] / pa_r[key]:.2f}x; "
              f"peak RSS pc {pc_r['peak_mb']:.0f} MB / pa {pa_r['peak_mb']:.0f} MB = "
              f"{pc_r['peak_mb'] / pa_r['peak_mb']:.2f}x")
    print(f"whole-file read, {args.read_rows} rows, 8 row groups, {os.cpu_count()} CPUs (wall, best of {args.repeat}):")
    print(f"  pc 1 thread {t['pc_1thread_s']:.3f} s, threads {t['pc_threads_s']:.3f} s "
          f"(speed-up {t['pc_1thread_s'] / t['pc_threads_s']:.2f}x)")
    print(f"  pa 1 thread {t['pa_1thread_s']:.3f} s, threads {t['pa_threads_s']:.3f} s "
          f"(speed-up {t['pa_1thread_s'] / t['pa_threads_s']:.2f}x)")
    print(f"  pc threads / pa 1 thread = {t['pc_threads_s'] / t['pa_1thread_s']:.2f}x; "
          f"pc threads / pa threads = {t['pc_threads_s'] / t['pa_threads_s']:.2f}x; "
          f"pc 1 thread / pa 1 thread = {t['pc_1thread_s'] / t['pa_1thread_s']:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
