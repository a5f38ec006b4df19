"""What a ``format("pqcore")`` task costs in its Python worker, measured without Spark.

    python -m benchmarks.spark_task_read PATH [--repeats 7] [--profile]

The floor (``benchmarks/spark_floor.py``) shows pqcore's full scan a little over
Spark's own cost for any Python source; the difference is what a task does in
its Python worker.  This runs that work alone, as Spark does it: the data source
is built from the options, ``schema()`` and ``reader(schema=...)`` and
``partitions()`` are called (the planning worker's part), reader and partitions
go through pickle (Spark ships them to the workers), and each partition's
``read()`` is consumed.  Reported: CPU seconds (``time.process_time``, so a
busy machine inflates them less than wall time) per task, best of N; with
``--profile``, where one run of all tasks spends its CPU, by part (see
:data:`PARTS`), from ``cProfile`` (whose overhead inflates the small calls).

Make the floor benchmark's dataset with ``--write-data DIR`` (needs Spark: the
same rows and writer settings as ``spark_bench``), or point it at any folder.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

__all__ = ["PARTS", "plan", "read_task", "task_cpu", "profile_parts"]

# (part, path fragments of the functions whose own time counts for it), first match wins;
# a function without a file (numpy's, a C codec's) counts for the part of its caller
PARTS: list[tuple[str, tuple[str, ...]]] = [
    ("decompression", ("parquet_core/compression/",)),
    ("page headers and framing", ("parquet_core/page/", "parquet_core/format/", "thrift")),
    ("dictionary indices (RLE/bit-packed)", ("parquet_core/encodings/rle_hybrid", "parquet_core/_kernels/bitpack")),
    ("strings (dictionary gather, offsets)", ("parquet_core/_kernels/binary", "parquet_core/_kernels/runs",
                                               "parquet_core/encodings/plain")),
    ("INT96 to timestamps", ("parquet_core/schema/temporal",)),
    ("values and levels (column decoder)", ("parquet_core/column/",)),
    ("engine to Arrow", ("parquet_core/interop/", "parquet_core/table/")),
    ("file layer (footer, opening, scan orchestration)", ("parquet_core/file/", "parquet_core/metadata/", "parquet_core/options/",
                                 "parquet_core/io/")),
    ("adapter (Spark layout, per task)", ("spark_adapter/",)),
]


def plan(path: str, options: dict[str, str] | None = None) -> tuple[bytes, list[Any]]:
    """``(pickled reader, partitions)`` for ``spark.read.format("pqcore")`` of *path*, planned
    as Spark plans it (``schema()``, ``reader(schema=...)``, ``partitions()``)."""
    from pyspark.sql.datasource import CaseInsensitiveDict

    from spark_adapter.pqcore.datasource import PqcoreDataSource

    source = PqcoreDataSource(options=CaseInsensitiveDict({"path": path, **(options or {})}))
    reader = source.reader(schema=source.schema())
    parts = reader.partitions()
    return pickle.dumps(reader), [pickle.loads(pickle.dumps(p)) for p in parts]


def read_task(reader_blob: bytes, partition: Any) -> int:
    """Run one task as a worker does (unpickle the reader, consume ``read(partition)``);
    return its rows."""
    reader = pickle.loads(reader_blob)
    return sum(batch.num_rows for batch in reader.read(partition))


def task_cpu(path: str, repeats: int = 7, options: dict[str, str] | None = None) -> tuple[list[float], int]:
    """``(best CPU seconds per task over *repeats* runs, rows)`` of reading *path*."""
    blob, parts = plan(path, options)
    rows = sum(read_task(blob, p) for p in parts)      # warm: imports, file cache
    best = [float("inf")] * len(parts)
    for _ in range(repeats):
        for i, p in enumerate(parts):
            t0 = time.process_time()
            read_task(blob, p)
            best[i] = min(best[i], time.process_time() - t0)
    return best, rows


def _part_of(filename: str) -> str | None:
    name = filename.replace("\\", "/")
    for part, fragments in PARTS:
        if any(f in name for f in fragments):
            return part
    return None


def profile_parts(path: str, runs: int = 3, options: dict[str, str] | None = None) -> dict[str, float]:
    """Seconds (profiled, per run of all tasks) by part of :data:`PARTS`, plus ``other``
    and ``total``."""
    import cProfile
    import pstats

    blob, parts = plan(path, options)
    for p in parts:
        read_task(blob, p)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(runs):
        for p in parts:
            read_task(blob, p)
    prof.disable()
    stats: Any = pstats.Stats(prof).stats      # {(file, line, name): (cc, nc, tt, ct, callers)}
    out: dict[str, float] = {}

    def charge(func: Any, secs: float, depth: int = 0) -> None:
        """*secs* spent in *func*: its part's, else (numpy, the standard library, a C codec)
        shared among its callers as they share its calls' time, up the call graph."""
        part = _part_of(func[0])
        callers = stats[func][4] if func in stats else {}
        if part is not None or not callers or depth > 8:
            out[part or "other"] = out.get(part or "other", 0.0) + secs
            return
        spent = sum(c[3] for c in callers.values()) or 1.0
        for caller, c in callers.items():
            charge(caller, secs * c[3] / spent, depth + 1)

    for func, (_, _, own, _, _) in stats.items():
        charge(func, own)
    total = sum(out.values())
    result = {k: v / runs for k, v in sorted(out.items(), key=lambda kv: -kv[1])}
    result["total"] = total / runs
    return result


def write_data(folder: str, rows: int, files: int) -> None:
    """The floor benchmark's dataset (Spark's writer, as ``spark_bench`` writes it)."""
    from benchmarks import spark_bench

    spark = spark_bench.spark_session()
    try:
        spark_bench._write_data(spark, folder, rows, files)
    finally:
        spark.stop()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", help="a file or folder, as given to load()")
    ap.add_argument("--repeats", "-n", type=int, default=7)
    ap.add_argument("--profile", action="store_true", help="also: CPU by part (cProfile)")
    ap.add_argument("--write-data", action="store_true",
                    help="first write the floor benchmark's dataset to PATH (needs Spark)")
    ap.add_argument("--rows", type=int, default=400_000)
    ap.add_argument("--files", type=int, default=4)
    args = ap.parse_args(argv)
    if args.write_data:
        write_data(args.path, args.rows, args.files)
    best, rows = task_cpu(args.path, args.repeats)
    print(f"{rows:,} rows in {len(best)} task(s); CPU per task, best of {args.repeats}: "
          + ", ".join(f"{t * 1000:.1f} ms" for t in best) + f" (all tasks {sum(best) * 1000:.1f} ms)")
    if args.profile:
        parts = profile_parts(args.path)
        total = parts.pop("total")
        print(f"by part (cProfile, one run of all tasks: {total * 1000:.1f} ms profiled):")
        for name, secs in parts.items():
            print(f"  {name:50s} {secs * 1000:7.1f} ms  {secs / total:5.1%}")


if __name__ == "__main__":
    main()
