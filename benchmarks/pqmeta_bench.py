"""``format("pqmeta")`` over a lake of many small files: the ``file`` and ``column`` levels.

    python -m benchmarks.pqmeta_bench [--files 10000] [--repeats 2]

One small Parquet file (5 columns, 1 row group, written by parquet_core) copied into
``--files`` files over 100 folders, next to the litter a lake collects (``_SUCCESS``,
``.crc`` files, a CSV per folder), read on local[2] with the default task packing
(``filesPerTask`` 256, at least 2 tasks) and, for comparison, one file per task
(``filesPerTask`` 1, what pqmeta did before). Reported: seconds per level (``count()``
of the level's rows, planning included), best of N, and tasks made.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def make_lake(root: Path, files: int) -> None:
    import numpy as np

    import parquet_core as pc

    seed = root / "seed.parquet"
    root.mkdir(parents=True)
    n = 200
    pc.write_table({"id": np.arange(n), "k": np.arange(n, dtype=np.int32) % 7, "x": np.linspace(0, 1, n),
                    "s": [f"s{i % 13}" for i in range(n)], "t": np.arange(n).astype("datetime64[us]")}, seed)
    for i in range(files):
        d = root / f"day={i % 100:03d}"
        if not d.exists():
            d.mkdir()
            (d / "notes.csv").write_text("a,b\n1,2\n")
            (d / "_SUCCESS").write_text("")
        shutil.copyfile(seed, d / f"part-{i:05d}.parquet")
        (d / f".part-{i:05d}.parquet.crc").write_bytes(b"crc")
    seed.unlink()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--repeats", "-n", type=int, default=2)
    ap.add_argument("--data", help="keep the lake in this folder (reused when it exists)")
    ap.add_argument("--per-file", action="store_true", help="also time one file per task")
    args = ap.parse_args(argv)
    from benchmarks.spark_bench import spark_session

    tmp = Path(tempfile.mkdtemp())
    lake = Path(args.data) if args.data else tmp / "lake"
    if not lake.exists():
        t = time.perf_counter()
        make_lake(lake, args.files)
        print(f"lake of {args.files} files written in {time.perf_counter() - t:.1f} s")
    spark = spark_session()
    print(f"== pqmeta over {args.files:,} small files (+ litter), local[2], best of {args.repeats}")
    variants = [("default", {})] + ([("1 file/task", {"filesPerTask": "1"})] if args.per_file else [])
    for level in ("file", "column"):
        for label, opts in variants:
            times, rows, tasks = [], 0, 0
            for _ in range(args.repeats):
                t = time.perf_counter()
                r = spark.read.format("pqmeta").option("level", level)
                for k, v in opts.items():
                    r = r.option(k, v)
                df = r.load(str(lake))
                rows = df.count()
                times.append(time.perf_counter() - t)
                tasks = df.rdd.getNumPartitions()
            errors = df.where("error is not null").count()
            print(f"{level:7s} {label:12s} {min(times):7.2f} s  rows {rows:,}  tasks {tasks}  error rows {errors}")
    spark.stop()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
