"""Nested read benchmark: parquet_core vs pyarrow vs fastparquet on lists, a struct and a map.

    python -m benchmarks.nested_read_bench [--rows N] [-n REPEATS] [--cache-dir D]

The dataset (numpy's seeded generator, built with pyarrow's array
constructors, written once and cached) has one column per nested shape:

==========  ===============================================================
``li``      ``list<int64>``: 0-4 elements per row, 10 % null lists
``ls``      ``list<string>``: 0-4 short strings from 1000 distinct values
``st``      ``struct<a: int64, b: string>``, 10 % null structs
``mp``      ``map<string, int64>``: 0-4 entries, unique keys
==========  ===============================================================

Each cell is the best of N interleaved runs of "open, read the column,
return" (``pc.read_table``, ``pq.read_table(use_threads=False)``,
``fastparquet.ParquetFile(...).to_pandas``).  Every parquet_core result is
checked against pyarrow's (Arrow values) outside the timed region.
``pc/pa1`` > 1 means parquet_core takes longer.
"""

from __future__ import annotations

import argparse
import os
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc
from benchmarks._harness import best_of

COLUMNS = ["li", "ls", "st", "mp"]


def make_table(rows: int, seed: int) -> pa.Table:
    g = np.random.default_rng(seed)
    lengths = g.integers(0, 5, rows)
    offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
    total = int(lengths.sum())
    null_rows = pa.array(g.random(rows) < 0.1)
    words = pa.array([f"w{i}" for i in range(1000)])
    li = pa.ListArray.from_arrays(offsets, pa.array(g.integers(0, 1 << 40, total)), mask=null_rows)
    ls = pa.ListArray.from_arrays(offsets, words.take(pa.array(g.integers(0, 1000, total))))
    st = pa.StructArray.from_arrays(
        [pa.array(g.integers(0, 100, rows)), words.take(pa.array(g.integers(0, 50, rows)))],
        names=["a", "b"], mask=null_rows)
    keys = pa.compute.binary_join_element_wise("k", pa.array(np.arange(total)).cast(pa.string()), "")
    mp = pa.MapArray.from_arrays(offsets, keys, pa.array(g.integers(0, 9, total)))
    return pa.table({"li": li, "ls": ls, "st": st, "mp": mp})


def engines() -> dict[str, Callable[[str, "list[str] | None"], Any]]:
    out: dict[str, Callable[[str, Any], Any]] = {
        "pc": lambda p, c: pc.read_table(p, columns=c),
        "pa1": lambda p, c: pq.read_table(p, columns=c, use_threads=False),
    }
    try:
        import fastparquet

        # fastparquet names a struct's fields as separate columns ("st.a", "st.b")
        flat = {"st": ["st.a", "st.b"]}
        out["fp"] = lambda p, c: fastparquet.ParquetFile(p).to_pandas(
            columns=None if c is None else [x for n in c for x in flat.get(n, [n])])
    except ImportError:
        pass
    return out



def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.nested_read_bench",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("-n", "--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache-dir", default=os.environ.get("PQC_BENCH_CACHE", "benchmarks/_cache"))
    args = ap.parse_args(argv)
    os.makedirs(args.cache_dir, exist_ok=True)
    path = os.path.join(args.cache_dir, f"nested_{args.rows}_{args.seed}_{pa.__version__}.parquet")
    if not os.path.exists(path):
        pq.write_table(make_table(args.rows, args.seed), path)
    eng = engines()
    print(f"{path}: {args.rows:,} rows, {os.path.getsize(path) / 1e6:.1f} MB; best of {args.repeats}, ms")
    print(f"{'column':<8}" + "".join(f"{k:>10}" for k in eng) + f"{'pc/pa1':>9}{'pc/fp':>8}  check")
    for col in COLUMNS + [None]:
        cols = None if col is None else [col]
        times: dict[str, float] = {}
        for name, fn in eng.items():
            try:
                times[name] = best_of(lambda fn=fn, cols=cols: fn(path, cols), args.repeats)
            except Exception as exc:  # noqa: BLE001 - a reader that fails is reported, not fatal
                times[name] = float("nan")
                print(f"  {name} failed on {col}: {type(exc).__name__}: {exc}")
        ours = pc.read_table(path, columns=cols).to_arrow()
        theirs = pq.read_table(path, columns=cols)
        ok = all(ours.column(c).combine_chunks().equals(theirs.column(c).combine_chunks())
                 for c in theirs.column_names)
        fp = times.get("fp", float("nan"))
        print(f"{col or '<table>':<8}" + "".join(f"{times[k] * 1e3:>10.1f}" for k in eng)
              + f"{times['pc'] / times['pa1']:>8.2f}x{times['pc'] / fp:>7.2f}x  {'ok' if ok else 'WRONG'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
