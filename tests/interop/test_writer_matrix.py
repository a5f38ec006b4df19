"""The writer's option matrix, proven by pyarrow reading every file back value for value.

* every type x every encoding the spec allows for it (dictionary, PLAIN and
  each non-dictionary encoding) x data page v1/v2 x required/with nulls,
  one codec; parquet_core's reader checks the same files;
* every codec (and levels, per-column codecs) over a few types, v1/v2,
  dictionary on/off;
* limits: empty table, single row, all-null columns, row groups of one
  row and exactly at the limit, tiny pages (many pages), page row limits,
  dictionary fallback (RLE_DICTIONARY and fallback pages in one chunk,
  checked in ``encoding_stats`` and page by page).

Expected values come from the numpy buffers handed to the writer
(``tests/interop/writer_cases.py``), never from our own reader.
"""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.constants import CompressionCodec, Encoding, PageType
from tests.interop.writer_cases import (
    BY_KEY, CASES, CODECS, assert_ours_reads, assert_pyarrow_reads, encoding_config, make_columns,
    options_for, page_headers, raw_chunk_meta,
)

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

N = 300
_DICT_ENCODINGS = {"PLAIN_DICTIONARY", "RLE_DICTIONARY"}


def _write(table, path, **options):
    pc.write_table(table, path, **options)
    return path


# ---------------------------------------------------------------------------
# type x encoding x page version x nulls
# ---------------------------------------------------------------------------

MATRIX = [(case, enc) for case in CASES
          for enc in (("dict",) if case.dictionary else ()) + case.encodings]


@pytest.mark.parametrize("nulls", [False, True], ids=["required", "nulls"])
@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
@pytest.mark.parametrize("case,enc", MATRIX, ids=[f"{c.key}-{e}" for c, e in MATRIX])
def test_type_encoding_matrix(tmp_path, case, enc, version, nulls):
    table, expected = make_columns([case], N, nulls=nulls, seed=CASES.index(case))
    path = _write(table, tmp_path / "m.parquet", data_page_version=version, compression="snappy",
                  **options_for([case], **encoding_config(case, enc)))
    assert_pyarrow_reads(path, [case], expected)
    assert_ours_reads(path, [case], expected)

    col = pq.ParquetFile(path).metadata.row_group(0).column(0)
    assert col.compression == "SNAPPY"
    if case.type.name == "null":
        return
    if enc == "dict":
        assert col.has_dictionary_page, f"{case.key}: dictionary requested, no dictionary page"
        assert _DICT_ENCODINGS & set(col.encodings), col.encodings
    else:
        assert not col.has_dictionary_page, f"{case.key}: {enc} requested, got a dictionary page"
        assert enc.upper() in col.encodings, f"{case.key}: {enc} requested, chunk says {col.encodings}"
        assert not _DICT_ENCODINGS & set(col.encodings), col.encodings
    # every data page carries the requested version and encoding
    want_type = PageType.DATA_PAGE if version == "1.0" else PageType.DATA_PAGE_V2
    for h in page_headers(path, 0, 0):
        if h.type == PageType.DICTIONARY_PAGE:
            continue
        assert h.type == want_type
        page_enc = (h.data_page_header or h.data_page_header_v2).encoding
        if enc == "dict":
            assert page_enc in (Encoding.RLE_DICTIONARY, Encoding.PLAIN_DICTIONARY)
        else:
            assert Encoding(page_enc).name == enc.upper()


def test_nullable_column_without_nulls(tmp_path):
    """OPTIONAL columns whose values are all present (validity None)."""
    cases = [c for c in CASES if c.type.name != "null" and not c.options]
    table, expected = make_columns(cases, 100, nulls=False, nullable=True, seed=3)
    path = _write(table, tmp_path / "opt.parquet")
    arrow = assert_pyarrow_reads(path, cases, expected)
    assert all(f.nullable for f in arrow.schema)
    assert_ours_reads(path, cases, expected)


# ---------------------------------------------------------------------------
# codecs
# ---------------------------------------------------------------------------

CODEC_CASES = [BY_KEY[k] for k in ("bool", "i32", "i64", "f64", "str", "bin", "fixed5", "dec38_5",
                                   "ts_us_utc")]
#: ``ColumnMetaData.codec`` per option value (pyarrow's own names are ambiguous: it
#: calls LZ4_RAW "LZ4" and the Hadoop-framed LZ4 "UNKNOWN", so the raw footer is checked).
_CODEC_ID = {"none": CompressionCodec.UNCOMPRESSED, "snappy": CompressionCodec.SNAPPY,
             "gzip": CompressionCodec.GZIP, "brotli": CompressionCodec.BROTLI,
             "zstd": CompressionCodec.ZSTD, "lz4": CompressionCodec.LZ4, "lz4_raw": CompressionCodec.LZ4_RAW}


@pytest.mark.parametrize("dictionary", [True, False], ids=["dict", "nodict"])
@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
@pytest.mark.parametrize("codec", CODECS)
def test_codecs(tmp_path, codec, version, dictionary):
    table, expected = make_columns(CODEC_CASES, N, nulls=True, seed=11)
    path = _write(table, tmp_path / "c.parquet", compression=codec, data_page_version=version,
                  use_dictionary=dictionary, data_page_size=1024)
    assert_pyarrow_reads(path, CODEC_CASES, expected)
    assert_ours_reads(path, CODEC_CASES, expected)
    for j in range(len(CODEC_CASES)):
        assert raw_chunk_meta(path, 0, j).codec == _CODEC_ID[codec]


@pytest.mark.parametrize("codec,levels", [("zstd", [1, 9, 19]), ("gzip", [1, 9]), ("brotli", [1, 11])])
def test_compression_levels(tmp_path, codec, levels):
    cases = [BY_KEY["str"], BY_KEY["i64"]]
    table, expected = make_columns(cases, 2000, nulls=True, seed=5)
    sizes = []
    for level in levels:
        path = _write(table, tmp_path / f"l{level}.parquet", compression=codec, compression_level=level,
                      use_dictionary=False)
        assert_pyarrow_reads(path, cases, expected)
        sizes.append(sum(pq.ParquetFile(path).metadata.row_group(0).column(j).total_compressed_size
                         for j in range(2)))
    # the strongest level is never worse than the weakest on this data
    assert sizes[-1] <= sizes[0], sizes


def test_compression_per_column(tmp_path):
    cases = [BY_KEY["i64"], BY_KEY["str"], BY_KEY["f64"], BY_KEY["bin"]]
    table, expected = make_columns(cases, N, nulls=True, seed=6)
    codecs = {"i64": "zstd", "str": "gzip", "f64": "lz4_raw", "bin": "brotli"}
    path = _write(table, tmp_path / "pc.parquet", compression=codecs)
    assert_pyarrow_reads(path, cases, expected)
    got = {c.key: raw_chunk_meta(path, 0, j).codec for j, c in enumerate(cases)}
    assert got == {k: _CODEC_ID[v] for k, v in codecs.items()}


# ---------------------------------------------------------------------------
# per-column encoding options
# ---------------------------------------------------------------------------

def test_use_dictionary_list_and_column_encoding_dict(tmp_path):
    cases = [BY_KEY[k] for k in ("i32", "i64", "str", "f64", "fixed5")]
    table, expected = make_columns(cases, N, nulls=True, seed=8)
    path = _write(table, tmp_path / "e.parquet", use_dictionary=["i32"],
                  column_encoding={"i64": "delta_binary_packed", "str": "delta_byte_array",
                                   "f64": "byte_stream_split"})
    assert_pyarrow_reads(path, cases, expected)
    md = pq.ParquetFile(path).metadata.row_group(0)
    enc = {md.column(j).path_in_schema: set(md.column(j).encodings) for j in range(len(cases))}
    assert _DICT_ENCODINGS & enc["i32"]
    assert "DELTA_BINARY_PACKED" in enc["i64"] and not _DICT_ENCODINGS & enc["i64"]
    assert "DELTA_BYTE_ARRAY" in enc["str"] and not _DICT_ENCODINGS & enc["str"]
    assert "BYTE_STREAM_SPLIT" in enc["f64"] and not _DICT_ENCODINGS & enc["f64"]
    assert not _DICT_ENCODINGS & enc["fixed5"], "use_dictionary=['i32'] leaves other columns without"


def test_use_byte_stream_split(tmp_path):
    cases = [BY_KEY[k] for k in ("f32", "f64", "i64", "str")]
    table, expected = make_columns(cases, N, nulls=True, seed=9)
    path = _write(table, tmp_path / "bss.parquet", use_byte_stream_split=True)
    assert_pyarrow_reads(path, cases, expected)
    md = pq.ParquetFile(path).metadata.row_group(0)
    enc = {md.column(j).path_in_schema: set(md.column(j).encodings) for j in range(len(cases))}
    assert "BYTE_STREAM_SPLIT" in enc["f32"] and "BYTE_STREAM_SPLIT" in enc["f64"]
    assert "BYTE_STREAM_SPLIT" not in enc["str"]


# ---------------------------------------------------------------------------
# sizes and limits
# ---------------------------------------------------------------------------

PLAIN_CASES = [c for c in CASES if not c.options]


@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
def test_empty_table(tmp_path, version):
    table, expected = make_columns(PLAIN_CASES, 0, nulls=True, seed=1)
    path = _write(table, tmp_path / "empty.parquet", data_page_version=version)
    arrow = assert_pyarrow_reads(path, PLAIN_CASES, expected)
    assert arrow.num_rows == 0
    assert pq.ParquetFile(path).metadata.num_rows == 0
    assert_ours_reads(path, PLAIN_CASES, expected)


def test_writer_without_batches_writes_schema_only_file(tmp_path):
    table, expected = make_columns(PLAIN_CASES, 0, nulls=True, seed=1)
    path = tmp_path / "none.parquet"
    with pc.ParquetWriter(path, table.schema):
        pass
    assert_pyarrow_reads(path, PLAIN_CASES, expected)


@pytest.mark.parametrize("nulls", [False, True], ids=["value", "null"])
@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
def test_single_row(tmp_path, version, nulls):
    table, expected = make_columns(PLAIN_CASES, 1, nulls=1.0 if nulls else False, seed=2)
    path = _write(table, tmp_path / "one.parquet", data_page_version=version)
    assert_pyarrow_reads(path, PLAIN_CASES, expected)
    assert_ours_reads(path, PLAIN_CASES, expected)


@pytest.mark.parametrize("dictionary", [True, False], ids=["dict", "nodict"])
@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
def test_all_null_columns(tmp_path, version, dictionary):
    table, expected = make_columns(PLAIN_CASES, 50, nulls=1.0, seed=4)
    path = _write(table, tmp_path / "nulls.parquet", data_page_version=version, use_dictionary=dictionary)
    assert_pyarrow_reads(path, PLAIN_CASES, expected)
    assert_ours_reads(path, PLAIN_CASES, expected)
    md = pq.ParquetFile(path).metadata.row_group(0)
    for j in range(md.num_columns):
        st = md.column(j).statistics
        assert st is not None and st.null_count == 50, md.column(j).path_in_schema
        assert not st.has_min_max, f"{md.column(j).path_in_schema}: min/max on an all-null chunk"


ROW_CASES = [BY_KEY[k] for k in ("i64", "str", "bool", "dec18_4", "f32")]


def _row_group_sizes(path):
    md = pq.ParquetFile(path).metadata
    return [md.row_group(i).num_rows for i in range(md.num_row_groups)]


@pytest.mark.parametrize("n,size,want", [
    (5, 1, [1] * 5),
    (30, 10, [10, 10, 10]),          # exactly at the limit
    (31, 10, [10, 10, 10, 1]),       # one past it
    (29, 10, [10, 10, 9]),
    (10, 10, [10]),
    (10, 1000, [10]),
])
def test_row_group_size(tmp_path, n, size, want):
    table, expected = make_columns(ROW_CASES, n, nulls=True, seed=n)
    path = _write(table, tmp_path / "rg.parquet", row_group_size=size)
    assert _row_group_sizes(path) == want
    assert_pyarrow_reads(path, ROW_CASES, expected)
    assert_ours_reads(path, ROW_CASES, expected)


def test_row_group_bytes_splits_row_groups(tmp_path):
    table, expected = make_columns(ROW_CASES, 3000, nulls=True, seed=12)
    path = _write(table, tmp_path / "rgb.parquet", row_group_bytes=8192)
    sizes = _row_group_sizes(path)
    assert len(sizes) > 1 and sum(sizes) == 3000
    assert_pyarrow_reads(path, ROW_CASES, expected)


def test_parquet_writer_many_batches(tmp_path):
    table, expected = make_columns(ROW_CASES, 95, nulls=True, seed=13)
    path = tmp_path / "batches.parquet"
    with pc.ParquetWriter(path, table.schema, row_group_size=20) as writer:
        for start in range(0, 95, 30):
            writer.write_table(table.slice(start, 30))
    sizes = _row_group_sizes(path)
    assert sum(sizes) == 95 and max(sizes) <= 20
    assert_pyarrow_reads(path, ROW_CASES, expected)
    assert_ours_reads(path, ROW_CASES, expected)


PAGE_CASES = [BY_KEY[k] for k in ("i64", "str", "bool", "f64", "fixed5", "dec38_5", "u64")]


@pytest.mark.parametrize("dictionary", [True, False], ids=["dict", "nodict"])
@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
def test_tiny_pages(tmp_path, version, dictionary):
    n = 1000
    table, expected = make_columns(PAGE_CASES, n, nulls=True, seed=14)
    path = _write(table, tmp_path / "pages.parquet", data_page_size=64, data_page_version=version,
                  use_dictionary=dictionary, compression="zstd")
    assert_pyarrow_reads(path, PAGE_CASES, expected)
    assert_ours_reads(path, PAGE_CASES, expected)
    for j, case in enumerate(PAGE_CASES):
        data = [h for h in page_headers(path, 0, j) if h.type != PageType.DICTIONARY_PAGE]
        assert len(data) >= 8, f"{case.key}: data_page_size=64 gave only {len(data)} pages"
        counts = [(h.data_page_header or h.data_page_header_v2).num_values for h in data]
        assert sum(counts) == n


@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
def test_page_row_count_limit(tmp_path, version):
    n = 250
    table, expected = make_columns(PAGE_CASES, n, nulls=True, seed=15)
    path = _write(table, tmp_path / "rows.parquet", data_page_row_count_limit=20, data_page_version=version)
    assert_pyarrow_reads(path, PAGE_CASES, expected)
    for j in range(len(PAGE_CASES)):
        data = [h for h in page_headers(path, 0, j) if h.type != PageType.DICTIONARY_PAGE]
        counts = [(h.data_page_header or h.data_page_header_v2).num_values for h in data]
        assert max(counts) <= 20 and sum(counts) == n and len(counts) >= n // 20


FALLBACK_CASES = [BY_KEY[k] for k in ("str", "i64", "f64", "fixed5", "bin", "dec38_5")]


@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
@pytest.mark.parametrize("case", FALLBACK_CASES, ids=lambda c: c.key)
def test_dictionary_fallback(tmp_path, case, version):
    """A dictionary that outgrows ``dictionary_pagesize_limit`` falls back mid-chunk."""
    n = 3000
    table, expected = make_columns([case], n, nulls=True, seed=16)
    path = _write(table, tmp_path / "fb.parquet", dictionary_pagesize_limit=200, data_page_size=512,
                  data_page_version=version, use_dictionary=True)
    assert_pyarrow_reads(path, [case], expected)
    assert_ours_reads(path, [case], expected)

    headers = page_headers(path, 0, 0)
    assert headers[0].type == PageType.DICTIONARY_PAGE
    assert all(h.type != PageType.DICTIONARY_PAGE for h in headers[1:]), "one dictionary page per chunk"
    encs = [(h.data_page_header or h.data_page_header_v2).encoding for h in headers[1:]]
    is_dict = [e in (Encoding.RLE_DICTIONARY, Encoding.PLAIN_DICTIONARY) for e in encs]
    assert is_dict[0], "the first data pages use the dictionary"
    assert not all(is_dict), "no fallback pages although the dictionary limit is tiny"
    first_fallback = is_dict.index(False)
    assert not any(is_dict[first_fallback:]), "dictionary pages after the fallback"

    meta = raw_chunk_meta(path, 0, 0)
    assert Encoding.RLE_DICTIONARY in meta.encodings or Encoding.PLAIN_DICTIONARY in meta.encodings
    assert set(encs[first_fallback:]) <= set(meta.encodings)
    stats = {(s.page_type, s.encoding): s.count for s in meta.encoding_stats}
    want: dict = {}
    for h in headers:
        key = (h.type, (h.dictionary_page_header or h.data_page_header or h.data_page_header_v2).encoding)
        want[key] = want.get(key, 0) + 1
    assert stats == want, f"encoding_stats {stats} disagree with the pages {want}"
    arrow_encs = set(pq.ParquetFile(path).metadata.row_group(0).column(0).encodings)
    assert _DICT_ENCODINGS & arrow_encs and arrow_encs - _DICT_ENCODINGS - {"RLE"}


def test_boolean_never_dictionary_encoded(tmp_path):
    case = BY_KEY["bool"]
    table, expected = make_columns([case], N, nulls=True, seed=17)
    path = _write(table, tmp_path / "b.parquet", use_dictionary=True)
    assert_pyarrow_reads(path, [case], expected)
    assert not pq.ParquetFile(path).metadata.row_group(0).column(0).has_dictionary_page


def test_low_cardinality_dictionary_is_small(tmp_path):
    """Dictionary encoding of 3 distinct values over 5000 rows: a 3-entry dictionary."""
    values = np.array([7, -1, 123456789012] * 1700, dtype=np.int64)[:5000]
    path = tmp_path / "d.parquet"
    pc.write_table({"x": values}, path)
    headers = page_headers(path, 0, 0)
    assert headers[0].type == PageType.DICTIONARY_PAGE
    assert headers[0].dictionary_page_header.num_values == 3
    assert pq.read_table(path).column("x").to_pylist() == values.tolist()
