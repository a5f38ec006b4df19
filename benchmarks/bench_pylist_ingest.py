"""Nested columns from Python objects: ``pc.Table.from_pydict`` vs ``pa.Table.from_pydict``.

    python -m benchmarks.bench_pylist_ingest [--rows 200000] [--repeats 5]

Rows of Python objects must be looked at one by one whatever the engine
(:mod:`parquet_core.table.ingest_nested` walks each level once in Python, then
builds offsets and values with numpy; pyarrow walks them in C++). Two
columns, timed one at a time, types inferred by both: ``struct<a: int64, b:
string>`` (dicts, 5 % None) and ``list<int64>`` (0-4 items, 5 % None). Reported: CPU ms, best of N, same process, and our time over
pyarrow's. Both results are checked equal (``to_pylist``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _columns(rows: int) -> dict[str, tuple[list, str]]:
    import random

    rng = random.Random(7)
    structs = [None if rng.random() < 0.05 else {"a": rng.randrange(1000), "b": f"v{rng.randrange(50)}"}
               for _ in range(rows)]
    lists = [None if rng.random() < 0.05 else [rng.randrange(1000) for _ in range(rng.randrange(5))]
             for _ in range(rows)]
    return {"struct": (structs, "struct<a: int64, b: string>"), "list": (lists, "list<int64>")}


def _best(fn, repeats: int) -> float:
    out = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        out = min(out, time.process_time() - t0)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeats", "-n", type=int, default=5)
    args = ap.parse_args(argv)
    import pyarrow as pa

    import parquet_core as pc

    print(f"== nested columns from Python objects, {args.rows:,} rows, CPU best of {args.repeats}")
    print(f"{'column':28s} {'pc ms':>8s} {'pa ms':>8s} {'pc/pa':>7s}")
    for name, (values, label) in _columns(args.rows).items():
        ours = pc.Table.from_pydict({name: values}).to_arrow().column(0).to_pylist()
        theirs = pa.array(values).to_pylist()
        assert ours == theirs, name
        a = _best(lambda: pc.Table.from_pydict({name: values}), args.repeats)
        b = _best(lambda: pa.table({name: pa.array(values)}), args.repeats)
        print(f"{label:28s} {a * 1e3:8.1f} {b * 1e3:8.1f} {a / b:6.2f}x")


if __name__ == "__main__":
    main()
