"""A store listing that a ``write_to_dataset`` commits into while it runs (``test_listing_races.py``
does this on the local disk, from inside ``os.scandir``).

A store has no folder times to compare, so a ``delete_matching`` write that started and
finished between two folders of one listing used to go unseen: the folder listed before it
read in the old version, the folders after it in the new one (rows of two versions). Every
commit on a store now rewrites the root's ``_pqcore-generation``, which the listing reads
before and after itself. Here the write is made to happen inside the listing:

* memory:// through a file system whose ``find`` walks folder by folder (fsspec's generic
  ``find``: one ``ls`` per folder, as sftp, ftp, webdav... list), the write run from the
  ``ls`` of ``k=1``;
* S3 (moto on 127.0.0.1), whose listing of the dataset is one ``ListObjectsV2`` paged: the
  first page made to end with ``k=0``'s last key, and the write run before the next page.

The versions are built by pyarrow; the expected rows are those tables' rows, and the rows
read are compared with pyarrow's read of the files the write left.
"""

from __future__ import annotations

import asyncio
import os
import uuid

import fsspec
import pyarrow.parquet as pq
import pytest
import s3fs
from fsspec.implementations.memory import MemoryFileSystem

import parquet_core as pc
from parquet_core.errors import ParquetError
from parquet_core.file.filesystem import FsspecFileSystem
from tests._support.s3 import s3_options

from ._helpers import RaceWrites, pyarrow_store_rows, race_rows, race_version, walking_memory

# names after "_" in key order (a uuid's hex may start with a digit, before it): on S3 a
# write's marker in k=0 then sorts before the first page's last key, and the listing misses it
WRITE = dict(partition_cols=["k"], max_rows_per_file=60, existing_data_behavior="delete_matching",
             basename_template="part-{i}.parquet")


version, rows = race_version, race_rows


class Writes(RaceWrites):
    """The next versions' writes (B, A, B...), each a whole ``write_to_dataset`` through
    *fs* (another instance than the reader's); with *paused*, every write stops right after
    its commit (markers, record and generation made, nothing renamed or deleted), as a writer
    descheduled there does, and :meth:`finish` rolls them forward afterwards."""

    version = staticmethod(version)
    options = WRITE


def paged_s3(endpoint: str, root: str, write: Writes):
    """An s3fs instance whose listings of *root* are paged so that the first page ends with
    ``k=0``'s last key, and that runs *write* (off the event loop, which serves the writer's
    requests meanwhile) before asking for the next page."""
    fs = s3fs.S3FileSystem(**s3_options(endpoint))
    real = fs._list_pages
    pages: list[int] = []

    async def list_pages(method, **kwargs):
        bucket_prefix = root.split("/", 1)[1] + "/"
        whole = kwargs.get("Prefix") == bucket_prefix and not kwargs.get("Delimiter")
        if whole:
            keys = sorted(await asyncio.to_thread(_keys, endpoint, root))
            kwargs["MaxKeys"] = max(i for i, k in enumerate(keys) if k.startswith(bucket_prefix + "k=0/")) + 1
        first = True
        async for page in real(method, **kwargs):
            yield page
            if whole:
                pages.append(len(page.get("Contents", [])))
                if first:
                    first = False
                    await asyncio.to_thread(write)

    fs._list_pages = list_pages
    fs.pages = pages
    return fs


def _keys(endpoint: str, root: str) -> list[str]:
    import boto3

    bucket, prefix = root.split("/", 1)
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    out = client.list_objects_v2(Bucket=bucket, Prefix=prefix + "/")
    return [c["Key"] for c in out.get("Contents", [])]


def _read_rows(how: str, root: str, fs) -> list[int]:
    if how == "read_table":
        return sorted(pc.read_table(root, filesystem=fs, columns=["n"]).column("n").to_pylist())
    if how == "dataset":
        return sorted(pc.ParquetDataset(root, filesystem=fs).read(columns=["n"]).column("n").to_pylist())
    assert how == "list_data_files"
    out: list[int] = []
    for path, _ in pc.list_data_files(root, FsspecFileSystem(fs)):
        with fs.open(path, "rb") as f:
            out.extend(pq.read_table(f, columns=["n"]).column("n").to_pylist())
    return sorted(out)


def _writer_fs(kind: str, endpoint: str | None):
    if kind == "memory":
        return fsspec.filesystem("memory")
    return s3fs.S3FileSystem(**s3_options(endpoint))


@pytest.fixture(params=["memory", "s3"])
def where(request):
    """(kind, root, endpoint): a fresh dataset root on memory:// or on the moto server."""
    if request.param == "memory":
        return "memory", f"/{uuid.uuid4().hex}/ds", None
    endpoint = request.getfixturevalue("s3_server")
    return "s3", f"test-bucket/{uuid.uuid4().hex}/ds", endpoint


def _reader(kind: str, root: str, endpoint: str | None, write: Writes):
    return walking_memory("k=1", write) if kind == "memory" else paged_s3(endpoint, root, write)


@pytest.mark.parametrize("paused", [True, False], ids=["paused after its commit", "finished"])
@pytest.mark.parametrize("how", ["read_table", "dataset", "list_data_files"])
def test_a_write_committed_inside_a_store_listing_is_not_read_half(where, tmp_path, monkeypatch, how, paused):
    """Before: 100 rows of A (k=0, listed first) with 333 of B (k=1, k=2)."""
    kind, root, endpoint = where
    writer = _writer_fs(kind, endpoint)
    pc.write_to_dataset(version("A"), root, filesystem=writer, **WRITE)
    write = Writes(monkeypatch, root, writer, paused=paused)
    reader = _reader(kind, root, endpoint, write)
    got = _read_rows(how, root, reader)
    assert write.written == ["B"]           # the write ran in the middle of the listing
    assert len(write.paused) == int(paused)
    assert got == rows("B")                 # listed again after it: the new version whole
    if kind == "memory":
        assert reader.listed.count("k=0") == 2          # listed again after it
    else:
        assert len(reader.pages) >= 3 and reader.pages[0] < sum(reader.pages[1:])
    write.finish()
    assert got == pyarrow_store_rows(writer, root, str(tmp_path / "final"))


def test_a_store_listing_that_writes_keep_changing_is_refused(where, monkeypatch):
    kind, root, endpoint = where
    writer = _writer_fs(kind, endpoint)
    pc.write_to_dataset(version("A"), root, filesystem=writer, **WRITE)
    write = Writes(monkeypatch, root, writer, times=100)
    reader = _reader(kind, root, endpoint, write)
    with pytest.raises(ParquetError, match="changed while it was listed, 6 times in a row"):
        pc.read_table(root, filesystem=reader)
    assert len(write.written) == 6


def test_a_dataset_pyarrow_wrote_reads_as_before(where, tmp_path, monkeypatch):
    """No generation object (no transactional write ever committed): read through one
    listing, the same rows as pyarrow's; the generation is asked for (and absent) before
    and after the first listing, after it only from then on.  The first commit into such a
    dataset, made inside a listing not preceded by a read, is still seen."""
    kind, root, endpoint = where
    local = tmp_path / "pa"
    pq.write_to_dataset(version("A"), str(local), partition_cols=["k"])
    fs = _writer_fs(kind, endpoint)
    for d, _, files in os.walk(local):
        for name in files:
            rel = os.path.relpath(os.path.join(d, name), local).replace(os.sep, "/")
            fs.pipe_file(f"{root}/{rel}", (local / rel).read_bytes())
    assert not [p for p in fs.find(root) if "_pqcore" in p]
    write = Writes(monkeypatch, root, fs, times=0)
    reader = _reader(kind, root, endpoint, write)
    asked: list[str] = []
    real_cat = reader.cat_file

    def cat_file(path, *args, **kwargs):
        asked.append(path.rsplit("/", 1)[-1])
        return real_cat(path, *args, **kwargs)

    monkeypatch.setattr(reader, "cat_file", cat_file)

    def read() -> list[int]:
        asked.clear()
        return sorted(pc.read_table(root, filesystem=reader, columns=["n"]).column("n").to_pylist())

    assert read() == sorted(pq.read_table(str(local), columns=["n"]).column("n").to_pylist()) == rows("A")
    assert asked.count("_pqcore-generation") == 2
    if kind == "memory":
        assert reader.listed.count("k=0") == 1
    else:
        assert reader.pages == [1, 1, 1]        # one listing of its 3 keys, paged
    assert read() == rows("A")
    assert asked.count("_pqcore-generation") == 1
    write.left = 1
    assert read() == rows("B")
    assert write.written == ["B"]
    assert asked.count("_pqcore-generation") == 3      # after; before and after the second listing
    assert read() == rows("B") and asked.count("_pqcore-generation") == 2


def test_the_markers_of_one_write_get_one_answer_about_its_commit(monkeypatch):
    """A write that commits (its record made) between the reader's questions about two of its
    markers: asked per marker, k=0 read old and k=1, k=2 new. One answer per write: all old
    (the write's record came after the listing; its files moved later)."""
    root = f"/{uuid.uuid4().hex}/ds"
    writer = fsspec.filesystem("memory")
    pc.write_to_dataset(version("A"), root, filesystem=writer, **WRITE)
    write = Writes(monkeypatch, root, writer, paused=True)
    write()                                  # B: markers, staged files, record; nothing moved
    (txn,) = write.paused
    record = f"{root}/_pqcore-commit.{txn.txn}.json"
    body = writer.cat_file(record)
    writer.rm_file(record)                   # back to "marked, not yet committed"
    reader = MemoryFileSystem(skip_instance_cache=True)
    real_info = reader.info
    asked: list[str] = []

    def info(path, **kwargs):
        if path == record:
            asked.append(path)
            try:
                return real_info(path, **kwargs)
            finally:
                if not writer.exists(record):
                    writer.pipe_file(record, body)     # the commit, right after the question
        return real_info(path, **kwargs)

    monkeypatch.setattr(reader, "info", info)
    got = sorted(pc.read_table(root, filesystem=reader, columns=["n"]).column("n").to_pylist())
    assert got == rows("A") and len(asked) == 1
    write.finish()
    assert sorted(pc.read_table(root, filesystem=reader, columns=["n"]).column("n").to_pylist()) == rows("B")
