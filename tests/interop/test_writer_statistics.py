"""Statistics the writer puts in the footer and the page headers.

* per row group and column, min/max/null_count equal to the ones pyarrow
  computes when it writes the same data (an independent implementation);
* the spec's rules checked directly on our bytes: no NaN in min/max, -0.0
  as min and +0.0 as max, unsigned order for unsigned integers (values above
  2**63) and for UTF-8/binary, signed order for FIXED_LEN_BYTE_ARRAY
  decimals, no min/max for undefined orders (INTERVAL, INT96), legacy
  ``min``/``max`` only for signed orders, ``column_orders`` always written,
  truncation of long byte arrays with ``is_min/max_value_exact`` and a max
  rounded up so it stays an upper bound; statistics off per column;
* page-level statistics and SizeStatistics against the data.
"""

from __future__ import annotations

import struct
from decimal import Decimal

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.constants import PageType
from tests.interop.writer_cases import (
    comparable,
    BY_KEY, CASES, byte_arrays, make_columns, page_headers, raw_chunk_meta, to_arrow_table,
    write_one,
)
from tests.interop.writer_cases import page_index as page_index_of

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


# ---------------------------------------------------------------------------
# statistics equal pyarrow's for the same data
# ---------------------------------------------------------------------------

#: Types whose statistics pyarrow defines and writes from the same logical data.
STAT_CASES = [c for c in CASES
              if c.key not in ("enum", "bson", "interval", "int96", "ts_us_as_int96", "dec5_2_w4",
                                                    "time_us_utc")]




@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
@pytest.mark.parametrize("nulls", [False, True], ids=["required", "nulls"])
def test_statistics_equal_pyarrow(tmp_path, nulls, version):
    table, _ = make_columns(STAT_CASES, 300, nulls=nulls, seed=21)
    arrow = to_arrow_table(STAT_CASES, table)
    theirs, ours = tmp_path / "pyarrow.parquet", tmp_path / "ours.parquet"
    pq.write_table(arrow, theirs, row_group_size=100, store_decimal_as_integer=True, use_dictionary=True,
                   data_page_version=version, write_statistics=True)
    pc.write_table(table, ours, row_group_size=100, use_dictionary=True, data_page_version=version,
                   statistics_truncate_length=None)
    md_t, md_o = pq.ParquetFile(theirs).metadata, pq.ParquetFile(ours).metadata
    assert md_o.num_row_groups == md_t.num_row_groups == 3
    problems = []
    for i in range(3):
        for j, case in enumerate(STAT_CASES):
            ct, co = md_t.row_group(i).column(j), md_o.row_group(i).column(j)
            st, so = ct.statistics, co.statistics
            assert so is not None, f"{case.key}: no statistics"
            if st is None:      # pyarrow defines none (the null type)
                continue
            if st.null_count != so.null_count:
                problems.append(f"rg{i} {case.key}: null_count {so.null_count} != pyarrow {st.null_count}")
            if st.has_min_max != so.has_min_max:
                problems.append(f"rg{i} {case.key}: has_min_max {so.has_min_max} != pyarrow {st.has_min_max}")
                continue
            if not st.has_min_max:
                continue
            for what in ("min", "max"):
                a, b = comparable(getattr(so, what)), comparable(getattr(st, what))
                if a != b:
                    problems.append(f"rg{i} {case.key}: {what} {a!r} != pyarrow {b!r}")
                if ct.physical_type == co.physical_type:
                    a, b = comparable(getattr(so, what + "_raw")), comparable(getattr(st, what + "_raw"))
                    if a != b:
                        problems.append(f"rg{i} {case.key}: {what}_raw {a!r} != pyarrow {b!r}")
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------
# the spec's rules, on our bytes
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("typ,fmt,dtype", [
    (pc.float32(), "<f", np.float32), (pc.float64(), "<d", np.float64), (pc.float16(), "<e", np.float16),
])
def test_float_statistics_rules(tmp_path, typ, fmt, dtype):
    def stats(values):
        _, meta = write_one(tmp_path, "f", typ, np.array(values, dtype=dtype))
        return meta.statistics

    s = stats([np.nan, 1.5, -2.0, np.nan])
    assert struct.unpack(fmt, s.min_value)[0] == -2.0 and struct.unpack(fmt, s.max_value)[0] == 1.5, \
        "NaN must not be min or max"
    s = stats([np.nan, np.nan])
    assert s.min_value is None and s.max_value is None, "all-NaN chunk: no min/max"
    s = stats([0.0, 1.0, 3.0])
    assert s.min_value == struct.pack(fmt, -0.0), "zero as min is written -0.0"
    s = stats([-1.0, -0.0, -3.0])
    assert s.max_value == struct.pack(fmt, 0.0), "zero as max is written +0.0"
    s = stats([0.0, -0.0])
    assert (s.min_value, s.max_value) == (struct.pack(fmt, -0.0), struct.pack(fmt, 0.0))
    s = stats([np.inf, -np.inf, 1.0])
    assert struct.unpack(fmt, s.min_value)[0] == -np.inf and struct.unpack(fmt, s.max_value)[0] == np.inf


def test_unsigned_statistics(tmp_path):
    values = np.array([1, 2**63 + 5, 2**64 - 1, 2**63 - 1, 7], dtype=np.uint64)
    path, meta = write_one(tmp_path, "u64", pc.uint64(), values)
    s = meta.statistics
    assert s.min_value == struct.pack("<Q", 1) and s.max_value == struct.pack("<Q", 2**64 - 1)
    assert s.min is None and s.max is None, "legacy min/max are for signed orders only"
    st = pq.ParquetFile(path).metadata.row_group(0).column(0).statistics
    assert (st.min, st.max) == (1, 2**64 - 1)

    values = np.array([5, 2**31 + 3, 2**32 - 1, 0], dtype=np.uint32)
    _, meta = write_one(tmp_path, "u32", pc.uint32(), values)
    s = meta.statistics
    assert s.min_value == struct.pack("<I", 0) and s.max_value == struct.pack("<I", 2**32 - 1)
    assert s.min is None and s.max is None

    values = np.array([200, 3, 128], dtype=np.uint8)
    _, meta = write_one(tmp_path, "u8", pc.uint8(), values)
    assert meta.statistics.max_value == struct.pack("<I", 200)


def test_signed_legacy_statistics_match_new_fields(tmp_path):
    values = np.array([-5, 3, -(2**31), 17], dtype=np.int32)
    _, meta = write_one(tmp_path, "i32", pc.int32(), values)
    s = meta.statistics
    assert s.min_value == struct.pack("<i", -(2**31)) and s.max_value == struct.pack("<i", 17)
    if s.min is not None or s.max is not None:
        assert (s.min, s.max) == (s.min_value, s.max_value)


def test_utf8_statistics_use_unsigned_byte_order(tmp_path):
    words = ["a", "Z", "é", "😀", "z", "\uffff", "", "zz"]
    path, meta = write_one(tmp_path, "s", pc.string(), byte_arrays([w.encode() for w in words]))
    s = meta.statistics
    raw = [w.encode() for w in words]
    # spec: BYTE_ARRAY with UTF8 compares as unsigned bytes (Python's bytes order)
    assert s.min_value == min(raw) and s.max_value == max(raw) == "😀".encode()
    assert s.min is None and s.max is None, "legacy min/max are for signed orders only"
    st = pq.ParquetFile(path).metadata.row_group(0).column(0).statistics
    assert (st.min, st.max) == ("", "😀")


def test_binary_and_fixed_statistics_use_unsigned_byte_order(tmp_path):
    blobs = [b"\x7f", b"\x80", b"\x00\xff", b"\x80\x00"]
    _, meta = write_one(tmp_path, "b", pc.binary(), byte_arrays(blobs))
    assert (meta.statistics.min_value, meta.statistics.max_value) == (min(blobs), max(blobs))
    rows = np.array([[0x7F, 0], [0x80, 0], [0x00, 0xFF], [0xFF, 0xFF]], dtype=np.uint8)
    _, meta = write_one(tmp_path, "fx", pc.fixed_size_binary(2), rows)
    assert (meta.statistics.min_value, meta.statistics.max_value) == (b"\x00\xff", b"\xff\xff")
    _, meta = write_one(tmp_path, "uu", pc.uuid(), np.repeat(rows, 8, axis=1))
    assert meta.statistics.max_value == b"\xff" * 16


def test_fixed_decimal_statistics_are_signed(tmp_path):
    """DECIMAL on FIXED_LEN_BYTE_ARRAY compares as signed numbers, not as unsigned bytes."""
    ints = [-1, 1, -(10**30), 10**30, 0]
    rows = np.frombuffer(b"".join(v.to_bytes(16, "big", signed=True) for v in ints),
                         dtype=np.uint8).reshape(-1, 16)
    path, meta = write_one(tmp_path, "d", pc.decimal(38, 2), rows)
    s = meta.statistics
    assert s.min_value == (-(10**30)).to_bytes(16, "big", signed=True)
    assert s.max_value == (10**30).to_bytes(16, "big", signed=True)
    st = pq.ParquetFile(path).metadata.row_group(0).column(0).statistics
    assert st.min == Decimal(-(10**30)).scaleb(-2) and st.max == Decimal(10**30).scaleb(-2)


@pytest.mark.parametrize("key", ["interval", "int96"])
def test_undefined_sort_order_has_no_min_max(tmp_path, key):
    case = BY_KEY[key]
    table, _ = make_columns([case], 50, nulls=True, seed=1)
    path = tmp_path / "u.parquet"
    pc.write_table(table, path)
    s = raw_chunk_meta(path, 0, 0).statistics
    if s is not None:
        assert s.min_value is None and s.max_value is None and s.min is None and s.max is None, \
            f"{key}: the spec gives this type no sort order, so no min/max may be written"
        assert s.null_count == int((~table.column(0).validity).sum())


def test_column_orders_written(tmp_path):
    cases = [c for c in CASES if not c.options]
    table, _ = make_columns(cases, 10, nulls=True, seed=2)
    path = tmp_path / "co.parquet"
    pc.write_table(table, path)
    raw = pc.read_metadata(path).raw
    assert raw.column_orders is not None and len(raw.column_orders) == len(cases)
    assert all(o.TYPE_ORDER is not None for o in raw.column_orders)



@pytest.mark.parametrize("typ", [pc.string(), pc.binary()], ids=["string", "binary"])
def test_statistics_truncation(tmp_path, typ):
    limit = 8
    values = ["a" * 20, "bbb", "é" * 10, "ab", "日本語のテキスト"] if typ.name == "string" else None
    raw = [v.encode() for v in values] if values else [b"a" * 20, b"bbb", b"\xfe" * 3 + b"\xff" * 20, b"ab"]
    path, meta = write_one(tmp_path, "t", typ, byte_arrays(raw), statistics_truncate_length=limit)
    s = meta.statistics
    assert len(s.min_value) <= limit and len(s.max_value) <= limit
    assert all(s.min_value <= v for v in raw), "truncated min must stay a lower bound"
    assert all(s.max_value >= v for v in raw), "truncated max must stay an upper bound"
    assert s.is_min_value_exact is False or s.min_value == min(raw)
    assert s.is_max_value_exact is False or s.max_value == max(raw)
    assert s.is_max_value_exact is False and s.is_min_value_exact is False  # both bounds were long here
    if typ.name == "string":
        _ = (s.min_value.decode("utf-8"), s.max_value.decode("utf-8"))  # truncation keeps valid UTF-8
        st = pq.ParquetFile(path).metadata.row_group(0).column(0).statistics
        assert st.has_min_max

    # short values are exact
    short = [b"abc", b"b", b"zz"]
    _, meta = write_one(tmp_path, "e", typ, byte_arrays(short), statistics_truncate_length=limit)
    s = meta.statistics
    assert (s.min_value, s.max_value) == (b"abc", b"zz")
    assert s.is_min_value_exact is True and s.is_max_value_exact is True


def test_truncated_max_of_all_ff_stays_an_upper_bound(tmp_path):
    raw = [b"\xff" * 30, b"\x00"]
    _, meta = write_one(tmp_path, "ff", pc.binary(), byte_arrays(raw), statistics_truncate_length=4)
    s = meta.statistics
    if s.max_value is not None:
        assert s.max_value >= raw[0], "0xFF.. cannot be rounded up: keep it whole or omit it"
        assert s.is_max_value_exact is not False or s.max_value != raw[0]


def test_statistics_switched_off(tmp_path):
    cases = [BY_KEY["i64"], BY_KEY["str"], BY_KEY["f64"]]
    table, _ = make_columns(cases, 100, nulls=True, seed=3)
    path = tmp_path / "off.parquet"
    pc.write_table(table, path, write_statistics=False)
    md = pq.ParquetFile(path).metadata.row_group(0)
    assert not any(md.column(j).is_stats_set and md.column(j).statistics.has_min_max for j in range(3))
    pc.write_table(table, path, write_statistics=["str"])
    md = pq.ParquetFile(path).metadata.row_group(0)
    on = [md.column(j).is_stats_set and md.column(j).statistics.has_min_max for j in range(3)]
    assert on == [False, True, False]


# ---------------------------------------------------------------------------
# page statistics, SizeStatistics, page index
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
def test_page_statistics_bound_their_page(tmp_path, version):
    rng = np.random.default_rng(4)
    values = rng.integers(-10**12, 10**12, 2000)
    path, _ = write_one(tmp_path, "p", pc.int64(), values, data_page_size=256, data_page_version=version,
                        use_dictionary=False, write_page_statistics=True)
    start = 0
    pages = [h for h in page_headers(path, 0, 0) if h.type != PageType.DICTIONARY_PAGE]
    assert len(pages) > 5
    for h in pages:
        dph = h.data_page_header or h.data_page_header_v2
        part = values[start:start + dph.num_values]
        start += dph.num_values
        s = dph.statistics
        assert s is not None, "data page without statistics"
        assert s.min_value == struct.pack("<q", int(part.min()))
        assert s.max_value == struct.pack("<q", int(part.max()))
        assert s.null_count in (None, 0)
    assert start == len(values)


@pytest.mark.parametrize("page_index", [True, False])
def test_page_statistics_by_default_only_without_page_index(tmp_path, page_index):
    """The column index already holds every page's bounds; headers repeat them only without it."""
    path, _ = write_one(tmp_path, "p", pc.int64(), np.arange(3000), data_page_size=1024,
                        use_dictionary=False, write_page_index=page_index)
    pages = [h for h in page_headers(path, 0, 0) if h.type != PageType.DICTIONARY_PAGE]
    assert len(pages) > 2
    assert all((h.data_page_header.statistics is None) == page_index for h in pages)
    ci, _ = page_index_of(path, 0, 0)
    assert (ci is not None) == page_index


def test_size_statistics(tmp_path):
    raw = [b"abc", b"", b"hello world", b"x"] * 25
    validity = np.array([True, True, False, True] * 25)
    path, meta = write_one(tmp_path, "s", pc.binary(), byte_arrays(raw), validity)
    ss = meta.size_statistics
    assert ss is not None   # write_size_statistics defaults to True
    present = [len(b) for b, ok in zip(raw, validity) if ok]
    assert ss.unencoded_byte_array_data_bytes == sum(present)
    # spec: one count per level up to the maximum; may be omitted when that maximum is 0
    assert list(ss.definition_level_histogram) == [int((~validity).sum()), int(validity.sum())]
    rep = ss.repetition_level_histogram
    assert rep is None or list(rep) == [len(raw)]
