"""Where the ``footer`` case's "walk sizes" row spends its time, stage by stage (issue 32).

    python -m benchmarks.footer_walk_stages [--repeats 15] [--cache-dir DIR]

The file is ``real_tables_bench``'s footer file (200 row groups x 100 int64 columns, 20,000
chunks).  Each stage is timed on its own (CPU time, GC off while timing as in the bench; all
stages alternate within each round; best and median of the rounds), with pyarrow's open and
walk in the same rounds:

* ``open``: ``pc.read_metadata``; nearly all of it is the top-level decode stepping over every
  byte of the row groups (thrift's C decoder skips them to reach the fields written after);
* ``row groups skipped``: the same bytes skipped again, one C call per row group, nothing
  built: the floor of any pass of that decoder over them;
* ``row groups decoded``: ``LazyFooter.row_group`` for every group (the trimmed decode: two
  objects and seven integers per chunk, kept alive as a walk keeps them, and each chunk's
  reference to its footer);
* ``checks``: ``RowGroupMetadata`` of every decoded group (the counts of each chunk checked);
* ``walk``: ``row_group(i).column(j).total_compressed_size`` over an opened, walked footer;
* ``total``: the bench's row (open, then the walk that decodes and checks each group).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _walk(md: Any) -> list[int]:
    return [md.row_group(i).column(j).total_compressed_size
            for i in range(md.num_row_groups) for j in range(md.num_columns)]


def stages(path: str) -> dict[str, Callable[[], Any]]:
    import pyarrow.parquet as pq

    import parquet_core as pc
    from parquet_core.metadata.wrappers import RowGroupMetadata
    from parquet_core.thrift import lazy_footer as lf

    md = pc.read_metadata(path)
    state = lf.lazy_state(md.raw)
    if state is None:
        raise SystemExit("the footer was not decoded lazily (no thrift C decoder?)")
    src = state._src       # the footer's bytes and decoder (its lock held around decodes)
    spans = state.row_group_spans or []
    walked = pc.read_metadata(path)
    _walk(walked)

    def skipped() -> None:
        with src._lock:
            for span in spans:
                src._decode(lf._Skipped, (), span)

    def decoded() -> list[Any]:
        state._groups = [None] * len(spans)
        return [state.row_group(i) for i in range(len(spans))]

    raws = decoded()

    def checks() -> None:
        for i, raw in enumerate(raws):
            RowGroupMetadata(raw, md.schema, md._orders, i, md.writer, None, md.file_size,
                             stats_decoders=md._stats_decoders, decoded=True)

    return {
        "open": lambda: pc.read_metadata(path),
        "row groups skipped": skipped,
        "row groups decoded": decoded,
        "checks": checks,
        "walk": lambda: _walk(walked),
        "total": lambda: _walk(pc.read_metadata(path)),
        "pyarrow open": lambda: pq.read_metadata(path),
        "pyarrow total": lambda: _walk(pq.read_metadata(path)),
    }


def main(argv: list[str] | None = None) -> int:
    import pyarrow as pa

    from benchmarks import real_tables_bench as rt
    from benchmarks._harness import best_of

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", "-n", type=int, default=15)
    ap.add_argument("--cache-dir", default=os.environ.get("PQC_BENCH_CACHE", tempfile.gettempdir()))
    args = ap.parse_args(argv)
    path = os.path.join(args.cache_dir, f"real_footer_{rt.FOOTER_GROUPS}x{rt.FOOTER_COLS}_{pa.__version__}.parquet")
    if not os.path.exists(path):
        rt.footer_file(path)
    fns = stages(path)
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(args.repeats):
        for name, fn in fns.items():
            times[name].append(best_of(fn, 1, time.process_time))   # (GC off while timing, as the bench)
    print(f"{'stage':22s} {'best ms':>8s} {'median ms':>10s}")
    for name, ts in times.items():
        ts.sort()
        print(f"{name:22s} {ts[0] * 1e3:8.2f} {ts[len(ts) // 2] * 1e3:10.2f}")
    best = {k: min(v) for k, v in times.items()}
    print(f"total / pyarrow total: {best['total'] / best['pyarrow total']:.2f}x (best of each)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
