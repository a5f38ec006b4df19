"""Throughput of Bloom filter hashing, insert and check, against a per-value xxhash loop.

Run as a standalone script::

    python benchmarks/bench_bloom.py [--n 1000000] [--repeat 3]

For each value kind (int64, float64, short strings of 4-16 bytes, long
strings of 40-200 bytes) it times, in values per second (best of
``--repeat``):

* ``hash``: :func:`parquet_core.bloom_filter.hash_values` (numpy XXH64);
* ``insert``: hashing plus :meth:`SplitBlockBloomFilter.insert_hashes`;
* ``check``: hashing plus :meth:`SplitBlockBloomFilter.check_hashes`;
* ``xxhash loop``: the baseline, ``xxhash.xxh64_intdigest`` called once per
  value on its PLAIN bytes (the bytes prepared beforehand, not timed), which
  is what a straightforward Python implementation does just to hash.

The filter is sized for the number of values at 1 % false positives.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from parquet_core._kernels.binary import ByteArrays  # noqa: E402
from parquet_core.bloom_filter import SplitBlockBloomFilter, hash_values  # noqa: E402
from parquet_core.constants import PhysicalType as PT  # noqa: E402


def _strings(rng: np.random.Generator, n: int, lo: int, hi: int) -> ByteArrays:
    lens = rng.integers(lo, hi + 1, n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    data = rng.integers(97, 123, int(offsets[-1]), dtype=np.uint8)
    return ByteArrays(offsets, data)


def make_inputs(n: int, seed: int = 20261123) -> dict[str, tuple[Any, int, list[bytes]]]:
    """Values of each kind, their physical type and their PLAIN bytes one by one."""
    rng = np.random.default_rng(seed)
    i64 = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    f64 = rng.normal(size=n)
    short = _strings(rng, n, 4, 16)
    long_ = _strings(rng, n, 40, 200)
    out: dict[str, tuple[Any, int, list[bytes]]] = {}
    for name, vals, ptype in (("int64", i64, PT.INT64), ("float64", f64, PT.DOUBLE),
                              ("string 4-16 B", short, PT.BYTE_ARRAY),
                              ("string 40-200 B", long_, PT.BYTE_ARRAY)):
        if isinstance(vals, ByteArrays):
            raw = vals.to_pylist()
        else:
            buf = vals.astype(vals.dtype.newbyteorder("<")).tobytes()
            w = vals.dtype.itemsize
            raw = [buf[i * w:(i + 1) * w] for i in range(n)]
        out[name] = (vals, ptype, raw)
    return out


def best(fn: Callable[[], Any], repeat: int) -> float:
    """Best wall time of *repeat* calls."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def run(n: int, repeat: int) -> list[tuple[str, float, float, float, float]]:
    """Rows of (kind, hash/s, insert/s, check/s, xxhash-loop/s)."""
    import xxhash

    xxh = xxhash.xxh64_intdigest
    rows = []
    for name, (vals, ptype, raw) in make_inputs(n).items():
        bf = SplitBlockBloomFilter.for_ndv(n, 0.01)
        t_hash = best(lambda: hash_values(vals, ptype), repeat)
        t_ins = best(lambda: bf.insert_hashes(hash_values(vals, ptype)), repeat)
        t_chk = best(lambda: bf.check_hashes(hash_values(vals, ptype)), repeat)
        t_ref = best(lambda: [xxh(b) for b in raw], repeat)
        found = bf.check_hashes(hash_values(vals, ptype))
        assert found.all(), "a value inserted was not found"
        ref = np.array([xxh(b) for b in raw[:1000]], dtype=np.uint64)
        assert np.array_equal(ref, hash_values(vals, ptype)[:1000]), "hash mismatch"
        rows.append((name, n / t_hash, n / t_ins, n / t_chk, n / t_ref))
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="values per kind")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    rows = run(args.n, args.repeat)
    print(f"{args.n:,} values per kind; million values per second (best of {args.repeat})")
    print(f"{'kind':<18}{'hash':>9}{'insert':>9}{'check':>9}{'xxhash loop':>13}{'hash speedup':>14}")
    for name, h, i, c, r in rows:
        print(f"{name:<18}{h / 1e6:>9.1f}{i / 1e6:>9.1f}{c / 1e6:>9.1f}{r / 1e6:>13.1f}{h / r:>13.1f}x")


if __name__ == "__main__":
    main()
