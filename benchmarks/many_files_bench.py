"""Selective reads over many small files: per-file CPU of parquet_core vs pyarrow, in one run.

    python -m benchmarks.many_files_bench [--data DIR] [--files 200] [--rows 20000] [--repeats 5]

The shape of ``spark_bench.py``'s many-files case (what Spark's
``format("pqcore")`` reader does per file for ``id between a and a+999``):
200 files of 20,000 rows, written by pyarrow when ``--data`` holds no
``*.parquet`` (default: ``$TMPDIR/many_files_bench_data``), one row group each,
snappy, 64 KiB pages, column and offset indexes (``write_page_index=True``):

* ``id``  int64, sorted within a file; file ``f`` holds the ids ``i`` with
          ``i % files == f`` (every file has a few rows of any id range), PLAIN;
* ``k``   int32, the file number, dictionary;
* ``x``   float64, random, PLAIN;
* ``s``   string, 100 distinct values, dictionary;
* ``t``   timestamp stored as INT96 (``use_deprecated_int96_timestamps``), dictionary.

``--data /tmp/sb_data-200files`` reads a folder Spark wrote instead (any
``*.parquet`` below it).  The filter keeps ``a <= id <= a + 999`` with
``a = files * rows // 3``: about ``1000 / files`` rows per file, in one page.

Timed, best of N *CPU* seconds (``time.process_time``) over all files, one
after the other in this process, printed per file:

* ``pc open``     ``pc.ParquetFile(path)`` (footer, schema);
* ``pc plan``     open + ``explain(filter, columns=[])`` (what the Spark driver does
                  per file to plan a filtered scan);
* ``pc read``     open + ``iter_batches(filters=..., batch_size=65536)`` over every
                  column, no threads (the Spark task's filtered read);
* ``pa read``     ``pq.read_table(path, filters=..., use_threads=False)``;
* ``pa open``     ``pq.ParquetFile(path).metadata``.

Both engines' results are checked equal (every column, every file) before
timing.  For steady numbers run with ``MALLOC_MMAP_THRESHOLD_=4294967296
MALLOC_TRIM_THRESHOLD_=4294967296`` (glibc otherwise maps and unmaps large
buffers on every call).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc
from benchmarks._harness import best_of


def write_dataset(folder: Path, files: int, rows: int, seed: int = 7) -> list[Path]:
    """*files* pyarrow-written files of *rows* rows each (see the module docstring)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    out = []
    for f in range(files):
        ids = np.arange(rows, dtype=np.int64) * files + f
        table = pa.table({
            "id": ids,
            "k": pa.array(np.full(rows, f, dtype=np.int32)),
            "x": rng.random(rows),
            "s": pa.array(np.char.add("s", (ids % 100).astype(str)).astype(object)),
            "t": pa.array(1_700_000_000_000_000 + ids * 1000, pa.timestamp("us")),
        })
        path = folder / f"part-{f:05d}.parquet"
        pq.write_table(table, path, compression="snappy", data_page_size=64 * 1024, write_page_index=True,
                       use_dictionary=["k", "s", "t"], use_deprecated_int96_timestamps=True,
                       row_group_size=rows)
        out.append(path)
    return out


def dataset(folder: Path, files: int, rows: int) -> list[Path]:
    paths = sorted(folder.rglob("*.parquet")) if folder.exists() else []
    return paths or write_dataset(folder, files, rows)


def best_cpu(fn: Callable[[], Any], repeats: int) -> float:
    """The least CPU time (seconds) of *repeats* calls of *fn*."""
    return best_of(fn, repeats, time.process_time)


def pc_read(path: Path, filt: list[tuple[str, str, int]], columns: list[str]) -> pa.Table:
    pf = pc.ParquetFile(path)
    try:
        parts = [b.to_arrow() for b in pf.iter_batches(batch_size=65536, columns=columns, filters=filt,
                                                        use_threads=False)]
    finally:
        pf.close()
    return pa.concat_tables(parts) if parts else None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", help="folder of the files (written when it holds no *.parquet)")
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--repeats", "-n", type=int, default=5)
    args = ap.parse_args(argv)
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    folder = Path(args.data) if args.data else Path(tempfile.gettempdir()) / "many_files_bench_data"
    paths = dataset(folder, args.files, args.rows)
    n = len(paths)
    columns = pq.read_schema(paths[0]).names
    max_id = max(pq.read_metadata(p).row_group(0).column(0).statistics.max for p in paths[:1])
    lo = max(int(max_id) + 1, args.files * args.rows) // 3
    filt = [("id", ">=", lo), ("id", "<=", lo + 999)]

    matched = 0
    for p in paths:   # results first: every column of every file, against pyarrow
        want = pq.read_table(p, filters=filt, use_threads=False)
        got = pc_read(p, filt, columns)
        matched += want.num_rows
        if got is None:
            assert want.num_rows == 0, p
            continue
        assert got.num_rows == want.num_rows, (p, got.num_rows, want.num_rows)
        for name in columns:
            assert got.column(name).to_pylist() == want.column(name).to_pylist(), (p, name)

    def pc_open() -> None:
        for p in paths:
            pc.ParquetFile(p).close()

    def pc_plan() -> None:
        for p in paths:
            with pc.ParquetFile(p) as pf:
                pf.explain(filt, columns=[])

    def pc_reads() -> None:
        for p in paths:
            pc_read(p, filt, columns)

    def pa_reads() -> None:
        for p in paths:
            pq.read_table(p, filters=filt, use_threads=False)

    def pa_open() -> None:
        for p in paths:
            _ = pq.ParquetFile(p).metadata

    times = {name: best_cpu(fn, args.repeats) * 1e3 / n for name, fn in
             [("pc open", pc_open), ("pc plan", pc_plan), ("pc read", pc_reads),
              ("pa read", pa_reads), ("pa open", pa_open)]}
    print(f"== Many small files: {n} files in {folder}, filter {lo} <= id <= {lo + 999} "
          f"({matched} rows in all); CPU ms per file, best of {args.repeats}; pyarrow 1 thread")
    for name, ms in times.items():
        print(f"{name:10s} {ms:7.3f} ms/file")
    print(f"pc read / pa read: {times['pc read'] / times['pa read']:.2f}x   "
          f"pc open / pa open: {times['pc open'] / times['pa open']:.2f}x")


if __name__ == "__main__":
    main()
