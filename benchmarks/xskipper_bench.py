"""Costs of xskipper indexes: Spark-sketch Bloom hashing, index builds, skip decisions.

Run as a standalone script::

    python benchmarks/xskipper_bench.py [--files 100] [--rows 20000] [--repeat 3]

Prints (best of ``--repeat``):

* Bloom ``put_strings`` / ``put_longs`` into the default filter (ndv 100000,
  fpp 0.01), values per second, against a per-value pure-Python Murmur3 loop
  (the straightforward implementation) on the same strings;
* the build of MinMax (footer statistics) + ValueList + Bloom indexes over a
  generated Parquet dataset, files per second;
* ``skip_decisions`` over the resulting store for a MinMax, a ValueList and a
  Bloom predicate, files per second.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import parquet_core as pc  # noqa: E402
from benchmarks._harness import best_of as best  # noqa: E402
from parquet_core_integrations.xskipper import Xskipper, skip_decisions  # noqa: E402
from parquet_core_integrations.xskipper.sketch import SparkBloomFilter  # noqa: E402


def _murmur_loop(items):
    """Spark's Murmur3 x86_32 on each item, one value at a time (the baseline)."""
    def mix(h, k):
        k = (k * 0xCC9E2D51) & 0xFFFFFFFF
        k = ((k << 15) | (k >> 17)) & 0xFFFFFFFF
        k = (k * 0x1B873593) & 0xFFFFFFFF
        h ^= k
        h = ((h << 13) | (h >> 19)) & 0xFFFFFFFF
        return (h * 5 + 0xE6546B64) & 0xFFFFFFFF
    out = []
    for b in items:
        h = 0
        n4 = len(b) // 4 * 4
        for i in range(0, n4, 4):
            h = mix(h, int.from_bytes(b[i:i + 4], "little"))
        for i in range(n4, len(b)):
            h = mix(h, (b[i] - 256 if b[i] > 127 else b[i]) & 0xFFFFFFFF)
        h ^= len(b)
        h ^= h >> 16
        h = (h * 0x85EBCA6B) & 0xFFFFFFFF
        h ^= h >> 13
        h = (h * 0xC2B2AE35) & 0xFFFFFFFF
        h ^= h >> 16
        out.append(h)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)

    strings = [f"user-{v}" for v in rng.integers(0, 10**9, 200_000)]
    longs = rng.integers(-(2**62), 2**62, 200_000)
    t_s = best(lambda: SparkBloomFilter.create().put_strings(strings), args.repeat)
    t_l = best(lambda: SparkBloomFilter.create().put_longs(longs), args.repeat)
    raw = [s.encode() for s in strings[:20000]]
    t_loop = best(lambda: _murmur_loop(raw), 1) * len(strings) / len(raw) * 2  # h1 and h2
    print(f"bloom put_strings  {len(strings) / t_s / 1e6:6.2f} M values/s   "
          f"(per-value Python murmur3, hashing only: {len(strings) / t_loop / 1e6:5.2f} M/s, "
          f"x{t_loop / t_s:.0f})")
    print(f"bloom put_longs    {len(longs) / t_l / 1e6:6.2f} M values/s")

    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "data")
        for i in range(args.files):
            day = os.path.join(root, f"day=2024-01-{1 + i % 28:02d}")
            os.makedirs(day, exist_ok=True)
            base = i * args.rows
            pc.write_table({"id": np.arange(base, base + args.rows),
                            "city": [f"c{(i + j) % 50}" for j in range(args.rows)],
                            "user": [f"user-{v}" for v in rng.integers(0, 5000, args.rows)]},
                           os.path.join(day, f"part-{i}.parquet"))

        def build():
            xs = Xskipper(None, root, os.path.join(tmp, "md"))
            if xs.is_indexed():
                xs.drop_index()
            xs.index_builder().add_min_max_index("id").add_value_list_index("city") \
                .add_bloom_filter_index("user").build()
            return xs

        t_b = best(build, args.repeat)
        print(f"build {args.files} files x {args.rows} rows (minmax+valuelist+bloom): "
              f"{args.files / t_b:7.1f} files/s ({t_b:.2f} s)")
        xs = build()
        for name, pred in [("minmax", pc.col("id") < 5 * args.rows), ("valuelist", pc.col("city") == "c7"),
                           ("bloom", pc.col("user") == "user-17")]:
            def run(pred=pred):
                return skip_decisions(xs.store(), pred)
            t_q = best(run, args.repeat)
            res = run()
            print(f"skip {name:9s}: {res.total / t_q:9.0f} files/s incl. reading the store "
                  f"({len(res.skipped)} of {res.total} skipped)")


if __name__ == "__main__":
    main()
