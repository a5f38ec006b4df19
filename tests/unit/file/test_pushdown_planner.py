"""parquet_core.file.pushdown: which row groups and rows ``filters=`` plans to read.

Files are written by pyarrow (an independent writer) with a layout chosen so the
right decision of each stage can be worked out by hand:

* ``x`` = 0..999 in 10 row groups of 100 rows and pages of 10 rows (pyarrow
  closes a page after each ``write_batch_size`` batch once ``data_page_size`` is
  passed: batches of 10 rows and a 1-byte page size give 10-row pages), so row
  group ``g`` holds ``100g..100g+99`` and its page ``p`` holds ``100g+10p..+9``;
* ``s``: row groups alternate between the values {"a", "c"} and {"b"}, dictionary
  encoded, so min/max ("a".."c") admit "b" while the dictionary does not;
* ``y``: nulls only in row group 3;
* ``h``: a Bloom filter per chunk (pyarrow's), values ``7 * x`` so any number
  between them is inside min/max but absent.

Each test also checks that the filtered read equals pyarrow's filtered read, so
pruning never changes the result.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.file.pushdown import RowGroupPlanner, plan_row_groups, select_pages

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

N, RG, PAGE = 1000, 100, 10


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    x = np.arange(N, dtype=np.int64)
    table = pa.table({
        "x": x,
        "s": ["b" if (i // RG) % 2 else ("a" if i % 2 else "c") for i in range(N)],
        "y": pa.array([None if i // RG == 3 and i % 3 == 0 else i for i in range(N)], pa.int64()),
        "h": x * 7,
    })
    p = tmp_path_factory.mktemp("pushdown") / "t.parquet"
    pq.write_table(table, p, row_group_size=RG, data_page_size=1, write_batch_size=PAGE,
                   write_page_index=True, use_dictionary=["s"],
                   bloom_filter_options={"h": {"ndv": RG, "fpp": 0.0001}})
    return p


def _plan(path, filters):
    pf = pc.ParquetFile(path)
    assert isinstance(pf.planner, RowGroupPlanner) and pf.planner.num_row_groups == N // RG
    return plan_row_groups(pf.planner, filters)


def _same_rows_as_pyarrow(path, filters, pa_filter):
    ours = pc.read_table(path, filters=filters)
    theirs = pq.read_table(path, filters=pa_filter)
    assert ours.to_pydict() == theirs.to_pydict()


def test_the_file_has_the_intended_layout(path):
    md = pq.read_metadata(path)
    assert md.num_row_groups == N // RG
    pf = pc.ParquetFile(path)
    oi = pf.offset_index(0, "x")
    assert oi is not None and list(oi.first_rows) == list(range(0, RG, PAGE))


def test_no_filter_keeps_every_row_group_whole(path):
    expr, report, plans = _plan(path, None)
    assert expr is None
    assert report.kept == list(range(10)) and [p.index for p in plans] == list(range(10))
    assert all(p.rows is None for p in plans)


def test_statistics_then_page_index(path):
    _, report, plans = _plan(path, pc.col("x") > 849)
    assert report.pruned_by_statistics == list(range(8))
    assert report.kept == [8, 9] and not report.pruned_by_page_index
    (p8, p9) = plans
    # row group 8 holds 800..899: its pages 0..4 end at 849 or below, pages 5..9 may match
    assert p8.index == 8 and p8.rows is not None
    assert p8.rows.tolist() == [False] * 50 + [True] * 50
    assert p9.index == 9 and p9.rows is None     # every page of 900..999 may match
    assert report.rows_candidate == 150
    _same_rows_as_pyarrow(path, pc.col("x") > 849, [("x", ">", 849)])


def test_page_index_narrows_to_one_page(path):
    _, report, plans = _plan(path, pc.col("x") == 437)
    assert report.kept == [4]
    (plan,) = plans
    want = np.zeros(RG, dtype=bool)
    want[30:40] = True            # 437 sits in row group 4, page 3 (430..439)
    assert plan.rows.tolist() == want.tolist()
    assert report.pages_read < report.pages_indexed


def test_or_and_not(path):
    _, report, _ = _plan(path, (pc.col("x") < 50) | (pc.col("x") > 949))
    assert report.kept == [0, 9] and report.pruned_by_statistics == list(range(1, 9))
    _, report, _ = _plan(path, ~(pc.col("x") >= 100))
    assert report.kept == [0]
    _same_rows_as_pyarrow(path, (pc.col("x") < 50) | (pc.col("x") > 949),
                          [[("x", "<", 50)], [("x", ">", 949)]])


def test_dictionary_prunes_what_statistics_cannot(path):
    _, report, _ = _plan(path, pc.col("s") == "b")
    # even row groups: min "a", max "c" (statistics keep them), dictionary {"a", "c"}
    assert report.pruned_by_statistics == []
    assert report.pruned_by_dictionary == [0, 2, 4, 6, 8]
    assert report.kept == [1, 3, 5, 7, 9]
    _same_rows_as_pyarrow(path, pc.col("s") == "b", [("s", "==", "b")])


def test_null_counts_prune_is_null(path):
    _, report, _ = _plan(path, pc.col("y").is_null())
    assert report.kept == [3] and report.pruned_by_statistics == [0, 1, 2, 4, 5, 6, 7, 8, 9]
    got = pc.read_table(path, filters=pc.col("y").is_null(), columns=["x"]).column("x").to_pylist()
    assert got == [i for i in range(300, 400) if i % 3 == 0]


def test_bloom_filter_prunes_absent_values_inside_the_bounds(path):
    # 7 * 450 + 3: inside row group 4's min/max (2800..3493), a multiple of 7 it is not
    _, report, plans = _plan(path, pc.col("h") == 7 * 450 + 3)
    assert report.pruned_by_statistics == [0, 1, 2, 3, 5, 6, 7, 8, 9]
    assert report.pruned_by_bloom_filter == [4] and report.kept == [] and plans == []
    _, report, _ = _plan(path, pc.col("h") == 7 * 450)   # present: the filter must keep it
    assert report.kept == [4]


def test_unknown_column_is_an_error_not_no_pruning(path):
    with pytest.raises((pc.ParquetError, ValueError, KeyError)):
        _plan(path, pc.col("nope") == 1)


def test_select_pages(path):
    oi = pc.ParquetFile(path).offset_index(0, "x")
    rows = np.zeros(RG, dtype=bool)
    assert select_pages(oi, RG, rows) == []
    rows[[0, 9, 10, 55, 99]] = True
    assert select_pages(oi, RG, rows) == [0, 1, 5, 9]
    assert select_pages(oi, RG, np.ones(RG, dtype=bool)) == list(range(10))


@pytest.mark.parametrize("layout", ["row groups", "pages"])
def test_nan_only_chunks_and_pages_still_match_not_equal(tmp_path, layout):
    """NaN != v is true (IEEE 754, and pyarrow's filter): a row group or page holding only NaN
    (its nan_count says so) must not be pruned for ``!=``. Written by our writer, which
    stores nan_count; compared with pyarrow's filtered read of the same file."""
    f = [float("nan")] * 20 + [1.0, 0.0] * 10
    path = tmp_path / "nan.parquet"
    opts = {"row_group_size": 20} if layout == "row groups" else \
        {"data_page_row_count_limit": 10, "write_page_index": True, "use_dictionary": False,
         "float_column_order": "ieee754_total_order"}   # NaN-only pages get NaN bounds
    pc.write_table(pc.Table.from_pydict({"f": f}), path, **opts)
    for filters in ([("f", "!=", 0.0)], [("f", "!=", 5.0)]):
        theirs = pq.read_table(path, filters=filters).column("f").to_pylist()
        ours = pc.read_table(path, filters=filters).column("f").to_pylist()
        assert len(ours) == len(theirs) and sum(math.isnan(v) for v in ours) == 20
