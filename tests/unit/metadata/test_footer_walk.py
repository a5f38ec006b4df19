"""Walking every chunk of a many-chunk footer (issue 32): values as pyarrow reads them, and
no per-access work that only an error needs."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetFormatError
from parquet_core.metadata.wrappers import ColumnChunkMetadata
from parquet_core.thrift.generated import ttypes as pt


@pytest.fixture()
def many_chunks(tmp_path):
    t = pa.table({f"c{i}": pa.array(range(i, i + 60), pa.int64()) for i in range(6)}
                 | {"l": pa.array([[1, 2]] * 60, pa.list_(pa.int32()))})
    path = tmp_path / "groups.parquet"
    pq.write_table(t, path, row_group_size=10)
    return path


def _walk(md):
    out = []
    for i in range(md.num_row_groups):
        rg = md.row_group(i)
        for j in range(md.num_columns):
            c = rg.column(j)
            st = c.statistics
            out.append((c.total_compressed_size, c.total_uncompressed_size, c.num_values,
                        c.data_page_offset, st.min, st.max, st.null_count))
    return out


def test_walk_equals_pyarrow(many_chunks):
    assert _walk(pc.read_metadata(many_chunks)) == _walk(pq.read_metadata(many_chunks))


def test_walk_builds_no_error_context(many_chunks, monkeypatch):
    # the "column chunk 'x' of row group i" text is for errors; reading a present field
    # must not build it (a 20,000-chunk walk built it 20,000 times)
    def boom(self):
        raise AssertionError("error context built on the success path")
    monkeypatch.setattr(ColumnChunkMetadata, "_where", property(boom))
    _walk(pc.read_metadata(many_chunks))


def test_missing_required_field_still_names_the_chunk(many_chunks):
    # a chunk whose metadata was not vouched for when its row group was wrapped (here the
    # footer's raw row groups were asked for: plain structs, wrapped by the general class)
    md = pc.read_metadata(many_chunks)
    assert md.raw.row_groups
    chunk = md.row_group(2).column(1)
    assert type(chunk) is ColumnChunkMetadata
    chunk.meta.total_compressed_size = None
    with pytest.raises(ParquetFormatError, match=r"column chunk .*c1.* of row group 2.*total_compressed_size"):
        _ = chunk.total_compressed_size


@pytest.mark.parametrize("field", ["total_compressed_size", "total_uncompressed_size", "num_values",
                                   "data_page_offset"])
def test_missing_field_in_a_lazily_decoded_group_names_the_chunk(many_chunks, field):
    # the chunks of a row group decoded from the footer bytes read these four fields without
    # checking them again: the row group's checks, when it is first asked for, refuse it
    md = pc.read_metadata(many_chunks)
    setattr(md._lazy.row_group(2).columns[1].meta_data, field, None)     # as if the bytes lacked it
    with pytest.raises(ParquetFormatError, match=rf"column chunk .*c1.* of row group 2.*{field}"):
        md.row_group(2)


def test_lazily_decoded_chunks_read_as_the_general_wrapper(many_chunks):
    # the values the checked chunks read without a Python call equal the general wrapper's
    fast = pc.read_metadata(many_chunks)
    slow = pc.read_metadata(many_chunks)
    assert slow.raw.row_groups           # decoded whole: wrapped by the general class
    names = ("total_compressed_size", "total_uncompressed_size", "num_values", "data_page_offset")
    for i in range(fast.num_row_groups):
        for j in range(fast.num_columns):
            a, b = fast.row_group(i).column(j), slow.row_group(i).column(j)
            assert type(a) is not ColumnChunkMetadata and type(b) is ColumnChunkMetadata
            for n in names:
                assert type(getattr(a, n)) is int and getattr(a, n) == getattr(b, n)


def test_repeated_leaves_match_pyarrow(many_chunks):
    schema = pc.read_metadata(many_chunks).schema
    theirs = pq.read_metadata(many_chunks).schema
    assert schema.repeated_leaves == [theirs.column(i).max_repetition_level > 0 for i in range(len(theirs))]


def test_lazy_statistics_equal_the_generated_struct(many_chunks):
    raw = pc.read_metadata(many_chunks).row_group(0).column(0).meta.statistics
    assert isinstance(raw, pt.Statistics)
    eager = pt.Statistics(max=raw.max, min=raw.min, null_count=raw.null_count, distinct_count=raw.distinct_count,
                          max_value=raw.max_value, min_value=raw.min_value,
                          is_max_value_exact=raw.is_max_value_exact, is_min_value_exact=raw.is_min_value_exact,
                          nan_count=raw.nan_count)
    assert raw == eager and eager == raw
    assert repr(raw) == repr(eager)


def _walk_pyarrow_stats(md):
    return [(md.row_group(i).column(j).statistics.min, md.row_group(i).column(j).statistics.max)
            for i in range(md.num_row_groups) for j in range(md.num_columns)]


def test_statistics_walk_decodes_each_row_group_once(many_chunks):
    # once statistics were read from one chunk, the row groups decoded after that decode
    # their statistics in the same pass: a walk over every chunk's statistics makes one
    # separate statistics decode (the first group's), not one per row group
    md = pc.read_metadata(many_chunks)
    state = md._lazy
    assert _walk_pyarrow_stats(md) == _walk_pyarrow_stats(pq.read_metadata(many_chunks))
    assert state.statistics_wanted
    assert state.decoded_extras == 1
    assert state.decoded_row_groups == md.num_row_groups


def test_row_groups_decoded_with_statistics_equal_the_eager_decode(many_chunks, tmp_path):
    # a chunk without statistics reads None whichever pass decoded it; every struct equals
    # the eager decode of the whole footer
    t = pa.table({"a": pa.array(range(40), pa.int64()), "b": pa.array([1.5] * 40)})
    path = tmp_path / "some_stats.parquet"
    pq.write_table(t, path, row_group_size=10, write_statistics=["a"])
    md = pc.read_metadata(path)
    assert md.row_group(0).column(0).statistics.min == 0
    assert md._lazy.statistics_wanted
    for i in range(1, md.num_row_groups):
        assert md.row_group(i).column(1).statistics is None
        assert md.row_group(i).column(0).statistics.max == pq.read_metadata(path).row_group(i).column(0).statistics.max
    lazy_groups = [md.row_group(i).raw for i in range(md.num_row_groups)]
    eager = pc.read_metadata(path).raw
    eager.load()
    assert lazy_groups == eager.row_groups


def test_chunk_wrapper_fast_path_matches_init(many_chunks):
    md = pc.read_metadata(many_chunks)
    rg = md.row_group(1)
    n = md.num_columns
    for j in (0, 3, n - 1, -1, -n):
        fast = rg.column(j)
        slow = ColumnChunkMetadata(rg.raw.columns[j], md.schema.column(j), md.column_order(j),
                                   1, j % n, md.writer)
        assert fast.index == j % n and fast.row_group == 1
        assert fast.to_dict() == slow.to_dict()
        assert fast.byte_range(10**9) == slow.byte_range(10**9)
    theirs = pq.read_metadata(many_chunks).row_group(1)
    assert [rg.column(j).path_in_schema for j in range(n)] == [theirs.column(j).path_in_schema for j in range(n)]


def test_chunk_wrapper_pickles_and_decodes_its_statistics_after(many_chunks):
    import pickle

    md = pc.read_metadata(many_chunks)
    chunk = pickle.loads(pickle.dumps(md.row_group(2).column(1)))
    theirs = pq.read_metadata(many_chunks).row_group(2).column(1).statistics
    assert (chunk.statistics.min, chunk.statistics.max) == (theirs.min, theirs.max)
    assert chunk.statistics is chunk.statistics     # decoded once


def test_lazy_chunk_metadata_has_no_getattr_hook():
    # A class with __getattr__ has every attribute read take CPython's generic lookup (not
    # specialised): the skipped fields load through per-field descriptors instead.
    from parquet_core.thrift.lazy_footer import LazyColumnMetaData

    assert not [c for c in LazyColumnMetaData.__mro__ if "__getattr__" in vars(c)]


def test_skipped_fields_load_on_first_read_and_accept_assignment(many_chunks):
    md = pc.read_metadata(many_chunks)
    theirs = pq.read_metadata(many_chunks).row_group(3).column(2)
    meta = md.row_group(3).column(2).meta
    assert not meta.loaded("encodings") and not meta.loaded("path_in_schema")
    assert meta.path_in_schema == ["c2"]
    assert sorted(meta.encodings) == sorted(getattr(pt.Encoding, e) for e in theirs.encodings)
    meta.encoding_stats = ["mine"]      # an assignment wins over the deferred decode
    assert meta.encoding_stats == ["mine"]
    assert md.row_group(3).column(2).meta.encoding_stats == ["mine"]


@pytest.mark.parametrize("pickled", [False, True])
def test_row_group_follows_an_assigned_raw_list(many_chunks, pickled):
    import pickle

    md = pc.read_metadata(many_chunks)
    if pickled:
        md = pickle.loads(pickle.dumps(md))
    first, last = md.row_group(1), md.row_group(5)
    assert md.row_group(1) is first and md.row_group(5) is last    # the wrappers are kept
    md.raw.row_groups = md.raw.row_groups[:2]    # as dataset/metadata_update.py does
    assert md.num_row_groups == 2
    with pytest.raises(IndexError):
        md.row_group(5)
