"""What surrounds the pages: page index, chunk sizes and offsets, page checksums.

* the offset index lists every data page at its real offset and size, with
  the right first row; the column index bounds each page's values (with
  truncation), flags null pages, counts nulls, and its boundary order is
  true;
* ``ColumnMetaData`` sizes count every page with its header, the offsets
  point at the first (dictionary / data) page, ``encodings`` covers the pages;
* with ``write_page_checksum`` every page carries the CRC32 of its bytes and
  pyarrow verifies it (and catches a flipped byte).
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.constants import PageType
from parquet_core.table.arrays import Array, Table
from parquet_core.thrift import pt
from tests.interop.writer_cases import (
    BY_KEY, assert_pyarrow_reads, byte_arrays, header_length,
    make_columns, page_headers, page_index, raw_chunk_meta, write_one,
)

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
def test_page_index(tmp_path, version):
    n = 3000
    rng = np.random.default_rng(5)
    ids = np.arange(n, dtype=np.int64)
    words = [f"k{int(v):06d}" + "x" * int(v % 40) for v in rng.integers(0, 10**6, n)]
    validity = rng.random(n) > 0.1
    validity[:300] = False                          # the first pages hold only nulls
    schema = pc.schema([pc.field("id", pc.int64(), nullable=False), pc.field("s", pc.string())])
    table = Table(schema, [Array(pc.int64(), ids), Array(pc.string(), byte_arrays(w.encode() for w in words),
                                                         validity)], n)
    path = tmp_path / "pi.parquet"
    pc.write_table(table, path, data_page_size=512, data_page_version=version, write_page_index=True,
                   use_dictionary=False, column_index_truncate_length=6)
    md = pq.ParquetFile(path).metadata.row_group(0)
    assert md.column(0).has_offset_index and md.column(0).has_column_index
    assert md.column(1).has_offset_index and md.column(1).has_column_index

    data = path.read_bytes()
    for j in range(2):
        ci, oi = page_index(path, 0, j)
        headers = [h for h in page_headers(path, 0, j)]
        data_headers = [h for h in headers if h.type != PageType.DICTIONARY_PAGE]
        # offset index: one location per data page, at the page's offset, sizes include the header
        assert len(oi.page_locations) == len(data_headers) > 3
        chunk = raw_chunk_meta(path, 0, j)
        pos = chunk.dictionary_page_offset or chunk.data_page_offset
        locs = iter(oi.page_locations)
        row = 0
        bounds = []
        for h in headers:
            hlen = header_length(data, pos)
            if h.type != PageType.DICTIONARY_PAGE:
                loc = next(locs)
                assert loc.offset == pos and loc.compressed_page_size == hlen + h.compressed_page_size
                assert loc.first_row_index == row
                nv = (h.data_page_header or h.data_page_header_v2).num_values
                bounds.append((row, row + nv))
                row += nv
            pos += hlen + h.compressed_page_size
        assert row == n
        # column index: per page null flags, counts, and bounds of the page's values
        assert len(ci.null_pages) == len(bounds)
        for k, (a, b) in enumerate(bounds):
            if j == 0:
                lo, hi = struct.pack("<q", a), struct.pack("<q", b - 1)
                assert (ci.min_values[k], ci.max_values[k]) == (lo, hi)
                assert not ci.null_pages[k]
                continue
            present = [words[i].encode() for i in range(a, b) if validity[i]]
            assert ci.null_pages[k] == (not present)
            if ci.null_counts is not None:
                assert ci.null_counts[k] == (b - a) - len(present)
            if ci.definition_level_histograms is not None:
                assert list(ci.definition_level_histograms[2 * k:2 * k + 2]) == [(b - a) - len(present),
                                                                                  len(present)]
            if present:
                assert len(ci.min_values[k]) <= 6 and len(ci.max_values[k]) <= 6
                assert ci.min_values[k] <= min(present) and ci.max_values[k] >= max(present)
        if j == 0:
            assert ci.boundary_order == pt.BoundaryOrder.ASCENDING
        if ci.boundary_order == pt.BoundaryOrder.ASCENDING:
            mins = [m for m, null in zip(ci.min_values, ci.null_pages) if not null]
            if j == 0:
                mins = [struct.unpack("<q", m)[0] for m in mins]
            assert mins == sorted(mins)


@pytest.mark.parametrize("typ", [pc.time64("ns"), pc.timestamp("ns"), pc.timestamp("ns", utc=True),
                                 pc.timestamp("us")], ids=str)
def test_page_index_for_temporal_columns(tmp_path, typ):
    """Pages whose bounds are whole microseconds next to pages whose bounds are not (or are
    outside ``datetime``'s range): the column index still orders them as integers."""
    values = np.array([1000, 1001, 2000, 3000, 3001, 4000], dtype=np.int64)
    if typ.unit == "us":
        values = np.array([0, 1, 2**62, 2**62 + 5, 2**62 + 7, 2**63 - 1], dtype=np.int64)
    path, _ = write_one(tmp_path, "t", typ, values, data_page_row_count_limit=1, write_page_index=True)
    assert pq.read_table(path).column(0).cast(pa.int64()).to_pylist() == values.tolist()
    ci, oi = page_index(path, 0, 0)
    assert len(oi.page_locations) == len(values)
    assert [struct.unpack("<q", m)[0] for m in ci.min_values] == values.tolist()
    assert ci.boundary_order == pt.BoundaryOrder.ASCENDING



def test_no_page_index_when_off(tmp_path):
    path, _ = write_one(tmp_path, "x", pc.int64(), np.arange(100), write_page_index=False)
    col = pq.ParquetFile(path).metadata.row_group(0).column(0)
    assert not col.has_column_index and not col.has_offset_index


@pytest.mark.parametrize("version", ["1.0", "2.0"], ids=["v1", "v2"])
def test_chunk_sizes_offsets_and_encodings_agree_with_the_pages(tmp_path, version):
    """ColumnMetaData sizes count every page with its header; offsets point at the pages."""
    cases = [BY_KEY[k] for k in ("i64", "str", "bool", "f64", "dec38_5", "null")]
    table, _ = make_columns(cases, 2500, nulls=True, seed=10)
    path = tmp_path / "sizes.parquet"
    pc.write_table(table, path, data_page_version=version, row_group_size=1000, data_page_size=700,
                   dictionary_pagesize_limit=300, compression="gzip")
    data = path.read_bytes()
    md = pc.read_metadata(path)
    for i in range(md.num_row_groups):
        rg = md.row_group(i).raw
        starts = []
        for j in range(len(cases)):
            meta = rg.columns[j].meta_data
            start = meta.dictionary_page_offset if meta.dictionary_page_offset is not None \
                else meta.data_page_offset
            starts.append(start)
            pos, comp, uncomp, seen, encs = start, 0, 0, 0, set()
            for h in page_headers(path, i, j):
                hlen = header_length(data, pos)
                if h.type == PageType.DICTIONARY_PAGE:
                    assert pos == meta.dictionary_page_offset
                    encs.add(h.dictionary_page_header.encoding)
                else:
                    if seen == 0:
                        assert pos == meta.data_page_offset, "data_page_offset is the first data page"
                    dph = h.data_page_header or h.data_page_header_v2
                    seen += dph.num_values
                    encs.add(dph.encoding)
                comp += hlen + h.compressed_page_size
                uncomp += hlen + h.uncompressed_page_size
                pos += hlen + h.compressed_page_size
            assert meta.total_compressed_size == comp
            assert meta.total_uncompressed_size == uncomp
            assert meta.num_values == seen == rg.num_rows
            assert encs <= set(meta.encodings), \
                f"{cases[j].key}: pages use {encs}, chunk lists {meta.encodings}"
        assert rg.file_offset in (None, starts[0])
        if rg.total_compressed_size is not None:
            assert rg.total_compressed_size == sum(c.meta_data.total_compressed_size for c in rg.columns)
        assert rg.total_byte_size == sum(c.meta_data.total_uncompressed_size for c in rg.columns)



def test_page_checksums_verified_by_pyarrow(tmp_path):
    cases = [BY_KEY[k] for k in ("i64", "str", "f64", "bool")]
    for version in ("1.0", "2.0"):
        table, expected = make_columns(cases, 500, nulls=True, seed=6)
        path = tmp_path / f"crc{version}.parquet"
        pc.write_table(table, path, write_page_checksum=True, data_page_version=version, data_page_size=512,
                       compression="gzip")
        assert_pyarrow_reads(path, cases, expected, page_checksum_verification=True)
        data = bytearray(path.read_bytes())
        pages = 0
        for j in range(len(cases)):
            chunk = raw_chunk_meta(path, 0, j)
            pos = chunk.dictionary_page_offset or chunk.data_page_offset
            for h in page_headers(path, 0, j):
                hlen = header_length(data, pos)
                body = bytes(data[pos + hlen:pos + hlen + h.compressed_page_size])
                assert h.crc is not None, "page without CRC although write_page_checksum=True"
                assert h.crc & 0xFFFFFFFF == zlib.crc32(body), "CRC is not CRC32 of the page bytes"
                pages += 1
                last = (pos + hlen, h.compressed_page_size)
                pos += hlen + h.compressed_page_size
        assert pages > len(cases)
        # flip one byte of the last page's body: pyarrow's verification must catch it
        data[last[0] + last[1] // 2] ^= 0xFF
        bad = tmp_path / f"bad{version}.parquet"
        bad.write_bytes(bytes(data))
        with pytest.raises(OSError, match="(?i)crc|checksum"):
            pq.read_table(bad, page_checksum_verification=True)


def test_no_checksums_by_default(tmp_path):
    path, _ = write_one(tmp_path, "x", pc.int64(), np.arange(100))
    assert all(h.crc is None for h in page_headers(path, 0, 0))
