"""``Table.to_pandas()`` (our own conversion, no pyarrow) vs ``pyarrow.Table.to_pandas()``.

Run from the repository root::

    PYTHONPATH=. python benchmarks/to_pandas_bench.py [--rows 1000000] [--repeat 3]

One file per column kind (written by pyarrow from a frame of ``--rows`` rows,
fixed seed) is read once by each library; then only the conversion to a
DataFrame is timed, best of ``--repeat`` (process CPU time, single-threaded:
``use_threads=False`` for pyarrow).  Reported per kind: our time, pyarrow's,
the ratio (ours / pyarrow's, lower is better) and our MB/s of the resulting
frame (``memory_usage(deep=False)``, bytes of the numpy blocks).  Every frame
is checked equal to pyarrow's.
"""

from __future__ import annotations

import argparse
import io
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc

SEED = 31


def _frames(n: int) -> dict[str, "pd.DataFrame | pa.Table"]:
    rng = np.random.default_rng(SEED)
    ints = rng.integers(-10**9, 10**9, n)
    nulls = rng.random(n) < 0.1
    words = np.array([f"word{i}" for i in range(1000)], dtype=object)
    return {
        "int64": pd.DataFrame({"v": ints}),
        # an Arrow table (no pandas metadata): int64 with nulls comes back as float64
        "int64_nulls": pa.table({"v": pa.array(ints, mask=nulls)}),
        "float64": pd.DataFrame({"v": rng.random(n)}),
        "Int64 (nullable)": pd.DataFrame({"v": pd.array(ints, "Int64")}),
        "timestamp_ns": pd.DataFrame({"v": pd.to_datetime(ints * 1000)}),
        "timestamp_tz": pd.DataFrame({"v": pd.to_datetime(ints * 1000).tz_localize("UTC")
                                     .tz_convert("Europe/Oslo")}),
        "string": pd.DataFrame({"v": words[rng.integers(0, 1000, n)]}),
        "categorical": pd.DataFrame({"v": pd.Categorical(words[rng.integers(0, 1000, n)])}),
        "bool": pd.DataFrame({"v": rng.random(n) < 0.5}),
        "index": pd.DataFrame({"v": ints}, index=pd.Index(ints + 1, name="k")),
    }


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'kind':18} {'ours s':>8} {'pyarrow s':>10} {'ratio':>7} {'ours MB/s':>10}")
    for kind, df in _frames(args.rows).items():
        buf = io.BytesIO()
        pq.write_table(df if isinstance(df, pa.Table) else pa.Table.from_pandas(df), buf)
        ours = pc.read_table(io.BytesIO(buf.getvalue()))
        theirs = pq.read_table(io.BytesIO(buf.getvalue()))
        got, want = ours.to_pandas(), theirs.to_pandas(use_threads=False)
        pd.testing.assert_frame_equal(got, want)
        t_ours = _best(ours.to_pandas, args.repeat)
        t_theirs = _best(lambda t=theirs: t.to_pandas(use_threads=False), args.repeat)
        mb = want.memory_usage(deep=False).sum() / 1e6
        print(f"{kind:18} {t_ours:8.3f} {t_theirs:10.3f} {t_ours / t_theirs:7.1f} {mb / t_ours:10.0f}")


if __name__ == "__main__":
    main()
