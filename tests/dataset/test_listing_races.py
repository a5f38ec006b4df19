"""A listing that a ``write_to_dataset`` commits into while it walks the folders.

A listing is a walk, folder after folder. A ``delete_matching`` write that commits after the
walk has listed ``k=0`` but before it lists ``k=1`` used to leave ``k=0`` in the old version
and ``k=1``, ``k=2`` in the new one: rows of two versions in one read (found by
``test_dataset_write_atomic.py::test_racing_local_writers_and_a_reader`` under load). Here the
write is made to happen at exactly that moment, from inside the walk's ``os.scandir``.

The versions are built by pyarrow; the expected rows are those tables' rows.
"""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetError

from ._helpers import race_rows, race_version

WRITE = dict(partition_cols=["k"], max_rows_per_file=60, existing_data_behavior="delete_matching")


version, rows = race_version, race_rows


class WriteInsideListing:
    """``os.scandir`` that, when the walk reaches the folder ``k=<at>``, first runs a whole
    ``write_to_dataset`` of the next version (``times`` times at most, once per listing)."""

    def __init__(self, monkeypatch, root: str, at: int = 1, times: int = 1, paused: bool = False) -> None:
        self.root, self.at, self.left = root, f"k={at}", times
        self.paused: list = []
        if paused:
            # the writer stops right after its commit (markers and record made, nothing
            # renamed or deleted yet), as a writer descheduled there does
            from parquet_core.dataset.transaction import Transaction

            monkeypatch.setattr(Transaction, "roll_forward", lambda txn: self.paused.append(txn))
        self.real = os.scandir
        self.writing = False
        self.versions = iter("BABABABABABA")
        self.written: list[str] = []
        self.listed: list[str] = []
        monkeypatch.setattr(os, "scandir", self)

    def __call__(self, path=".", *args):
        name = os.path.basename(os.fspath(path).rstrip(os.sep))
        if not self.writing:
            self.listed.append(name)
            if name == self.at and self.left:
                self.left -= 1
                self.writing = True
                try:
                    which = next(self.versions)
                    pc.write_to_dataset(version(which), self.root, **WRITE)
                    self.written.append(which)
                finally:
                    self.writing = False
        return self.real(path, *args)


def _read_rows(how: str, root: str) -> list[int]:
    if how == "read_table":
        return sorted(pc.read_table(root, columns=["n"]).column("n").to_pylist())
    if how == "dataset":
        return sorted(pc.ParquetDataset(root).read(columns=["n"]).column("n").to_pylist())
    assert how == "list_data_files"
    out: list[int] = []
    for path, _ in pc.list_data_files(root):
        out.extend(pq_rows(path))
    return sorted(out)


def pq_rows(path: str) -> list[int]:
    return pq.read_table(path, columns=["n"]).column("n").to_pylist()


@pytest.mark.parametrize("paused", [True, False], ids=["paused after its commit", "finished"])
@pytest.mark.parametrize("how", ["read_table", "dataset", "list_data_files"])
def test_a_write_committed_between_two_folders_is_not_read_half(tmp_path, monkeypatch, how, paused):
    """Paused: before, k=0 was read from A's files (still there) and k=1, k=2 from B's
    staged ones: 100 rows of A with 333 of B. Finished: A's k=0 files were gone (an error)."""
    root = str(tmp_path / "ds")
    pc.write_to_dataset(version("A"), root, **WRITE)
    hook = WriteInsideListing(monkeypatch, root, paused=paused)
    got = _read_rows(how, root)
    assert hook.written == ["B"]            # the write ran in the middle of the walk
    assert len(hook.paused) == int(paused)
    assert got == rows("B")                 # listed again after it: the new version whole
    assert hook.listed.count("k=0") == 2


def test_a_listing_that_writes_keep_changing_is_refused(tmp_path, monkeypatch):
    root = str(tmp_path / "ds")
    pc.write_to_dataset(version("A"), root, **WRITE)
    WriteInsideListing(monkeypatch, root, times=100)
    with pytest.raises(ParquetError, match="changed while it was listed, 6 times in a row"):
        pc.read_table(root)


def test_a_marker_gone_before_it_is_read_lists_the_folder_again(tmp_path, monkeypatch):
    """A folder listed in the middle of a write's roll-forward: its new file already renamed,
    the file it replaces and its marker still there. The write ends (replaced file and marker
    removed) before the marker is read: the listing is taken again, not read as it was (it
    named a file that is gone)."""
    from parquet_core.dataset import commit_markers

    root = str(tmp_path / "ds")
    pc.write_to_dataset(version("A"), root, **WRITE)
    # stop a B write just after its commit: the roll-forward is then run by the next reader
    # hook below, between the walk and the marker's reading
    folder = os.path.join(root, "k=1")
    old = sorted(os.listdir(folder))
    pc.write_to_dataset(version("B"), root, **WRITE)
    new = sorted(os.listdir(folder))
    # rebuild "mid roll-forward" by hand: the old files back, a marker naming them replaced
    assert not set(old) & set(new)
    for name in old:                          # one row of A each: read, they would mix
        pq.write_table(pa.table({"n": [1], "v": [0.5]}), os.path.join(folder, name))
    marker = os.path.join(folder, commit_markers.marker_name("h.1.abc"))
    with open(marker, "w") as f:
        json.dump({"txn": "h.1.abc", "up": 1, "add": new, "remove": old}, f)
    record = os.path.join(root, commit_markers.record_name("h.1.abc"))
    with open(record, "w") as f:
        json.dump({"txn": "h.1.abc"}, f)

    real_read = commit_markers.read_json

    def finish_then_read(fs, path):
        if path == marker and os.path.exists(marker):
            for name in old:                 # the write's last steps
                os.remove(os.path.join(folder, name))
            os.remove(marker)
            os.remove(record)
        return real_read(fs, path)

    monkeypatch.setattr(commit_markers, "read_json", finish_then_read)
    got = sorted(pc.read_table(root, columns=["n"]).column("n").to_pylist())
    assert got == rows("B")


def test_a_flat_folder_that_files_keep_arriving_in_is_read(tmp_path, monkeypatch):
    """A landing folder (no partitions) that gets a new file during every listing: its files
    come from one read of one folder, so it is not listed again for them (before this rule it
    would have been refused after 6 listings)."""
    root = tmp_path / "landing"
    root.mkdir()
    pq.write_table(version("A"), root / "a.parquet")
    real = os.scandir
    arrived: list[str] = []

    def scandir(path=".", *args):
        it = real(path, *args)
        if os.fspath(path) == str(root):      # a file lands while the folder is being read
            name = f".arriving-{len(arrived)}"    # (a writer's hidden temporary)
            (root / name).write_bytes(b"")
            arrived.append(name)
        return it

    monkeypatch.setattr(os, "scandir", scandir)
    got = sorted(pc.read_table(str(root), columns=["n"]).column("n").to_pylist())
    assert got == rows("A") and len(arrived) == 1
    assert [p for p, _ in pc.list_data_files(str(root))] == [str(root / "a.parquet")]
    assert len(arrived) == 2
