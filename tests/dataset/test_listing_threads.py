"""A folder with many partition folders is listed on threads: the same files, sizes and
summary files as one thread, and pyarrow.dataset's files."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from parquet_core.dataset import discovery
from parquet_core.file.filesystem import LocalFileSystem


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


def test_threaded_listing_equals_serial(tmp_path, monkeypatch) -> None:
    root = _folder(tmp_path)
    fs = LocalFileSystem()
    calls = []
    real = discovery._list_folders
    monkeypatch.setattr(discovery, "_list_folders", lambda *a: (calls.append(a[-1]), real(*a))[1])
    threaded = discovery.discover(fs, [root])
    assert calls.count(None) >= 2       # the partition folders were listed on several threads
    calls.clear()
    monkeypatch.setattr(discovery, "PARALLEL_MIN_FOLDERS", 10**9)
    serial = discovery.discover(fs, [root])
    assert calls.count(None) == 1
    assert sum(n.startswith("p=") for n in os.listdir(root)) == 20
    assert threaded.files == serial.files
    assert threaded.relative == serial.relative
    assert threaded.mtimes == serial.mtimes
    assert threaded.common_metadata_path == serial.common_metadata_path is not None
    theirs = sorted(ds.dataset(root, partitioning="hive").files)
    assert [p for p, _ in threaded.files] == theirs
    assert all(size == os.path.getsize(p) for p, size in threaded.files)
