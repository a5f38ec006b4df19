"""Legal oddities of real writers are not errors, and their bugs are named (issue 36).

* pyarrow's empty tables: chunks of 0 values without a data page (``footer.empty-chunk``, info);
* empty data pages (``pages.empty-data-page``, info) and, in an offset index, the first_row_index
  they repeat (``writers.arrow-empty-page`` / ``page_index.empty-page``, warnings), with the rest of
  the index still checked page by page;
* a dictionary encoding listed in ``encodings`` covers the PLAIN dictionary page (duckdb);
* pyarrow's unencoded_byte_array_data_bytes for DELTA_BYTE_ARRAY
  (``writers.arrow-delta-byte-array-unencoded-bytes``).
"""

from __future__ import annotations

import pytest

import parquet_core as pc
from parquet_core.constants import Encoding
from tests.check.broken import edit_footer, edit_index, footer_of, pyarrow_bytes
from tests._support.check_files import expect, find

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

OTHER_WRITER = "parquet-mr version 1.15.0 (build x)"


def _other_writer(data: bytes) -> bytes:
    return edit_footer(data, lambda m: setattr(m, "created_by", OTHER_WRITER))


# -- empty chunks -------------------------------------------------------------------------------

@pytest.mark.parametrize("dictionary", [True, False], ids=["dictionary-page", "no-page"])
@pytest.mark.parametrize("level", ["footer", "pages", "data"])
def test_empty_table_chunks_are_info(dictionary, level):
    t = pa.table({"a": pa.array([], pa.int64()), "s": pa.array([], pa.string()),
                  "l": pa.array([], pa.list_(pa.int32()))})
    data = pyarrow_bytes(t, use_dictionary=dictionary, write_page_index=True)
    meta, _ = footer_of(data)
    chunk = meta.row_groups[0].columns[0].meta_data
    # what pyarrow writes (the facts the rule is about)
    assert meta.row_groups[0].num_rows == 0 and chunk.num_values == 0 and chunk.data_page_offset == 0
    assert (chunk.dictionary_page_offset == 4) is dictionary
    report = pc.check(data, level=level)
    assert report.ok and not report.warnings, str(report)
    for column in ("a", "s", "l.list.element"):
        assert find(report, "footer.empty-chunk", 0, column).severity == "info"
    assert pq.read_table(pa.BufferReader(data)).num_rows == 0   # readers read it


# -- empty data pages ---------------------------------------------------------------------------

def _empty_page_file(version: str = "1.0") -> tuple[bytes, int]:
    """pyarrow 26 writes an empty data page into a list column with one-row batches and small pages."""
    t = pa.table({"l": pa.array([[1] * (i % 8) for i in range(300)], pa.list_(pa.int64()))})
    data = pyarrow_bytes(t, write_page_index=True, data_page_size=64, write_batch_size=1, compression="none",
                         data_page_version=version)
    meta, _ = footer_of(data)
    cc = meta.row_groups[0].columns[0]
    oi_raw = data[cc.offset_index_offset:cc.offset_index_offset + cc.offset_index_length]
    from parquet_core.thrift import pt
    from parquet_core.thrift.codec import parse

    oi, _ = parse(oi_raw, pt.OffsetIndex)
    rows = [loc.first_row_index for loc in oi.page_locations]
    repeated = [i for i in range(1, len(rows)) if rows[i] == rows[i - 1]]
    if not repeated:
        pytest.skip("this pyarrow writes no empty page here")
    return data, repeated[0]


@pytest.mark.parametrize("version", ["1.0", "2.0"])   # v2: a DATA_PAGE_V2 of 0 values and 0 rows
def test_empty_page_in_offset_index_is_a_named_warning(version):
    data, i = _empty_page_file(version)
    report = pc.check(data)
    assert report.ok, str(report)
    f = find(report, "writers.arrow-empty-page", 0, "l.list.element")
    assert f.severity == "warning" and "parquet-cpp-arrow" in f.message
    assert find(report, "pages.empty-data-page", 0, "l.list.element").severity == "info"
    assert not report.rules("error") and "page_index.decode" not in report.rules()
    # another writer: the same fact under the page index rule
    report = pc.check(_other_writer(data))
    assert report.ok and find(report, "page_index.empty-page", 0, "l.list.element").severity == "warning"
    assert "writers.arrow-empty-page" not in report.rules()


def test_offset_index_with_empty_page_is_still_checked_page_by_page():
    data, i = _empty_page_file()
    assert i > 5

    def size(oi):
        oi.page_locations[i - 3].compressed_page_size += 1
    report = expect(edit_index(data, 0, 0, "offset", size), "page_index.page-location", 0, "l.list.element",
                    level="pages")
    find(report, "writers.arrow-empty-page", 0, "l.list.element")

    def back(oi):
        oi.page_locations[i - 3].first_row_index = oi.page_locations[i - 5].first_row_index - 1
    report = expect(edit_index(data, 0, 0, "offset", back), "page_index.first-row-order", 0, "l.list.element",
                    level="pages")
    find(report, "writers.arrow-empty-page", 0, "l.list.element")

    def bad(oi):   # the engine refuses a size of 0 for the whole index; here it is page 1's problem
        oi.page_locations[1].compressed_page_size = 0
    report = expect(edit_index(data, 0, 0, "offset", bad), "page_index.page-location", 0, "l.list.element",
                    level="pages")
    find(report, "writers.arrow-empty-page", 0, "l.list.element")


def test_equal_first_rows_of_non_empty_pages_are_an_error():
    t = pa.table({"a": pa.array(range(2000), pa.int64())})
    data = pyarrow_bytes(t, write_page_index=True, max_rows_per_page=300, use_dictionary=False)

    def same(oi):
        oi.page_locations[2].first_row_index = oi.page_locations[1].first_row_index
    report = expect(edit_index(data, 0, 0, "offset", same), "page_index.first-row-order", 0, "a", level="pages")
    assert "page_index.empty-page" not in report.rules()


# -- encodings ----------------------------------------------------------------------------------

def test_dictionary_encoding_covers_the_plain_dictionary_page(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "d.parquet"
    duckdb.execute(f"copy (select (i % 5)::varchar as s from range(100) t(i)) to '{path}' (format parquet)")
    meta, _ = footer_of(path.read_bytes())
    assert Encoding.PLAIN not in meta.row_groups[0].columns[0].meta_data.encodings   # duckdb lists no PLAIN
    report = pc.check(path)
    assert report.ok and "pages.encoding-not-listed" not in report.rules(), str(report)

    data = pyarrow_bytes(pa.table({"s": [f"v{i % 5}" for i in range(100)]}))
    for listed, flagged in (([Encoding.RLE_DICTIONARY, Encoding.RLE], False), ([Encoding.RLE], True)):
        edited = edit_footer(data, lambda m: setattr(m.row_groups[0].columns[0].meta_data, "encodings", listed))
        report = pc.check(edited, level="pages")
        assert ("pages.encoding-not-listed" in report.rules("warning")) is flagged, str(report)


# -- pyarrow's unencoded byte counts of DELTA_BYTE_ARRAY ----------------------------------------

VALUES = ["abcdef", "abcdef", "abc", "uv", "uvw", "", "uvw", "xyz"] * 25


def _dba_file() -> bytes:
    t = pa.table({"s": VALUES})
    return pyarrow_bytes(t, use_dictionary=False, column_encoding={"s": "DELTA_BYTE_ARRAY"}, write_page_index=True)


def test_arrow_delta_byte_array_unencoded_bytes_is_a_named_warning():
    data = _dba_file()
    meta, _ = footer_of(data)
    claimed = meta.row_groups[0].columns[0].meta_data.size_statistics.unencoded_byte_array_data_bytes
    actual = sum(len(v.encode()) for v in VALUES)
    if claimed == actual:
        pytest.skip("this pyarrow counts DELTA_BYTE_ARRAY bytes right")
    assert claimed < actual   # the bug: values that are a prefix of the one before are not counted
    report = pc.check(data)
    assert report.ok, str(report)
    f = find(report, "writers.arrow-delta-byte-array-unencoded-bytes", 0, "s", None)
    assert f.severity == "warning" and f"{claimed}" in f.message and f"{actual}" in f.message
    find(report, "writers.arrow-delta-byte-array-unencoded-bytes", 0, "s", 0)   # the offset index's count

    report = pc.check(_other_writer(data))   # the same numbers from another writer: errors
    find(report, "size-statistics.unencoded-bytes", 0, "s")
    find(report, "page_index.unencoded-bytes", 0, "s")
    assert "writers.arrow-delta-byte-array-unencoded-bytes" not in report.rules()


def test_other_wrong_counts_from_pyarrow_stay_errors():
    data = _dba_file()

    def edit(m):
        m.row_groups[0].columns[0].meta_data.size_statistics.unencoded_byte_array_data_bytes += 1
    expect(edit_footer(data, edit), "size-statistics.unencoded-bytes", 0, "s")


# -- fastparquet's deprecated min/max ------------------------------------------------------------

def test_fastparquet_unsigned_deprecated_bounds(tmp_path):
    fastparquet = pytest.importorskip("fastparquet")
    pd = pytest.importorskip("pandas")
    import numpy as np

    path = tmp_path / "fp.parquet"
    df = pd.DataFrame({"u64": np.array([1, 2**63 + 5, 7], dtype=np.uint64), "small": np.array([1, 2, 3], np.uint16),
                       "s": ["a", "é", "b"]})
    fastparquet.write(str(path), df, stats=True)
    meta, _ = footer_of(path.read_bytes())
    st = meta.row_groups[0].columns[0].meta_data.statistics
    # what fastparquet writes: the unsigned extremes in the deprecated fields only
    assert st.min_value is None and int.from_bytes(st.min, "little") == 1
    assert int.from_bytes(st.max, "little") == 2**63 + 5
    report = pc.check(path)
    assert report.ok, str(report)
    for column in ("u64", "s"):
        f = find(report, "writers.fastparquet-unsigned-deprecated-bounds", 0, column)
        assert f.severity == "warning" and "fastparquet" in f.message
    # values that sort the same either way cannot tell: the generic rule
    assert find(report, "statistics.deprecated-unsigned", 0, "small").severity == "warning"
    report = pc.check(_other_writer(path.read_bytes()))
    assert "writers.fastparquet-unsigned-deprecated-bounds" not in report.rules()
    find(report, "statistics.deprecated-unsigned", 0, "u64")


# -- NaN in distinct_count (duckdb counts it) ---------------------------------------------------

def test_distinct_count_may_count_nan_once():
    data = pyarrow_bytes(pa.table({"f": [1.0, float("nan"), 2.0, 1.0]}))

    def distinct(n):
        return lambda m: setattr(m.row_groups[0].columns[0].meta_data.statistics, "distinct_count", n)
    for n in (2, 3):   # NaN not counted, or counted once
        report = pc.check(edit_footer(data, distinct(n)))
        assert "statistics.distinct-count" not in report.rules(), str(report)
    expect(edit_footer(data, distinct(4)), "statistics.distinct-count", 0, "f")
    no_nan = pyarrow_bytes(pa.table({"f": [1.0, 3.0, 2.0, 1.0]}))
    expect(edit_footer(no_nan, distinct(4)), "statistics.distinct-count", 0, "f")
