"""``write_to_dataset`` commits whole or leaves nothing (issue 29, item 2).

Two versions of one dataset (different row counts and values) are written over
each other with ``existing_data_behavior="delete_matching"``; whatever happens
to the writers (killed at any point, racing each other), every read sees one
complete version:

* local disk: writer processes SIGKILLed at random moments; two writer
  processes racing; ``"error"`` writers racing into an empty folder;
* fsspec ``memory://``: the "kill" is a file system that fails for good after
  its n-th change, for every n a whole write makes; races are threads.

The expected rows come from the tables written (pyarrow builds them), and the
final state is also read by pyarrow.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import DatasetWriteConflictError, ParquetError
from parquet_core.file.filesystem import LocalFileSystem

try:
    from fsspec.implementations.memory import MemoryFileSystem
except ImportError:                        # the memory:// tests are skipped
    MemoryFileSystem = object
needs_fsspec = pytest.mark.skipif(MemoryFileSystem is object, reason="fsspec is not installed")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def version(which: str) -> pa.Table:
    """Version A: 300 rows, n = 0..299; version B: 500 rows, n = 1000..1499; partitions k = 0, 1, 2."""
    start, count = (0, 300) if which == "A" else (1000, 500)
    n = list(range(start, start + count))
    return pa.table({"n": n, "k": [i % 3 for i in n], "v": [float(i) * 0.5 for i in n]})


VERSIONS = {tuple(sorted(version(w).column("n").to_pylist())): w for w in "AB"}
WRITE = dict(partition_cols=["k"], max_rows_per_file=60, existing_data_behavior="delete_matching")


def which_version(ns: list[int]) -> str:
    """The version whose rows were read; fails on anything else (a mix, a partial write)."""
    got = VERSIONS.get(tuple(sorted(ns)))
    assert got is not None, f"{len(ns)} rows read: not one complete version"
    return got


def read_version(root: str, listed: bool = False) -> str:
    """The version a read of *root* sees (planned from ``_metadata`` if any, unless *listed*)."""
    if listed:
        t = pc.ParquetDataset(root, use_metadata_file=False).read(columns=["n"])
    else:
        t = pc.read_table(root, columns=["n"])
    return which_version(t.column("n").to_pylist())


def read_or_error(root: str) -> str:
    """For readers racing writers: the version, "error" when a file listed was replaced before
    it was opened (an error, never wrong rows), "mix" for anything else."""
    try:
        t = pc.read_table(root, columns=["n"])
    except (FileNotFoundError, ParquetError):
        return "error"
    return VERSIONS.get(tuple(sorted(t.column("n").to_pylist())), "mix")


def internal_files(root: str) -> list[str]:
    return [os.path.join(d, f) for d, _, files in os.walk(root) for f in files
            if f.startswith(("_pqcore", ".pqcore")) or f.endswith(".pqcore-tmp")]


# -- local disk: writer processes ----------------------------------------------------------------
# (tests/dataset/atomic_writer.py: forked from a fork server that loaded parquet-core once)

def start_writer(root: str, versions: str, go: str = "-", behavior: str = "delete_matching"):
    from tests.dataset import atomic_writer

    return atomic_writer.start(root, versions, go, behavior)


def kill_writers(tmp_path, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    root = str(tmp_path / "ds")
    pc.write_to_dataset(version("A"), root, **WRITE)
    seen = set()
    for _ in range(rounds):
        proc = start_writer(root, "BA" * 20)
        proc.ready()
        time.sleep(rng.uniform(0.0, 0.5))
        proc.kill()                                # SIGKILL
        seen.add(read_version(root))               # committed or not: one version
    # the next write finishes or removes what the killed ones left
    pc.write_to_dataset(version("B"), root, **WRITE)
    assert internal_files(root) == []
    assert read_version(root) == "B"
    assert which_version(pq.read_table(root).column("n").to_pylist()) == "B"


def test_killed_local_writers_leave_one_version(tmp_path):
    kill_writers(tmp_path, rounds=3, seed=1)


@pytest.mark.slow
def test_killed_local_writers_leave_one_version_many(tmp_path):
    kill_writers(tmp_path, rounds=40, seed=2)


def test_racing_local_writers_and_a_reader(tmp_path):
    """Two delete_matching writers (A and B, several times each) and a reader meanwhile:
    every read sees one version, the end state is one version."""
    root = str(tmp_path / "ds")
    pc.write_to_dataset(version("A"), root, **WRITE)
    go = tmp_path / "go"
    procs = [start_writer(root, v * 4, str(go)) for v in "AB"]
    for p in procs:
        p.ready()
    go.write_bytes(b"")
    reads, stop = [], threading.Event()

    def reader():
        while not stop.is_set():
            reads.append(read_or_error(root))

    t = threading.Thread(target=reader)
    t.start()
    try:
        codes = [p.finish(timeout=120) for p in procs]
    finally:
        stop.set()
        t.join()
    for p, code in zip(procs, codes):
        assert code == 0, p.messages
    assert read_version(root) in "AB"
    assert which_version(pq.read_table(root).column("n").to_pylist()) in "AB"
    assert internal_files(root) == []
    assert "mix" not in reads and reads


def test_racing_error_writers_one_wins(tmp_path):
    """existing_data_behavior="error" into an empty folder: one writer wins, the other fails
    with DatasetWriteConflictError; the data is not doubled."""
    root = str(tmp_path / "ds")
    go = tmp_path / "go"
    procs = [start_writer(root, v, str(go), behavior="error") for v in "AB"]
    for p in procs:
        p.ready()
    go.write_bytes(b"")
    codes = [p.finish(timeout=120) for p in procs]
    assert sorted(codes) == [0, 3], [p.messages for p in procs]
    winner = "AB"[codes.index(0)]
    assert read_version(root) == winner
    assert which_version(pq.read_table(root).column("n").to_pylist()) == winner


def test_error_refuses_then_lock_is_exclusive(tmp_path):
    """A held lock (another live writer of this process) refuses "error" and makes
    delete_matching wait, then fail with a clear error naming the lock."""
    from parquet_core.dataset import transaction

    root = tmp_path / "ds"
    pc.write_to_dataset(version("A"), str(root), **WRITE)
    with pytest.raises(DatasetWriteConflictError, match="already holds"):
        pc.write_to_dataset(version("A"), str(root), partition_cols=["k"])
    other = transaction.Transaction(transaction.LocalFileSystem(), str(root))
    other.lock(str(root / "k=1" / "_pqcore.lock"))
    try:
        old = transaction.LOCK_TIMEOUT
        transaction.LOCK_TIMEOUT = 0.2
        with pytest.raises(DatasetWriteConflictError, match="_pqcore.lock"):
            pc.write_to_dataset(version("B"), str(root), **WRITE)
    finally:
        transaction.LOCK_TIMEOUT = old
        other.close()
    assert read_version(str(root)) == "A"
    assert internal_files(str(root)) == []
    pc.write_to_dataset(version("B"), str(root), **WRITE)
    assert read_version(str(root)) == "B"


def test_stale_lock_of_dead_process_is_taken_over(tmp_path):
    from parquet_core.file.sink import host_tag

    root = tmp_path / "ds"
    pc.write_to_dataset(version("A"), str(root), **WRITE)
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True)
    dead = f"{host_tag()}.{int(proc.stdout)}.0123456789ab"
    for k in range(3):
        (root / f"k={k}" / "_pqcore.lock").write_text(dead)
    (root / "k=0" / f".pqcore.{dead}.x-0.parquet.pqcore-staged").write_bytes(b"partial")
    (root / "k=2" / f"_pqcore.lock.broken.{dead}").write_text(dead)        # died taking a lock over
    (root / "k=1" / f".x.parquet.{host_tag()}.{int(proc.stdout)}.abc.pqcore-tmp").write_bytes(b"half")
    pc.write_to_dataset(version("B"), str(root), **WRITE)
    assert read_version(str(root)) == "B"
    assert internal_files(str(root)) == []


def test_lock_appears_whole_with_its_owner(tmp_path, monkeypatch):
    """The local lock is linked into place already holding its writer's name (a writer killed
    between an exclusive create and its write left an empty lock no one could take over), and
    its private temporary name is gone afterwards."""
    from parquet_core.dataset import transaction

    seen = []
    real_link = os.link

    def link(src, dst):
        seen.append((open(src).read(), dst))            # complete before it gets the lock's name
        return real_link(src, dst)

    monkeypatch.setattr(transaction.os, "link", link)
    lock = tmp_path / "_pqcore.lock"
    transaction.acquire_lock(LocalFileSystem(), str(lock), "me.1.abc")
    assert seen == [("me.1.abc", str(lock))]
    assert lock.read_text() == "me.1.abc"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_pqcore.lock"]
    with pytest.raises(DatasetWriteConflictError, match="me.1.abc"):
        transaction.acquire_lock(LocalFileSystem(), str(lock), "other.2.def", wait=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_pqcore.lock"]


def test_lock_without_hard_links_falls_back_to_exclusive_create(tmp_path, monkeypatch):
    from parquet_core.dataset import transaction

    def no_links(src, dst):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(transaction.os, "link", no_links)
    lock = tmp_path / "_pqcore.lock"
    transaction.acquire_lock(LocalFileSystem(), str(lock), "me.1.abc")
    assert lock.read_text() == "me.1.abc"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_pqcore.lock"]


def test_empty_lock_is_waited_on_while_young_and_taken_over_when_old(tmp_path):
    """An empty lock (a writer between create and write, on the fallback path) is a live writer
    for a few seconds; one that stays empty is a dead writer's, and the next write takes it."""
    from parquet_core.dataset import transaction

    root = tmp_path / "ds"
    pc.write_to_dataset(version("A"), str(root), **WRITE)
    lock = root / "k=0" / "_pqcore.lock"
    lock.write_bytes(b"")
    with pytest.raises(DatasetWriteConflictError, match="starting"):
        transaction.acquire_lock(LocalFileSystem(), str(lock), "me.1.abc", wait=False)
    old = time.time() - transaction._EMPTY_LOCK_AGE - 5
    os.utime(lock, (old, old))
    pc.write_to_dataset(version("B"), str(root), **WRITE)
    assert read_version(str(root)) == "B"
    assert internal_files(str(root)) == []


# -- memory://: injected failures and threads ----------------------------------------------------



class Dies(Exception):
    pass


class DyingMemoryFS(MemoryFileSystem):
    """memory:// (the same store) that fails for good after *after* changes: a killed writer."""

    cachable = False

    def __init__(self, after: int | None = None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.after = after
        self.changes = 0

    def _change(self):
        self.changes += 1
        if self.after is not None and self.changes > self.after:
            raise Dies(f"killed after {self.after} changes")

    def pipe_file(self, path, value, mode="overwrite", **kwargs):
        self._change()
        return super().pipe_file(path, value, mode=mode, **kwargs)

    def mv(self, *args, **kwargs):
        self._change()
        return super().mv(*args, **kwargs)

    def rm_file(self, path):
        self._change()
        return super().rm_file(path)


def _memory_root() -> str:
    return f"memory://atomic-{uuid.uuid4().hex}/ds"


def _summary_matches_files(root: str) -> None:
    """_metadata names exactly the data files there are, with their row counts."""
    mem = MemoryFileSystem()
    path = mem._strip_protocol(root)
    with mem.open(f"{path}/_metadata", "rb") as f:
        md = pq.read_metadata(f)
    by_file: dict[str, int] = {}
    for i in range(md.num_row_groups):
        rg = md.row_group(i)
        by_file[rg.column(0).file_path] = by_file.get(rg.column(0).file_path, 0) + rg.num_rows
    on_disk = {}
    for p, _ in pc.list_data_files(path, fs=pc_fs()):
        with mem.open(p, "rb") as f:
            on_disk[p[len(path) + 1:]] = pq.read_metadata(f).num_rows
    assert by_file == on_disk


def pc_fs():
    from parquet_core.file.filesystem import FsspecFileSystem

    return FsspecFileSystem(MemoryFileSystem())


@needs_fsspec
@pytest.mark.parametrize("with_metadata", [False, True], ids=["plain", "_metadata"])
def test_memory_writer_killed_after_some_changes(with_metadata):
    kill_memory_writer(with_metadata, stride=5)


@needs_fsspec
@pytest.mark.slow
@pytest.mark.parametrize("with_metadata", [False, True], ids=["plain", "_metadata"])
def test_memory_writer_killed_after_each_change(with_metadata):
    kill_memory_writer(with_metadata, stride=1)


def kill_memory_writer(with_metadata: bool, stride: int) -> None:
    """For every n (every *stride*-th), a delete_matching write whose file system dies after n
    changes leaves one complete version (read through markers, and through _metadata when there
    is one); the next write cleans up after it."""
    root = _memory_root()
    counting = DyingMemoryFS()
    collector: list = []
    pc.write_to_dataset(version("A"), root.split("://")[1], filesystem=counting, metadata_collector=collector,
                        **WRITE)
    if with_metadata:
        first = pc.list_data_files(root.split("://")[1], fs=pc_fs())[0][0]
        pc.write_metadata(pc.read_schema("memory://" + first), root + "/_metadata",
                          metadata_collector=collector)
    counting.changes = 0
    pc.write_to_dataset(version("B"), root.split("://")[1], filesystem=counting, **WRITE)
    total = counting.changes
    assert total > 10
    current = "B"
    for n in sorted(set(range(0, total, stride)) | {total - 1}):
        target = "A" if current == "B" else "B"
        dying = DyingMemoryFS(after=n)
        try:
            pc.write_to_dataset(version(target), root.split("://")[1], filesystem=dying, **WRITE)
            returned = True         # died only while releasing its locks: the write is done
        except Dies:
            returned = False
        got = read_version(root)
        assert got == target if returned else got in (current, target)
        assert read_version(root, listed=True) in (current, target)
        # the next write (alive) finishes or removes the dead one's files
        pc.write_to_dataset(version(current), root, **WRITE)
        assert read_version(root) == current
        mem = MemoryFileSystem()
        left = [p for p in mem.find(mem._strip_protocol(root))
                if p.rsplit("/", 1)[1].startswith(("_pqcore", ".pqcore"))]
        # only the root's generation object, which every commit on a store rewrites
        assert left == [f"{mem._strip_protocol(root)}/_pqcore-generation"], (n, left)
        if with_metadata:
            _summary_matches_files(root)


@needs_fsspec
def test_memory_racing_threads():
    """Threads: two delete_matching writers and a reader; "error" writers into an empty folder."""
    root = _memory_root()
    pc.write_to_dataset(version("A"), root, **WRITE)
    errors: list[BaseException] = []
    reads: list[str] = []
    stop = threading.Event()

    def writer(which):
        try:
            for _ in range(3):
                pc.write_to_dataset(version(which), root, **WRITE)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def reader():
        while not stop.is_set():
            reads.append(read_or_error(root))

    threads = [threading.Thread(target=writer, args=(w,)) for w in "AB"]
    r = threading.Thread(target=reader)
    r.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    r.join()
    assert errors == []
    assert read_version(root) in "AB"
    assert "mix" not in reads and reads

    empty = _memory_root()
    outcome: list = []

    def error_writer(which):
        try:
            pc.write_to_dataset(version(which), empty, partition_cols=["k"], max_rows_per_file=60)
            outcome.append(which)
        except DatasetWriteConflictError as exc:
            outcome.append(exc)

    threads = [threading.Thread(target=error_writer, args=(w,)) for w in "AB"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wins = [o for o in outcome if isinstance(o, str)]
    assert len(wins) == 1 and len(outcome) == 2, outcome
    assert read_version(empty) == wins[0]


def test_s3_lock_is_a_conditional_put(s3_server):
    """On S3 the lock is created with If-None-Match (moto enforces it): a lock another host
    holds is waited for, then refused naming it; nothing of the refused write is left."""
    s3fs = pytest.importorskip("s3fs")
    from parquet_core.dataset import transaction
    from parquet_core.file.filesystem import FsspecFileSystem
    from tests._support.s3 import s3_options

    store = s3fs.S3FileSystem(**s3_options(s3_server))
    root = f"test-bucket/atomic-{uuid.uuid4().hex}"
    fs = FsspecFileSystem(store)
    assert transaction._put_exclusive(fs, root + "/probe", b"one")
    assert not transaction._put_exclusive(fs, root + "/probe", b"two")
    assert store.cat_file(root + "/probe") == b"one"
    store.rm_file(root + "/probe")
    pc.write_to_dataset(version("A"), root, filesystem=store, **WRITE)
    store.pipe_file(f"{root}/k=1/_pqcore.lock", b"elsewhere.4242.0123456789ab")
    old = transaction.LOCK_TIMEOUT
    transaction.LOCK_TIMEOUT = 0.2
    try:
        with pytest.raises(DatasetWriteConflictError, match=r"k=1/_pqcore\.lock"):
            pc.write_to_dataset(version("B"), root, filesystem=store, **WRITE)
    finally:
        transaction.LOCK_TIMEOUT = old
    got = pc.read_table(root, filesystem=store, columns=["n"]).column("n").to_pylist()
    assert which_version(got) == "A"
    left = [p for p in store.find(root) if "pqcore" in p]
    assert left == [f"{root}/_pqcore-generation", f"{root}/k=1/_pqcore.lock"]
    store.rm_file(f"{root}/k=1/_pqcore.lock")
    pc.write_to_dataset(version("B"), root, filesystem=store, **WRITE)
    got = pc.read_table(root, filesystem=store, columns=["n"]).column("n").to_pylist()
    assert which_version(got) == "B"


def test_reader_sees_a_half_renamed_commit_as_the_new_version(tmp_path, monkeypatch):
    """A write that fails after its commit, with some files renamed and none of the old ones
    deleted: folder reads (the root, one partition, any ignore_prefixes) see the new version,
    list_data_files the files of the new version; the next write finishes it."""
    from parquet_core.dataset import transaction

    root = tmp_path / "ds"
    pc.write_to_dataset(version("A"), str(root), **WRITE)
    real, calls = transaction.rename, []

    def rename_once(fs, src, dst):
        calls.append(src)
        if len(calls) > 4:
            raise OSError("disk gone")
        real(fs, src, dst)

    monkeypatch.setattr(transaction, "rename", rename_once)
    with pytest.raises(OSError, match="disk gone"):
        pc.write_to_dataset(version("B"), str(root), **WRITE)
    monkeypatch.setattr(transaction, "rename", real)
    assert any(".pqcore." in p for p in internal_files(str(root)))      # half done
    assert read_version(str(root)) == "B"
    assert which_version(pc.read_table(str(root), ignore_prefixes=[]).column("n").to_pylist()) == "B"
    part = pc.read_table(str(root / "k=1"), columns=["n"]).column("n").to_pylist()
    assert sorted(part) == [n for n in range(1000, 1500) if n % 3 == 1]
    listed = pc.list_data_files(str(root))
    assert sum(pq.read_metadata(p).num_rows for p, _ in listed) == 500
    pc.write_to_dataset(version("A"), str(root), partition_cols=["k"],
                        existing_data_behavior="overwrite_or_ignore",
                        basename_template="extra-{i}.parquet", max_rows_per_file=1000)
    assert internal_files(str(root)) == []
    everything = sorted(list(range(300)) + list(range(1000, 1500)))
    assert sorted(pq.read_table(root).column("n").to_pylist()) == everything


def test_failure_before_the_commit_leaves_the_old_version(tmp_path, monkeypatch):
    from parquet_core.dataset import transaction

    root = tmp_path / "ds"
    pc.write_to_dataset(version("A"), str(root), **WRITE)
    real = transaction.put

    def no_record(fs, path, data, **kw):
        if "_pqcore-commit." in path:
            raise OSError("no space for the record")
        real(fs, path, data, **kw)

    monkeypatch.setattr(transaction, "put", no_record)
    with pytest.raises(OSError, match="record"):
        pc.write_to_dataset(version("B"), str(root), **WRITE)
    assert internal_files(str(root)) == []
    assert read_version(str(root)) == "A"
    assert which_version(pq.read_table(root).column("n").to_pylist()) == "A"


def test_dead_commit_is_finished_folder_by_folder(tmp_path, monkeypatch):
    """A dead writer's commit over k=0..2, while a live writer holds k=2: the next write into
    k=0 finishes k=0 and k=1 and leaves k=2 (still read as committed) for a later write."""
    from parquet_core.dataset import transaction

    root = tmp_path / "ds"
    pc.write_to_dataset(version("A"), str(root), **WRITE)
    real = transaction.rename
    monkeypatch.setattr(transaction, "rename", lambda fs, src, dst: (_ for _ in ()).throw(OSError("gone")))
    with pytest.raises(OSError, match="gone"):
        pc.write_to_dataset(version("B"), str(root), **WRITE)
    monkeypatch.setattr(transaction, "rename", real)
    other = transaction.Transaction(transaction.LocalFileSystem(), str(root))
    other.lock(str(root / "k=2" / "_pqcore.lock"))
    try:
        pc.write_to_dataset({"n": [3000, 3003], "k": [0, 0], "v": [0.0, 0.0]}, str(root), **WRITE)
        left = sorted(os.path.relpath(p, root).split(os.sep)[0] for p in internal_files(str(root)))
        assert "k=0" not in left and "k=1" not in left and "k=2" in left
        got = sorted(pc.read_table(str(root), columns=["n"]).column("n").to_pylist())
        assert got == sorted([3000, 3003] + [n for n in range(1000, 1500) if n % 3])
    finally:
        other.close()
    pc.write_to_dataset({"n": [3001], "k": [1], "v": [0.0]}, str(root), **WRITE)
    assert internal_files(str(root)) == []
    got = sorted(pq.read_table(root).column("n").to_pylist())
    assert got == sorted([3000, 3003, 3001] + [n for n in range(1000, 1500) if n % 3 == 2])
