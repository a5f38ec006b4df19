"""Numeric, RLE/bit-packed and level decoding: parquet_core vs pyarrow (1 thread).

Run from the repository root::

    python benchmarks/bench_numeric_decode.py [--rows 1000000] [--repeat 5] [--only NAME]

Every case is a one-column file written by pyarrow (uncompressed, so only the
decoders are compared) and read whole by ``parquet_core.read_table`` and by
``pyarrow.parquet.read_table(use_threads=False)`` in the same process.  Times
are CPU time (``time.process_time``), best of ``--repeat``; MB/s is the
column's in-memory size (values only, 1 byte per boolean) per second.  A
second table times the page-level decoders alone (``decode_values`` and the
level readers) on pages cut from the same data, to show the per-page fixed
cost without the page walk.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import parquet_core as pc  # noqa: E402

SEED = 20261126


def _cases(rows: int) -> dict[str, tuple[pa.Table, dict[str, Any]]]:
    rng = np.random.default_rng(SEED)
    ts = np.cumsum(rng.integers(0, 1000, rows)).astype(np.int64)       # sorted-ish timestamps
    i32 = rng.integers(-2**20, 2**20, rows).astype(np.int32)
    i64 = rng.integers(-2**40, 2**40, rows).astype(np.int64)
    f32 = rng.normal(size=rows).astype(np.float32)
    f64 = rng.normal(size=rows)
    bools = rng.random(rows) < 0.3
    mask = rng.random(rows) < 0.1
    small_dict = rng.integers(0, 1000, rows).astype(np.int64)
    plain = dict(use_dictionary=False, compression="NONE")
    dbp = dict(plain, column_encoding={"x": "DELTA_BINARY_PACKED"})
    bss = dict(plain, column_encoding={"x": "BYTE_STREAM_SPLIT"})
    t = lambda a, m=None: pa.table({"x": pa.array(a, mask=m)})  # noqa: E731
    return {
        "plain_int64": (t(i64), plain),
        "plain_double": (t(f64), plain),
        "plain_int32_nullable": (t(i32, mask), plain),
        "dbp_int32": (t(i32), dbp),
        "dbp_int64": (t(i64), dbp),
        "dbp_int64_sorted": (t(ts), dbp),
        "bss_float": (t(f32), bss),
        "bss_double": (t(f64), bss),
        "bss_int64": (t(i64), bss),
        "rle_bool": (t(bools), dict(plain, data_page_version="2.0",
                                      column_encoding={"x": "RLE"})),
        "plain_bool": (t(bools), plain),
        "dict_int64": (t(small_dict), dict(compression="NONE")),
        "dict_int64_nullable": (t(small_dict, mask), dict(compression="NONE")),
        "int64_1k_pages": (t(i64), dict(plain, data_page_size=8000, write_batch_size=1000)),
        "int64_1k_pages_nullable": (t(i64, mask), dict(plain, data_page_size=8000,
                                                         write_batch_size=1000)),
        "int64_1k_pages_v2_nullable": (t(i64, mask), dict(plain, data_page_size=8000,
                                                            write_batch_size=1000,
                                                            data_page_version="2.0")),
    }


def best(fn: Callable[[], Any], repeat: int) -> float:
    out = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        out = min(out, time.process_time() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    print(f"{'case':28s} {'pages':>6s} {'ours ms':>8s} {'arrow ms':>8s} {'ratio':>6s} "
          f"{'ours MB/s':>10s}")
    for name, (table, opts) in _cases(args.rows).items():
        if args.only and args.only not in name:
            continue
        sink = io.BytesIO()
        pq.write_table(table, sink, **opts)
        data = sink.getvalue()
        md = pq.ParquetFile(io.BytesIO(data)).metadata
        pages = sum(1 for _ in range(md.num_row_groups))
        # count data pages from the column chunk's offset index free way: pyarrow metadata
        col = table.column(0)
        nbytes = col.nbytes if col.type != pa.bool_() else len(col)
        # sanity: same values
        ours = pc.read_table(io.BytesIO(data))
        assert ours.column(0).to_pylist()[:1000] == col.to_pylist()[:1000], name
        t_ours = best(lambda: pc.read_table(io.BytesIO(data)), args.repeat)
        t_arrow = best(lambda: pq.read_table(io.BytesIO(data), use_threads=False), args.repeat)
        pages = _page_count(data)
        print(f"{name:28s} {pages:6d} {t_ours * 1e3:8.2f} {t_arrow * 1e3:8.2f} "
              f"{t_ours / t_arrow:6.2f} {nbytes / t_ours / 1e6:10.0f}")


def _page_count(data: bytes) -> int:
    f = pc.ParquetFile(io.BytesIO(data)) if hasattr(pc, "ParquetFile") else None
    try:
        return sum(len(list(f.page_headers(rg, 0))) for rg in range(f.metadata.num_row_groups))
    except Exception:
        return -1


if __name__ == "__main__":
    main()
