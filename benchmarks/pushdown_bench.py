"""Selective reads with ``filters=``: parquet_core vs pyarrow, in one run.

    python -m benchmarks.pushdown_bench [--rows 2000000] [--repeats 5]

One dataset, written once by each engine (so each reads its own writer's
page index and, for parquet_core, Bloom filters), 2M rows by default:

* ``id``   int64, sorted (point lookups and ranges hit few pages);
* ``key``  int64, random and distinct (a Bloom filter on it in our file;
           pyarrow's file gets one too through ``bloom_filter_options``);
* ``v``    float64, random;  ``s``  string, 1,000 distinct values.

Row groups of 250,000 rows, pages of 64 kB (pyarrow: ``data_page_size``
64 kB and ``write_page_index=True``).  Queries, each returning all columns:

* full scan (no filter);
* point lookup ``id == x``;
* 1 % range ``x <= id < x + rows/100``;
* Bloom lookup ``key == k`` for a present and an absent key (statistics
  cannot help: keys are random).

Both engines' results are checked equal (row count and ``id`` values).
Reported: best-of-N milliseconds, MB/s of the file's size, our time / pyarrow's
(>1: parquet_core slower), and the share of the column bytes our reader
plans to fetch (``ParquetFile.explain``: an upper bound, since a dictionary
page is counted even when no page read needs it).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc
from benchmarks._harness import best_of as best


def make(rows: int, seed: int = 7) -> pa.Table:
    rng = np.random.default_rng(seed)
    return pa.table({
        "id": np.arange(rows, dtype=np.int64),
        "key": rng.permutation(rows).astype(np.int64) * 7919 + 13,
        "v": rng.standard_normal(rows),
        "s": pa.array([f"name-{i:04d}" for i in rng.integers(0, 1000, rows)]),
    })


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--repeats", "-n", type=int, default=5)
    args = ap.parse_args(argv)
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    table = make(args.rows)
    d = Path(tempfile.mkdtemp())
    ours, theirs = d / "pc.parquet", d / "pa.parquet"
    pc.write_table(table, ours, row_group_size=250_000, data_page_size=64 * 1024,
                   bloom_filter_options={"key": {"fpp": 0.01}})
    pq.write_table(table, theirs, row_group_size=250_000, data_page_size=64 * 1024, write_page_index=True,
                   bloom_filter_options={"key": {"ndv": 250_000, "fpp": 0.01}})
    n = args.rows
    present = int(table.column("key")[n // 3].as_py())
    queries = [
        ("full scan", None),
        ("point id == x", [("id", "==", n // 2 + 17)]),
        ("1% range of id", [("id", ">=", n // 4), ("id", "<", n // 4 + n // 100)]),
        ("Bloom key == present", [("key", "==", present)]),
        ("Bloom key == absent", [("key", "==", present + 1)]),   # inside every row group's min/max
    ]
    print(f"== Selective reads: {n:,} rows; our file {ours.stat().st_size / 1e6:.1f} MB, pyarrow's "
          f"{theirs.stat().st_size / 1e6:.1f} MB; best of {args.repeats}; 1 thread for pyarrow")
    head = f"{'query':24s} {'rows':>8s} {'pc ms':>8s} {'pa ms':>8s} {'pc/pa':>6s} {'pc MB/s':>8s} {'pc reads≤':>9s}"
    print(head)
    print("-" * len(head))
    for name, filt in queries:
        got = pc.read_table(ours, filters=filt)
        want = pq.read_table(theirs, filters=filt)
        assert got.num_rows == want.num_rows, (name, got.num_rows, want.num_rows)
        assert got.column("id").to_pylist() == want.column("id").to_pylist(), name
        t_pc = best(lambda f=filt: pc.read_table(ours, filters=f), args.repeats)
        t_pa = best(lambda f=filt: pq.read_table(theirs, filters=f), args.repeats)
        rep = pc.ParquetFile(ours).explain(filt)
        share = rep.bytes_kept / rep.bytes_total if rep.bytes_total else 1.0
        mbps = ours.stat().st_size / 1e6 / t_pc
        print(f"{name:24s} {got.num_rows:8d} {t_pc * 1e3:8.1f} {t_pa * 1e3:8.1f} {t_pc / t_pa:5.2f}x "
              f"{mbps:8.0f} {share:8.2%}")


if __name__ == "__main__":
    main()
