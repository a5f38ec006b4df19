"""The local walk lists folders without ``with``: every folder it opens is closed, whether
its listing runs to the end, fails part-way with an ``OSError`` (the walk goes on with the
other folders, as before) or is interrupted by another exception (raised)."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.dataset import discovery
from parquet_core.file.filesystem import LocalFileSystem


class _Listing:
    """An ``os.scandir`` iterator that records its closing and can fail after one entry."""

    opened: list[_Listing] = []

    def __init__(self, path: str, fail: type[BaseException] | None) -> None:
        self.real = _REAL_SCANDIR(path)
        self.path = path
        self.fail = fail
        self.given = 0
        self.closed = False
        _Listing.opened.append(self)

    def __iter__(self) -> _Listing:
        return self

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __next__(self) -> os.DirEntry[str]:
        if self.fail is not None and self.given == 1:
            raise self.fail("listing failed part-way")
        self.given += 1
        try:
            return next(self.real)
        except StopIteration:
            self.closed = True      # os.scandir closes its folder at the end
            raise

    def close(self) -> None:
        self.closed = True
        self.real.close()


_REAL_SCANDIR = os.scandir


def _folder(tmp_path) -> str:
    root = tmp_path / "ds"
    for name in ("p=0/a.parquet", "p=0/b.parquet", "p=1/a.parquet", "p=1/b.parquet"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({"x": [1, 2]}), str(root / name))
    return str(root)


def _patch(monkeypatch, failing: str | None, fail: type[BaseException] | None) -> None:
    _Listing.opened = []
    monkeypatch.setattr(os, "scandir", lambda p: _Listing(p, fail if p == failing else None))


def test_every_listed_folder_is_closed(tmp_path, monkeypatch) -> None:
    root = _folder(tmp_path)
    _patch(monkeypatch, None, None)
    found = discovery.discover(LocalFileSystem(), [root])
    assert len(found.files) == 4
    assert len(_Listing.opened) == 3 and all(it.closed for it in _Listing.opened)


def test_a_folder_failing_part_way_is_closed_and_skipped(tmp_path, monkeypatch) -> None:
    root = _folder(tmp_path)
    failing = os.path.join(root, "p=0")
    assert len(os.listdir(failing)) == 2
    _patch(monkeypatch, failing, OSError)
    found = discovery.discover(LocalFileSystem(), [root])
    # the listing goes on with the other folders (as for a folder removed while it is read)
    other = os.path.join(root, "p=1")
    assert {os.path.join(other, n) for n in os.listdir(other)} <= {p for p, _ in found.files}
    assert [it.given for it in _Listing.opened if it.path == failing] == [1]
    assert all(it.closed for it in _Listing.opened)


def test_an_interrupted_listing_closes_its_folder(tmp_path, monkeypatch) -> None:
    root = _folder(tmp_path)
    failing = os.path.join(root, "p=0")
    _patch(monkeypatch, failing, KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        discovery.discover(LocalFileSystem(), [root])
    assert any(it.path == failing for it in _Listing.opened)
    assert all(it.closed for it in _Listing.opened if it.given)


def test_the_rule_holds_through_deep_listings(tmp_path) -> None:
    """A two-level Hive folder with 20 root folders (listed on threads) and a fresh
    ``_metadata``; then a file added in one leaf folder, one shrunk (its time set back, so
    only its size tells), one removed.  Every listed file is read, the two stale entries are
    named, the rows are pyarrow's from the files on disk."""
    root = tmp_path / "ds"
    n = 80 + 300    # p=3/q=0 gets 302 rows: a one-row file in its place is smaller than its column data
    t = pa.table({"p": [i % 20 for i in range(80)] + [3] * 300, "q": [(i // 20) % 2 for i in range(80)] + [0] * 300,
                  "x": list(range(n))})
    pq.write_to_dataset(t, str(root), partition_cols=["p", "q"])
    files = sorted(str(f) for f in root.rglob("*.parquet"))
    collected = []
    for f in files:
        md = pq.read_metadata(f)
        md.set_file_path(os.path.relpath(f, str(root)).replace(os.sep, "/"))
        collected.append(md)
    pq.write_metadata(pq.read_schema(files[0]), str(root / "_metadata"), metadata_collector=collected)
    assert len(files) == 40 and pc.ParquetDataset(str(root)).explain().footers_from_metadata == 40

    pq.write_table(pa.table({"x": [1000, 1001]}), str(root / "p=7" / "q=1" / "new.parquet"))
    (shrunk,) = (root / "p=3" / "q=0").glob("*.parquet")
    pq.write_table(pa.table({"x": [2000]}), str(shrunk))
    past = os.stat(root / "_metadata").st_mtime_ns - 10**9
    os.utime(shrunk, ns=(past, past))
    (gone,) = (root / "p=11" / "q=1").glob("*.parquet")
    os.remove(gone)

    d = pc.ParquetDataset(str(root))
    report = d.explain()
    assert (report.footers_from_metadata, report.footers_read) == (38, 2)
    assert sorted(os.path.relpath(p, str(root)) for p in d.stale_metadata) == \
        sorted(os.path.relpath(str(p), str(root)) for p in (shrunk, gone))
    theirs = pq.read_table(str(root), partitioning="hive")
    ours = d.read()
    key = ("p", "q", "x")
    assert sorted(zip(*(ours.column(n).to_pylist() for n in key))) == \
        sorted(zip(*(theirs.column(n).to_pylist() for n in key)))
    assert ours.num_rows == n - 302 + 1 - 2 + 2
