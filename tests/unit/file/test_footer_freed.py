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


# -- the lazy footer's row groups (thrift/lazy_footer.py): decoded chunks refer to the footer's
# bytes to decode their statistics later; no cycle may run through them back to the row groups.

@pytest.fixture()
def grouped_file(tmp_path):
    path = tmp_path / "grouped.parquet"
    n = 60
    table = pa.table({"i": list(range(n)), "s": [f"v{k % 7}" if k % 5 else None for k in range(n)],
                      "f": [k / 4 for k in range(n)]})
    pq.write_table(table, path, row_group_size=20, use_dictionary=["s"])
    return path


def _collector_off(run):
    """``run()``, with the collector off from before it until its result's first item (a
    weak reference, or a tuple of them) has been read: True for each referent freed."""
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        out = run()
        refs = out[0] if isinstance(out[0], tuple) else (out[0],)
        return tuple(r() is None for r in refs), *out[1:]
    finally:
        if was:
            gc.enable()


def test_decoded_row_groups_and_statistics_are_freed_on_last_use(grouped_file):
    from parquet_core.thrift.lazy_footer import lazy_state

    def open_read_and_walk():
        with pc.ParquetFile(grouped_file) as pf:
            md = pf.metadata
            state = lazy_state(md.raw)
            assert state is not None
            assert pf.read().num_rows == 60
            for i in range(md.num_row_groups):
                for j in range(md.num_columns):
                    md.row_group(i).column(j).statistics  # noqa: B018
                    md.row_group(i).raw.columns[j].meta_data.encoding_stats  # noqa: B018
            return (weakref.ref(state), weakref.ref(md.row_group(1).raw)),

    (freed,) = _collector_off(open_read_and_walk)
    assert freed == (True, True)


def _pyarrow_chunk(path, i, j):
    c = pq.ParquetFile(path).metadata.row_group(i).column(j)
    return (c.statistics.min, c.statistics.max, c.statistics.null_count), sorted(c.encodings), c.path_in_schema


def test_a_chunk_kept_alone_still_decodes_its_skipped_fields(grouped_file):
    from parquet_core.thrift.generated import ttypes as pt
    from parquet_core.thrift.lazy_footer import lazy_state

    def keep_chunks():
        md = pc.read_metadata(grouped_file)
        raw = md.row_group(1).raw     # raw chunks (two of a group, a metadata alone) and wrappers
        kept = (raw.columns[1], raw.columns[2], raw.columns[0].meta_data,
                md.row_group(2).column(1), md.row_group(2).column(2))
        return weakref.ref(lazy_state(md.raw)), kept

    freed, (cc1, cc2, md0, w1, w2) = _collector_off(keep_chunks)
    assert freed == (True,)     # the file's footer (and its row groups cache) freed
    for cc, j in ((cc2, 2), (cc1, 1)):
        stats, encodings, path = _pyarrow_chunk(grouped_file, 1, j)
        meta = cc.meta_data
        assert meta.statistics.null_count == stats[2]
        assert sorted(pt.Encoding._VALUES_TO_NAMES[e] for e in meta.encodings) == encodings
        assert ".".join(meta.path_in_schema) == path
        assert meta.encoding_stats and cc.file_offset is not None
    assert ".".join(md0.path_in_schema) == "i" and md0.statistics.null_count == 0
    for w, j in ((w2, 2), (w1, 1)):
        stats, encodings, path = _pyarrow_chunk(grouped_file, 2, j)
        assert (w.statistics.min, w.statistics.max, w.statistics.null_count) == stats
        assert sorted(w.encodings) == encodings and w.path_in_schema == path


def test_a_row_group_kept_alone_fills_all_its_chunks_at_once(grouped_file):
    from parquet_core.thrift.lazy_footer import lazy_state

    def keep_group():
        md = pc.read_metadata(grouped_file)
        return weakref.ref(lazy_state(md.raw)), md.row_group(0).raw

    freed, rg = _collector_off(keep_group)
    assert freed == (True,)
    source = rg.columns[0]._lazy[0]
    assert rg.columns[2].meta_data.statistics is not None
    assert all(cc.meta_data.loaded("statistics") for cc in rg.columns)
    assert source.decoded_extras == 1
    for j, cc in enumerate(rg.columns):
        assert cc.meta_data.statistics.null_count == _pyarrow_chunk(grouped_file, 0, j)[0][2]


def test_chunks_and_metadata_kept_alone_equal_the_eager_decode(grouped_file):
    import struct

    from parquet_core.thrift.codec import parse
    from parquet_core.thrift.generated import ttypes as pt

    data = grouped_file.read_bytes()
    (n,) = struct.unpack("<I", data[-8:-4])
    eager = parse(data[len(data) - 8 - n:-8], pt.FileMetaData)[0]
    md = pc.read_metadata(grouped_file)
    md.expect_statistics()      # (row group 2 then decodes its statistics in the same pass)
    chunks = [(i, j, md.row_group(i).raw.columns[j]) for i in (0, 2) for j in range(3)]
    metas = [(1, j, md.row_group(1).raw.columns[j].meta_data) for j in range(3)]
    del md
    live = chunks[0][2]._lazy[0]._live      # the row groups are gone: each chunk fills itself
    assert all(r is not None and r() is None for r in live)
    for i, j, cc in chunks[::-1]:       # each filled alone, last column first
        assert cc == eager.row_groups[i].columns[j]
    for i, j, meta in metas:
        assert meta == eager.row_groups[i].columns[j].meta_data


def test_chunks_kept_alone_fill_themselves_from_many_threads(grouped_file):
    import threading

    theirs = pq.ParquetFile(grouped_file).metadata
    md = pc.read_metadata(grouped_file)
    chunks = [(i, j, md.row_group(i).raw.columns[j]) for i in range(3) for j in range(3)] * 4
    del md
    seen: list = []
    start = threading.Barrier(6)

    def read(k):
        start.wait()
        for i, j, cc in chunks[k::6]:
            seen.append((i, j, cc.meta_data.statistics.null_count, tuple(cc.meta_data.path_in_schema)))

    ts = [threading.Thread(target=read, args=(k,)) for k in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(seen) == len(chunks)
    for i, j, nulls, path in seen:
        col = theirs.row_group(i).column(j)
        assert (nulls, ".".join(path)) == (col.statistics.null_count, col.path_in_schema)
