"""IEEE 754 total order, NaN counts and the INT96 timestamp order (parquet.thrift ColumnOrder).

Expected values come from ``floating_orders_nan_count.parquet`` (parquet-mr
1.18 wrote both orders for FLOAT, DOUBLE and FLOAT16, with nan_count) and
from pyarrow's reading of the same data (NaN counts by ``pyarrow.compute``,
rows kept by a pyarrow filter with ``is_nan``).
"""

from __future__ import annotations

import datetime as dt
import io
import math
import struct

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse
from tests.interop.footer_edit import edit_footer

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pac = pytest.importorskip("pyarrow.compute")
ds = pytest.importorskip("pyarrow.dataset")

FILE = "floating_orders_nan_count.parquet"
COLUMNS = ["float_ieee754", "float_typedef", "double_ieee754", "double_typedef",
           "float16_ieee754", "float16_typedef"]


def _raw_footer(data: bytes):
    (flen,) = struct.unpack("<I", data[-8:-4])
    return parse(data[len(data) - 8 - flen:-8], pt.FileMetaData)[0]


def _numbers(col) -> list[float]:
    return [v for v in col.to_pylist() if v is not None and not math.isnan(v)]


def test_corpus_statistics_follow_each_order(corpus) -> None:
    path = corpus / FILE
    pf, theirs = pc.ParquetFile(path), pq.ParquetFile(path)
    assert [pf.metadata.column_order(i) for i in range(6)] == \
        ["IEEE_754_TOTAL_ORDER", "TYPE_ORDER"] * 3
    for rg in range(pf.num_row_groups):
        data = theirs.read_row_group(rg)
        for i, name in enumerate(COLUMNS):
            col = data.column(name)
            st = pf.metadata.row_group(rg).column(i).statistics
            where = (rg, name)
            # nan_count as stored equals the NaNs pyarrow finds in the data
            assert st.nan_count == int(pac.sum(pac.is_nan(col.cast(pa.float64()))).as_py()), where
            nums = _numbers(col)
            if not st.has_min_max:
                # no usable bound: all NaN, or (TYPE_ORDER) the writer omitted them
                assert not nums or name.endswith("typedef"), where
                continue
            assert (st.min, st.max) == (min(nums), max(nums)), where
            if name.endswith("ieee754"):
                # total order: the sign of a zero bound is the data's own
                zeros = [v for v in nums if v == 0.0]
                if st.min == 0.0:
                    assert math.copysign(1, st.min) == min(math.copysign(1, z) for z in zeros), where
                if st.max == 0.0:
                    assert math.copysign(1, st.max) == max(math.copysign(1, z) for z in zeros), where
            else:
                # TYPE_ORDER: a zero bound is widened to cover both zeros
                assert st.min != 0.0 or math.copysign(1, st.min) < 0, where
                assert st.max != 0.0 or math.copysign(1, st.max) > 0, where


@pytest.mark.parametrize("name", COLUMNS)
@pytest.mark.parametrize("make, prunes", [
    (lambda c: pc.col(c).is_nan(), {0, 3, 4}),          # nan_count 0
    (lambda c: ~pc.col(c).is_nan(), {2}),                # only NaN
    (lambda c: pc.col(c) > 4.5, {2, 4}),
    (lambda c: ~(pc.col(c) < 0.0), set()),               # NaN rows hold for a negation
])
def test_corpus_nan_pruning_keeps_exactly_pyarrows_rows(corpus, name, make, prunes) -> None:
    path = corpus / FILE
    expr = make(name)
    got = pc.read_table(path, filters=expr, columns=[name]).column(name).to_pylist()
    # pyarrow's own kernels on the data (float16 widened: pyarrow has no half-float compare)
    arr = pq.read_table(path, columns=[name]).column(name).cast(pa.float64())
    text = repr(expr)
    if text.endswith(".is_nan()"):
        mask = pac.is_nan(arr)
        mask = pac.invert(mask) if text.startswith("~") else mask
    elif " > " in text:
        mask = pac.greater(arr, 4.5)
    else:
        mask = pac.invert(pac.less(arr, 0.0))
    want = arr.filter(mask).to_pylist()
    assert [repr(float(v)) for v in got] == [repr(v) for v in want]
    pruned = set(pc.ParquetFile(path).explain(expr).pruned_by_statistics)
    # TYPE_ORDER columns carry no bounds where NaN is present: only NaN counts prune there
    assert pruned >= (prunes - ({1} if "typedef" in name else set())), (pruned, prunes)
    assert pruned <= prunes | {1}


def test_writer_reproduces_parquet_mr_bounds_and_nan_counts(corpus) -> None:
    """Each row group of the corpus file written again by us: the same raw bounds."""
    path = corpus / FILE
    data = (corpus / FILE).read_bytes()
    meta = _raw_footer(data)
    theirs = pq.ParquetFile(path)
    for rg in range(theirs.num_row_groups):
        table = theirs.read_row_group(rg)
        for order, cols in (("ieee754_total_order", COLUMNS[0::2]), ("type_defined", COLUMNS[1::2])):
            sink = io.BytesIO()
            pc.write_table(table.select(cols), sink, float_column_order=order, use_dictionary=False,
                           store_schema=False)
            ours = _raw_footer(sink.getvalue())
            for j, name in enumerate(cols):
                mine = ours.row_groups[0].columns[j].meta_data.statistics
                ref = meta.row_groups[rg].columns[COLUMNS.index(name)].meta_data.statistics
                where = (rg, name)
                assert mine.nan_count == ref.nan_count, where
                if ref.min_value is not None:
                    assert (mine.min_value, mine.max_value) == (ref.min_value, ref.max_value), where
                elif order == "type_defined":
                    assert ref.nan_count == 0 or mine.min_value is None or mine.nan_count < 10, where
            if order == "ieee754_total_order":
                assert all(o.IEEE_754_TOTAL_ORDER is not None for o in ours.column_orders)
                # pyarrow, which does not know the order, still reads every value
                back = pq.read_table(io.BytesIO(sink.getvalue()))
                assert [repr(v) for v in back.column(0).to_pylist()] == \
                    [repr(v) for v in table.column(cols[0]).to_pylist()]


def test_type_order_all_nan_page_drops_the_column_index_ieee_keeps_it(tmp_path) -> None:
    nan = float("nan")
    values = np.array([1.0, 2.0, nan, nan, 3.0], dtype=np.float64)
    for order, expect_index in (("type_defined", False), ("ieee754_total_order", True)):
        path = tmp_path / f"{order}.parquet"
        pc.write_table({"x": values}, path, float_column_order=order, data_page_row_count_limit=2,
                       use_dictionary=False)
        ci = pc.ParquetFile(path).column_index(0, "x")
        assert (ci is not None) == expect_index
        if ci is not None:
            assert ci.nan_counts == [0, 2, 0]
            assert math.isnan(struct.unpack("<d", ci.min_raw[1])[0])
            got = pc.read_table(path, filters=~pc.col("x").is_nan()).column("x").to_pylist()
            assert got == [1.0, 2.0, 3.0]


def test_unknown_column_order_hides_min_max(tmp_path) -> None:
    sink = io.BytesIO()
    pq.write_table(pa.table({"i": [1, 5, 9]}), sink)

    def future_order(meta) -> None:
        meta.column_orders = [pt.ColumnOrder()]      # a member this reader does not know
    data = edit_footer(sink.getvalue(), future_order)
    st = pc.ParquetFile(data).metadata.row_group(0).column(0).statistics
    assert st.column_order == "UNKNOWN" and not st.has_min_max and st.null_count == 0
    assert pc.read_table(data, filters=pc.col("i") > 100).num_rows == 0


def test_int96_statistics_in_timestamp_order(tmp_path, corpus) -> None:
    spark = pc.ParquetFile(corpus / "int96_from_spark.parquet")
    assert spark.metadata.column_order(0) == "TYPE_ORDER"
    assert not spark.metadata.row_group(0).column(0).statistics.has_min_max
    ts = [dt.datetime(2020, 1, 1, 12), dt.datetime(1969, 12, 31, 23, 59, 59, 999999), None,
          dt.datetime(2020, 1, 1, 0, 0, 0, 1), dt.datetime(1900, 5, 5)]
    schema = pc.schema([pc.field("t", pc.timestamp("us"))])
    path = tmp_path / "int96.parquet"
    pc.write_table({"t": ts}, path, schema=schema, use_deprecated_int96_timestamps=True,
                   int96_statistics=True, data_page_row_count_limit=2)
    pf = pc.ParquetFile(path)
    assert pf.metadata.schema.column(0).physical_type == 3          # INT96
    assert pf.metadata.column_order(0) == "INT96_TIMESTAMP_ORDER"
    st = pf.metadata.row_group(0).column(0).statistics
    read = pq.read_table(path).column("t").to_pylist()
    present = [v.to_pydatetime() for v in read if v is not None]
    assert (st.min, st.max, st.null_count) == (min(present), max(present), 1)
    assert pf.column_index(0, "t") is not None
    # without the option: TYPE_ORDER and no bounds, as before
    pc.write_table({"t": ts}, path, schema=schema, use_deprecated_int96_timestamps=True)
    st = pc.ParquetFile(path).metadata.row_group(0).column(0).statistics
    assert not st.has_min_max and pc.ParquetFile(path).metadata.column_order(0) == "TYPE_ORDER"
