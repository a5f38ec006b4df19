"""Numeric, RLE/bit-packed and level decoding: parquet_core vs pyarrow (1 thread).

Run from the repository root::

    python benchmarks/bench_numeric_decode.py [--rows 1000000] [--repeat 5] [--only NAME]

Every case is a one-column file written by pyarrow (uncompressed, so only the
decoders are compared) and read whole by ``parquet_core.read_table`` and by
``pyarrow.parquet.read_table(use_threads=False)`` in the same process.  Times
are CPU time (``time.process_time``), best of ``--repeat``; MB/s is the
column's in-memory size (values only, 1 byte per boolean) per second.  With
``--pages`` two more columns time the page-level decoders alone (the level
readers, and ``decode_values`` of the values section) per data page, to show
the per-page cost of the decoders without the page walk.
"""

from __future__ import annotations

import argparse
import gc
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


def _cases(rows: int) -> dict[str, Callable[[], tuple[pa.Table, dict[str, Any]]]]:
    """Case name -> a builder of (table, write options).  Built one at a time:
    keeping every 1M-row table alive changes how malloc serves the readers'
    big allocations (fresh, page-faulting mmaps), which skews the timings."""
    def rng() -> np.random.Generator:
        return np.random.default_rng(SEED)

    def t(a: Any, m: Any = None) -> pa.Table:
        return pa.table({"x": pa.array(a, mask=m)})

    def ts() -> Any:
        return np.cumsum(rng().integers(0, 1000, rows)).astype(np.int64)     # sorted-ish

    def i32() -> Any:
        return rng().integers(-2**20, 2**20, rows).astype(np.int32)

    def i64() -> Any:
        return rng().integers(-2**40, 2**40, rows).astype(np.int64)

    def f32() -> Any:
        return rng().normal(size=rows).astype(np.float32)

    def f64() -> Any:
        return rng().normal(size=rows)

    def bools() -> Any:
        return rng().random(rows) < 0.3

    def mask() -> Any:
        return np.random.default_rng(SEED + 1).random(rows) < 0.1

    def small() -> Any:
        return rng().integers(0, 1000, rows).astype(np.int64)

    plain = dict(use_dictionary=False, compression="NONE")
    dbp = dict(plain, column_encoding={"x": "DELTA_BINARY_PACKED"})
    bss = dict(plain, column_encoding={"x": "BYTE_STREAM_SPLIT"})
    small_pages = dict(plain, data_page_size=8000, write_batch_size=1000)
    return {
        "plain_int64": lambda: (t(i64()), plain),
        "plain_double": lambda: (t(f64()), plain),
        "plain_int32_nullable": lambda: (t(i32(), mask()), plain),
        "dbp_int32": lambda: (t(i32()), dbp),
        "dbp_int64": lambda: (t(i64()), dbp),
        "dbp_int64_sorted": lambda: (t(ts()), dbp),
        "bss_float": lambda: (t(f32()), bss),
        "bss_double": lambda: (t(f64()), bss),
        "bss_int64": lambda: (t(i64()), bss),
        "rle_bool": lambda: (t(bools()), dict(plain, data_page_version="2.0",
                                              column_encoding={"x": "RLE"})),
        "plain_bool": lambda: (t(bools()), plain),
        "dict_int64": lambda: (t(small()), dict(compression="NONE")),
        "dict_int64_nullable": lambda: (t(small(), mask()), dict(compression="NONE")),
        "int64_1k_pages": lambda: (t(i64()), small_pages),
        "int64_1k_pages_nullable": lambda: (t(i64(), mask()), small_pages),
        "int64_1k_pages_v2_nullable": lambda: (t(i64(), mask()),
                                               dict(small_pages, data_page_version="2.0")),
    }


def best(fn: Callable[[], Any], repeat: int) -> float:
    """Best CPU time of ``repeat`` calls, with the garbage collector off (as timeit)."""
    out = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            t0 = time.process_time()
            fn()
            out = min(out, time.process_time() - t0)
    finally:
        gc.enable()
    return out


def _pages(data: bytes) -> list[Any]:
    """The decompressed pages of the file's only column chunk (row group 0)."""
    from parquet_core.page.reader import iter_pages

    md = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0)
    start = md.dictionary_page_offset or md.data_page_offset
    chunk = data[start:start + md.total_compressed_size]
    return list(iter_pages(memoryview(chunk), 0, md.num_values))


def _page_decode_time(data: bytes, repeat: int) -> tuple[float, float]:
    """Best CPU seconds per data page: definition levels, then values (dictionary
    pages: the indices only)."""
    from parquet_core.column.levels import read_levels_v1, read_levels_v2
    from parquet_core.encodings import decode_values
    from parquet_core.page.model import DataPageV1, DataPageV2

    col = pq.ParquetFile(io.BytesIO(data)).schema.column(0)
    from parquet_core.constants import PhysicalType

    pt = int(getattr(PhysicalType, col.physical_type))
    pages = [p for p in _pages(data) if isinstance(p, (DataPageV1, DataPageV2))]

    def levels() -> list[tuple[Any, int, int]]:
        out = []
        for p in pages:
            if isinstance(p, DataPageV1):
                mv = memoryview(p.body)
                d, pos = read_levels_v1(mv, 0, p.definition_level_encoding, 1, p.num_values, "d")
                out.append((mv[pos:], p.encoding, d))
            else:
                d = read_levels_v2(memoryview(p.definition_levels), 1, p.num_values, "d")
                out.append((memoryview(p.values), p.encoding, d))
        return out

    split = [(buf, enc, int(np.count_nonzero(d))) for buf, enc, d in levels()]
    t_levels = best(levels, repeat)
    t_values = best(lambda: [decode_values(enc, buf, n, pt, None) for buf, enc, n in split], repeat)
    return t_levels / len(pages), t_values / len(pages)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    ap.add_argument("--pages", action="store_true",
                    help="also time the level and value decoders alone, per page")
    args = ap.parse_args()
    print(f"{'case':28s} {'pages':>6s} {'ours ms':>8s} {'arrow ms':>8s} {'ratio':>6s} "
          f"{'ours MB/s':>10s} {'arrow MB/s':>10s}"
          + (f" {'levels us/pg':>12s} {'values us/pg':>12s}" if args.pages else ""))
    for name, build in _cases(args.rows).items():
        if args.only and args.only not in name:
            continue
        table, opts = build()
        sink = io.BytesIO()
        pq.write_table(table, sink, **opts)
        data = sink.getvalue()
        col = table.column(0)
        nbytes = col.nbytes if col.type != pa.bool_() else len(col)
        for _ in range(3):  # warm up (first-use costs, malloc's adaptive thresholds)
            pc.read_table(io.BytesIO(data))
            pq.read_table(io.BytesIO(data), use_threads=False)
        t_ours = best(lambda data=data: pc.read_table(io.BytesIO(data)), args.repeat)
        t_arrow = best(lambda data=data: pq.read_table(io.BytesIO(data), use_threads=False),
                       args.repeat)
        line = (f"{name:28s} {len(_pages(data)):6d} {t_ours * 1e3:8.2f} {t_arrow * 1e3:8.2f} "
                f"{t_ours / t_arrow:6.2f} {nbytes / t_ours / 1e6:10.0f} "
                f"{nbytes / t_arrow / 1e6:10.0f}")
        if args.pages:
            t_lv, t_val = _page_decode_time(data, args.repeat)
            line += f" {t_lv * 1e6:12.1f} {t_val * 1e6:12.1f}"
        print(line, flush=True)
        # checked after timing: a million Python objects would disturb the timings
        assert pc.read_table(io.BytesIO(data)).column(0).to_pylist() == col.to_pylist(), name
        del table, col, data
        gc.collect()


if __name__ == "__main__":
    main()
