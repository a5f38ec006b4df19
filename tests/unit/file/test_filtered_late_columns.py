"""Filtered reads that check the filter first and read the other columns at the matching rows only.

``parquet_core.file.filtered._read_matching``: for a row group with candidate
rows from the page index, the filter's columns are read at the candidate rows
and checked, then every other output field is read only at the rows that
matched (its pages holding them).  These tests pin the result against
pyarrow's filtered read (an independent reader) on random files written by
pyarrow with small pages and a page index: flat and nested fields, nulls,
empty strings, dictionary and plain pages, INT96 timestamps, row groups where
nothing matches, filters on several columns; and against pyarrow with
``read_dictionary``.  Then that the other columns really read fewer pages,
that the planner's stage skipping decides as the full stages do, and that
``iter_batches(filters=)`` keeps its edge behaviour.
"""

from __future__ import annotations

import datetime

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _table(rng: np.random.Generator, n: int, null_share: float) -> "pa.Table":
    ids = np.sort(rng.integers(0, 4 * n + 1, n)).astype(np.int64)   # sorted, with repeats

    def nulls() -> "np.ndarray | None":
        return rng.random(n) < null_share if null_share else None

    k = pa.array(rng.integers(-3, 4, n).astype(np.int32), pa.int32(), mask=nulls())
    x = pa.array(rng.standard_normal(n), pa.float64(), mask=nulls())
    words = np.array(["", "a", "bb", "ccc", "a longer value than eight bytes", "é"], dtype=object)
    s = pa.array(words[rng.integers(0, len(words), n)].tolist(), pa.string(), mask=nulls())   # typed: all-null stays string
    base = datetime.datetime(2024, 1, 1)
    t = pa.array([base + datetime.timedelta(milliseconds=int(v)) for v in rng.integers(0, 10**9, n)],
                 pa.timestamp("ms"))
    st_mask = nulls()
    st_arr = pa.StructArray.from_arrays([pa.array(ids * 2), s], names=["a", "b"], mask=st_mask
                                        if st_mask is None else pa.array(st_mask))
    lists = pa.array([None if null_share and rng.random() < null_share else
                      list(range(int(v) % 4)) for v in ids], pa.list_(pa.int64()))
    allnull = pa.nulls(n, pa.int64())
    return pa.table({"id": ids, "k": k, "x": x, "s": s, "t": t, "st": st_arr, "l": lists, "z": allnull})


def _write(table: "pa.Table", path, page_rows: int, row_group: int, dictionary: bool) -> None:
    pq.write_table(table, path, row_group_size=row_group, data_page_size=1, write_batch_size=page_rows,
                   write_page_index=True, use_dictionary=["k", "s"] if dictionary else False,
                   use_deprecated_int96_timestamps=True, compression="snappy")


def _same(got: "pa.Table", want: "pa.Table") -> None:
    assert got.num_rows == want.num_rows
    assert got.column_names == want.column_names
    for name in want.column_names:
        assert got.column(name).to_pylist() == want.column(name).to_pylist(), name


def _iter_read(path, filters, columns=None, **kw) -> "pa.Table":
    pf = pc.ParquetFile(path, **kw)
    parts = [b.to_arrow() for b in pf.iter_batches(batch_size=7, columns=columns, filters=filters,
                                                    use_threads=False)]
    want_schema = pc.ParquetFile(path, **kw).read(columns=columns).to_arrow().schema
    return pa.Table.from_batches([], want_schema) if not parts else pa.concat_tables(parts)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 300), null_share=st.sampled_from([0.0, 0.2, 1.0]),
       page_rows=st.integers(1, 40), row_group=st.integers(5, 200), dictionary=st.booleans(),
       lo=st.integers(-5, 1300), width=st.integers(0, 200), extra=st.sampled_from(
           [None, ("k", ">=", 0), ("s", "==", "bb"), ("x", "<", 0.5), ("st.a", "<", 400)]),
       threads=st.booleans())
def test_filtered_reads_equal_pyarrows(tmp_path_factory, seed, n, null_share, page_rows, row_group,
                                       dictionary, lo, width, extra, threads):
    rng = np.random.default_rng(seed)
    table = _table(rng, n, null_share)
    path = tmp_path_factory.mktemp("late") / "f.parquet"
    _write(table, path, page_rows, row_group, dictionary)
    filters = [("id", ">=", lo), ("id", "<=", lo + width)]
    if extra is not None:
        filters.append(extra)
    want = pq.read_table(path, filters=filters if extra is None or extra[0] != "st.a" else None)
    if extra is not None and extra[0] == "st.a":   # pyarrow's filters= cannot name a struct field
        import pyarrow.compute as pac

        want = want.filter(pac.and_(pac.and_(pac.greater_equal(want["id"], lo),
                                             pac.less_equal(want["id"], lo + width)),
                                    pac.less(pac.struct_field(want["st"], "a"), 400)))
    _same(pc.read_table(path, filters=filters, use_threads=threads).to_arrow(), want)
    _same(_iter_read(path, filters), want)
    # the filter's column not among the output columns; and only non-filter columns
    _same(_iter_read(path, filters, columns=["t", "s", "l"]), want.select(["t", "s", "l"]))
    _same(_iter_read(path, filters, columns=["id", "z"]), want.select(["id", "z"]))
    # no output column at all (a count): still the matching rows only
    assert sum(b.num_rows for b in pc.ParquetFile(path).iter_batches(columns=[], filters=filters)) == want.num_rows


def test_kept_dictionaries_equal_pyarrows(tmp_path):
    rng = np.random.default_rng(3)
    table = _table(rng, 500, 0.1)
    path = tmp_path / "d.parquet"
    _write(table, path, 16, 120, True)
    filters = [("id", ">=", 700), ("id", "<=", 900)]
    want = pq.read_table(path, filters=filters, read_dictionary=["s"])
    got = pc.read_table(path, filters=filters, read_dictionary=["s"]).to_arrow()
    assert pa.types.is_dictionary(got.schema.field("s").type)
    _same(got, want)


def test_other_columns_read_only_the_pages_of_matching_rows(tmp_path, monkeypatch):
    """ids are even, the filter keeps an odd one: its page is a candidate, no row matches,
    so the other columns read no data page at all; a match reads one page per column."""
    from parquet_core.file.chunk_reader import ColumnChunkReader

    n = 4000
    table = pa.table({"id": np.arange(n, dtype=np.int64) * 2, "x": np.arange(n) * 0.5,
                      "s": pa.array([f"v{i % 7}" for i in range(n)])})
    path = tmp_path / "even.parquet"
    pq.write_table(table, path, data_page_size=1, write_batch_size=100, write_page_index=True,
                   use_dictionary=["s"])
    read: list[str] = []
    real = ColumnChunkReader.page_at

    def counting(self, oi, i, num_rows):
        read.append(self.descriptor.dotted_path)
        return real(self, oi, i, num_rows)

    monkeypatch.setattr(ColumnChunkReader, "page_at", counting)
    got = pc.read_table(path, filters=[("id", "==", 1001)], use_threads=False)
    assert got.num_rows == 0 and got.column_names == ["id", "x", "s"]
    assert read == ["id"]
    read.clear()
    got = pc.read_table(path, filters=[("id", "==", 1000)], use_threads=False).to_arrow()
    assert got.to_pylist() == [{"id": 1000, "x": 250.0, "s": "v3"}]
    assert sorted(read) == ["id", "s", "x"]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), leaf=st.sampled_from(
    [("k", "==", 2), ("k", "in", [1, 9]), ("s", "==", "bb"), ("s", "in", ["zz", "a"]), ("k", "!=", 1),
     ("s", ">", "ccc"), ("id", "==", 17), ("id", "in", [3, 500]), ("c", "==", "b"), ("c", "in", ["b", "q"]),
     ("c", "!=", "b")]), other=st.sampled_from(
    [None, ("id", ">=", 100), ("x", "<", 0.0)]), dictionary=st.booleans(), bloom=st.booleans())
def test_stage_skipping_decides_as_the_full_stages(tmp_path_factory, seed, leaf, other, dictionary, bloom):
    """The planner refines only the columns that have a dictionary / Bloom filter and skips a
    stage none of them has; the reference here runs every stage on every column."""
    from parquet_core.file.pushdown import _once, _stat_bounds, bloom_columns
    from parquet_core.predicate import from_filters, may_match, negation_normal_form

    rng = np.random.default_rng(seed)
    table = _table(rng, 300, 0.1)
    # row groups of 30 rows alternate between the values {"a", "c"} and {"b"}: min/max admit
    # "b" everywhere, the dictionaries of the first kind do not
    c = np.where((np.arange(300) // 30) % 2 == 0, np.where(rng.random(300) < 0.5, "a", "c"), "b")
    table = table.append_column("c", pa.array(c.tolist()))
    path = tmp_path_factory.mktemp("stages") / "f.parquet"
    pq.write_table(table, path, row_group_size=30, write_page_index=True,
                   use_dictionary=["k", "s", "c"] if dictionary else False,
                   bloom_filter_options={"id": {"ndv": 30}, "s": {"ndv": 10}} if bloom else None)
    filters = [leaf] if other is None else [leaf, other]
    pf = pc.ParquetFile(path)
    report = pf.explain(filters)
    nnf = negation_normal_form(from_filters(filters))
    want_stats, want_dict, want_bloom = [], [], []
    for rg in range(pf.num_row_groups):
        if not may_match(nnf, _once(lambda c, rg=rg: _stat_bounds(pf.planner, rg, c, False, expr=nnf))):
            want_stats.append(rg)
        elif not may_match(nnf, _once(lambda c, rg=rg: _stat_bounds(pf.planner, rg, c, False, dictionary=True,
                                                                     expr=nnf))):
            want_dict.append(rg)
        elif bloom_columns(nnf) and not may_match(
                nnf, _once(lambda c, rg=rg: _stat_bounds(pf.planner, rg, c, True, expr=nnf))):
            want_bloom.append(rg)
    assert report.pruned_by_statistics == want_stats
    assert report.pruned_by_dictionary == want_dict
    assert report.pruned_by_bloom_filter == want_bloom
    _same(pc.read_table(path, filters=filters).to_arrow(), pq.read_table(path, filters=filters))


def test_iter_batches_filters_over_no_row_groups_yields_nothing(tmp_path):
    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), path)
    pf = pc.ParquetFile(path)
    # as before: nothing is planned (not even the filter parsed) when no row group is asked for
    assert list(pf.iter_batches(row_groups=[], filters="not a filter")) == []
    with pytest.raises(TypeError):
        list(pf.iter_batches(filters="not a filter"))
    with pytest.raises(ValueError):
        list(pf.iter_batches(filters=[("nope", "==", 1)]))


def test_iter_batches_filters_over_many_row_groups(tmp_path):
    n = 1000
    table = pa.table({"id": np.arange(n), "v": [f"r{i}" for i in range(n)]})
    path = tmp_path / "f.parquet"
    pq.write_table(table, path, row_group_size=64, data_page_size=1, write_batch_size=8, write_page_index=True)
    filters = [[("id", "<", 30)], [("id", ">=", 500), ("id", "<", 700)], [("v", "==", "r999")]]
    want = pq.read_table(path, filters=filters)
    got = pa.concat_tables(b.to_arrow() for b in pc.ParquetFile(path).iter_batches(batch_size=50, filters=filters))
    _same(got, want)
    got = pa.concat_tables(b.to_arrow() for b in pc.ParquetFile(path).iter_batches(
        batch_size=50, filters=filters, row_groups=[7, 0, 9]))
    want = pa.concat_tables(pq.ParquetFile(path).read_row_group(i) for i in [7, 0, 9])
    mask = [(i < 30) or (500 <= i < 700) or i == 999 for i in want.column("id").to_pylist()]
    _same(got, want.filter(pa.array(mask)))
