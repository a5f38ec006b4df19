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


def test_a_replacement_in_the_same_second_as_metadata_on_s3_is_not_read_through_it(s3_server):
    """S3 listings give whole seconds: a file replaced in the second ``_metadata`` was written
    in carries the same time, and cannot be ordered against it, so its own footer is read."""
    import s3fs

    from tests._support.s3 import s3_options

    fs = s3fs.S3FileSystem(**s3_options(s3_server))
    root = f"s3://test-bucket/same-second-{uuid.uuid4().hex}/ds"
    opts = {"storage_options": s3_options(s3_server)}
    stripped = fs._strip_protocol(root)
    for _ in range(8):   # the summary and the replacement inside one second of the store's clock
        collector: list = []
        pc.write_to_dataset({"p": [1, 2], "x": [10, 20]}, root, partition_cols=["p"], metadata_collector=collector,
                            existing_data_behavior="delete_matching", **opts)
        files = sorted(fs.find(stripped + "/p=1"))
        time.sleep(1.02 - time.time() % 1)
        pc.write_metadata(pc.read_schema("s3://" + files[0], **opts), root + "/_metadata",
                          metadata_collector=collector, **opts)
        buf = io.BytesIO()
        pq.write_table(pa.table({"x": list(range(100, 400))}), buf)
        assert len(buf.getvalue()) > fs.info(files[0])["size"]      # the size check cannot see it
        fs.pipe_file(files[0], buf.getvalue())
        fs.invalidate_cache()
        if listed_time(fs.info(files[0])) == listed_time(fs.info(stripped + "/_metadata")):
            break
    else:
        pytest.skip("could not write the summary and the replacement within one second")
    expected = sorted(x for f in fs.find(stripped) if not f.rsplit("/", 1)[1].startswith("_")
                      for x in pq.read_table(fs.open(f)).column("x").to_pylist())
    ds = pc.ParquetDataset(root, **opts)
    assert list(ds.stale_metadata.values()) == [
        "the file's modification time equals _metadata's (the clock cannot tell which was written last)"]
    assert sorted(pc.read_table(root, **opts).column("x").to_pylist()) == expected
