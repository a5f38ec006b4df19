"""``filters=`` on files: the same rows as pyarrow's ``read_table(filters=...)``, and real pruning.

Files written by pyarrow and by parquet_core (several row groups, small
pages, Bloom filters on some columns; unsorted and sorted), random
predicates from the same generator as the in-memory test: the rows we
return equal pyarrow's, in order.  Then targeted checks that the pruning
happens: statistics on a sorted column, Bloom filters on an unsorted
high-cardinality one.
"""

from __future__ import annotations

import datetime
import decimal
import io
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.predicate import from_filters
from tests._support.predicate_tables import TABLES, predicates
from tests._support.predicate_tables import to_arrow as _to_arrow

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pac = pytest.importorskip("pyarrow.compute")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("pushdown")
    out = {}
    for seed, table in TABLES.items():
        for order in ("raw", "sorted"):
            t = table.sort_by([("i", "ascending"), ("s", "ascending")]) if order == "sorted" else table
            p = d / f"pa-{seed}-{order}.parquet"
            pq.write_table(t, p, row_group_size=25, data_page_size=64, write_batch_size=5, write_statistics=True,
                           write_page_index=True)
            out[("pa", seed, order)] = (p, t)
            p = d / f"pc-{seed}-{order}.parquet"
            pc.write_table(t, p, row_group_size=25, data_page_size=256, data_page_row_count_limit=6,
                           bloom_filter_options={"s": True, "i": True, "u": True, "dec": True})
            out[("pc", seed, order)] = (p, t)
    return out


@settings(max_examples=120, deadline=None, derandomize=True)
@given(data=st.data(), seed=st.integers(0, 3), writer=st.sampled_from(["pa", "pc"]),
       order=st.sampled_from(["raw", "sorted"]))
def test_filtered_read_equals_pyarrows(files, data, seed, writer, order):
    path, table = files[(writer, seed, order)]
    expr = data.draw(predicates(TABLES[seed]))
    ours = pc.read_table(path, filters=expr).to_arrow()
    try:
        theirs = pq.read_table(path, filters=_to_arrow(expr, table.schema))
    except pa.ArrowNotImplementedError:
        # pyarrow 26's dataset layer fails on some row-group statistics of date columns
        # ("Unsupported cast from int64 to date32"); its in-memory filter is the same oracle
        theirs = pq.read_table(path).filter(_to_arrow(expr, table.schema))
    assert ours.num_rows == theirs.num_rows, expr
    for name in ("i", "s", "t", "dec"):
        assert ours.column(name).to_pylist() == theirs.column(name).to_pylist(), (expr, name)
    # the same through iter_batches
    batches = list(pc.ParquetFile(path).iter_batches(batch_size=7, filters=expr))
    assert sum(b.num_rows for b in batches) == ours.num_rows


DNF = [
    [("i", ">", 10)],
    [("i", "<=", -3), ("s", "!=", "w1")],
    [[("s", "in", ["w1", "w2w2"])], [("d", "<", datetime.date(2019, 4, 20))]],
    [("dec", ">=", decimal.Decimal("12.5")), ("flag", "==", True)],
    [("i", "not in", [1, 2, 3])],
    # (no uint64 case: pyarrow's DNF casts such a column to int64 and fails on large values;
    #  the hypothesis test above compares uint64 filters through typed pyarrow scalars)
]


@pytest.mark.parametrize("filters", DNF, ids=range(len(DNF)))
@pytest.mark.parametrize("writer", ["pa", "pc"])
def test_dnf_lists_equal_pyarrows(files, filters, writer):
    path, _ = files[(writer, 1, "raw")]
    ours = pc.read_table(path, filters=filters).to_arrow()
    theirs = pq.read_table(path, filters=filters)
    assert ours.column("i").to_pylist() == theirs.column("i").to_pylist()
    assert ours.column("s").to_pylist() == theirs.column("s").to_pylist()
    assert from_filters(filters) is not None


def test_statistics_prune_a_sorted_column(tmp_path):
    n = 200_000
    path = tmp_path / "sorted.parquet"
    pc.write_table({"id": np.arange(n), "v": np.random.default_rng(0).standard_normal(n)}, path,
                   row_group_size=10_000)
    pf = pc.ParquetFile(path)
    report = pf.explain([("id", "==", 123_456)])
    assert report.kept == [12] and len(report.pruned_by_statistics) == 19
    assert report.bytes_kept < 0.06 * report.bytes_total
    got = pc.read_table(path, filters=[("id", "==", 123_456)])
    assert got.column("id").to_pylist() == [123_456]


def test_bloom_filters_skip_every_row_group_lacking_the_value(tmp_path):
    rng = np.random.default_rng(2)
    n = 100_000
    keys = rng.permutation(n) * 7919 % (10**9 + 7)         # unsorted, all distinct
    path = tmp_path / "bloom.parquet"
    pc.write_table({"key": keys, "x": np.arange(n)}, path, row_group_size=10_000,
                   bloom_filter_options={"key": {"fpp": 0.01}})
    pf = pc.ParquetFile(path)
    target_rg = 7
    value = int(keys[target_rg * 10_000 + 123])
    report = pf.explain([("key", "==", value)])
    assert report.pruned_by_statistics == []                # min/max cannot help here
    assert report.kept == [target_rg], report
    assert pc.read_table(path, filters=[("key", "==", value)]).column("x").to_pylist() == [target_rg * 10_000 + 123]
    absent = [int(v) for v in rng.integers(10**9 + 8, 2 * 10**9, 50)]
    kept = sum(len(pf.explain([("key", "==", v)]).kept) for v in absent)
    assert kept <= 0.03 * 50 * 10                           # ~1 % false positives per row group


def test_unknown_filter_column_is_an_error(tmp_path):
    path = tmp_path / "x.parquet"
    pc.write_table({"a": np.arange(10)}, path)
    with pytest.raises(ValueError, match="no column named 'b'"):
        pc.read_table(path, filters=[("b", "==", 1)])
    with pytest.raises(ValueError, match="cannot compare"):
        pc.read_table(path, filters=[("a", "==", "text")])


@pytest.mark.parametrize("writer", ["pa", "pc"])
def test_dictionaries_prune_values_they_lack(tmp_path, writer):
    rng = np.random.default_rng(4)
    n = 60_000
    # each row group holds its own few letters plus "zz": statistics span a..zz everywhere
    vals = [f"{chr(97 + (i // 10_000) * 2)}{int(rng.integers(0, 9))}" if i % 2 else "zz" for i in range(n)]
    path = tmp_path / f"{writer}.parquet"
    t = pa.table({"s": vals, "i": np.arange(n)})
    if writer == "pa":
        pq.write_table(t, path, row_group_size=10_000)
    else:
        pc.write_table(t, path, row_group_size=10_000)
    pf = pc.ParquetFile(path)
    report = pf.explain([("s", "==", "b5")])         # between the bounds of every row group, in none
    assert report.kept == [] and report.pruned_by_dictionary, report
    report = pf.explain([("s", "in", ["c3", "e3"])])
    assert report.kept == [1, 2], report
    assert pc.read_table(path, filters=[("s", "in", ["c3", "e3"])]).num_rows == \
        pq.read_table(path, filters=[("s", "in", ["c3", "e3"])]).num_rows > 0


def test_no_dictionary_pruning_when_the_chunk_fell_back(tmp_path):
    n = 20_000
    vals = np.concatenate([np.arange(n // 2) % 7, np.arange(n // 2) + 1_000_000])   # distinct values overflow
    path = tmp_path / "fallback.parquet"
    pc.write_table({"x": vals}, path, dictionary_pagesize_limit=1024)
    pf = pc.ParquetFile(path)
    target = int(vals[-5])                              # only in a fallback (PLAIN) page
    assert pf.explain([("x", "==", target)]).kept == [0]
    assert pc.read_table(path, filters=[("x", "==", target)]).column("x").to_pylist() == [target]


def _filterable(arrow_type) -> bool:
    t = arrow_type.value_type if pa.types.is_dictionary(arrow_type) else arrow_type
    return (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_string(t)
            or pa.types.is_binary(t) or pa.types.is_date(t) or pa.types.is_decimal(t))


def _corpus_cases():
    """Corpus files pyarrow reads that have at least one flat column a comparison applies to."""
    from tests._support.corpus import CORRUPT_CHECKSUM, FILES, ORACLE_CANNOT_READ, corpus_dir
    from tests._support.corpus import flat_columns as _flat_columns

    out = []
    for f in FILES:
        if f in ORACLE_CANNOT_READ or f.split("/")[-1] in CORRUPT_CHECKSUM or f.startswith("geospatial/"):
            continue
        flat, _ = _flat_columns(corpus_dir() / f)
        schema = pq.read_schema(corpus_dir() / f)
        if any(_filterable(schema.field(c).type) for c in flat if c in schema.names):
            out.append(f)
    return out


@pytest.mark.parametrize("name", _corpus_cases())
def test_filters_on_other_writers_files(corpus, name):
    """Statistics, dictionaries and Bloom filters of parquet-mr, Impala, parquet-cpp... never lose rows."""
    from tests._support.corpus import flat_columns as _flat_columns

    path = corpus / name
    flat, _ = _flat_columns(path)
    theirs_all = pq.read_table(path, columns=flat)
    checked = 0
    for col in flat:
        arr = theirs_all.column(col)
        t = arr.type
        if pa.types.is_dictionary(t):
            t = t.value_type
        if not _filterable(t):
            continue
        values = [v for v in arr.to_pylist() if v is not None and v == v]
        if values:
            pick = sorted(values, key=lambda v: v.encode() if isinstance(v, str) else v)[len(values) // 3]
        else:   # empty or all-null / all-NaN: any literal of the type, and nothing may match
            pick = ("" if pa.types.is_string(t) else b"" if pa.types.is_binary(t)
                    else datetime.date(2000, 1, 1) if pa.types.is_date(t)
                    else decimal.Decimal(0) if pa.types.is_decimal(t) else 0)
        oracle = theirs_all
        if pa.types.is_float16(t):   # pyarrow has no float16 comparisons; float32 holds the same values
            i = oracle.column_names.index(col)
            oracle = oracle.set_column(i, col, oracle.column(col).cast(pa.float32()))
        for op in ("==", ">="):
            expr = [(col, op, pick)]
            ours = pc.read_table(path, columns=flat, filters=expr).to_arrow()
            want = oracle.filter(_to_arrow(pc.col(col) == pick if op == "==" else
                                               (pc.col(col) < pick if op == "<" else pc.col(col) >= pick),
                                               oracle.schema))
            assert ours.num_rows == want.num_rows, (name, col, op, pick)
            checked += 1
    assert checked > 0


def test_filters_with_nested_columns(tmp_path):
    """Nested output columns are filtered row-wise; a struct leaf can be filtered on (null parents are null)."""
    rng = np.random.default_rng(8)
    n = 500
    lists = [None if k % 11 == 0 else [int(v) for v in rng.integers(0, 9, k % 4)] for k in range(n)]
    structs = [None if k % 7 == 0 else {"x": int(k % 13), "y": f"y{k}"} for k in range(n)]
    maps = [[(f"k{j}", j * k) for j in range(k % 3)] for k in range(n)]
    t = pa.table({"id": np.arange(n), "l": pa.array(lists, pa.list_(pa.int64())),
                  "s": pa.array(structs, pa.struct([("x", pa.int64()), ("y", pa.string())])),
                  "m": pa.array(maps, pa.map_(pa.string(), pa.int64()))})
    path = tmp_path / "nested.parquet"
    pq.write_table(t, path, row_group_size=100)
    for ours_f, theirs_f in [([("id", ">=", 250), ("id", "<", 260)], [("id", ">=", 250), ("id", "<", 260)]),
                             ([("s.x", "==", 3)], pac.field(("s", "x")) == 3),
                             ((pc.col("s.x") > 10) | (pc.col("id") == 5), None)]:
        ours = pc.read_table(path, filters=ours_f)
        if theirs_f is None:
            want = t.filter((pac.field(("s", "x")) > 10) | (pac.field("id") == 5))
        else:
            want = pq.read_table(path, filters=theirs_f)
        assert ours.num_rows == want.num_rows > 0
        for name in ("id", "l", "s", "m"):
            assert ours.column(name).to_pylist() == want.column(name).to_pylist(), name


class CountingFile(io.BytesIO):
    """A file object that counts the bytes read from it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.bytes_read = 0

    def read(self, size: int = -1) -> bytes:
        out = super().read(size)
        self.bytes_read += len(out)
        return out

    def readinto(self, b) -> int:  # noqa: ANN001
        n = super().readinto(b)
        self.bytes_read += n
        return n


@pytest.mark.parametrize("writer", ["pa", "pc"])
def test_point_lookup_reads_under_two_percent_of_the_file(tmp_path, writer):
    n = 1_000_000
    rng = np.random.default_rng(6)
    t = pa.table({"id": np.arange(n), "v": rng.standard_normal(n),
                  "s": pa.array([f"name-{i % 5000}" for i in range(n)])})
    path = tmp_path / "sorted.parquet"
    if writer == "pa":
        pq.write_table(t, path, row_group_size=250_000, data_page_size=8192, write_page_index=True)
    else:
        pc.write_table(t, path, row_group_size=250_000, data_page_size=8192)
    raw = path.read_bytes()
    f = CountingFile(raw)
    pf = pc.ParquetFile(f)
    footer = f.bytes_read
    report = pf.explain([("id", "==", 654_321)])
    assert report.kept == [2] and report.pages_read <= 6, report
    got = pf.read(filters=[("id", "==", 654_321)])
    assert got.to_pylist() == [{"id": 654_321, "v": float(t.column("v")[654_321].as_py()),
                                "s": "name-4321"}]
    read = f.bytes_read - footer
    assert read < 0.02 * len(raw), (read, len(raw), report)
    # a range: exactly the rows, pages of one row group
    got = pf.read(columns=["id"], filters=[("id", ">=", 500_100), ("id", "<", 500_200)])
    assert got.column("id").to_pylist() == list(range(500_100, 500_200))


@pytest.mark.parametrize("writer", ["pa", "pc"])
def test_page_index_prunes_pages_of_other_columns_by_rows(tmp_path, writer):
    """A filter on one column picks rows; another column (other page boundaries) reads only its pages over them."""
    n = 20_000
    t = pa.table({"k": np.repeat(np.arange(200), 100), "x": np.arange(n) * 3,
                  "txt": pa.array([f"t{i}" * (1 + i % 5) for i in range(n)])})
    path = tmp_path / "pages.parquet"
    if writer == "pa":
        pq.write_table(t, path, data_page_size=1024, write_page_index=True, use_dictionary=["k"])
    else:
        pc.write_table(t, path, data_page_size=1024)
    pf = pc.ParquetFile(path)
    filt = [("k", "in", [17, 150])]
    report = pf.explain(filt)
    assert report.pages_read < report.pages_indexed / 5, report
    got = pf.read(filters=filt)
    want = pq.read_table(path, filters=filt)
    assert got.column("x").to_pylist() == want.column("x").to_pylist()
    assert got.column("txt").to_pylist() == want.column("txt").to_pylist()


@settings(max_examples=150, deadline=None, derandomize=True)
@given(data=st.data(), seed=st.integers(0, 3), writer=st.sampled_from(["pa", "pc"]),
       order=st.sampled_from(["raw", "sorted"]))
def test_page_rules_as_arrays_equal_the_per_page_rules(files, data, seed, writer, order):
    """Page-index pruning judges all pages of a leaf with array operations; the per-page
    rules of may_match (each page's Bounds) must give the same candidate rows."""
    from parquet_core.file.pushdown import _page_bounds
    from parquet_core.predicate import negation_normal_form
    from parquet_core.predicate.evaluate import candidate_rows

    path, _ = files[(writer, seed, order)]
    expr = negation_normal_form(data.draw(predicates(TABLES[seed])))
    pf = pc.ParquetFile(path)
    for rg in range(pf.num_row_groups):
        stats = {c: _page_bounds(pf, rg, c) for c in expr.columns()}
        if all(v is None for v in stats.values()):
            continue
        n = pf.metadata.row_group(rg).num_rows
        arrays = candidate_rows(expr, n, stats.get)
        per_page = candidate_rows(expr, n, lambda c, s=stats: None if s.get(c) is None else s[c].pages())
        assert arrays.tolist() == per_page.tolist(), (expr, rg)


def test_select_pages_matches_a_loop_over_pages():
    from parquet_core.file.pushdown import select_pages
    from parquet_core.metadata.page_index import OffsetIndex
    from parquet_core.thrift import pt

    rng = np.random.default_rng(5)
    for _ in range(200):
        num_rows = int(rng.integers(1, 200))
        starts = sorted({0, *rng.integers(1, num_rows + 1, size=int(rng.integers(0, 12))).tolist()} - {num_rows})
        raw = pt.OffsetIndex(page_locations=[pt.PageLocation(offset=100 * i, compressed_page_size=10,
                                                              first_row_index=s) for i, s in enumerate(starts)])
        oi = OffsetIndex(raw, "test")
        rows = rng.random(num_rows) < rng.choice([0.0, 0.02, 0.3])
        ends = starts[1:] + [num_rows]
        expected = [i for i, (s, e) in enumerate(zip(starts, ends)) if rows[s:e].any()]
        assert select_pages(oi, num_rows, rows) == expected
