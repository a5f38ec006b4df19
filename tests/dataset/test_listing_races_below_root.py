"""Listings that a ``write_to_dataset`` commits into, where what is read is not the folder the
writer committed to (``test_listing_races.py`` and ``test_listing_races_stores.py`` read the
dataset root itself):

* a partition folder read on its own (``read_table("ds/k=1")``, nested ``j=0``, ``j=1``): the
  write's record and generation object are made in ``ds``, above the folder listed, so a
  commit between ``j=0`` and ``j=1`` used to go unseen (``j=0`` read old, ``j=1`` new);
* the local disk read through fsspec (``local://``): the reader took the store rule (a
  generation object, which our local writer never makes) and saw nothing.

The write is made to happen inside the walk (from ``os.scandir`` locally, from the ``ls`` of a
walking memory:// file system). The versions are built by pyarrow; the rows read are compared
with pyarrow's read of the files the write left.
"""

from __future__ import annotations

import os
import uuid

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetError

from ._helpers import RaceWrites, pyarrow_store_rows, walking_memory

WRITE = dict(partition_cols=["k", "j"], max_rows_per_file=40, existing_data_behavior="delete_matching",
             basename_template="part-{i}.parquet")


def version(which: str) -> pa.Table:
    start, count = (0, 300) if which == "A" else (1000, 500)
    n = list(range(start, start + count))
    return pa.table({"n": n, "k": [i % 3 for i in n], "j": [i % 2 for i in n], "v": [float(i) * 0.5 for i in n]})


class Writes(RaceWrites):
    """The next versions' writes (B, A, B...) to *root*; with *paused*, each stops right after
    its commit (nothing renamed or deleted yet) and :meth:`finish` rolls them forward."""

    version = staticmethod(version)
    options = WRITE


class ScandirHook:
    """``os.scandir`` that, in each listing of the folder named *top*, runs *write* when the
    walk reaches the second folder whose name starts with *prefix* (after one partition folder
    was listed, before the other: the local walk's order is its own), *times* listings at
    most, not from inside the write; records the names listed (``first``: the folder listed
    before the first write)."""

    def __init__(self, monkeypatch, top: str, prefix: str, write, times: int = 1) -> None:
        self.top, self.prefix, self.write, self.left = top, prefix, write, times
        self.real = os.scandir
        self.busy = False
        self.listed: list[str] = []
        self.seen: list[str] = []
        self.first: str | None = None
        monkeypatch.setattr(os, "scandir", self)

    def __call__(self, path=".", *args):
        if not self.busy:
            name = os.path.basename(os.fspath(path).rstrip(os.sep).rstrip("/"))
            self.listed.append(name)
            if name == self.top:
                self.seen = []
            elif name.startswith(self.prefix):
                self.seen.append(name)
                if len(self.seen) == 2 and self.left:
                    self.left -= 1
                    self.first = self.first or self.seen[0]
                    self.busy = True
                    try:
                        self.write()
                    finally:
                        self.busy = False
        return self.real(path, *args)


def _rows(table: pa.Table) -> list[int]:
    return sorted(table.column("n").to_pylist())


def _pyarrow_local(folder: str) -> list[int]:
    return _rows(pq.read_table(folder, columns=["n"]))


@pytest.mark.parametrize("paused", [True, False], ids=["paused after its commit", "finished"])
@pytest.mark.parametrize("how", ["read_table", "list_data_files"])
def test_a_partition_folder_read_on_its_own_sees_a_commit_to_its_root(tmp_path, monkeypatch, how, paused):
    """Before: j=0 of k=1 read from A's files and j=1 from B's (paused), or A's j=0 files gone
    when opened (finished)."""
    root = str(tmp_path / "ds")
    pc.write_to_dataset(version("A"), root, **WRITE)
    write = Writes(monkeypatch, root, paused=paused)
    hook = ScandirHook(monkeypatch, "k=1", "j=", write)
    folder = os.path.join(root, "k=1")
    if how == "read_table":
        got = _rows(pc.read_table(folder, columns=["n"]))
    else:
        got = sorted(n for path, _ in pc.list_data_files(folder)
                     for n in pq.read_table(path, columns=["n"]).column("n").to_pylist())
    monkeypatch.undo()
    assert write.written == ["B"]            # the write ran in the middle of the walk
    write.finish()
    assert got == _pyarrow_local(folder) == _rows(version("B").filter(pa.compute.equal(version("B")["k"], 1)))
    assert hook.listed.count(hook.first) == 2     # listed again after it


def test_a_partition_folder_listing_that_root_commits_keep_changing_is_refused(tmp_path, monkeypatch):
    root = str(tmp_path / "ds")
    pc.write_to_dataset(version("A"), root, **WRITE)
    write = Writes(monkeypatch, root, times=100)
    ScandirHook(monkeypatch, "k=1", "j=", write, times=100)
    with pytest.raises(ParquetError, match="changed while it was listed, 6 times in a row"):
        pc.read_table(os.path.join(root, "k=1"))
    assert len(write.written) == 6


def test_a_folder_above_the_dataset_root_is_not_a_root(tmp_path, monkeypatch):
    """``X/ds/k=1`` read while ``X`` (not hive-named: not part of the dataset) changes during
    every listing: read once, not refused."""
    outer = tmp_path / "X"
    root = str(outer / "ds")
    pc.write_to_dataset(version("A"), root, **WRITE)
    made: list[str] = []

    def touch_outer() -> None:
        made.append(str(outer / f"other-{len(made)}"))
        open(made[-1], "wb").close()

    hook = ScandirHook(monkeypatch, "k=1", "j=", touch_outer, times=100)
    folder = os.path.join(root, "k=1")
    got = _rows(pc.read_table(folder, columns=["n"]))
    monkeypatch.undo()
    assert len(made) == 1 and hook.listed.count("j=0") == hook.listed.count("j=1") == 1
    assert got == _pyarrow_local(folder)


@pytest.mark.parametrize("paused", [True, False], ids=["paused after its commit", "finished"])
def test_a_store_partition_folder_read_on_its_own_sees_a_commit_to_its_root(tmp_path, monkeypatch, paused):
    root = f"/{uuid.uuid4().hex}/ds"
    writer = fsspec.filesystem("memory")
    pc.write_to_dataset(version("A"), root, filesystem=writer, **WRITE)
    write = Writes(monkeypatch, root, writer, paused=paused)
    reader = walking_memory("j=1", write)
    folder = f"{root}/k=1"
    got = _rows(pc.read_table(folder, filesystem=reader, columns=["n"]))
    assert write.written == ["B"]
    write.finish()
    assert got == pyarrow_store_rows(writer, folder, str(tmp_path / "final"))
    assert got == _rows(version("B").filter(pa.compute.equal(version("B")["k"], 1)))
    assert reader.listed.count("j=0") == 2


@pytest.mark.parametrize("paused", [True, False], ids=["paused after its commit", "finished"])
@pytest.mark.parametrize("read", ["root", "partition"])
def test_a_local_write_seen_through_fsspecs_local_file_system(tmp_path, monkeypatch, paused, read):
    """Our local writer makes no generation object; a reader through ``local://`` (an fsspec
    file system) compares the root folder's state as the local reader does."""
    root = str(tmp_path / "ds")
    pc.write_to_dataset(version("A"), root, **WRITE)
    write = Writes(monkeypatch, root, paused=paused)
    hook = ScandirHook(monkeypatch, *(("ds", "k=") if read == "root" else ("k=1", "j=")), write)
    folder = root if read == "root" else os.path.join(root, "k=1")
    got = _rows(pc.read_table("local://" + folder, columns=["n"]))
    monkeypatch.undo()
    assert write.written == ["B"]
    write.finish()
    expected = version("B") if read == "root" else version("B").filter(pa.compute.equal(version("B")["k"], 1))
    assert got == _pyarrow_local(folder) == _rows(expected)
    assert hook.listed.count(hook.first) == 2


def test_a_write_through_fsspecs_local_file_system_makes_no_generation_object(tmp_path):
    """The local disk has one rule whichever way it is reached: its root folder's times say
    that a commit happened (the readers' test, ``fs.local_disk``), so a write through
    ``local://`` leaves no ``_pqcore-generation`` behind, as our local writer does not."""
    root = str(tmp_path / "ds")
    pc.write_to_dataset(version("A"), "local://" + root, **WRITE)
    pc.write_to_dataset(version("B"), "local://" + root, **WRITE)
    assert not any(name.startswith("_pqcore") for name in os.listdir(root))
    assert _rows(pc.read_table("local://" + root, columns=["n"])) == _pyarrow_local(root) == _rows(version("B"))
