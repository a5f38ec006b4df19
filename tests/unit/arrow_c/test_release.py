"""Lifetimes of exported and imported Arrow C structs: every struct is released exactly
once, our numpy buffers stay alive exactly as long as a consumer holds them, and a
second release is a no-op.  The consumer is our own importer, or pyarrow when present."""

from __future__ import annotations

import ctypes
import gc
import sys
import tracemalloc

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.arrow_c import ArrayNode, SchemaNode, StreamReader, export_array, export_stream, \
    import_array
from parquet_core.arrow_c.export import live_exports
from parquet_core.arrow_c.structs import ARRAY_NAME, RELEASE, ArrowArray, capsule_pointer


@pytest.fixture(autouse=True)
def _no_leftovers():
    gc.collect()
    before = live_exports()
    yield
    gc.collect()
    assert live_exports() == before


def _node(values: np.ndarray) -> ArrayNode:
    return ArrayNode(len(values), 0, [None, values])


def test_an_unconsumed_capsule_releases_its_struct_and_buffers():
    values = np.arange(10, dtype=np.int64)
    base = sys.getrefcount(values)
    capsule = export_array(_node(values))
    assert live_exports() >= 1 and sys.getrefcount(values) > base
    del capsule
    assert sys.getrefcount(values) == base


def test_import_keeps_the_producer_alive_until_the_last_view_dies():
    values = np.arange(10, dtype=np.int64)
    base = sys.getrefcount(values)
    imported = import_array(export_array(_node(values)))   # moved out of the (now dead) capsule
    view = imported.buffer(1, np.int64, 10)
    del imported
    gc.collect()
    assert sys.getrefcount(values) > base            # the view still needs them
    assert view.tolist() == list(range(10))
    del view
    gc.collect()
    assert sys.getrefcount(values) == base


def test_release_twice_is_a_no_op():
    values = np.arange(4, dtype=np.int32)
    base = sys.getrefcount(values)
    capsule = export_array(_node(values))
    address = capsule_pointer(capsule, ARRAY_NAME)
    struct = ArrowArray.from_address(address)
    callback = struct.release
    RELEASE(callback)(address)
    assert not struct.release and sys.getrefcount(values) == base
    RELEASE(callback)(address)   # a misbehaving consumer calling it again: nothing happens
    assert sys.getrefcount(values) == base
    del capsule                  # the destructor sees a released struct and only frees it


def test_a_child_moved_out_outlives_its_parent():
    child_values = np.arange(5, dtype=np.int64)
    base = sys.getrefcount(child_values)
    parent = ArrayNode(5, 0, [None], [_node(child_values)])
    capsule = export_array(parent)
    del parent
    top = ArrowArray.from_address(capsule_pointer(capsule, ARRAY_NAME))
    child_address = (ctypes.c_void_p * 1).from_address(top.children)[0]
    moved = ArrowArray()
    ctypes.memmove(ctypes.addressof(moved), child_address, ctypes.sizeof(ArrowArray))
    ArrowArray.from_address(child_address).release = None   # as the interface's "move" says
    del capsule                                              # releases the parent
    assert sys.getrefcount(child_values) > base
    data = (ctypes.c_void_p * 2).from_address(moved.buffers)[1]
    assert (ctypes.c_int64 * 5).from_address(data)[:] == list(range(5))
    RELEASE(moved.release)(ctypes.addressof(moved))
    assert not moved.release and sys.getrefcount(child_values) == base


def test_stream_release_without_reading_and_batches_outliving_the_stream():
    values = np.arange(3, dtype=np.int64)
    base = sys.getrefcount(values)
    schema = SchemaNode("+s", "", 0, children=[SchemaNode("l", "x", 2)])

    def batches():
        yield ArrayNode(3, 0, [None], [_node(values)])

    unread = export_stream(schema, batches())
    del unread
    assert sys.getrefcount(values) == base
    reader = StreamReader(export_stream(schema, batches()))
    got = list(reader)          # the stream is released at its end
    assert len(got) == 1 and sys.getrefcount(values) > base
    assert got[0].children[0].buffer(1, np.int64, 3).tolist() == [0, 1, 2]
    del got, reader
    gc.collect()
    assert sys.getrefcount(values) == base


def test_table_stream_consumed_by_ourselves_frees_everything():
    table = pc.as_table({"a": np.arange(1000, dtype=np.int64), "s": [str(i) for i in range(1000)],
                         "l": [[i] for i in range(1000)]})
    col = table.column("a").values
    base = sys.getrefcount(col)
    again = pc.as_table(_Wrap(table))
    assert again.to_pydict() == table.to_pydict()
    assert sys.getrefcount(col) > base        # zero-copy: the import views our buffer
    del again
    gc.collect()
    assert sys.getrefcount(col) == base


class _Wrap:
    def __init__(self, table):
        self.table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self.table.__arrow_c_stream__()


def test_repeated_exports_do_not_grow_memory():
    table = pc.as_table({"a": np.arange(100_000, dtype=np.int64), "s": ["x" * 10] * 100_000})

    def cycle():
        for _ in range(20):
            back = pc.as_table(_Wrap(table))
            assert back.num_rows == 100_000
        gc.collect()

    cycle()   # warm up caches
    tracemalloc.start()
    try:
        first, _ = tracemalloc.get_traced_memory()
        cycle()
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # one cycle holds ~3 MB of fresh buffers at a time; a leak would keep 20 of them
    assert after - first < 1_000_000


def test_pyarrow_consumer_releases_our_buffers():
    pa = pytest.importorskip("pyarrow")
    table = pc.as_table({"a": np.arange(10, dtype=np.int64)})
    col = table.column("a").values
    base = sys.getrefcount(col)
    got = pa.table(table)
    assert sys.getrefcount(col) > base and got.column("a").to_pylist() == list(range(10))
    del got
    gc.collect()
    assert sys.getrefcount(col) == base
    batch = pa.record_batch(table)
    del batch
    gc.collect()
    assert sys.getrefcount(col) == base


def test_polars_and_duckdb_consumers_release_our_buffers():
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    tbl = pc.as_table({"a": np.arange(10, dtype=np.int64)})
    col = tbl.column("a").values
    base = sys.getrefcount(col)
    df = pl.DataFrame(tbl)
    assert df["a"].to_list() == list(range(10))
    del df
    gc.collect()
    assert sys.getrefcount(col) == base
    before = live_exports()
    assert duckdb.sql("select sum(a) from tbl").fetchall() == [(45,)]
    gc.collect()
    # duckdb's scan of local variables snapshots this frame's locals (one more reference
    # to col from that dict), so here the check is that every struct was released
    assert live_exports() == before


def test_a_failed_export_leaves_nothing_registered():
    good = np.arange(3, dtype=np.int64)
    base = sys.getrefcount(good)
    bad = np.arange(6, dtype=np.int64)[::2]          # not contiguous: refused
    with pytest.raises(TypeError, match="contiguous"):
        export_array(ArrayNode(3, 0, [None], [_node(good), _node(bad)]))
    gc.collect()
    assert sys.getrefcount(good) == base


def test_a_child_shorter_than_its_parent_is_refused_not_read_past():
    from parquet_core.errors import ParquetFormatError

    short = np.arange(2, dtype=np.int64)
    schema = SchemaNode("+s", "", 0, children=[SchemaNode("l", "x", 2)])

    class Malformed:
        def __arrow_c_stream__(self, requested_schema=None):
            return export_stream(schema, iter([ArrayNode(5, 0, [None], [_node(short)])]))

    with pytest.raises(ParquetFormatError, match="malformed"):
        pc.as_table(Malformed())
