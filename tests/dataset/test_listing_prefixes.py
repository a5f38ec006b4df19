"""The local listing's rules for names starting with ``.`` / ``_`` or an ignored prefix,
against pyarrow.dataset's listing with the same ``ignore_prefixes``."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import parquet_core as pc

NAMES = ["a.parquet", "_x.parquet", ".h.parquet", "tmp_y.parquet", "sub/_z.parquet", "sub/b.parquet",
         "_d/w.parquet", ".e/v.parquet", "tmpdir/u.parquet", "sub/deep/c.parquet"]


@pytest.fixture()
def folder(tmp_path):
    for i, name in enumerate(NAMES):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({"n": [i]}), path)
    return tmp_path


@pytest.mark.parametrize("prefixes", [None, [], ["."], ["_"], ["tmp"], ["tmp", "_"], [""], ["", "tmp"]])
def test_files_as_pyarrow_lists_them(folder, prefixes):
    kwargs = {} if prefixes is None else {"ignore_prefixes": prefixes}
    theirs = sorted(os.path.relpath(f, folder) for f in ds.dataset(str(folder), **kwargs).files)
    ours = sorted(os.path.relpath(f, folder) for f in pc.ParquetDataset(str(folder), **kwargs).files)
    assert ours == theirs
    if theirs:      # an empty prefix leaves every name out (as pyarrow)
        assert pc.read_table(str(folder), **kwargs).num_rows == len(theirs)
