"""Kartothek datasets: our write/read vs pyarrow on the same hive layout, in one run.

    python -m benchmarks.kartothek_bench [--rows 1000000] [--repeats 3]

One dataset (``P`` 20 partition values, ``C`` int64 with 1,000 distinct
values and a secondary index, ``F`` float64, ``S`` string of 100 values),
written by ``parquet_core_integrations.kartothek.write_dataset`` with ``partition_on=["P"]``.
Reads of that dataset:

* full read;
* a partition-key predicate ``P == 3``;
* an index predicate ``C == 17`` (the index prunes partitions; row groups
  and rows are filtered in each remaining file).

pyarrow reads the same files with ``pyarrow.dataset`` (hive partitioning,
the same filters); its result is checked to hold the same number of rows.
Reported: best-of-N milliseconds and our time / pyarrow's (>1: we are slower).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._harness import best_of  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    import pyarrow.dataset as ds

    import parquet_core_integrations.kartothek as ktk

    rng = np.random.default_rng(0)
    n = args.rows
    data = {"P": rng.integers(0, 20, n), "C": rng.integers(0, 1000, n), "F": rng.random(n),
            "S": np.array([f"s{i}" for i in range(100)], dtype=object)[rng.integers(0, 100, n)]}
    with tempfile.TemporaryDirectory() as tmp:
        write_s = best_of(lambda: ktk.write_dataset(data, tmp, "b", partition_on=["P"], secondary_indices=["C"],
                                                    overwrite=True), 1)
        print(f"write_dataset {n} rows, 20 partitions, index on C: {write_s * 1e3:.0f} ms")
        pa_ds = ds.dataset(Path(tmp) / "b" / "table", format="parquet", partitioning="hive",
                           exclude_invalid_files=True)
        queries = [("full read", None, None),
                   ("P == 3", [[("P", "==", 3)]], ds.field("P") == 3),
                   ("C == 17 (index)", [[("C", "==", 17)]], ds.field("C") == 17)]
        print(f"{'query':<18}{'ours ms':>10}{'pyarrow ms':>12}{'ratio':>8}{'rows':>10}")
        for name, preds, expr in queries:
            ours = ktk.read_dataset(tmp, "b", predicates=preds)
            theirs = pa_ds.to_table(filter=expr)
            assert ours.num_rows == theirs.num_rows, (name, ours.num_rows, theirs.num_rows)
            t_ours = best_of(lambda p=preds: ktk.read_dataset(tmp, "b", predicates=p), args.repeats)
            t_pa = best_of(lambda e=expr: pa_ds.to_table(filter=e), args.repeats)
            print(f"{name:<18}{t_ours * 1e3:>10.1f}{t_pa * 1e3:>12.1f}{t_ours / t_pa:>8.2f}{ours.num_rows:>10}")


if __name__ == "__main__":
    main()
