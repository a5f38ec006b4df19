"""A local folder is listed on threads only when its system calls wait on the file system
(the first folders, timed, take ``SLOW_ENTRY_SECONDS`` per entry or more); on threads it
gives the same files, sizes, times, folders and summary files as one thread, skips the same
unreadable and vanishing folders, leaves no thread running, and raises another error in the
calling thread naming the folder."""

from __future__ import annotations

import os
import threading
import time

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_core.dataset import discovery
from parquet_core.file.filesystem import LocalFileSystem

_REAL_SCANDIR = os.scandir


def _folder(tmp_path) -> str:
    root = tmp_path / "ds"
    t = pa.table({"p": [i % 20 for i in range(60)], "q": [i % 3 for i in range(60)], "x": list(range(60))})
    pq.write_to_dataset(t, str(root), partition_cols=["p", "q"])
    (root / "p=3" / "_SUCCESS").write_text("")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "f.parquet").write_bytes(b"x")
    (root / "p=4" / "q=1" / "_tmp").mkdir()
    pq.write_metadata(t.schema, str(root / "_common_metadata"))
    return str(root)


def _threads(monkeypatch, on: bool, probe: int = 1) -> list[int]:
    """Force the listing onto threads (every listing counts as slow; *probe* folders first)
    or onto one thread; returns a list that gets a 1 each time threads are used."""
    monkeypatch.setattr(discovery, "SLOW_ENTRY_SECONDS", 0.0 if on else float("inf"))
    monkeypatch.setattr(discovery, "PROBE_FOLDERS", probe)
    used: list[int] = []
    real = discovery._list_on_threads
    monkeypatch.setattr(discovery, "_list_on_threads", lambda *a: (used.append(1), real(*a))[1])
    return used


def _listers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("parquet_core-list")]


def _same(a: discovery.Discovery, b: discovery.Discovery) -> None:
    assert a.files == b.files
    assert a.relative == b.relative
    assert a.mtimes == b.mtimes
    assert (a.root, a.metadata_path, a.common_metadata_path) == (b.root, b.metadata_path, b.common_metadata_path)


def test_threaded_listing_equals_serial(tmp_path, monkeypatch) -> None:
    root = _folder(tmp_path)
    fs = LocalFileSystem()
    used = _threads(monkeypatch, True)
    threaded = discovery.discover(fs, [root])
    assert used == [1]
    used = _threads(monkeypatch, False)
    serial = discovery.discover(fs, [root])
    assert used == []
    assert sum(n.startswith("p=") for n in os.listdir(root)) == 20
    _same(threaded, serial)
    assert threaded.common_metadata_path is not None
    theirs = sorted(ds.dataset(root, partitioning="hive").files)
    assert [p for p, _ in threaded.files] == theirs
    assert all(size == os.path.getsize(p) for p, size in threaded.files)
    assert not _listers()


def test_slow_file_system_is_listed_on_threads(tmp_path, monkeypatch) -> None:
    """Folders whose listing waits (1 ms each, as on a cold cache or a network mount) go to
    threads at the default settings, and the waits overlap; the files are the same."""
    root = _folder(tmp_path)
    fs = LocalFileSystem()
    serial = discovery.discover(fs, [root])

    def slow_scandir(path):
        time.sleep(0.001)
        return _REAL_SCANDIR(path)

    monkeypatch.setattr(os, "scandir", slow_scandir)
    used: list[int] = []
    real = discovery._list_on_threads
    monkeypatch.setattr(discovery, "_list_on_threads", lambda *a: (used.append(1), real(*a))[1])
    slow = discovery.discover(fs, [root])
    assert used == [1]
    _same(slow, serial)
    assert not _listers()


def test_slow_measures_the_median_per_entry() -> None:
    fast = [(0.0, 1), (2e-6, 2), (4e-6, 3)]                     # 2 µs a folder of one entry
    assert not discovery._slow(fast)
    preempted = [(0.0, 1), (2e-6, 2), (0.02, 3), (0.020002, 4)]  # one folder lengthened
    assert not discovery._slow(preempted)
    waiting = [(0.0, 1), (1e-3, 2), (2e-3, 3)]                   # 1 ms a folder
    assert discovery._slow(waiting)
    assert not discovery._slow([(0.0, 1)])                       # nothing listed
    empty = [(0.0, 5), (1e-4, 4)]                                # an empty folder: 100 µs
    assert discovery._slow(empty)


# -- random trees, with folders that cannot be read or vanish while listed ------------------

_NAMES = st.sampled_from(["a", "b", "k=1", "k=2", "x=y", "_tmp", ".dot", "c_", "d._COPYING_", "e"])


@st.composite
def _trees(draw, depth: int = 0) -> dict:
    """A folder: ``{name: None (file) | dict (folder) | "denied" | "vanish"}``."""
    out: dict = {}
    for name in draw(st.lists(_NAMES, max_size=5 if depth < 3 else 0, unique=True)):
        kind = draw(st.sampled_from(["file", "folder", "folder", "denied", "vanish"]) if depth < 3
                    else st.just("file"))
        out[name + (".parquet" if kind == "file" and draw(st.booleans()) else "")] = (
            None if kind == "file" else draw(_trees(depth + 1)) if kind == "folder" else kind)
    return out


def _make(path, tree: dict, denied: set[str], vanish: set[str]) -> None:
    path.mkdir(exist_ok=True)
    for name, sub in tree.items():
        p = path / name
        if sub is None:
            p.write_bytes(b"x" * (len(name) + 1))
        else:
            p.mkdir()
            (p / "f.parquet").write_bytes(b"12345")
            if sub == "denied":
                denied.add(str(p))
            elif sub == "vanish":
                (p / "g.parquet").write_bytes(b"1")
                vanish.add(str(p))
            else:
                _make(p, sub, denied, vanish)


class _Vanishing:
    """``os.scandir`` of a folder that goes away after its first entry."""

    def __init__(self, path: str) -> None:
        self.real = _REAL_SCANDIR(path)
        self.given = 0

    def __iter__(self) -> _Vanishing:
        return self

    def __next__(self) -> os.DirEntry[str]:
        if self.given == 1:
            raise FileNotFoundError(2, "No such file or directory")
        self.given += 1
        return next(self.real)

    def close(self) -> None:
        self.real.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tree=_trees(), probe=st.sampled_from([1, 2, 32]))
def test_random_trees_threaded_equals_serial(tmp_path_factory, monkeypatch, tree, probe) -> None:
    """Permission denied (root reads every folder, so it is simulated at ``os.scandir``)
    and a folder vanishing part-way behave on threads as on one thread: skipped, the rest
    listed."""
    root = tmp_path_factory.mktemp("tree") / "ds"
    denied: set[str] = set()
    vanish: set[str] = set()
    _make(root, tree, denied, vanish)
    (root / "_metadata").write_bytes(b"PAR1")

    def scandir(path):
        if path in denied:
            raise PermissionError(13, "Permission denied", path)
        return _Vanishing(path) if path in vanish else _REAL_SCANDIR(path)

    fs = LocalFileSystem()
    with monkeypatch.context() as m:
        m.setattr(os, "scandir", scandir)
        _threads(m, False)
        serial = discovery.discover(fs, [str(root)])
        used = _threads(m, True, probe)
        threaded = discovery.discover(fs, [str(root)])
    _same(threaded, serial)
    assert serial.metadata_path == str(root / "_metadata")
    listed = {p for p, _ in serial.files}
    assert not any(p.startswith(d + os.sep) for p in listed for d in denied)
    assert used == ([1] if used else [])      # threads when at least two folders were left
    assert not _listers()


@pytest.mark.parametrize("on_threads", [True, False])
def test_listing_error_is_raised_in_the_caller_naming_the_folder(tmp_path, monkeypatch, on_threads) -> None:
    """An error that is not an ``OSError`` stops the listing: raised in the calling thread
    (from whichever thread listed the folder), with a note naming the folder; every thread
    has ended."""
    root = _folder(tmp_path)
    bad = os.path.join(root, "p=7", "q=1")

    def scandir(path):
        if path == bad:
            raise RuntimeError("the file system's driver failed")
        return _REAL_SCANDIR(path)

    monkeypatch.setattr(os, "scandir", scandir)
    used = _threads(monkeypatch, on_threads)
    with pytest.raises(RuntimeError, match="driver failed") as info:
        discovery.discover(LocalFileSystem(), [root])
    assert used == ([1] if on_threads else [])
    assert any(repr(bad) in n for n in info.value.__notes__)
    assert not _listers()
