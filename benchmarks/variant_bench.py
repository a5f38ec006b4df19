"""VARIANT values: encode / decode speed, and reading a variant column, side by side with duckdb.

Run from the repository root::

    python benchmarks/variant_bench.py [--values 100000] [--repeat 3] [--json out.json]

Data (fixed seed): event records such as ``{"event_type": "signup", "user": 1234,
"score": 0.75, "tags": ["a", "b"], "ts": "...", "props": {"plan": "pro", "seats": 3}}``
with a few fields missing or null at random.

Measured (best of ``--repeat``, wall clock, values per second):

* ``encode``: ``pc.variant.encode(obj)`` per record (Python objects -> binary);
* ``decode``: ``pc.variant.decode(metadata, value)`` per record (binary -> Python);
* ``read``: ``pc.read_table(file).column("v").to_pylist()`` of an unshredded file
  we wrote (page decoding plus decoding every value);
* ``duckdb read``: ``SELECT v::JSON FROM read_parquet(file)`` of the same file,
  fetched as Python strings (duckdb's C++ decoder plus JSON rendering), when
  duckdb is installed.

Encoding and decoding walk each value in Python (every record can have its
own shape), which is why they are measured here.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import timeit
from pathlib import Path
from typing import Any, Callable

import parquet_core as pc

SEED = 20261125


def records(n: int) -> list[Any]:
    rng = random.Random(SEED)
    kinds = ["signup", "login", "purchase", "logout"]
    out: list[Any] = []
    for i in range(n):
        rec: dict[str, Any] = {"event_type": rng.choice(kinds), "user": rng.randrange(1 << 20),
                               "score": round(rng.random(), 3),
                               "tags": [rng.choice("abcdef") for _ in range(rng.randrange(4))]}
        if rng.random() < 0.7:
            rec["props"] = {"plan": rng.choice(["free", "pro"]), "seats": rng.randrange(1, 50)}
        if rng.random() < 0.1:
            rec["note"] = None
        out.append(rec)
    return out


def best(fn: Callable[[], Any], repeat: int) -> float:
    """Best wall time of *repeat* calls."""
    return min(timeit.repeat(fn, number=1, repeat=repeat))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--values", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    data = records(args.values)
    encoded = [pc.variant.encode(r) for r in data]
    results: dict[str, float] = {}
    results["encode"] = args.values / best(lambda: [pc.variant.encode(r) for r in data], args.repeat)
    results["decode"] = args.values / best(lambda: [pc.variant.decode(m, v) for m, v in encoded],
                                           args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "variant.parquet")
        pc.write_table({"v": data}, path, schema=pc.schema([pc.field("v", pc.variant())]))
        got = pc.read_table(path).column("v").to_pylist()
        assert len(got) == len(data)
        results["read"] = args.values / best(lambda: pc.read_table(path).column("v").to_pylist(),
                                             args.repeat)
        try:
            import duckdb
        except ImportError:
            duckdb = None
        if duckdb is not None:
            con = duckdb.connect()
            sql = f"SELECT v::JSON FROM read_parquet('{path}')"
            rows = con.sql(sql).fetchall()
            assert len(rows) == len(data)
            results["duckdb read"] = args.values / best(lambda: con.sql(sql).fetchall(), args.repeat)
    print(f"{args.values} event records, best of {args.repeat}")
    for name, rate in results.items():
        print(f"  {name:12s} {rate / 1e3:9.1f} k values/s")
    if args.json:
        args.json.write_text(json.dumps({"values": args.values, "per_second": results}, indent=2))


if __name__ == "__main__":
    main()
