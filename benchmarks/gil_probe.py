"""How much of a read holds the GIL: a native sampling thread, for issue 32's thread work.

    python -m benchmarks.gil_probe [--cases smallfiles,wide,taxi] [--cache-dir DIR]

``py-spy --gil`` is not installed here, so this builds a tiny C extension
(``gil_probe.c``, with the host's C compiler and CPython's internal headers)
whose thread never takes the GIL and reads ``_PyRuntime.ceval.gil.locked``
every 50 µs.  While one thread reads, the fraction of samples with the GIL
locked is the part of the read that cannot overlap with another Python
thread; the rest (system calls, decompression, numpy kernels that release
the GIL) can.  Amdahl's bound for N cores is then ``1 / (g + (1 - g) / N)``
(an upper bound: it ignores hand-off costs and memory bandwidth).

Reported per case: wall time with one thread and with ``use_threads=True``
(best of N), the GIL-held fraction of each, and the bound for 2 and 16 cores.
The machine is shared, so wall times move; the fractions are steadier.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def load_probe(build_dir: str | None = None) -> ModuleType | None:
    """The compiled probe, built into *build_dir* (a temporary folder) when needed; None
    when there is no C compiler or the interpreter's internal headers are missing."""
    build = Path(build_dir or tempfile.gettempdir()) / f"pqc_gil_probe_{sys.version_info[0]}{sys.version_info[1]}"
    build.mkdir(parents=True, exist_ok=True)
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = build / f"gilprobe{suffix}"
    src = Path(__file__).with_name("gil_probe.c")
    if not target.exists() or target.stat().st_mtime < src.stat().st_mtime:
        cc = os.environ.get("CC", "cc")
        cmd = [cc, "-O2", "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}", "-o", str(target),
               str(src), "-lpthread"]
        try:
            subprocess.run(cmd, check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            return None
    spec = importlib.util.spec_from_file_location("gilprobe", target)
    if spec is None or spec.loader is None:
        return None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def held_fraction(probe: ModuleType, fn: Callable[[], Any], interval_us: int = 50) -> float:
    """The fraction of *fn*'s run with the GIL locked (by any thread)."""
    probe.start(interval_us)
    try:
        fn()
    finally:
        held, total = probe.stop()
    return held / total if total else float("nan")


def amdahl(g: float, cores: int) -> float:
    return 1.0 / (g + (1.0 - g) / cores)


def _wall(fn: Callable[[], Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def cases(cache: str) -> dict[str, tuple[Callable[[bool], Any], str]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    import parquet_core as pc
    from benchmarks import real_tables_bench as rt

    out: dict[str, tuple[Callable[[bool], Any], str]] = {}
    folder = os.path.join(cache, f"real_smallfiles_{rt.SMALL_FILES}x{rt.SMALL_ROWS}_{pa.__version__}")
    if not os.path.exists(os.path.join(folder, f"part-{rt.SMALL_FILES - 1:05d}.parquet")):
        rt.small_files(folder)
    out["smallfiles"] = (lambda t: pc.read_table(folder, use_threads=t).to_arrow(), folder)
    wide = os.path.join(cache, f"real_wide_{rt.WIDE_COLS}x{rt.WIDE_ROWS}_{pa.__version__}.parquet")
    if not os.path.exists(wide):
        pq.write_table(rt.wide(), wide)
    out["wide"] = (lambda t: pc.read_table(wide, use_threads=t).to_arrow(), wide)
    rows = 300_000
    for name, (make, opts) in rt.CASES.items():   # lineitem, taxi, urls, timestamps
        path = os.path.join(cache, f"real_{name}_{rows}_{pa.__version__}.parquet")
        if not os.path.exists(path):
            pq.write_table(make(rows), path, **opts)
        out[name] = (functools.partial(_read, path), path)
    taxi = out["taxi"][1]
    for size in (65536, 8192):     # iter_batches with and without threads
        out[f"taxi_batches{size}"] = (functools.partial(_batches, taxi, size), taxi)
    return out


def _batches(path: str, size: int, threads: bool) -> Any:
    import parquet_core as pc

    return [b.to_arrow() for b in pc.ParquetFile(path).iter_batches(batch_size=size, use_threads=threads)]


def _read(path: str, threads: bool) -> Any:
    import parquet_core as pc

    return pc.read_table(path, use_threads=threads).to_arrow()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.gil_probe", description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="smallfiles,wide,taxi", help="any of smallfiles, wide, lineitem, taxi, urls, timestamps, taxi_batches65536, taxi_batches8192")
    ap.add_argument("--repeats", "-n", type=int, default=3)
    ap.add_argument("--cache-dir", default=os.environ.get("PQC_BENCH_CACHE", tempfile.gettempdir()))
    args = ap.parse_args(argv)
    probe = load_probe(args.cache_dir)
    if probe is None:
        print("gil_probe: could not build the probe (no C compiler, or no CPython internal headers)")
        return 1
    table = cases(args.cache_dir)
    print(f"{'case':11} {'1 thread s':>10} {'threads s':>10} {'gain':>6} {'GIL 1t':>7} {'GIL thr':>7} "
          f"{'bound 2':>7} {'bound 16':>8}")
    for name in args.cases.split(","):
        read, _ = table[name]
        read(False)
        alone = functools.partial(read, False)
        threads = functools.partial(read, True)
        one = _wall(alone, args.repeats)
        many = _wall(threads, args.repeats)
        g1 = min(held_fraction(probe, alone) for _ in range(2))
        gt = min(held_fraction(probe, threads) for _ in range(2))
        print(f"{name:11} {one:10.3f} {many:10.3f} {one / many:5.2f}x {g1:7.0%} {gt:7.0%} "
              f"{amdahl(g1, 2):6.2f}x {amdahl(g1, 16):7.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
