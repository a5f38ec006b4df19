"""A file's footer is freed when last used, not left for the cyclic collector: nothing the
reader builds at open refers back to itself (a 20,000-chunk footer is tens of thousands of
objects, which the collector otherwise walks, and keeps, until it runs)."""

from __future__ import annotations

import gc
import weakref

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc


@pytest.fixture()
def small_file(tmp_path):
    path = tmp_path / "small.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3], "s": ["x", "y", None], "l": [[1], [], None]}), path)
    return path


def _freed_without_collector(make) -> bool:
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        ref = weakref.ref(make())
        return ref() is None
    finally:
        if was:
            gc.enable()


def test_read_metadata_is_freed_on_last_use(small_file):
    assert _freed_without_collector(lambda: pc.read_metadata(small_file))


def test_an_opened_file_and_its_footer_are_freed_on_last_use(small_file):
    def open_and_look():
        with pc.ParquetFile(small_file) as pf:
            assert pf.schema_arrow.names == ["a", "s", "l"]
            assert "a" in pf.columns.shapes
            return pf.metadata
    assert _freed_without_collector(open_and_look)
