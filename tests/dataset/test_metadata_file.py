"""``_metadata`` / ``_common_metadata``: planning from the summary without opening data footers,
column chunks read through ``file_path``, and summaries pyarrow reads."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc

from ._helpers import assert_same, oracle


def _table(n=400):
    return pa.table({"n": np.arange(n), "k": [i % 4 for i in range(n)], "s": [f"s{i % 7}" for i in range(n)]})


@pytest.fixture
def summarised(tmp_path, store):
    local = tmp_path / "src"
    collector = []
    pq.write_to_dataset(_table(), str(local), partition_cols=["k"], metadata_collector=collector,
                        row_group_size=25)
    schema = _table().schema.remove(1)
    pq.write_metadata(schema, str(local / "_metadata"), metadata_collector=collector)
    pq.write_metadata(schema, str(local / "_common_metadata"))
    return store, store.upload(str(local)), str(local)


@pytest.mark.parametrize("filters", [None, [("k", "==", 2)], [("n", "<", 60)], [("k", ">", 0), ("s", "==", "s3")]])
def test_plan_from_metadata_without_opening_footers(summarised, filters, monkeypatch):
    store, root, local = summarised
    d = pc.ParquetDataset(root, **store.kwargs)
    assert d.summary is not None
    monkeypatch.setattr(pc.ParquetDataset, "open_fragment", lambda self, frag: pytest.fail("footer opened"))
    assert d.schema.names == ["n", "s", "k"]
    expr = None if filters is None else pq.filters_to_expression(filters)
    assert_same(d.read(filters=filters), oracle(local, expr))


def test_metadata_file_is_a_parquet_file_reading_other_files(tmp_path):
    local = tmp_path / "m"
    collector = []
    pq.write_to_dataset(_table(), str(local), partition_cols=["k"], metadata_collector=collector)
    pq.write_metadata(_table().schema.remove(1), str(local / "_metadata"), metadata_collector=collector)
    with pc.ParquetFile(str(local / "_metadata")) as pf:
        got = pf.read(["n"]).to_arrow().column("n").to_pylist()
    assert sorted(got) == list(range(400))
    # the spec's external column data: a file_path leaving the folder is refused
    md = pc.read_metadata(str(local / "_metadata"))
    md.raw.row_groups[0].columns[0].file_path = "../escape.parquet"
    evil = tmp_path / "evil"
    evil.mkdir()
    pc.write_metadata(pc.read_schema(str(local / "_metadata")), str(evil / "_metadata"), metadata_collector=[md])
    with pytest.raises(pc.ParquetFormatError, match="relative path"):
        pc.ParquetFile(str(evil / "_metadata")).read(["n"])


def test_write_metadata_read_by_pyarrow(tmp_path):
    root = tmp_path / "ours"
    collector = []
    pc.write_to_dataset(_table(), str(root), partition_cols=["k"], metadata_collector=collector,
                        row_group_size=50)
    schema = pc.ParquetDataset(str(root)).schema
    data_schema = pc.schema([f for f in schema if f.name != "k"])
    pc.write_metadata(data_schema, str(root / "_metadata"), metadata_collector=collector)
    pc.write_metadata(data_schema, str(root / "_common_metadata"))
    theirs = ds.parquet_dataset(str(root / "_metadata"), partitioning="hive").to_table()
    assert_same(pc.read_table(str(root)), theirs)
    md = pq.read_metadata(str(root / "_metadata"))
    assert md.num_rows == 400 and md.num_row_groups == 4 * 2
    assert all(md.row_group(i).column(0).file_path.startswith("k=") for i in range(md.num_row_groups))
    assert pq.read_schema(str(root / "_common_metadata")).names == ["n", "s"]
    with pytest.raises(pc.ParquetSchemaError):
        pc.write_metadata(pc.schema([pc.field("other", pc.int64())]), str(tmp_path / "_x"),
                          metadata_collector=collector)


def test_read_metadata_of_a_folder_merges_footers(tmp_path):
    root = tmp_path / "f"
    pq.write_to_dataset(_table(), str(root), partition_cols=["k"])
    md = pc.read_metadata(str(root))
    assert md.num_rows == 400 and md.num_row_groups == 4
    assert {md.row_group(i).column(0).file_path.split("/")[0] for i in range(4)} == {"k=0", "k=1", "k=2", "k=3"}


@settings(max_examples=30, deadline=None)
def _pyarrow_summary(table, names, drop, rows_per_group) -> bytes:
    """A _metadata written by pyarrow over one file per name (``k=<i>/<name>.parquet``; the
    files at the indexes in *drop* get no file_path), file i cut in row groups of
    ``rows_per_group(i)`` rows."""
    import io as _io

    collected = []
    for i, name in enumerate(names):
        buf = _io.BytesIO()
        pq.write_table(table, buf, row_group_size=rows_per_group(i))
        md = pq.read_metadata(_io.BytesIO(buf.getvalue()))
        if i not in drop:
            md.set_file_path(f"k={i}/{name}.parquet")
        collected.append(md)
    out = _io.BytesIO()
    pq.write_metadata(table.schema, out, metadata_collector=collected)
    return out.getvalue()


@given(names=st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
                              min_size=1, max_size=150), min_size=1, max_size=6),
       groups=st.lists(st.integers(1, 3), min_size=6, max_size=6), columns=st.integers(1, 3),
       drop=st.sets(st.integers(0, 5)))
def test_summary_groups_fast_path_matches_decoding(names, groups, columns, drop):
    """The file paths picked out of a _metadata's bytes equal the decoded row groups' (pyarrow
    writes the summary): multi-byte and long (two-byte varint) paths, files without paths."""
    import io as _io

    from parquet_core.dataset.metadata_file import summary_groups
    from parquet_core.file.footer import read_footer
    from parquet_core.file.source import BufferSource

    table = pa.table({f"c{i}": np.arange(4) for i in range(columns)})
    data = _pyarrow_summary(table, names, drop, lambda i: max(1, 4 // groups[i]))
    fast = summary_groups(read_footer(BufferSource(data))[0])
    slow = summary_groups(read_footer(BufferSource(data))[0], fast=False)
    # the oracle: pyarrow's own view of the summary
    theirs: dict[str, list[int]] = {}
    whole = pq.read_metadata(_io.BytesIO(data))
    for i in range(whole.num_row_groups):
        path = whole.row_group(i).column(0).file_path
        if path:
            theirs.setdefault(path, []).append(i)
    assert fast == slow == theirs


@pytest.mark.parametrize("run_files", [1, 2, 3, 1000])
@pytest.mark.parametrize("columns", [None, ["s", "k", "j"], ["k"], ["n"]])
def test_summary_read_in_runs_of_files(tmp_path, monkeypatch, run_files, columns):
    """Files planned from _metadata are read several at a time; the per-file partition values
    (with nulls, two levels, files of several row groups and of none) equal pyarrow's."""
    from parquet_core.dataset import dataset as dataset_mod

    n = 90
    table = pa.table({"n": np.arange(n), "s": [f"s{i % 5}" for i in range(n)],
                      "k": pa.array([None if i % 4 == 3 else i % 4 for i in range(n)], pa.int64()),
                      "j": [f"j/{i % 2}" for i in range(n)]})
    local = tmp_path / "src"
    collector = []
    pq.write_to_dataset(table, str(local), partition_cols=["k", "j"], metadata_collector=collector,
                        row_group_size=7)
    pq.write_metadata(table.schema.remove(3).remove(2), str(local / "_metadata"), metadata_collector=collector)
    monkeypatch.setattr(dataset_mod, "SUMMARY_RUN_FILES", run_files)
    seen = []
    d = pc.ParquetDataset(str(local))
    assert d.summary is not None
    monkeypatch.setattr(pc.ParquetDataset, "_read_one", lambda *a: pytest.fail("read file by file"))
    got = d.read(columns, progress=lambda done, total: seen.append((done, total)))
    theirs = oracle(str(local), columns=columns)
    if columns is None or "n" in columns:
        assert_same(got, theirs)
    else:
        order = [(c, "ascending") for c in columns]
        # decoded first (pyarrow cannot sort the dictionaries pyarrow.parquet reads partitions as)
        assert_same(got.to_arrow().cast(theirs.schema).sort_by(order), theirs.sort_by(order), sort_by=None)
    assert seen[-1] == (len(d.files), len(d.files))
    # a partition filter keeps whole files: still read in runs
    assert_same(d.read(filters=[("j", "==", "j/1")]), oracle(str(local), pa.compute.field("j") == "j/1"))


def _summary_bytes() -> bytes:
    import io as _io

    table = pa.table({"a": np.arange(6), "b": [f"x{i}" for i in range(6)]})
    collected = []
    for i in range(3):
        buf = _io.BytesIO()
        pq.write_table(table, buf, row_group_size=3)
        md = pq.read_metadata(_io.BytesIO(buf.getvalue()))
        md.set_file_path(f"k={i}/part-{i}.parquet")
        collected.append(md)
    out = _io.BytesIO()
    pq.write_metadata(table.schema, out, metadata_collector=collected)
    return out.getvalue()


_SUMMARY = None


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_summary_groups_on_mutated_footers(data):
    """A corrupted _metadata: the fast path raises nothing but ParquetError, and agrees with
    the decoding path whenever both succeed."""
    global _SUMMARY
    from parquet_core.dataset.metadata_file import summary_groups
    from parquet_core.errors import ParquetError
    from parquet_core.file.footer import read_footer
    from parquet_core.file.source import BufferSource

    if _SUMMARY is None:
        _SUMMARY = _summary_bytes()
    raw = bytearray(_SUMMARY)
    (n,) = __import__("struct").unpack("<I", raw[-8:-4])
    start = len(raw) - 8 - n
    for _ in range(data.draw(st.integers(1, 3))):
        pos = data.draw(st.integers(start, len(raw) - 9))
        raw[pos] = data.draw(st.integers(0, 255))
    results = []
    for fast in (True, False):
        try:
            footer = read_footer(BufferSource(bytes(raw)))[0]
            results.append(summary_groups(footer, fast=fast))
        except ParquetError:
            results.append(None)
    if results[0] is not None and results[1] is not None and results[0] != results[1]:
        # the byte pick and the decoder read a damaged row group differently (a field
        # repeated later wins in Thrift): reading those row groups must refuse, never
        # hand them to the file the pick named
        from parquet_core.dataset.metadata_file import Summary
        from parquet_core.file.reader import ParquetFile

        differ = sorted({g for rel, gs in results[0].items() if results[1].get(rel) != gs for g in gs})
        assert differ
        # "damaged", the row group does not decode, or the file is refused at open (its
        # checks go further than read_footer's): each is a refusal
        with pytest.raises(ParquetError):
            Summary(ParquetFile(bytes(raw)), results[0]).verify(differ)


def test_summary_row_group_whose_decoded_path_differs_is_refused():
    """A footer byte pattern the fast pick reads one way and the decoder another (found by
    the property test above: a ColumnChunk's field header turned into a second file_path)."""
    import struct

    from parquet_core.dataset.metadata_file import Summary, summary_groups
    from parquet_core.errors import ParquetError
    from parquet_core.file.footer import read_footer
    from parquet_core.file.reader import ParquetFile
    from parquet_core.file.source import BufferSource

    raw = bytearray(_summary_bytes())
    (n,) = struct.unpack("<I", raw[-8:-4])
    start = len(raw) - 8 - n
    raw[start + 999], raw[start + 976] = 195, 150
    footer = read_footer(BufferSource(bytes(raw)))[0]
    fast, slow = summary_groups(footer, fast=True), summary_groups(footer, fast=False)
    assert fast != slow, "the sample _metadata changed: pick two bytes again (the property test finds them)"
    differ = sorted({g for rel, gs in fast.items() if slow.get(rel) != gs for g in gs})
    with pytest.raises(ParquetError):   # "damaged", or the row group does not decode
        Summary(ParquetFile(bytes(raw)), fast).verify(differ)


@settings(max_examples=15, deadline=None)
@given(names=st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
                              min_size=1, max_size=150), min_size=16, max_size=40),
       drop=st.sets(st.integers(0, 39), max_size=8))
def test_summary_groups_of_many_row_groups_as_pyarrow(names, drop):
    """Enough row groups for the array path of the file-path pick (16 or more): short,
    multi-byte, 128-byte-and-longer (two-byte length) and missing paths, against pyarrow."""
    import io as _io

    from parquet_core.dataset.metadata_file import summary_groups
    from parquet_core.file.footer import read_footer
    from parquet_core.file.source import BufferSource

    table = pa.table({"a": np.arange(2), "b": ["x", "y"]})
    data = _pyarrow_summary(table, names, drop, lambda i: 1 + i % 2)
    theirs: dict[str, list[int]] = {}
    whole = pq.read_metadata(_io.BytesIO(data))
    for i in range(whole.num_row_groups):
        path = whole.row_group(i).column(0).file_path
        if path:
            theirs.setdefault(path, []).append(i)
    assert summary_groups(read_footer(BufferSource(data))[0]) == theirs
