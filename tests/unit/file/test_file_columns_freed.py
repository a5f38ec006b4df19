"""A file's column layout holds no reference cycle: once a read of a folder of small files is
done with a file, its FileColumns (and through it the file's footer objects that are not in
the lazy footer's own cycle) are freed at once, not left to a garbage collection (a folder
of 300 files paid twice as many collections while they piled up)."""

from __future__ import annotations

import gc
import weakref

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc


def test_a_closed_files_columns_are_freed_without_a_collection(tmp_path) -> None:
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"a": [1, 2, 3], "s": ["x", "y", "z"]}), path)
    pf = pc.ParquetFile(path)
    assert pf.columns.shapes["a"] is pf.columns.shape(0)      # the name lookup still works
    with pytest.raises(KeyError):
        pf.columns.shapes["nope"]
    cols = weakref.ref(pf.columns)
    enabled = gc.isenabled()
    gc.disable()
    try:
        pf.close()
        del pf
        assert cols() is None
    finally:
        if enabled:
            gc.enable()
