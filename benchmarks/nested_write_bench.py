"""Nested write benchmark: parquet_core vs pyarrow writing lists, a struct and a map.

    python -m benchmarks.nested_write_bench [--rows N] [-n REPEATS]

The dataset is the nested read benchmark's (``nested_read_bench.make_table``:
``list<int64>``, ``list<string>``, ``struct<a: int64, b: string>``,
``map<string, int64>``, 10 % null lists and structs).  Each engine writes
its native in-memory form, built before timing: parquet_core a ``Table``
(converted from the Arrow table once), pyarrow the ``pa.Table`` with one CPU
and one IO thread.  Both write snappy, dictionary on, data page v1, page
index and statistics on (each library's defaults otherwise) to an in-memory
buffer.  Each cell is the best of N interleaved runs; every file
parquet_core writes is read back with pyarrow and compared with the source
outside the timed region.  The ``shred`` column is the time parquet_core
spends turning the column into levels and leaf values (included in ``pc``).
``pc/pa1`` > 1 means parquet_core takes longer.

fastparquet is left out: it writes nested columns only as JSON-encoded
strings, a different file.
"""

from __future__ import annotations

import argparse
import io

import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc
from benchmarks._harness import best_of
from benchmarks.nested_read_bench import COLUMNS, make_table
from parquet_core.interop.ingest import as_table
from parquet_core.table.shred import shred


def _pc_write(table: "pc.Table") -> bytes:
    buf = io.BytesIO()
    pc.write_table(table, buf, compression="snappy")
    return buf.getvalue()


def _pa_write(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="snappy")
    return buf.getvalue()


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.nested_write_bench",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("-n", "--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    source = make_table(args.rows, args.seed)
    print(f"{args.rows:,} rows; best of {args.repeats}, ms")
    print(f"{'column':<9}{'pc':>9}{'shred':>9}{'pa1':>9}{'pc/pa1':>9}{'MB pc':>8}{'MB pa':>8}  check")
    for col in COLUMNS + [None]:
        arrow = source if col is None else source.select([col])
        ours = as_table(arrow)
        t_pc = best_of(lambda: _pc_write(ours), args.repeats)
        t_pa = best_of(lambda: _pa_write(arrow), args.repeats)
        t_sh = best_of(lambda: [shred(c, f) for f, c in zip(ours.schema, ours.columns)], args.repeats)
        data, ref = _pc_write(ours), _pa_write(arrow)
        back = pq.read_table(io.BytesIO(data))
        ok = all(back.column(c).combine_chunks().equals(arrow.column(c).combine_chunks())
                 for c in arrow.column_names)
        print(f"{col or '<table>':<9}{t_pc * 1e3:>9.1f}{t_sh * 1e3:>9.1f}{t_pa * 1e3:>9.1f}"
              f"{t_pc / t_pa:>8.2f}x{len(data) / 1e6:>8.1f}{len(ref) / 1e6:>8.1f}  {'ok' if ok else 'WRONG'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
