"""A file replaced in an object store under its own name, larger than before, after
``_metadata`` was written (issue 30): the store's listing gives modification times, and a
file modified after ``_metadata`` is read from its own footer, as on the local disk.

Expected rows: pyarrow reads the files on the store's disk (the data files, not _metadata)."""

from __future__ import annotations

import io
import time
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.file.filesystem import FsspecFileSystem, listed_time

fsspec = pytest.importorskip("fsspec")
from fsspec.implementations.memory import MemoryFileSystem  # noqa: E402


def test_larger_same_name_replacement_in_a_store_is_not_read_through_metadata():
    mem = MemoryFileSystem()
    root = f"memory://replaced-{uuid.uuid4().hex}/ds"
    collector: list = []
    pc.write_to_dataset({"p": [1, 2], "x": [10, 20]}, root, partition_cols=["p"], metadata_collector=collector)
    files = [p for p, _ in pc.list_data_files(mem._strip_protocol(root), fs=FsspecFileSystem(mem))]
    pc.write_metadata(pc.read_schema("memory://" + files[0]), root + "/_metadata", metadata_collector=collector)
    time.sleep(0.01)
    # another writer replaces p=1's file with more (and other) rows, under the same name
    buf = io.BytesIO()
    pq.write_table(pa.table({"x": list(range(100, 400))}), buf)
    assert len(buf.getvalue()) > mem.info(files[0])["size"]      # the size check cannot see it
    mem.pipe_file(files[0], buf.getvalue())

    expected = sorted(x for f in files for x in pq.read_table(mem.open(f)).column("x").to_pylist())
    ds = pc.ParquetDataset(root)
    assert len(ds.stale_metadata) == 1 and "modified after _metadata" in next(iter(ds.stale_metadata.values()))
    assert sorted(pc.read_table(root).column("x").to_pylist()) == expected
    assert pc.ParquetDataset(root).explain().footers_from_metadata == 1


def test_listed_times_of_the_stores():
    import datetime as dt

    t = dt.datetime(2026, 1, 2, 3, 4, 5, 600_000, tzinfo=dt.timezone.utc)
    ns = int(t.timestamp()) * 10**9 + 600_000_000
    assert listed_time({"LastModified": t}) == ns                      # s3fs
    assert listed_time({"updated": "2026-01-02T03:04:05.600Z"}) == ns  # gcsfs
    assert listed_time({"last_modified": t}) == ns                     # adlfs
    assert listed_time({"mtime": t.timestamp()}) == pytest.approx(ns, abs=1000)
    assert listed_time({"size": 3}) is None and listed_time({"updated": "yesterday"}) is None
