"""``ParquetFile.page_headers``: every page header of a chunk, checked against pyarrow's metadata."""

from __future__ import annotations

import zlib

import pytest

import parquet_core as pc
from parquet_core.constants import PageType

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_page_headers_match_pyarrows_metadata(tmp_path, version):
    path = tmp_path / "t.parquet"
    n = 5000
    table = pa.table({"a": pa.array(range(n), pa.int64()),
                      "s": pa.array([None if i % 9 == 0 else f"v{i % 13}" for i in range(n)])})
    pq.write_table(table, path, data_page_size=2048, write_page_index=True, write_page_checksum=True,
                   data_page_version=version, row_group_size=3000)
    md = pq.read_metadata(path)
    pf = pc.ParquetFile(path)
    raw = path.read_bytes()
    for rg in range(md.num_row_groups):
        for col in range(md.num_columns):
            theirs = md.row_group(rg).column(col)
            pages = pf.page_headers(rg, col)
            data = [p for p in pages if p.header.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2)]
            dicts = [p for p in pages if p.header.type == PageType.DICTIONARY_PAGE]
            assert len(data) > (1 if col == 0 else 0)   # "a" spans several pages
            assert data[0].offset == theirs.data_page_offset
            if theirs.has_dictionary_page:
                assert [p.offset for p in dicts] == [theirs.dictionary_page_offset]
                assert pages[0].offset == theirs.dictionary_page_offset
            # the pages tile the chunk, and their values add up to the chunk's
            start = pages[0].offset
            assert sum(p.header_size + p.header.compressed_page_size for p in pages) == \
                theirs.total_compressed_size
            assert pages[-1].offset + pages[-1].header_size + pages[-1].header.compressed_page_size == \
                start + theirs.total_compressed_size
            dph = [p.header.data_page_header or p.header.data_page_header_v2 for p in data]
            assert sum(d.num_values for d in dph) == theirs.num_values
            oi = pf.offset_index(rg, col)
            assert [p.offset for p in data] == [loc.offset for loc in oi.page_locations]
            for p in pages:   # pyarrow wrote a CRC on every page: it covers the stored bytes
                assert bytes(p.stored) == raw[p.offset + p.header_size:p.offset + p.header_size
                                              + p.header.compressed_page_size]
                assert p.header.crc is not None
                assert zlib.crc32(p.stored) & 0xFFFFFFFF == p.header.crc & 0xFFFFFFFF


def test_a_corrupt_header_names_the_chunk(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": list(range(100))}), path, use_dictionary=False)
    md = pq.read_metadata(path)
    off = md.row_group(0).column(0).data_page_offset
    buf = bytearray(path.read_bytes())
    buf[off:off + 4] = b"\xff\xff\xff\xff"
    path.write_bytes(bytes(buf))
    with pytest.raises(pc.ParquetFormatError) as info:
        pc.ParquetFile(path).page_headers(0, 0)
    text = str(info.value) + " ".join(getattr(info.value, "__notes__", []))
    # one wording for every location: the chunk, then the page with its file offset
    assert "in column a, row group 0 (file offset " in text
    assert f"at page 0 (file offset {off})" in text


def test_page_statistics_bound_each_pages_rows(tmp_path):
    """Without a page index pyarrow writes statistics into data page headers: each page's min,
    max and null count are those of the rows the page holds (a flat column: one value per row)."""
    path = tmp_path / "t.parquet"
    n = 4000
    values = [None if i % 11 == 0 else (i * 7919) % 1000 for i in range(n)]
    pq.write_table(pa.table({"v": pa.array(values, pa.int32())}), path, data_page_size=1024,
                   write_page_index=False, use_dictionary=False, write_statistics=True)
    pf = pc.ParquetFile(path)
    data = [p for p in pf.page_headers(0, 0) if p.header.type == PageType.DATA_PAGE]
    firsts = [0]
    for p in data:
        firsts.append(firsts[-1] + p.header.data_page_header.num_values)
    assert firsts[-1] == n
    assert len(data) == len(firsts) - 1 > 3
    for p, lo, hi in zip(data, firsts, firsts[1:]):
        rows = [v for v in values[lo:hi] if v is not None]
        assert p.statistics is not None
        assert (p.statistics.min, p.statistics.max, p.statistics.null_count) == \
            (min(rows), max(rows), hi - lo - len(rows))
