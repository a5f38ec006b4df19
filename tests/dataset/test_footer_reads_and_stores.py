"""Opening a file reads its tail once; folders given to ParquetFile; gs:// and abfs:// URLs;
``progress=True`` with tqdm.

Expected values come from pyarrow (metadata, tables) or from the file layout itself
(the offsets of the tail and of the footer), never from our own output.
"""

from __future__ import annotations

import importlib.util
import io
import os
import struct
import sys
import types
import uuid
from unittest import mock

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.errors import ParquetError, ParquetFormatError
from parquet_core.file import footer as footer_mod
from parquet_core.file.filesystem import FilesystemUnavailableError
from parquet_core.file.source import BufferSource

from ._helpers import assert_same, oracle


class CountingSource:
    """A bytes source recording every read (``remote`` as an object-store source says)."""

    def __init__(self, data: bytes, remote: bool = False) -> None:
        self._inner = BufferSource(data)
        self.size = self._inner.size
        self.remote = remote
        self.reads: list[tuple[int, int]] = []

    def read_at(self, offset: int, size: int) -> memoryview:
        self.reads.append((offset, size))
        return self._inner.read_at(offset, size)

    def close(self) -> None:
        pass


def _parquet_bytes(columns: int, rows: int = 5, **kw) -> bytes:
    table = pa.table({f"c{i}": np.arange(rows, dtype=np.int64) + i for i in range(columns)})
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return buf.getvalue()


def _footer_span(data: bytes) -> tuple[int, int]:
    (n,) = struct.unpack("<I", data[-8:-4])
    return len(data) - 8 - n, n


@pytest.mark.parametrize("remote", [False, True])
def test_small_file_footer_is_one_read(remote):
    data = _parquet_bytes(3)
    assert len(data) < footer_mod.FOOTER_READ_SIZE
    src = CountingSource(data, remote)
    pf = pc.ParquetFile(src)
    assert src.reads == [(0, len(data))]        # the whole file is the tail: magic at both ends in it
    assert pf.metadata.num_rows == pq.ParquetFile(io.BytesIO(data)).metadata.num_rows
    assert_same(pf.read(), pq.read_table(io.BytesIO(data)), sort_by=None)


@pytest.mark.parametrize("remote", [False, True])
def test_large_file_small_footer(remote):
    data = _parquet_bytes(2, rows=20_000, compression="none")
    size = len(data)
    tail = footer_mod.FOOTER_READ_SIZE
    assert size > tail and _footer_span(data)[1] < tail
    src = CountingSource(data, remote)
    pc.ParquetFile(src)
    # one tail read; a local source also checks the leading magic, an object store does not
    assert src.reads == [(size - tail, tail)] + ([] if remote else [(0, 4)])


@pytest.mark.parametrize("remote", [False, True])
def test_footer_longer_than_the_tail_costs_one_more_read(remote):
    data = _parquet_bytes(1200)
    start, n = _footer_span(data)
    tail = footer_mod.FOOTER_READ_SIZE
    assert n + 8 > tail, "the footer must not fit in the tail read"
    src = CountingSource(data, remote)
    pf = pc.ParquetFile(src)
    size = len(data)
    expected = [(size - tail, tail)] + ([] if remote else [(0, 4)]) + [(start, size - tail - start)]
    assert src.reads == expected
    theirs = pq.ParquetFile(io.BytesIO(data)).metadata
    assert (pf.metadata.num_columns, pf.metadata.num_rows) == (theirs.num_columns, theirs.num_rows)
    assert_same(pf.read(["c0", "c1199"]), pq.read_table(io.BytesIO(data), columns=["c0", "c1199"]),
                sort_by=None)


@settings(max_examples=40, deadline=None)
@given(columns=st.integers(1, 40), rows=st.integers(0, 50), tail=st.integers(8, 3000),
       remote=st.booleans())
def test_any_tail_size_reads_the_same_footer(columns, rows, tail, remote):
    """The tail read's size moved across the footer's and the file's sizes: same data as pyarrow,
    at most two reads for the footer (plus the leading magic for a local source)."""
    data = _parquet_bytes(columns, rows)
    with mock.patch.object(footer_mod, "FOOTER_READ_SIZE", tail):
        src = CountingSource(data, remote)
        pf = pc.ParquetFile(src)
        reads = list(src.reads)
    start, n = _footer_span(data)
    size = len(data)
    t = min(tail, size)
    assert reads[0] == (size - t, t)
    fits = n + 8 <= t
    head = 0 if (remote or t == size) else 1
    assert len(reads) == 1 + head + (0 if fits else 1)
    assert_same(pf.read(), pq.read_table(io.BytesIO(data)), sort_by=None)


@pytest.mark.parametrize("tail", [16, 64 * 1024])
def test_bad_tails_raise_format_errors(tail):
    good = _parquet_bytes(3)
    bad_len = good[:-8] + struct.pack("<I", len(good)) + b"PAR1"
    no_magic = good[:-4] + b"XXXX"
    bad_head = b"XXXX" + good[4:]
    with mock.patch.object(footer_mod, "FOOTER_READ_SIZE", tail):
        for data, match in ((bad_len, "footer length"), (no_magic, "end with"),
                            (bad_head, "start with"), (b"PAR1PAR1", "too small")):
            with pytest.raises(ParquetFormatError, match=match):
                pc.ParquetFile(CountingSource(data))


def test_s3_open_is_one_get(s3_server, tmp_path):
    s3fs = pytest.importorskip("s3fs")
    from tests._support.s3 import s3_options

    opts = s3_options(s3_server)
    fs = s3fs.S3FileSystem(**opts)
    name = uuid.uuid4().hex
    small, big = _parquet_bytes(3), _parquet_bytes(1200)
    fs.pipe_file(f"test-bucket/{name}/small.parquet", small)
    fs.pipe_file(f"test-bucket/{name}/big.parquet", big)
    gets: list[tuple[str, str]] = []
    real = s3fs.S3FileSystem._call_s3

    async def counting(self, method, *args, **kwargs):
        if method == "get_object":
            gets.append((kwargs.get("Key"), kwargs.get("Range")))
        return await real(self, method, *args, **kwargs)

    with mock.patch.object(s3fs.S3FileSystem, "_call_s3", counting):
        md = pc.read_metadata(f"s3://test-bucket/{name}/small.parquet", storage_options=opts)
        assert len(gets) == 1, gets
        assert md.num_rows == pq.read_metadata(io.BytesIO(small)).num_rows
        gets.clear()
        md = pc.read_metadata(f"s3://test-bucket/{name}/big.parquet", storage_options=opts)
        assert len(gets) == 2, gets          # the tail, then the rest of the long footer
        assert md.num_columns == 1200


# -- ParquetFile given a folder -------------------------------------------------------------------

def _hive(root: str, with_metadata: bool) -> pa.Table:
    n = 60
    table = pa.table({"n": np.arange(n), "x": np.arange(n) * 0.5, "k": np.arange(n) % 3})
    collector: list = []
    pq.write_to_dataset(table, root, partition_cols=["k"], metadata_collector=collector)
    if with_metadata:
        pq.write_metadata(table.schema.remove(2), os.path.join(root, "_metadata"), metadata_collector=collector)
    return table


@pytest.mark.parametrize("with_metadata", [False, True])
def test_parquet_file_of_a_folder_names_the_dataset_readers(tmp_path, with_metadata):
    root = str(tmp_path / "ds")
    _hive(root, with_metadata)
    with pytest.raises(IsADirectoryError) as info:
        pc.ParquetFile(root)
    assert isinstance(info.value, ParquetError)
    msg = str(info.value)
    assert "pc.read_table" in msg and "pc.ParquetDataset" in msg
    assert ("_metadata" in msg) == with_metadata
    # what the message suggests works: the dataset as pyarrow reads it, and (with a summary)
    # the summary opened as a file gives the data columns of every file
    assert_same(pc.read_table(root), oracle(root))
    if with_metadata:
        pf = pc.ParquetFile(os.path.join(root, "_metadata"))
        assert_same(pf.read(), oracle(root, columns=["n", "x"]))


def test_parquet_file_of_a_store_folder(store, tmp_path):
    local = str(tmp_path / "src")
    _hive(local, True)
    root = store.upload(local)
    with pytest.raises(IsADirectoryError, match="_metadata"):
        pc.ParquetFile(root, **store.kwargs)
    assert_same(pc.read_table(root, **store.kwargs), oracle(local))


# -- gs:// and abfs:// ----------------------------------------------------------------------------

@pytest.mark.parametrize("scheme, package", [("gs", "gcsfs"), ("abfs", "adlfs"), ("az", "adlfs")])
def test_cloud_urls_without_their_package_name_it(scheme, package):
    pytest.importorskip("fsspec")
    if importlib.util.find_spec(package) is not None:
        pytest.skip(f"{package} is installed")
    for call in (lambda u: pc.read_table(u), lambda u: pc.ParquetFile(u),
                 lambda u: pc.write_to_dataset({"a": [1]}, u)):
        with pytest.raises(FilesystemUnavailableError, match=package) as info:
            call(f"{scheme}://bucket/ds")
        assert "parquet-core[fsspec]" in str(info.value)
        assert isinstance(info.value, ImportError) and isinstance(info.value, ParquetError)


@pytest.fixture(params=["gs", "abfs"])
def fake_cloud(request, monkeypatch):
    """An in-process fsspec file system answering gs:// (or abfs://) URLs: fsspec's memory
    file system under that protocol, with a store of its own; no network."""
    fsspec = pytest.importorskip("fsspec")
    from fsspec.implementations.memory import MemoryFileSystem

    scheme = request.param

    class FakeCloud(MemoryFileSystem):
        protocol = (scheme,)
        store: dict = {}
        pseudo_dirs = [""]

        @classmethod
        def _strip_protocol(cls, path):
            if path.startswith(scheme + "://"):
                path = path[len(scheme) + 3:]
            return MemoryFileSystem._strip_protocol(path)

    monkeypatch.setitem(sys.modules["fsspec.registry"]._registry, scheme, FakeCloud)
    yield scheme, FakeCloud
    FakeCloud.store.clear()


def test_cloud_urls_through_fsspec(fake_cloud, tmp_path):
    scheme, cls = fake_cloud
    local = str(tmp_path / "src")
    table = _hive(local, False)
    url = f"{scheme}://container/{uuid.uuid4().hex}/ds"
    pc.write_to_dataset(table, url, partition_cols=["k"])     # a pyarrow table is taken as is
    ds = pc.ParquetDataset(url)
    assert ds.files and all(f.startswith(f"{scheme}://") for f in ds.files)
    assert_same(pc.read_table(url), oracle(local))
    assert_same(pc.read_table(url, filters=[("k", "==", 1)]), oracle(local, filter=pa.compute.field("k") == 1))
    one = ds.files[0]
    with pc.ParquetFile(one) as pf:
        assert pf.metadata.num_rows == 20
    # and through filesystem= with an instance
    fs = cls(skip_instance_cache=True)
    assert_same(pc.read_table(url.split("://", 1)[1], filesystem=fs), oracle(local))


# -- progress=True ----------------------------------------------------------------------------------

class _FakeBar:
    made: list[_FakeBar] = []

    def __init__(self, total=None, desc=None, unit=None):
        self.total, self.desc, self.unit = total, desc, unit
        self.n = 0
        self.closed = False
        _FakeBar.made.append(self)

    def update(self, n=1):
        self.n += n

    def close(self):
        self.closed = True


def test_progress_true_draws_a_tqdm_bar(tmp_path, monkeypatch):
    fake = types.ModuleType("tqdm")
    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = _FakeBar
    fake.auto = auto
    monkeypatch.setitem(sys.modules, "tqdm", fake)
    monkeypatch.setitem(sys.modules, "tqdm.auto", auto)
    _FakeBar.made.clear()
    root = str(tmp_path / "ds")
    pc.write_to_dataset({"n": list(range(12)), "k": [i % 4 for i in range(12)]}, root, partition_cols=["k"],
                        progress=True)
    pc.read_table(root, progress=True)
    batches = list(pc.ParquetDataset(root).iter_batches(progress=True))
    assert sum(b.num_rows for b in batches) == 12
    assert len(_FakeBar.made) == 3
    for bar in _FakeBar.made:
        assert bar.closed and bar.n == bar.total == 4, vars(bar)


def test_progress_true_without_tqdm_draws_a_plain_line(tmp_path, monkeypatch, capsys):
    """It drew nothing and said nothing (issue 30): a plain line on stderr, nothing on stdout."""
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    root = str(tmp_path / "ds")
    pc.write_to_dataset({"n": [1, 2, 3], "k": [1, 2, 3]}, root, partition_cols=["k"])
    assert pc.read_table(root, progress=True).num_rows == 3
    out = capsys.readouterr()
    assert out.out == "" and out.err.endswith("\rreading: 3/3 files\n")


# -- index and Bloom filter prefetch on object stores -----------------------------------------------

@pytest.mark.parametrize("dictionary", [False, True])
def test_filtered_read_prefetches_indexes_and_blooms(s3_server, tmp_path, monkeypatch, dictionary):
    """Bloom filters beyond the tail read: fetched before pruning, coalesced (one request for
    the adjacent filters rather than one per chunk); not fetched for dictionary-encoded
    chunks, which pruning decides by their dictionaries (no extra request); rows as pyarrow's."""
    s3fs = pytest.importorskip("s3fs")
    from parquet_core.dataset import dataset as dataset_mod
    from tests._support.s3 import s3_options

    n = 120_000
    rng = np.random.default_rng(3)
    table = pa.table({"a": np.arange(n), "s": [f"v{i}" for i in rng.integers(0, 10**9, n)]})
    local = tmp_path / "src" / "k=1"
    local.mkdir(parents=True)
    pq.write_table(table, str(local / "f.parquet"), row_group_size=20_000, write_page_index=True,
                   bloom_filter_options={"s": {"ndv": 200_000}}, use_dictionary=dictionary)
    md = pq.read_metadata(str(local / "f.parquet"))
    blooms = sum(md.row_group(i).column(1).to_dict().get("bloom_filter_length") or 0
                 for i in range(md.num_row_groups))
    assert blooms > footer_mod.FOOTER_READ_SIZE, "the Bloom filters must not fit in the tail read"
    opts = s3_options(s3_server)
    fs = s3fs.S3FileSystem(**opts)
    name = uuid.uuid4().hex
    fs.put(str(tmp_path / "src") + "/", f"test-bucket/{name}/", recursive=True)
    url = f"s3://test-bucket/{name}"
    filters = [("s", "==", "v5"), ("a", ">=", 0)]   # inside every row group's min..max: only Bloom filters prune
    gets: list = []
    real = s3fs.S3FileSystem._call_s3

    async def counting(self, method, *args, **kwargs):
        # the file reads (not the root's generation object, read around each listing)
        if method == "get_object" and not kwargs.get("Key", "").endswith("/_pqcore-generation"):
            gets.append(kwargs.get("Range"))
        return await real(self, method, *args, **kwargs)

    monkeypatch.setattr(s3fs.S3FileSystem, "_call_s3", counting)
    expected = oracle(str(tmp_path / "src"), pa.compute.field("s") == "v5")
    assert_same(pc.read_table(url, filters=filters, storage_options=opts), expected, sort_by="a")
    with_prefetch = len(gets)
    first = list(gets)
    gets.clear()
    monkeypatch.setattr(dataset_mod, "prefetch_indexes", lambda pf, expr: 0)
    assert_same(pc.read_table(url, filters=filters, storage_options=opts), expected, sort_by="a")
    without = len(gets)
    if dictionary:
        assert with_prefetch == without, (with_prefetch, without, first, gets)
    else:             # the Bloom filters lie together: one request
        assert with_prefetch < without, (with_prefetch, without, first, gets)
    # a hit reads the row group it is in, the same as pyarrow
    hit = table.column("s")[12345].as_py()
    monkeypatch.undo()
    assert_same(pc.read_table(url, filters=[("s", "==", hit)], storage_options=opts),
                oracle(str(tmp_path / "src"), pa.compute.field("s") == hit), sort_by="a")


# -- planning remembers schemas by their footer elements ------------------------------------------

def test_planning_schema_memo_tells_close_schemas_apart(tmp_path):
    """Files whose schemas differ only in a logical type or in nullability are not taken
    for one another by the per-dataset schema memo."""
    root = tmp_path / "ds"
    root.mkdir()
    ts = np.array([1, 2], dtype="datetime64[ms]")
    pq.write_table(pa.table({"t": pa.array(ts, pa.timestamp("ms"))}), str(root / "a.parquet"))
    pq.write_table(pa.table({"t": pa.array(ts, pa.timestamp("ms"))}), str(root / "b.parquet"))
    pq.write_table(pa.table({"t": pa.array(ts, pa.timestamp("us"))}), str(root / "c.parquet"))
    with pytest.raises(pc.ParquetSchemaError, match="c.parquet"):
        pc.ParquetDataset(str(root)).schema
    os.unlink(root / "c.parquet")
    strict = pa.schema([pa.field("t", pa.timestamp("ms"), nullable=False)])
    pq.write_table(pa.table({"t": pa.array(ts, pa.timestamp("ms"))}, schema=strict), str(root / "c.parquet"))
    d = pc.ParquetDataset(str(root))
    assert [f.nullable for f in d.schema] == [True]
    assert d._footer_schemas.prefix_decodes == 2     # two distinct schemas among three files
    assert d._footer_schemas.prefix_hits == 1
    assert_same(d.read(), oracle(str(root)), sort_by=None)


def test_one_column_of_ten_fetches_the_column_and_the_tail():
    """Reading one column from a store fetches that column's chunks and the 64 KiB tail
    (holding the footer), nothing else: under 1.3x the column plus the footer."""
    fsspec = pytest.importorskip("fsspec")
    n = 100_000
    table = pa.table({f"c{i}": np.random.default_rng(i).normal(size=n) for i in range(10)})
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=25_000)
    data = buf.getvalue()
    fs = fsspec.filesystem("memory")
    path = f"/{uuid.uuid4().hex}/t/f.parquet"
    fs.pipe_file(path, data)
    try:
        d = pc.ParquetDataset(f"memory:/{path.rsplit('/', 1)[0]}")
        got = d.read(["c3"])
        assert_same(got, pq.read_table(io.BytesIO(data), columns=["c3"]), sort_by=None)
        md = pq.read_metadata(io.BytesIO(data))
        column = sum(md.row_group(i).column(3).total_compressed_size for i in range(md.num_row_groups))
        tail = min(len(data), footer_mod.FOOTER_READ_SIZE)
        assert d.io_stats.bytes == column + tail
        assert d.io_stats.requests == 1 + md.num_row_groups
        assert d.io_stats.bytes < 1.3 * (column + md.serialized_size)
    finally:
        fs.rm(path.rsplit("/", 2)[0], recursive=True)
