"""Issue 32: a table Spark wrote, read column by column by parquet_core and by pyarrow.

    python -m benchmarks.spark_table_bench [--data DIR] [--repeat 7] [--json benchmarks/results/spark_table.json]

The table is the one the Spark adapter's floor benchmark reads (``spark_floor``):
400,000 rows written by Spark with 64 KiB pages, snappy, in 4 files of 98,800 rows::

    spark.range(400000).selectExpr("id", "cast(id % 1000 as int) as k", "rand(7) as x",
        "concat('s', cast(id % 100 as string)) as s",
        "timestamp_micros(1700000000000000 + id * 1000) as t")
      .repartition(4, "k").sortWithinPartitions("id").write.option("parquet.page.size", 64 * 1024)

so ``id`` is INT64 PLAIN, ``k`` INT32 dictionary-encoded (parquet-mr's 504-value
bit-packed runs), ``x`` DOUBLE PLAIN, ``s`` a dictionary-encoded string of 100
values, ``t`` INT96 (dictionary-encoded until the dictionary is full, then PLAIN).
It is written once into ``--data`` (a local Spark session; or give the folder of
an earlier run).

Timed, on the first file: ``pc.ParquetFile(f).read_row_group(0, columns=[c],
use_threads=False).to_arrow()`` against pyarrow's
``pq.ParquetFile(f).read_row_group(0, columns=[c], use_threads=False)`` (one
thread), each column alone and all five; CPU time (``time.process_time``),
best of ``--repeat``, both in this process; every result is checked equal to
pyarrow's first.  The ratio is ours over pyarrow's (> 1: parquet_core slower).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._harness import best_of, environment, fmt_ms, fmt_ratio, log, render_table

COLUMNS = ["id", "k", "x", "s", "t"]
ROWS = 400_000


def write_table(folder: str) -> None:
    """The floor benchmark's table, written by a local Spark session (pyspark)."""
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("spark_table_bench")
             .config("spark.ui.enabled", "false").getOrCreate())
    try:
        (spark.range(ROWS).selectExpr(
            "id", "cast(id % 1000 as int) as k", "rand(7) as x", "concat('s', cast(id % 100 as string)) as s",
            "timestamp_micros(1700000000000000 + id * 1000) as t")
         .repartition(4, "k").sortWithinPartitions("id")
         .write.mode("overwrite").option("parquet.page.size", 64 * 1024).parquet(folder))
    finally:
        spark.stop()


def first_file(folder: str) -> str:
    files = sorted(glob.glob(os.path.join(folder, "*.parquet")))
    if not files:
        log(f"writing the table with Spark into {folder}")
        write_table(folder)
        files = sorted(glob.glob(os.path.join(folder, "*.parquet")))
    return files[0]


def run(path: str, repeat: int) -> list[dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    import parquet_core as pc

    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    meta = pq.ParquetFile(path).metadata.row_group(0)
    encodings = {meta.column(i).path_in_schema: "/".join(e for e in meta.column(i).encodings if e != "BIT_PACKED")
                 for i in range(meta.num_columns)}
    types = {meta.column(i).path_in_schema: meta.column(i).physical_type for i in range(meta.num_columns)}
    rows = []
    for label, cols in [*((c, [c]) for c in COLUMNS), ("file (5 columns)", None)]:
        ours: Callable[[], Any] = lambda cols=cols: pc.ParquetFile(path).read_row_group(
            0, columns=cols, use_threads=False).to_arrow()
        theirs: Callable[[], Any] = lambda cols=cols: pq.ParquetFile(path).read_row_group(
            0, columns=cols, use_threads=False)
        if not ours().equals(theirs()):
            raise AssertionError(f"{label}: parquet_core's read differs from pyarrow's")
        t_pc = t_pa = float("inf")
        for _ in range(2):      # interleaved, so a busy moment hits both engines
            t_pc = min(t_pc, best_of(ours, repeat, time.process_time))
            t_pa = min(t_pa, best_of(theirs, repeat, time.process_time))
        kind = "" if cols is None else f"{types[label]} {encodings[label]}"
        rows.append({"read": label, "column": kind, "pc_s": t_pc, "pa_s": t_pa, "ratio": t_pc / t_pa})
        log(f"{label:18} {kind:32} pc {t_pc * 1e3:7.2f} ms  pa {t_pa * 1e3:7.2f} ms  {t_pc / t_pa:5.2f}x")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.spark_table_bench", description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(os.environ.get("PQC_BENCH_CACHE", tempfile.gettempdir()),
                                                   "spark_floor_table"),
                    help="folder of the Spark-written table (written there when it holds no .parquet file)")
    ap.add_argument("--repeat", "-n", type=int, default=7, help="best of N runs (twice, interleaved)")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args(argv)
    path = first_file(args.data)
    rows = run(path, args.repeat)
    print(render_table(["read", "column", "pc ms", "pa ms", "pc/pa"],
                       [[r["read"], r["column"], fmt_ms(r["pc_s"]), fmt_ms(r["pa_s"]), fmt_ratio(r["ratio"])]
                        for r in rows], right={2, 3, 4}))
    if args.json:
        import pyarrow.parquet as pq

        out = {"benchmark": "spark_table", "env": environment(None), "repeat": args.repeat,
               "file_rows": pq.ParquetFile(path).metadata.num_rows, "created_by":
               pq.ParquetFile(path).metadata.created_by, "rows": rows}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
