"""Issue 32, "speed on real tables": three shapes of real data, parquet_core vs pyarrow in one run.

    python -m benchmarks.real_tables_bench [--rows 1000000] [--repeats 5] [--cases lineitem,taxi,urls,timestamps]
    python -m benchmarks.real_tables_bench --cases wide,footer --json benchmarks/results/real_tables.json

Every file is written by pyarrow (its defaults unless said) and read by both
engines, one thread each; the time is CPU time (``time.process_time``), best
of N, so the ratios hold up on a shared machine better than wall-clock times
(they are still only comparable within one run).  Every result is checked
equal to pyarrow's read of the same file before it is timed.

* ``lineitem``: TPC-H ``lineitem``-like columns, the four money columns as
  ``decimal128(15, 2)`` (pyarrow stores them as FIXED_LEN_BYTE_ARRAY(7)).
  Rows: ``read_table(...).to_arrow()`` of the table and of ``l_extendedprice``
  alone, and ``to_pandas()`` of the table (pyarrow: ``read_table().to_pandas()``).
* ``taxi``: NYC-taxi-like low-cardinality columns with skewed values, whose
  dictionary indices alternate between bit-packed stretches and runs of one
  value every 20-60 values (the RLE/bit-packed hybrid at its busiest).
  Rows: the table, each column, ``iter_batches(65536)`` and ``iter_batches(8192)``
  of the table, and its write (snappy, dictionary, both engines; checked by reading
  both files back, timed writing alone).
* ``urls``: sorted URLs (~64 bytes, long shared prefixes), DELTA_BYTE_ARRAY.
* ``smallfiles``: 300 files of 2,000 rows x 5 columns (int64, double, string,
  timestamp, int32) in one folder, read as a dataset (``read_table(folder)``).
* ``timestamps``: jittered event timestamps (int64 microseconds, ~1 s apart with
  random jitter) and a jittered int32 counter, DELTA_BINARY_PACKED.
* ``wide``: 500 float64 columns x 20,000 rows in one row group (pyarrow's
  defaults: snappy, dictionary on).  Rows: ``read_table(...).to_arrow()`` and
  the write of the same table (``pc.write_table`` vs ``pq.write_table``, same
  compression and dictionary settings; our file read back by pyarrow and checked
  equal), then the table read with one thread and with each engine's default
  threads, wall-clock; then the same shape with other values, one thread each
  (``wide_variant``): doubles rounded to 0.01 (~101 distinct values per column,
  7-bit dictionary indices), random int32, and the random doubles with ~10 %
  nulls at random (many short definition-level runs).  ``--rows`` does not apply.
* ``writes``: the ``taxi`` table (``--rows`` rows) and a nested
  ``list<struct<id: int64, tags: list<string>>>`` table (200,000 rows) written
  by both engines with pyarrow's defaults (snappy, dictionary, statistics); our
  file read back by pyarrow and checked equal to the table.
* ``--row-group-rows N`` writes the lineitem, taxi, urls and timestamps files in row
  groups of N rows (their "(wall)" rows then show the threads' gain on several row
  groups; ``benchmarks/pool_matrix.py`` measures the pool decision on a matrix of them).
* ``footer``: a 200 row group x 100 column file (20,000 column chunks, int64
  with statistics); rows: ``read_metadata`` alone, then walking every chunk's
  ``total_compressed_size`` and every chunk's ``statistics.min``/``max`` from
  a fresh ``read_metadata`` (values checked equal to pyarrow's).

Reported: best CPU milliseconds of each engine, MB/s of the file's size
(parquet_core's), and our time / pyarrow's (> 1: parquet_core slower).  Rows
marked "(wall)" are wall-clock instead: "one thread" both engines with one
thread, "default threads" both engines' defaults (parquet_core's
``use_threads=True``, pyarrow with every core), so the gain from threads is
the ratio of the two rows of an engine.  ``smallfiles`` also times opening
one of its files and ``read_metadata`` of it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc
from benchmarks._harness import best_of, environment


def cpu_best(fn: Callable[[], Any], repeats: int) -> float:
    """Best CPU time (seconds) of *repeats* calls, garbage collection off while timing."""
    return best_of(fn, repeats, time.process_time)


# ------------------------------------------------------------------ data

def lineitem(rows: int, seed: int = 1) -> pa.Table:
    rng = np.random.default_rng(seed)

    def money(lo: int, hi: int) -> pa.Array:   # unscaled cents, some negative as in a ledger
        cents = rng.integers(lo, hi, rows)
        return pa.Array.from_buffers(pa.decimal128(15, 2), rows, [None, pa.py_buffer(_words(cents))])

    days = rng.integers(8000, 10500, rows).astype(np.int32)
    flags = np.array(["A", "N", "R"])
    modes = np.array(["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"])
    instr = np.array(["COLLECT COD", "DELIVER IN PERSON", "NONE", "TAKE BACK RETURN"])
    words = np.array(["carefully", "final", "deposits", "quickly", "ironic", "packages", "blithely",
                      "regular", "requests", "furiously", "express", "accounts", "slyly", "bold"])
    comment = [" ".join(w) for w in words[rng.integers(0, len(words), (rows, 4))]]
    return pa.table({
        "l_orderkey": np.sort(rng.integers(1, rows // 4 + 2, rows)).astype(np.int64),
        "l_partkey": rng.integers(1, 200_000, rows).astype(np.int64),
        "l_suppkey": rng.integers(1, 10_000, rows).astype(np.int64),
        "l_linenumber": rng.integers(1, 8, rows).astype(np.int32),
        "l_quantity": money(100, 5_001),
        "l_extendedprice": money(-10_000, 10_000_000),
        "l_discount": money(0, 11),
        "l_tax": money(0, 9),
        "l_returnflag": pa.array(flags[rng.integers(0, 3, rows)]),
        "l_linestatus": pa.array(flags[rng.integers(1, 3, rows)]),
        "l_shipdate": pa.array(days, pa.date32()),
        "l_commitdate": pa.array(days + 30, pa.date32()),
        "l_receiptdate": pa.array(days + rng.integers(1, 30, rows).astype(np.int32), pa.date32()),
        "l_shipinstruct": pa.array(instr[rng.integers(0, 4, rows)]),
        "l_shipmode": pa.array(modes[rng.integers(0, 7, rows)]),
        "l_comment": pa.array(comment),
    })


def _words(cents: np.ndarray) -> np.ndarray:
    w = np.empty((len(cents), 2), dtype="<i8")
    w[:, 0] = cents
    w[:, 1] = np.where(cents < 0, -1, 0)
    return w


def _runny(rng: np.random.Generator, rows: int, card: int) -> np.ndarray:
    """Skewed codes 0..card-1: stretches of 20-60 mixed values, each followed by a run of one value."""
    weights = 1.0 / np.arange(1, card + 1) ** 1.2
    weights /= weights.sum()
    out = np.empty(rows, dtype=np.int64)
    i = 0
    while i < rows:
        mixed = int(rng.integers(20, 61))
        run = int(rng.integers(8, 41))
        k = min(mixed, rows - i)
        out[i:i + k] = rng.choice(card, k, p=weights)
        i += k
        k = min(run, rows - i)
        out[i:i + k] = rng.choice(card, p=weights)
        i += k
    return out


def taxi(rows: int, seed: int = 2) -> pa.Table:
    rng = np.random.default_rng(seed)
    flag = np.array(["N", "Y"])
    return pa.table({
        "VendorID": (_runny(rng, rows, 3) + 1).astype(np.int32),
        "passenger_count": _runny(rng, rows, 7).astype(np.int64),
        "RatecodeID": (_runny(rng, rows, 6) + 1).astype(np.int64),
        "store_and_fwd_flag": pa.array(flag[_runny(rng, rows, 2)]),
        "PULocationID": (_runny(rng, rows, 265) + 1).astype(np.int32),
        "DOLocationID": (_runny(rng, rows, 265) + 1).astype(np.int32),
        "payment_type": (_runny(rng, rows, 5) + 1).astype(np.int64),
        "extra": (_runny(rng, rows, 8) * 0.5).astype(np.float64),
        "mta_tax": (_runny(rng, rows, 3) * 0.5).astype(np.float64),
        "improvement_surcharge": (_runny(rng, rows, 3) * 0.3).astype(np.float64),
        "congestion_surcharge": (_runny(rng, rows, 4) * 0.75).astype(np.float64),
    })


def urls(rows: int, seed: int = 3) -> pa.Table:
    rng = np.random.default_rng(seed)
    hosts = [f"https://www.example-{h:03d}.com/catalogue/section-{s:02d}/" for h in range(40) for s in range(8)]
    idx = rng.integers(0, len(hosts), rows)
    item = rng.integers(0, 10**9, rows)
    vals = sorted(f"{hosts[h]}item-{i:09d}.html" for h, i in zip(idx, item))
    return pa.table({"url": pa.array(vals)})


def timestamps(rows: int, seed: int = 4) -> pa.Table:
    rng = np.random.default_rng(seed)
    start = 1_700_000_000_000_000
    ts = start + np.cumsum(rng.integers(900_000, 1_100_000, rows))
    counter = np.cumsum(rng.integers(0, 50, rows)).astype(np.int32)
    return pa.table({"ts": pa.array(ts, pa.timestamp("us")), "counter": counter})


CASES: dict[str, tuple[Callable[[int], pa.Table], dict[str, Any]]] = {
    "lineitem": (lineitem, {}),
    "taxi": (taxi, {}),
    "urls": (urls, {"use_dictionary": False, "column_encoding": {"url": "DELTA_BYTE_ARRAY"}}),
    "timestamps": (timestamps, {"use_dictionary": False,
                                "column_encoding": {"ts": "DELTA_BINARY_PACKED",
                                                    "counter": "DELTA_BINARY_PACKED"}}),
}


# ------------------------------------------------------------------ checks and runs

def wall_best(fn: Callable[[], Any], repeats: int) -> float:
    """Best wall-clock time (seconds) of *repeats* calls (threaded reads: CPU time adds threads up)."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def threaded(ours: Callable[[], Any], theirs: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """Wall-clock best of parquet_core's default read (threads) and of pyarrow's default
    read with all cores (pyarrow's pools are set back to one thread afterwards)."""
    cores = os.cpu_count() or 1
    pa.set_cpu_count(cores)
    pa.set_io_thread_count(cores)
    try:
        t_pa = wall_best(theirs, repeats)
    finally:
        pa.set_cpu_count(1)
        pa.set_io_thread_count(1)
    return wall_best(ours, repeats), t_pa


def check_equal(ours: pa.Table, theirs: pa.Table, what: str) -> None:
    if ours.column_names != theirs.column_names:
        raise AssertionError(f"{what}: columns {ours.column_names} != {theirs.column_names}")
    for name in theirs.column_names:
        a, b = ours.column(name), theirs.column(name)
        if a.type != b.type:
            a = a.cast(b.type)
        if not a.equals(b):
            raise AssertionError(f"{what}: column {name} differs from pyarrow's read")


def _pc_batches(path: str, size: int = 65536, threads: bool = False) -> pa.Table:
    return pa.concat_tables([b.to_arrow() for b in pc.ParquetFile(path).iter_batches(batch_size=size,
                                                                   use_threads=threads)])


def _pa_batches(path: str, size: int, threads: bool = False) -> pa.Table:
    return pa.Table.from_batches(list(pq.ParquetFile(path).iter_batches(batch_size=size, use_threads=threads)))


#: the taxi write's settings, the same for both engines (pyarrow's defaults: snappy, dictionary)
TAXI_WRITE: dict[str, Any] = {"compression": "snappy", "use_dictionary": True}
#: per case path: the write rows timed alone (the checked rows also read the files back)
_WRITES_ALONE: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {}


WIDE_COLS, WIDE_ROWS = 500, 20_000
FOOTER_GROUPS, FOOTER_COLS = 200, 100


def wide(rows: int = WIDE_ROWS, seed: int = 6) -> pa.Table:
    rng = np.random.default_rng(seed)
    block = rng.random((WIDE_COLS, rows))
    return pa.table({f"c{i:03d}": block[i] for i in range(WIDE_COLS)})


def wide_variant(kind: str, rows: int = WIDE_ROWS, seed: int = 6) -> pa.Table:
    """The wide shape with other values: ``rounded`` (doubles rounded to 0.01, ~101
    distinct per column), ``int32`` (random int32, all distinct in practice) or
    ``nulls`` (the random doubles with ~10 % nulls at random)."""
    rng = np.random.default_rng(seed)
    if kind == "int32":
        block = rng.integers(-2**31, 2**31 - 1, (WIDE_COLS, rows), dtype=np.int32)
        return pa.table({f"c{i:03d}": block[i] for i in range(WIDE_COLS)})
    block = rng.random((WIDE_COLS, rows))
    if kind == "rounded":
        block = np.round(block, 2)
        return pa.table({f"c{i:03d}": block[i] for i in range(WIDE_COLS)})
    if kind == "nulls":
        null = rng.random((WIDE_COLS, rows)) < 0.1
        return pa.table({f"c{i:03d}": pa.array(block[i], mask=null[i]) for i in range(WIDE_COLS)})
    raise ValueError(f"unknown wide variant {kind!r}")


#: the extra wide rows: label and variant (each file read by both engines, one thread)
WIDE_VARIANTS = (("rounded to_arrow", "rounded"), ("int32 to_arrow", "int32"), ("10% nulls to_arrow", "nulls"))


def footer_file(path: str) -> None:
    """The ``footer`` case's file: FOOTER_GROUPS row groups of 10 rows x FOOTER_COLS int64 columns."""
    rows = FOOTER_GROUPS * 10
    base = np.arange(rows, dtype=np.int64)
    t = pa.table({f"c{i:03d}": base * (i + 1) - i for i in range(FOOTER_COLS)})
    pq.write_table(t, path, row_group_size=10)


def _walk_sizes(md: Any) -> list[int]:
    return [md.row_group(i).column(j).total_compressed_size
            for i in range(md.num_row_groups) for j in range(md.num_columns)]


def _walk_stats(md: Any) -> list[tuple[Any, Any]]:
    out = []
    for i in range(md.num_row_groups):
        rg = md.row_group(i)
        for j in range(md.num_columns):
            st = rg.column(j).statistics
            out.append((st.min, st.max))
    return out


def footer_rows(path: str) -> list[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    return [
        ("read_metadata", lambda: pc.read_metadata(path), lambda: pq.read_metadata(path)),
        ("walk sizes", lambda: _walk_sizes(pc.read_metadata(path)), lambda: _walk_sizes(pq.read_metadata(path))),
        ("walk statistics", lambda: _walk_stats(pc.read_metadata(path)),
         lambda: _walk_stats(pq.read_metadata(path))),
    ]


#: the wide write's settings, the same for both engines (pyarrow's defaults plus its page index)
WIDE_WRITE: dict[str, Any] = {"compression": "snappy", "use_dictionary": True, "write_statistics": True,
                              "write_page_index": True}


def _pc_write(table: pa.Table, path: str) -> None:
    pc.write_table(table, path, use_threads=False, **WIDE_WRITE)


def wide_rows(path: str, table: pa.Table, out_dir: str) -> list[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    ours_out, theirs_out = os.path.join(out_dir, "wide_pc_out.parquet"), os.path.join(out_dir, "wide_pa_out.parquet")
    return [
        ("table to_arrow", lambda: pc.read_table(path, use_threads=False).to_arrow(),
         lambda: pq.read_table(path, use_threads=False)),
        ("write", lambda: (_pc_write(table, ours_out), pq.read_table(ours_out))[1],
         lambda: (pq.write_table(table, theirs_out, **WIDE_WRITE), pq.read_table(theirs_out))[1]),
    ]


NESTED_ROWS = 200_000


def nested(rows: int = NESTED_ROWS, seed: int = 7) -> pa.Table:
    """``list<struct<id: int64, tags: list<string>>>``: 0-4 items per row, 0-3 tags per item
    from 40 words, 10 % null rows."""
    rng = np.random.default_rng(seed)
    words = np.array([f"tag-{i:02d}" for i in range(40)])
    n_items = rng.integers(0, 5, rows)
    items = int(n_items.sum())
    n_tags = rng.integers(0, 4, items)
    tags = pa.ListArray.from_arrays(np.concatenate(([0], np.cumsum(n_tags))).astype(np.int32),
                                    pa.array(words[rng.integers(0, 40, int(n_tags.sum()))]))
    structs = pa.StructArray.from_arrays([pa.array(rng.integers(0, 10**9, items)), tags], ["id", "tags"])
    offsets = pa.array(np.concatenate(([0], np.cumsum(n_items))).astype(np.int32))
    mask = pa.array(rng.random(rows) < 0.1)
    return pa.table({"items": pa.ListArray.from_arrays(offsets, structs, mask=mask)})


#: the taxi and nested writes' settings, the same for both engines (pyarrow's defaults)
WRITE_OPTS: dict[str, Any] = {"compression": "snappy", "use_dictionary": True, "write_statistics": True}


def write_rows(rows: int, out_dir: str) -> list[tuple[str, pa.Table, Callable[[str], Any], Callable[[str], Any]]]:
    """The ``writes`` case: (label, table, our write to a path, pyarrow's)."""
    out = []
    for label, table in (("taxi write", taxi(rows)), ("nested write", nested())):
        out.append((label, table,
                    lambda p, t=table: pc.write_table(t, p, use_threads=False, **WRITE_OPTS),
                    lambda p, t=table: pq.write_table(t, p, **WRITE_OPTS)))
    return out


def rows_for(case: str, path: str, schema: pa.Schema) -> list[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    out: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
        ("table to_arrow", lambda: pc.read_table(path, use_threads=False).to_arrow(),
         lambda: pq.read_table(path, use_threads=False)),
        ("table one thread (wall)", lambda: pc.read_table(path, use_threads=False).to_arrow(),
         lambda: pq.read_table(path, use_threads=False)),
        ("table default threads (wall)", lambda: pc.read_table(path).to_arrow(),
         lambda: pq.read_table(path)),
    ]
    if case == "lineitem":
        out.append(("l_extendedprice", lambda: pc.read_table(path, use_threads=False, columns=["l_extendedprice"]).to_arrow(),
                    lambda: pq.read_table(path, columns=["l_extendedprice"], use_threads=False)))
        out.append(("table to_pandas", lambda: pc.read_table(path, use_threads=False).to_pandas(),
                    lambda: pq.read_table(path, use_threads=False).to_pandas()))
    if case in ("taxi", "timestamps"):
        for name in schema.names:
            out.append((name, lambda c=name: pc.read_table(path, use_threads=False, columns=[c]).to_arrow(),
                        lambda c=name: pq.read_table(path, columns=[c], use_threads=False)))
    if case == "taxi":
        for size in (65536, 8192):
            out.append((f"iter_batches({size})", lambda n=size: _pc_batches(path, n),
                        lambda n=size: _pa_batches(path, n)))
            # the defaults (threads), wall-clock: never slower than one thread (issue 32)
            out.append((f"iter_batches({size}) threads (wall)", lambda n=size: _pc_batches(path, n, True),
                        lambda n=size: _pa_batches(path, n, True)))
        table = pq.read_table(path)
        out_dir = tempfile.mkdtemp(prefix="pqc_taxi_")
        ours_out, theirs_out = os.path.join(out_dir, "pc.parquet"), os.path.join(out_dir, "pa.parquet")
        ours_w = lambda: pc.write_table(table, ours_out, use_threads=False, **TAXI_WRITE)  # noqa: E731
        theirs_w = lambda: pq.write_table(table, theirs_out, **TAXI_WRITE)  # noqa: E731
        _WRITES_ALONE[path] = (ours_w, theirs_w)
        out.append(("write", lambda: (ours_w(), pq.read_table(ours_out))[1],
                    lambda: (theirs_w(), pq.read_table(theirs_out))[1]))
    return out


SMALL_FILES, SMALL_ROWS = 300, 2000


def small_files(folder: str) -> None:
    """The ``smallfiles`` case's folder (written once)."""
    rng = np.random.default_rng(5)
    os.makedirs(folder, exist_ok=True)
    words = np.array(["alpha", "beta", "gamma", "delta", "epsilon", "zeta"])
    for k in range(SMALL_FILES):
        n = SMALL_ROWS
        t = pa.table({
            "id": np.arange(k * n, (k + 1) * n, dtype=np.int64),
            "x": rng.random(n),
            "name": pa.array(words[rng.integers(0, len(words), n)]),
            "ts": pa.array(1_700_000_000_000_000 + rng.integers(0, 10**12, n), pa.timestamp("us")),
            "qty": rng.integers(0, 100, n).astype(np.int32),
        })
        pq.write_table(t, os.path.join(folder, f"part-{k:05d}.parquet"))


def _folder_size(folder: str) -> int:
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))


def run_case(case: str, rows: int, repeats: int, cache: str,
             group_rows: int = 0) -> Iterator[tuple[str, str, float, float, float]]:
    if case == "smallfiles":
        folder = os.path.join(cache, f"real_smallfiles_{SMALL_FILES}x{SMALL_ROWS}_{pa.__version__}")
        if not os.path.exists(os.path.join(folder, f"part-{SMALL_FILES - 1:05d}.parquet")):
            small_files(folder)
        size = _folder_size(folder)
        first = os.path.join(folder, "part-00000.parquet")
        flt = [("qty", ">=", 0)]
        cases = [
            ("folder to_arrow", lambda: pc.read_table(folder, use_threads=False).to_arrow(),
             lambda: pq.read_table(folder, use_threads=False)),
            ("folder filter (none pruned)",
             lambda: pc.read_table(folder, use_threads=False, filters=flt).to_arrow(),
             lambda: pq.read_table(folder, use_threads=False, filters=flt)),
            ("open one file", lambda: pc.ParquetFile(first).metadata,
             lambda: pq.ParquetFile(first).metadata),
            ("read_metadata one file", lambda: pc.read_metadata(first),
             lambda: pq.read_metadata(first)),
        ]
        cases.append(("folder default threads (wall)", lambda: pc.read_table(folder).to_arrow(),
                      lambda: pq.read_table(folder)))
        for label, ours, theirs in cases:
            a, b = ours(), theirs()
            if isinstance(a, pa.Table):
                check_equal(a.sort_by("id"), b.sort_by("id"), f"{case} {label}")
            if "threads" in label:
                t_pc, t_pa = threaded(ours, theirs, repeats)
            else:
                t_pc = cpu_best(ours, repeats)
                t_pa = cpu_best(theirs, repeats)
            yield case, label, t_pc, t_pa, size if "folder" in label else os.path.getsize(first)
        return
    if case == "footer":
        path = os.path.join(cache, f"real_footer_{FOOTER_GROUPS}x{FOOTER_COLS}_{pa.__version__}.parquet")
        if not os.path.exists(path):
            footer_file(path)
        for label, ours, theirs in footer_rows(path):
            a, b = ours(), theirs()
            if label != "read_metadata" and a != b:
                raise AssertionError(f"footer {label}: our values differ from pyarrow's")
            yield case, label, cpu_best(ours, repeats), cpu_best(theirs, repeats), os.path.getsize(path)
        return
    if case == "wide":
        path = os.path.join(cache, f"real_wide_{WIDE_COLS}x{WIDE_ROWS}_{pa.__version__}.parquet")
        table = wide()
        if not os.path.exists(path):
            pq.write_table(table, path)
        for label, ours, theirs in wide_rows(path, table, tempfile.mkdtemp(prefix="pqc_wide_")):
            check_equal(ours(), theirs(), f"wide {label}")
            if label == "write":   # time the writes alone (the checks above read them back)
                ours_t = os.path.join(os.path.dirname(path), "wide_pc_t.parquet")
                theirs_t = os.path.join(os.path.dirname(path), "wide_pa_t.parquet")
                ours = lambda p=ours_t: _pc_write(table, p)  # noqa: E731
                theirs = lambda p=theirs_t: pq.write_table(table, p, **WIDE_WRITE)  # noqa: E731
            yield case, label, cpu_best(ours, repeats), cpu_best(theirs, repeats), os.path.getsize(path)
        # threads: both engines' defaults against one thread each, wall-clock
        ours = lambda: pc.read_table(path).to_arrow()  # noqa: E731
        theirs = lambda: pq.read_table(path)  # noqa: E731
        check_equal(ours(), theirs(), "wide default threads")
        yield (case, "one thread (wall)", wall_best(lambda: pc.read_table(path, use_threads=False).to_arrow(), repeats),
               wall_best(lambda: pq.read_table(path, use_threads=False), repeats), os.path.getsize(path))
        t_pc, t_pa = threaded(ours, theirs, repeats)
        yield case, "default threads (wall)", t_pc, t_pa, os.path.getsize(path)
        for label, kind in WIDE_VARIANTS:
            vpath = os.path.join(cache, f"real_wide_{kind}_{WIDE_COLS}x{WIDE_ROWS}_{pa.__version__}.parquet")
            if not os.path.exists(vpath):
                pq.write_table(wide_variant(kind), vpath)
            ours = lambda p=vpath: pc.read_table(p, use_threads=False).to_arrow()  # noqa: E731
            theirs = lambda p=vpath: pq.read_table(p, use_threads=False)  # noqa: E731
            check_equal(ours(), theirs(), f"wide {label}")
            yield case, label, cpu_best(ours, repeats), cpu_best(theirs, repeats), os.path.getsize(vpath)
        return
    if case == "writes":
        out_dir = tempfile.mkdtemp(prefix="pqc_writes_")
        ours_p, theirs_p = os.path.join(out_dir, "pc.parquet"), os.path.join(out_dir, "pa.parquet")
        for label, table, ours, theirs in write_rows(rows, out_dir):
            ours(ours_p)
            theirs(theirs_p)
            check_equal(pq.read_table(ours_p), table, f"writes {label} (our file read by pyarrow)")
            yield (case, label, cpu_best(lambda f=ours: f(ours_p), repeats),
                   cpu_best(lambda f=theirs: f(theirs_p), repeats), os.path.getsize(ours_p))
        return
    make, opts = CASES[case]
    layout = f"_rg{group_rows}" if group_rows else ""
    path = os.path.join(cache, f"real_{case}_{rows}{layout}_{pa.__version__}.parquet")
    if not os.path.exists(path):
        pq.write_table(make(rows), path, row_group_size=group_rows or None, **opts)
    size = os.path.getsize(path)
    schema = pq.read_schema(path)
    for label, ours, theirs in rows_for(case, path, schema):
        a, b = ours(), theirs()
        if isinstance(a, pa.Table):
            check_equal(a, b, f"{case} {label}")
        else:   # pandas
            if not a.equals(b):
                raise AssertionError(f"{case} {label}: differs from pyarrow's to_pandas()")
        if label == "write":    # checked by reading both files back; timed writing alone
            ours, theirs = _WRITES_ALONE[path]
        if "threads" in label:
            t_pc, t_pa = threaded(ours, theirs, repeats)
        elif "(wall)" in label:
            t_pc, t_pa = wall_best(ours, repeats), wall_best(theirs, repeats)
        else:
            t_pc = cpu_best(ours, repeats)
            t_pa = cpu_best(theirs, repeats)
        yield case, label, t_pc, t_pa, size


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.real_tables_bench", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", "-n", type=int, default=5)
    ap.add_argument("--cases", default=",".join([*CASES, "smallfiles", "writes"]))
    ap.add_argument("--row-group-rows", type=int, default=0,
                    help="rows per row group of the lineitem/taxi/urls/timestamps files (0: pyarrow's default)")
    ap.add_argument("--cache-dir", default=os.environ.get("PQC_BENCH_CACHE", tempfile.gettempdir()))
    ap.add_argument("--json", help="also write every row (seconds) to this file (benchmarks/results/...)")
    args = ap.parse_args(argv)
    env = environment(None)
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    os.makedirs(args.cache_dir, exist_ok=True)
    print(f"{'case':10} {'read':30} {'pc ms':>8} {'pa ms':>8} {'pc MB/s':>8} {'pc/pa':>6}")
    rows: list[dict[str, Any]] = []
    for case in args.cases.split(","):
        for c, label, t_pc, t_pa, size in run_case(case, args.rows, args.repeats, args.cache_dir, args.row_group_rows):
            print(f"{c:10} {label:30} {t_pc * 1e3:8.1f} {t_pa * 1e3:8.1f} "
                  f"{size / 1e6 / t_pc:8.0f} {t_pc / t_pa:5.2f}x", flush=True)
            rows.append({"case": c, "read": label, "pc_s": t_pc, "pa_s": t_pa, "file_bytes": size})
    if args.json:
        out = {"env": env, "rows_arg": args.rows, "repeats": args.repeats, "cases": args.cases.split(","),
               "rows": rows}
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
