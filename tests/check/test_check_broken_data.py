"""Broken files for the data-level rules (statistics, counts, values, page index, Bloom
filters, sorting) and for encryption and writer knowledge; each edits one fact."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.bloom_filter import serialize_filter, SplitBlockBloomFilter
from parquet_core.thrift import pt
from tests.check.broken import (
    bloom_bytes, edit_footer, edit_index, edit_page, pages_of, pyarrow_bytes, replace_bloom,
)
from tests._support.check_files import base, bloomed, expect, find, indexed, plain, v2

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _stats(m, rg, col):
    return m.row_groups[rg].columns[col].meta_data.statistics


def _q(v: int) -> bytes:
    return struct.pack("<q", v)


# -- statistics -----------------------------------------------------------------------------

def test_max_below_value():
    expect(edit_footer(plain(), lambda m: setattr(_stats(m, 1, 0), "max_value", _q(600))),
           "statistics.max-below-value", 1, "a", None)


def test_min_above_value():
    expect(edit_footer(plain(), lambda m: setattr(_stats(m, 1, 0), "min_value", _q(501))),
           "statistics.min-above-value", 1, "a", None)


def test_min_above_max():
    def edit(m):
        st = _stats(m, 0, 0)
        st.min_value, st.max_value = _q(2000), _q(1000)
    expect(edit_footer(plain(), edit), "statistics.min-above-max", 0, "a")


def test_bound_width():
    expect(edit_footer(plain(), lambda m: setattr(_stats(m, 0, 0), "max_value", b"\x01\x02\x03")),
           "statistics.bound-width", 0, "a")


def test_null_count():
    expect(edit_footer(plain(), lambda m: setattr(_stats(m, 0, 1), "null_count", 3)), "statistics.null-count", 0, "b")


def test_distinct_count():
    expect(edit_footer(plain(), lambda m: setattr(_stats(m, 0, 1), "distinct_count", 3)),
           "statistics.distinct-count", 0, "b")


def test_nan_count():
    t = pa.table({"x": [1.0, float("nan"), 2.0]})
    expect(edit_footer(pyarrow_bytes(t), lambda m: setattr(_stats(m, 0, 0), "nan_count", 0)),
           "statistics.nan-count", 0, "x")


def test_exact_flag():
    def edit(m):
        st = _stats(m, 0, 1)
        st.max_value = b"zzz"        # still bounds every value, but flagged exact
        st.is_max_value_exact = True
    expect(edit_footer(plain(), edit), "statistics.not-exact", 0, "b")


def test_nan_bound_and_zero_sign_are_warnings():
    expect(edit_footer(plain(), lambda m: setattr(_stats(m, 0, 2), "max_value", struct.pack("<d", float("nan")))),
           "statistics.nan-bound", 0, "f", severity="warning")
    t = pa.table({"x": [0.0, 1.0, 2.0]})
    expect(edit_footer(pyarrow_bytes(t), lambda m: setattr(_stats(m, 0, 0), "min_value", struct.pack("<d", 0.0))),
           "statistics.zero-sign", 0, "x", severity="warning")


def test_deprecated_min_max_on_strings_is_a_warning():
    def edit(m):
        st = _stats(m, 0, 1)
        st.min, st.max, st.min_value, st.max_value = st.min_value, st.max_value, None, None
    expect(edit_footer(plain(), edit), "statistics.deprecated-unsigned", 0, "b", severity="warning")


def test_bounds_without_values_is_only_info():
    # the spec defines no bounds for a page or chunk of nulls, and forbids none (polars writes them)
    t = pa.table({"x": pa.array([None, None], pa.int64())})

    def edit(m):
        st = _stats(m, 0, 0)
        st.min_value = st.max_value = _q(1)
    expect(edit_footer(pyarrow_bytes(t), edit), "statistics.bounds-without-values", 0, "x", severity="info")


def test_page_header_statistics():
    data = base(write_page_index=False)

    def edit(h, s):
        h.data_page_header.statistics.max_value = _q(-5)
    pages = pages_of(data, 0, 0)
    expect(edit_page(data, 0, 0, len(pages) - 1, edit), "statistics.max-below-value", 0, "a", len(pages) - 1)


def test_size_statistics():
    expect(edit_footer(plain(), lambda m: setattr(m.row_groups[0].columns[1].meta_data.size_statistics,
                                                  "unencoded_byte_array_data_bytes", 5)),
           "size-statistics.unencoded-bytes", 0, "b")
    expect(edit_footer(plain(), lambda m: setattr(m.row_groups[0].columns[1].meta_data.size_statistics,
                                                  "definition_level_histogram", [1, 499])),
           "size-statistics.level-histogram", 0, "b")


# -- values ---------------------------------------------------------------------------------

def test_v2_num_nulls_and_rows():
    def nulls(h, s):
        h.data_page_header_v2.num_nulls += 1
    expect(edit_page(v2(), 0, 1, 1, nulls), "values.v2-num-nulls", 0, "b", 1)
    t = pa.table({"l": [[1, 2], [3], [], None] * 50})
    data = pyarrow_bytes(t, data_page_version="2.0")

    def rows(h, s):
        h.data_page_header_v2.num_rows -= 1
    expect(edit_page(data, 0, 0, 1, rows), "values.v2-num-rows", 0, "l.list.element", 1)


def test_dictionary_index_out_of_range():
    def edit(h, s):
        h.dictionary_page_header.num_values = 5
    expect(edit_page(plain(), 0, 1, 0, edit), "values.dictionary-index", 0, "b", 1)


def test_dictionary_decode():
    def edit(h, s):
        h.dictionary_page_header.num_values = 10**6
    expect(edit_page(plain(), 1, 1, 0, edit), "values.dictionary-decode", 1, "b", 0)


def test_page_body():
    def edit(h, s):   # claims one byte more than the body decompresses to
        h.uncompressed_page_size += 1
    expect(edit_page(plain(), 0, 2, 1, edit), "values.page-body", 0, "f", 1)


def test_decode_failure():
    data = base(compression="none")

    def edit(h, s):   # the dictionary indices' bit width byte (after the definition levels) set to 40
        levels = int.from_bytes(s[:4], "little")
        return s[:4 + levels] + bytes([40]) + s[5 + levels:]
    expect(edit_page(data, 0, 1, 1, edit), "values.decode", 0, "b", 1)


def test_chunk_rows():
    t = pa.table({"l": [[1, 2], [3], [], None] * 50})

    def edit(m):
        m.row_groups[0].num_rows += 1
        m.num_rows += 1
    expect(edit_footer(pyarrow_bytes(t), edit), "values.chunk-rows", 0, "l.list.element")


# -- sorting --------------------------------------------------------------------------------

def test_sorting_columns():
    expect(edit_footer(plain(), lambda m: setattr(m.row_groups[0], "sorting_columns", [pt.SortingColumn(9, False, False)])),
           "sorting.column-index", 0, level="footer")
    expect(edit_footer(plain(), lambda m: setattr(m.row_groups[1], "sorting_columns", [pt.SortingColumn(2, False, False)])),
           "sorting.order", 1, "f")
    ok = pc.check(edit_footer(plain(), lambda m: setattr(m.row_groups[1], "sorting_columns",
                                                          [pt.SortingColumn(0, False, False)])))
    assert ok.ok and not ok.findings


# -- page index -----------------------------------------------------------------------------

def test_page_index_decode_and_overlap():
    def short(m):
        m.row_groups[0].columns[0].column_index_length = 3
    expect(edit_footer(indexed(), short), "page_index.decode", 0, "a", level="pages")

    def overlap(m):
        cc = m.row_groups[1].columns[0]
        cc.offset_index_offset = cc.meta_data.data_page_offset
    expect(edit_footer(indexed(), overlap), "page_index.overlap", 1, "a", level="pages")


def test_offset_index_location_first_row_and_count():
    def loc(oi):
        oi.page_locations[1].compressed_page_size += 1
    expect(edit_index(indexed(), 0, 0, "offset", loc), "page_index.page-location", 0, "a", 1, level="pages")

    def first(oi):
        oi.page_locations[2].first_row_index += 1
    expect(edit_index(indexed(), 1, 2, "offset", first), "page_index.first-row", 1, "f", 2, level="pages")

    def count(oi):
        oi.page_locations.pop()
    expect(edit_index(indexed(), 0, 0, "offset", count), "page_index.page-count", 0, "a", level="pages")


def test_offset_index_first_row_past_the_row_group():
    """The last page said to start at the row group's num_rows (500): it would hold no row,
    and a pruning reader skips the rows it does hold. Found from the index alone too."""
    def last(oi):
        oi.page_locations[-1].first_row_index = 500
    data = edit_index(indexed(), 1, 0, "offset", last)
    report = expect(data, "page_index.first-row-range", 1, "a", level="pages")
    assert "first_row_index 500; the row group has 500 rows" in find(report, "page_index.first-row-range").message
    assert all(f.rule != "page_index.first-row-range" for f in pc.check(indexed(), level="pages").findings)

    def cut(m):   # the page walk fails (no data pages found), the index is still checked
        m.row_groups[1].columns[0].meta_data.data_page_offset += 1
    expect(edit_footer(data, cut), "page_index.first-row-range", 1, "a", None, level="pages")


def test_v2_pages_rows_against_the_row_group():
    """Header level: the v2 pages' num_rows of column a add up to 499, not the row group's 500."""
    def rows(h, s):
        h.data_page_header_v2.num_rows -= 1
    data = edit_page(v2(), 0, 0, 1, rows)
    report = expect(data, "pages.v2-num-rows", 0, "a", level="pages")
    assert find(report, "pages.v2-num-rows").message == "the row group has 500 rows, the chunk's v2 data pages say 499"
    assert all(f.rule != "pages.v2-num-rows" for f in pc.check(v2(), level="pages").findings)


def test_column_index_values():
    def nulls(ci):
        ci.null_pages[1] = True
    expect(edit_index(indexed(), 0, 0, "column", nulls), "page_index.null-pages", 0, "a", 1)

    def counts(ci):
        ci.null_counts[0] += 2
    expect(edit_index(indexed(), 0, 1, "column", counts), "page_index.null-counts", 0, "b", 1)

    def lo(ci):
        ci.min_values[2] = _q(10**6)
        ci.max_values[2] = _q(10**6 + 1)
    report = expect(edit_index(indexed(), 1, 0, "column", lo), "page_index.min-above-value", 1, "a", 2)
    find(report, "page_index.boundary-order", 1, "a", 3)

    def hi(ci):
        ci.max_values[0] = _q(0)
    expect(edit_index(indexed(), 0, 0, "column", hi), "page_index.max-below-value", 0, "a", 0)

    def order(ci):
        ci.boundary_order = 2   # DESCENDING
    expect(edit_index(indexed(), 0, 0, "column", order), "page_index.boundary-order", 0, "a", 1)

    def hist(ci):
        ci.definition_level_histograms[0] += 1
    expect(edit_index(indexed(), 0, 1, "column", hist), "page_index.level-histogram", 0, "b", 1)


def test_offset_index_unencoded_bytes():
    def edit(oi):
        oi.unencoded_byte_array_data_bytes[0] += 1
    expect(edit_index(indexed(), 0, 1, "offset", edit), "page_index.unencoded-bytes", 0, "b", 1)


def test_record_split_across_pages():
    from tests.check.splitting import split_records

    typ = pa.list_(pa.field("element", pa.int64(), nullable=False))
    t = pa.table({"l": pa.array([[i] * 5 for i in range(300)], typ)})
    data = pyarrow_bytes(t, write_page_index=True, data_page_size=256, write_batch_size=16, compression="none",
                         use_dictionary=False, store_schema=False)
    expect(split_records(data), "page_index.record-split", 0, "l.list.element", 1)


# -- Bloom filters --------------------------------------------------------------------------

def test_bloom_missing_values():
    data = bloomed()
    h, bits = bloom_bytes(data, 1, 0)
    empty = serialize_filter(SplitBlockBloomFilter(len(bits)))
    expect(replace_bloom(data, 1, 0, empty), "bloom.missing-value", 1, "a")


def test_bloom_header_length_size_overlap():
    data = bloomed()
    h, bits = bloom_bytes(data, 0, 1)
    h.numBytes = 33
    from parquet_core.thrift.codec import serialize
    expect(replace_bloom(data, 0, 1, serialize(h) + bits), "bloom.header", 0, "b", level="pages")
    good = serialize_filter(SplitBlockBloomFilter.from_bitset(bits))
    expect(replace_bloom(data, 0, 1, good, length=len(good) + 1), "bloom.length", 0, "b", level="pages")
    odd = serialize_filter(SplitBlockBloomFilter(96))
    expect(replace_bloom(data, 0, 1, odd), "bloom.size", 0, "b", level="pages", severity="warning")

    def overlap(m):
        md = m.row_groups[0].columns[1].meta_data
        md.bloom_filter_offset = md.data_page_offset
    expect(edit_footer(data, overlap), "bloom.overlap", 0, "b", level="pages")


# -- writers --------------------------------------------------------------------------------

def test_writer_bugs():
    def old_mr(m):
        m.created_by = "parquet-mr version 1.6.0 (build abcd)"
        st = m.row_groups[0].columns[1].meta_data.statistics
        st.min, st.max, st.min_value, st.max_value = st.min_value, st.max_value, None, None
    expect(edit_footer(plain(), old_mr), "writers.parquet-251", 0, "b", severity="warning", level="footer")

    def mr_1120(m):
        m.created_by = "parquet-mr version 1.12.0 (build abcd)"
        m.row_groups[1].file_offset = 4
    expect(edit_footer(plain(), mr_1120), "writers.parquet-2078", 1, severity="warning", level="footer")

    def rs(m):
        m.created_by = "parquet-rs version 0.3.0"
        m.num_rows = 0
    expect(edit_footer(plain(), rs), "writers.parquet-rs-num-rows", severity="warning", level="footer")


def test_int96_statistics_is_a_warning():
    t = pa.table({"t": pa.array([1, 2], pa.timestamp("ns"))})
    data = pyarrow_bytes(t, use_deprecated_int96_timestamps=True, store_schema=False)

    def edit(m):
        m.row_groups[0].columns[0].meta_data.statistics = pt.Statistics(min_value=b"\x00" * 12, max_value=b"\x01" * 12)
    expect(edit_footer(data, edit), "writers.int96-statistics", 0, "t", severity="warning", level="footer")


def test_parquet_816_from_the_corpus(corpus):
    report = pc.check(corpus / "nation.dict-malformed.parquet")
    assert report.ok
    find(report, "writers.parquet-816", 0, "name")


# -- the checker itself ---------------------------------------------------------------------

def test_internal_failure_is_reported(monkeypatch):
    from parquet_core.validation import values

    def boom(*a, **k):
        raise RuntimeError("boom")
    monkeypatch.setattr(values, "_check_size_statistics", boom)
    report = pc.check(plain())
    find(report, "check.internal", 0, "a")
    assert not report.ok


def test_unreadable_path(tmp_path):
    report = pc.check(tmp_path / "missing.parquet")
    assert not report.readable
    find(report, "file.unreadable")


def test_delta_int32_wider_than_32_bits_is_read_and_warned():
    from parquet_core.encodings.delta_binary_packed import encode_delta_binary_packed

    values = np.array([-2**31, 2**31 - 1, 0, 5] * 50, dtype=np.int32)
    t = pa.table({"x": pa.array(values, pa.int32())}, schema=pa.schema([pa.field("x", pa.int32(), nullable=False)]))
    data = pyarrow_bytes(t, use_dictionary=False, column_encoding={"x": "DELTA_BINARY_PACKED"}, compression="none",
                         data_page_version="2.0", store_schema=False)

    def edit(h, s):   # the same values, deltas computed in 64 bits: miniblocks 33 bits wide
        body = encode_delta_binary_packed(values.astype(np.int64), np.int64)
        h.uncompressed_page_size = len(body)
        return body
    wide = edit_page(data, 0, 0, 0, edit)
    report = expect(wide, "pages.delta-bit-width", 0, "x", 0, severity="warning")
    assert report.ok
    assert pc.read_table(wide).column("x").to_pylist() == values.tolist()


def test_logical_values():
    t = pa.table({"s": ["abc", "déf", "ghi"]})

    def to_bytes(h, s):   # the UTF-8 of "é" cut in half: b"d\xc3\xa9f" -> b"d\xc3Xf"
        return s.replace(b"d\xc3\xa9f", b"d\xc3Xf")
    data = pyarrow_bytes(t, compression="none", use_dictionary=False, store_schema=False, write_statistics=False)
    expect(edit_page(data, 0, 0, 0, to_bytes), "values.utf8", 0, "s")

    from decimal import Decimal
    d = pa.table({"d": pa.array([Decimal("1.25"), Decimal("-3.50")], pa.decimal128(7, 2))})
    data = pyarrow_bytes(d, store_decimal_as_integer=True, store_schema=False)

    def narrow(m):   # DECIMAL(2, 2): 125 and -350 need three digits
        m.schema[1].logicalType.DECIMAL.precision = 2
        m.schema[1].precision = 2
    expect(edit_footer(data, narrow), "values.decimal-precision", 0, "d")
    data = pyarrow_bytes(d, store_schema=False)   # FIXED_LEN_BYTE_ARRAY
    expect(edit_footer(data, narrow), "values.decimal-precision", 0, "d")

    def unknown(m):
        m.schema[1].logicalType = pt.LogicalType(UNKNOWN=pt.NullType())
        m.schema[1].converted_type = None
    expect(edit_footer(pyarrow_bytes(pa.table({"x": [1, 2]}), store_schema=False), unknown),
           "values.unknown-not-null", 0, "x")


def test_column_order_and_nan_count_types():
    def order(m):
        m.column_orders[0] = pt.ColumnOrder(IEEE_754_TOTAL_ORDER=pt.IEEE754TotalOrder())
    expect(edit_footer(plain(), order), "footer.column-order-type", column="a", level="footer")
    expect(edit_footer(plain(), lambda m: setattr(_stats(m, 0, 0), "nan_count", 0)), "statistics.nan-count", 0, "a")


def _total_order(m, col):
    m.column_orders[col] = pt.ColumnOrder(IEEE_754_TOTAL_ORDER=pt.IEEE754TotalOrder())


def test_total_order_bounds():
    t = pa.table({"x": [-0.0, 1.0, float("nan")]})
    data = pyarrow_bytes(t, store_schema=False)

    def plus_zero(m):   # in total order +0.0 is above the -0.0 the column holds
        _total_order(m, 0)
        _stats(m, 0, 0).min_value = struct.pack("<d", 0.0)
    expect(edit_footer(data, plus_zero), "statistics.min-above-value", 0, "x")

    def nan_max(m):
        _total_order(m, 0)
        _stats(m, 0, 0).max_value = struct.pack("<d", float("nan"))
    expect(edit_footer(data, nan_max), "statistics.total-order-bound", 0, "x")
    assert pc.check(edit_footer(data, lambda m: _total_order(m, 0))).ok


def test_corpus_total_order_file_is_clean(corpus):
    report = pc.check(corpus / "floating_orders_nan_count.parquet")
    assert report.ok and not report.findings, [str(f) for f in report.findings]


def test_column_index_nan_counts():
    t = pa.table({"x": [1.0, float("nan"), 2.0] * 100})
    data = pyarrow_bytes(t, write_page_index=True, store_schema=False)

    def edit(ci):
        ci.nan_counts = [5] * len(ci.null_pages)
    expect(edit_index(data, 0, 0, "column", edit), "page_index.nan-counts", 0, "x")


def test_v2_level_lengths_with_padding_are_a_warning():
    def pad(h, s):
        v = h.data_page_header_v2
        cut = v.repetition_levels_byte_length + v.definition_levels_byte_length
        v.definition_levels_byte_length += 2
        h.uncompressed_page_size += 2
        return s[:cut] + b"\x00\x00" + s[cut:]
    data = edit_page(v2(), 0, 1, 1, pad)
    report = expect(data, "pages.v2-level-length", 0, "b", 1, severity="warning")
    assert "definition_levels_byte_length is" in [f for f in report.findings
                                                   if f.rule == "pages.v2-level-length"][0].message
    assert pc.read_table(data).column("b").to_pylist() == pq.read_table(io.BytesIO(v2())).column("b").to_pylist()

    def extra(h, s):   # repetition levels stored for a flat column
        v = h.data_page_header_v2
        v.repetition_levels_byte_length = 1
        h.uncompressed_page_size += 1
        return b"\x00" + s
    expect(edit_page(v2(), 0, 1, 1, extra), "pages.v2-level-length", 0, "b", 1, severity="warning")


def test_rle_bytes_used_walks_runs():
    from parquet_core.validation.decode import rle_bytes_used

    # Encodings.md: an RLE run of 5 ones at bit width 1 is header 5<<1 = 0x0a, then one byte.
    assert rle_bytes_used(b"\x0a\x01", 1, 5) == 2
    # a bit-packed run of one group (8 values) at width 3: header 0x03, then 3 bytes
    assert rle_bytes_used(b"\x03\x88\xc6\xfa\xff", 3, 8) == 4
    assert rle_bytes_used(b"\x0a", 1, 5) is None
