"""Datasets: parquet_core vs pyarrow.dataset, side by side in one run.

    python -m benchmarks.bench_dataset [--files 1000] [--s3-files 20] [--repeat 3] [--json FILE]

* a Hive dataset of ``--files`` files (``p=0..9/q=0..N``), written by pyarrow, with and
  without a ``_metadata`` summary;
* planning (list + schema + partitions) and reading everything;
* a partition-filtered query (files opened) and a statistics-filtered query;
* against a local S3 server (moto on 127.0.0.1): requests and bytes for reading one
  column of a smaller dataset, counted at the S3 client for both engines (pyarrow reads
  through the same s3fs, wrapped with ``pyarrow.fs.FSSpecHandler``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

import parquet_core as pc

REPEAT = 3
#: what --json writes: the local rows and the S3 figures, as they are printed
RESULTS: dict[str, Any] = {"rows": [], "s3": None}


#: the best wall-clock time of the last :func:`best` call (shown beside the CPU time)
LAST_WALL = [0.0]


def best(fn: Callable[[], Any], repeat: int | None = None) -> tuple[float, Any]:
    """Best CPU time (``time.process_time``: every thread of the process) of *repeat* runs;
    CPU time rather than wall clock, which is noisy on a shared machine.  The best wall-clock
    time of the same runs is left in :data:`LAST_WALL` (threads that overlap system calls
    show there, not in the CPU time)."""
    times, walls, out = [], [], None
    for _ in range(repeat or REPEAT):
        t0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        times.append(time.process_time() - t0)
        walls.append(time.perf_counter() - w0)
    LAST_WALL[0] = min(walls)
    return min(times), out


def best_with_wall(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """:func:`best` with the best wall-clock time: ``(cpu, wall, result)``."""
    cpu, out = best(fn)
    return cpu, LAST_WALL[0], out


def make_dataset(root: str, files: int, rows: int = 200) -> None:
    qs = max(files // 10, 1)
    n = files * rows
    idx = np.arange(n)
    table = pa.table({"n": idx, "x": np.random.default_rng(0).normal(size=n),
                      "s": pa.array([f"s{i % 97}" for i in range(n)]),
                      "p": (idx // rows) // qs, "q": (idx // rows) % qs})
    collector: list[Any] = []
    pq.write_to_dataset(table, root, partition_cols=["p", "q"], metadata_collector=collector)
    pq.write_metadata(table.schema.remove(4).remove(3), os.path.join(root, "_metadata"),
                      metadata_collector=collector)


def make_flat_dataset(root: str, files: int, rows: int = 20) -> None:
    """``--files`` partition folders ``p=0..N`` directly in *root*, one file each, and a
    ``_metadata``."""
    n = files * rows
    idx = np.arange(n)
    table = pa.table({"n": idx, "p": idx // rows})
    collector: list[Any] = []
    pq.write_to_dataset(table, root, partition_cols=["p"], metadata_collector=collector)
    pq.write_metadata(table.schema.remove(1), os.path.join(root, "_metadata"), metadata_collector=collector)


def row(name: str, ours: float, theirs: float, note: str = "",
        walls: tuple[float, float] | None = None) -> None:
    """One measure: CPU times (and, for the planning rows, the best wall-clock times of the
    same runs, *walls* = ``(ours, pyarrow)``)."""
    entry: dict[str, Any] = {"name": name.strip(), "ours_s": ours, "pyarrow_s": theirs, "note": note.strip("() ")}
    wall = ""
    if walls is not None:
        entry.update(ours_wall_s=walls[0], pyarrow_wall_s=walls[1])
        wall = f"   wall ours {walls[0] * 1e3:7.1f} ms pyarrow {walls[1] * 1e3:7.1f} ms"
    RESULTS["rows"].append(entry)
    print(f"  {name:<44} ours {ours * 1e3:9.1f} ms   pyarrow {theirs * 1e3:9.1f} ms CPU   "
          f"ratio {ours / theirs:6.2f}{wall}  {note}")


def bare_listing(folder: str) -> int:
    """The least a plan that lists the folder does: every folder opened with ``os.scandir``
    and every file stat'ed once (size and time), nothing kept but a count.  Planning with
    an up-to-date ``_metadata`` lists the folder (the listing decides the files), so no
    engine doing that in Python goes below this row; the rest of the plan is above it."""
    count = 0
    stack = [folder]
    while stack:
        with os.scandir(stack.pop()) as it:
            for e in it:
                if e.is_dir():
                    stack.append(e.path)
                else:
                    e.stat()
                    count += 1
    return count


def best_cold(folder: str) -> tuple[float, float]:
    """:func:`best_with_wall` of planning *folder* with the process's cache of decoded
    ``_metadata`` files emptied before each run, outside the timed part
    (``dataset/summary_cache.py``; a tree without it plans the same way every time)."""
    try:
        from parquet_core.dataset.summary_cache import CACHE
    except ImportError:     # a tree from before the cache
        CACHE = None
    times, walls = [], []
    for _ in range(REPEAT):
        if CACHE is not None:
            CACHE.clear()
        t0, w0 = time.process_time(), time.perf_counter()
        assert pc.ParquetDataset(folder).schema.names
        times.append(time.process_time() - t0)
        walls.append(time.perf_counter() - w0)
    return min(times), min(walls)


def local_benchmarks(files: int) -> None:
    tmp = tempfile.mkdtemp(prefix="pqbench-")
    try:
        with_meta = os.path.join(tmp, "with_meta")
        make_dataset(with_meta, files)
        plain = os.path.join(tmp, "plain")
        shutil.copytree(with_meta, plain)
        os.unlink(os.path.join(plain, "_metadata"))
        print(f"Hive dataset: {files} files, {files * 200} rows, partitions p/q "
              f"(CPU time, best of {REPEAT}; both engines single-threaded: use_threads=False; "
              "planning rows also show the best wall-clock time of the same runs, which a "
              "listing on threads may lower and a loaded machine raises)")

        t_ours, w_ours, d = best_with_wall(lambda: pc.ParquetDataset(plain).schema)
        t_pa, w_pa, _ = best_with_wall(lambda: ds.dataset(plain, partitioning="hive").schema)
        row("plan (no _metadata): list + schema", t_ours, t_pa,
            "(ours unifies every file's schema; pyarrow reads the first footer)", (w_ours, w_pa))
        t_ours, w_ours, _ = best_with_wall(lambda: pc.ParquetDataset(plain))
        row("  of which list + partitions (no footer)", t_ours, t_pa, "(pyarrow: the same plan as above)",
            (w_ours, w_pa))
        t_ours, w_ours, _ = best_with_wall(lambda: pc.ParquetDataset(with_meta).schema)
        t_pa, w_pa, _ = best_with_wall(lambda: ds.parquet_dataset(os.path.join(with_meta, "_metadata"),
                                                                  partitioning="hive").schema)
        row("plan with _metadata", t_ours, t_pa, "(pyarrow trusts _metadata and does not list the folder)",
            (w_ours, w_pa))
        t_ours, w_ours = best_cold(with_meta)
        row("  cold (summary cache emptied first)", t_ours, t_pa,
            "(the first plan of this _metadata in a process: its bytes decoded)", (w_ours, w_pa))
        assert pc.ParquetDataset(with_meta).schema.names       # kept (a tree with the cache)
        t_ours, w_ours, _ = best_with_wall(lambda: pc.ParquetDataset(with_meta).schema)
        row("  warm (served from the summary cache)", t_ours, t_pa,
            "(a later plan: the bytes read again and compared; cold = warm before the cache)", (w_ours, w_pa))
        t_bare, w_bare, n_bare = best_with_wall(lambda: bare_listing(with_meta))
        assert n_bare == files + 1, n_bare      # the data files and _metadata
        row("  of which the bare listing (floor)", t_bare, t_pa,
            "(os.scandir of every folder + one stat per file, nothing else; pyarrow: the plan above)",
            (w_bare, w_pa))
        flat = os.path.join(tmp, "flat")
        make_flat_dataset(flat, files)
        t_ours, w_ours, _ = best_with_wall(lambda: pc.ParquetDataset(flat).schema)
        t_pa, w_pa, _ = best_with_wall(lambda: ds.parquet_dataset(os.path.join(flat, "_metadata"),
                                                                  partitioning="hive").schema)
        row("plan with _metadata, flat", t_ours, t_pa,
            f"({files} partition folders at the root, one file each: the shape a listing on threads "
            "would split first)", (w_ours, w_pa))

        t_ours, a = best(lambda: pc.read_table(plain, use_threads=False))
        t_pa, b = best(lambda: ds.dataset(plain, partitioning="hive").to_table(use_threads=False))
        assert a.num_rows == b.num_rows
        row("read everything (no _metadata)", t_ours, t_pa)
        t_ours, a = best(lambda: pc.read_table(with_meta, use_threads=False))
        t_pa, b = best(lambda: ds.parquet_dataset(os.path.join(with_meta, "_metadata"),
                                                  partitioning="hive").to_table(use_threads=False))
        assert a.num_rows == b.num_rows
        row("read everything (with _metadata)", t_ours, t_pa)

        opened: list[str] = []
        real = pc.ParquetDataset.open_fragment

        def spy(self: Any, frag: Any) -> Any:
            opened.append(frag.path)
            return real(self, frag)

        pc.ParquetDataset.open_fragment = spy  # type: ignore[method-assign]
        try:
            filt = [("p", "==", 3), ("q", "<", 5)]
            t_ours, a = best(lambda: pc.read_table(plain, filters=filt, use_threads=False))
            n_opened = len(opened) // REPEAT
        finally:
            pc.ParquetDataset.open_fragment = real  # type: ignore[method-assign]
        t_pa, b = best(lambda: ds.dataset(plain, partitioning="hive").to_table(
            filter=(ds.field("p") == 3) & (ds.field("q") < 5), use_threads=False))
        assert a.num_rows == b.num_rows
        row("partition filter p==3 & q<5", t_ours, t_pa, f"(files opened: {n_opened} of {files})")

        limit = files * 200 // 100
        t_ours, a = best(lambda: pc.read_table(plain, filters=[("n", "<", limit)], use_threads=False))
        t_pa, b = best(lambda: ds.dataset(plain, partitioning="hive").to_table(filter=ds.field("n") < limit,
                                                                               use_threads=False))
        assert a.num_rows == b.num_rows
        rep = pc.ParquetDataset(plain).explain([("n", "<", limit)])
        row(f"statistics filter n < {limit}", t_ours, t_pa,
            f"(row groups kept {rep.row_groups_kept} of {rep.row_groups})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def s3_benchmarks(files: int) -> None:
    try:
        import boto3
        import s3fs
        from moto.server import ThreadedMotoServer
    except ImportError:
        print("S3: skipped (pip install 's3fs' 'moto[server]')")
        return
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        _, port = server.get_host_and_port()
        endpoint = f"http://127.0.0.1:{port}"
        boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket="bench")
        opts = {"key": "testing", "secret": "testing", "client_kwargs": {"endpoint_url": endpoint},
                "use_listings_cache": False}
        fs = s3fs.S3FileSystem(**opts)
        tmp = tempfile.mkdtemp(prefix="pqbench-s3-")
        try:
            n = files * 20_000
            table = pa.table({f"c{i}": np.random.default_rng(i).normal(size=n) for i in range(10)} |
                             {"p": np.arange(n) // 20_000})
            pq.write_to_dataset(table, tmp, partition_cols=["p"], row_group_size=10_000)
            fs.put(tmp + "/", "bench/ds/", recursive=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

        counts = {"requests": 0, "bytes": 0}
        real_call = s3fs.S3FileSystem._call_s3

        async def counting(self: Any, method: str, *args: Any, **kwargs: Any) -> Any:
            out = await real_call(self, method, *args, **kwargs)
            counts["requests"] += 1
            if method == "get_object":
                counts["bytes"] += int(out.get("ContentLength", 0))
            return out

        s3fs.S3FileSystem._call_s3 = counting  # type: ignore[method-assign]
        try:
            def measure(fn: Callable[[], Any]) -> tuple[float, int, int]:
                counts.update(requests=0, bytes=0)
                t0 = time.perf_counter()
                fn()
                return time.perf_counter() - t0, counts["requests"], counts["bytes"]

            ours = measure(lambda: pc.read_table("s3://bench/ds", columns=["c3"],
                                                 storage_options=opts))
            from pyarrow.fs import FSSpecHandler, PyFileSystem

            pafs = PyFileSystem(FSSpecHandler(s3fs.S3FileSystem(**opts, skip_instance_cache=True)))
            theirs = measure(lambda: ds.dataset("bench/ds", filesystem=pafs, partitioning="hive")
                             .to_table(columns=["c3"]))
            plan_ours = measure(lambda: pc.ParquetDataset("s3://bench/ds", storage_options=opts).schema)
            pafs = PyFileSystem(FSSpecHandler(s3fs.S3FileSystem(**opts, skip_instance_cache=True)))
            plan_theirs = measure(lambda: ds.dataset("bench/ds", filesystem=pafs, partitioning="hive").schema)
        finally:
            s3fs.S3FileSystem._call_s3 = real_call  # type: ignore[method-assign]
        col = sum(pq.read_metadata(fs.open(f)).row_group(i).column(3).total_compressed_size
                  for f in fs.find("bench/ds") for i in range(2))
        RESULTS["s3"] = {"files": files, "column_bytes": col, "read": {"ours": list(ours), "pyarrow": list(theirs)},
                         "plan": {"ours": list(plan_ours), "pyarrow": list(plan_theirs)}}
        print(f"S3 (moto, {files} files x 10 float columns, reading one column of {col} compressed bytes):")
        print(f"  ours     {ours[0] * 1e3:8.1f} ms  {ours[1]:5d} requests  {ours[2]:10d} bytes")
        print(f"  pyarrow  {theirs[0] * 1e3:8.1f} ms  {theirs[1]:5d} requests  {theirs[2]:10d} bytes "
              "(through FSSpecHandler: the same s3fs client)")
        print("  planning (list + schema, no _metadata):")
        print(f"  ours     {plan_ours[0] * 1e3:8.1f} ms  {plan_ours[1]:5d} requests  {plan_ours[2]:10d} bytes "
              "(every file's tail, 8 at a time)")
        print(f"  pyarrow  {plan_theirs[0] * 1e3:8.1f} ms  {plan_theirs[1]:5d} requests  {plan_theirs[2]:10d} bytes "
              "(the first file's footer)")
    finally:
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--s3-files", type=int, default=20, help="0: no S3 benchmark")
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs per cell")
    ap.add_argument("--json", default=None, help="also write the figures here (benchmarks/report.py)")
    args = ap.parse_args()
    global REPEAT
    REPEAT = args.repeat
    from benchmarks._harness import environment

    env = environment(None)
    env.update(loadavg_start=list(os.getloadavg()), time=time.strftime("%Y-%m-%dT%H:%M:%S"))
    RESULTS.update(files=args.files, repeat=args.repeat, env=env)
    if args.files > 0:
        local_benchmarks(args.files)
    if args.s3_files > 0:
        s3_benchmarks(args.s3_files)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(RESULTS, f, indent=1)


if __name__ == "__main__":
    main()
