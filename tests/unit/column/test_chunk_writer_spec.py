"""parquet_core.column.writer.write_column_chunk (with chunk_layout, page_builder and
chunk_metadata behind it), checked against the spec and against pyarrow.

Each case writes one chunk with ``write_column_chunk``, wraps it by hand into a
one-column file (a FileMetaData built from the chunk's ColumnMetaData), and then:

* pyarrow reads the values back (nulls included) and its view of the metadata
  (statistics from numpy on the input, sizes, dictionary page offset) agrees;
* every page header is decoded independently (generated Thrift classes via the
  pure-Python compact protocol) and walked: the pages tile the chunk, the
  dictionary page comes first and is PLAIN, data pages hold dictionary indices
  until the fallback and the fallback pages after it (the spec allows no return
  to the dictionary), each page stays within ``data_page_row_count_limit``,
  their value counts add up, ``encoding_stats`` counts what was walked, and a
  page checksum is the CRC-32 of the stored body;
* the offset index lists exactly the walked data pages with their first rows.

``page_bounds`` (how records are cut into pages) is checked on hand-computed cases.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections import Counter

import numpy as np
import pytest
from thrift.protocol import TCompactProtocol
from thrift.transport import TTransport

import parquet_core as pc
from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.chunk_layout import page_bounds
from parquet_core.column.data import ColumnData
from parquet_core.column.writer import write_column_chunk
from parquet_core.options import writer_options
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.elements import schema_to_elements
from parquet_core.thrift import pt, serialize
from parquet_core.thrift.generated import ttypes

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

# parquet.thrift enum values, written out
DATA_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 2, 3
PLAIN, PLAIN_DICTIONARY, RLE_DICTIONARY = 0, 2, 8
START = 4   # the chunk follows the leading magic


def _header(buf: bytes, pos: int) -> tuple[ttypes.PageHeader, int]:
    trans = TTransport.TMemoryBuffer(buf[pos:])
    header = ttypes.PageHeader()
    header.read(TCompactProtocol.TCompactProtocol(trans))
    return header, trans._buffer.tell()


def _write(typ, items: list, nullable: bool = True, **options):
    """(file bytes, ChunkResult) for one column of *items* (None = null)."""
    schema = pc.schema([pc.field("c", typ, nullable=nullable)])
    elements = schema_to_elements(schema)
    desc = next(iter(SchemaDescriptor(elements)))
    present = np.array([x is not None for x in items], dtype=bool)
    kept = [x for x in items if x is not None]
    if typ in (pc.string(), pc.binary()):
        values = ByteArrays.from_pylist([x.encode() if isinstance(x, str) else x for x in kept])
    else:
        values = np.asarray(kept, dtype=np.int64)
    data = ColumnData(values=values, def_levels=present.astype(np.int16) if nullable else None,
                      rep_levels=None, num_levels=len(items))
    wopts = writer_options(["c"], **options)
    res = write_column_chunk(data, desc, wopts.column("c"), wopts, START)
    body = b"".join(res.pages)
    assert len(body) == sum(len(p) for p in res.pages)
    oi = serialize(res.offset_index)
    chunk = pt.ColumnChunk(file_offset=START, meta_data=res.meta,
                           offset_index_offset=START + len(body), offset_index_length=len(oi))
    footer = serialize(pt.FileMetaData(
        version=2, schema=elements, num_rows=len(items),
        row_groups=[pt.RowGroup(columns=[chunk], total_byte_size=res.meta.total_uncompressed_size,
                                num_rows=len(items))],
        column_orders=[pt.ColumnOrder(TYPE_ORDER=pt.TypeDefinedOrder())]))
    return b"PAR1" + body + oi + footer + struct.pack("<I", len(footer)) + b"PAR1", res


def _walk(buf: bytes, res) -> list[tuple[int, ttypes.PageHeader, int]]:
    """(offset, header, header size) of every page of the chunk, in order."""
    pages, pos, end = [], START, START + sum(len(p) for p in res.pages)
    while pos < end:
        header, hsize = _header(buf, pos)
        pages.append((pos, header, hsize))
        pos += hsize + header.compressed_page_size
    assert pos == end   # the pages tile the chunk exactly
    return pages


def _check_layout(buf: bytes, res, n_rows: int, row_limit: int, checksum: bool) -> list:
    meta = res.meta
    pages = _walk(buf, res)
    data = [(o, h, s) for o, h, s in pages if h.type in (DATA_PAGE, DATA_PAGE_V2)]
    dicts = [(o, h, s) for o, h, s in pages if h.type == DICTIONARY_PAGE]
    assert meta.total_compressed_size == sum(len(p) for p in res.pages)
    assert meta.total_uncompressed_size == sum(s + h.uncompressed_page_size for _, h, s in pages)
    if dicts:
        assert len(dicts) == 1 and pages[0][1].type == DICTIONARY_PAGE
        assert meta.dictionary_page_offset == START
        assert dicts[0][1].dictionary_page_header.encoding in (PLAIN, PLAIN_DICTIONARY)
    else:
        assert meta.dictionary_page_offset is None
    assert meta.data_page_offset == data[0][0]
    encodings = [(h.data_page_header or h.data_page_header_v2).encoding for _, h, _ in data]
    if dicts:
        fallback = [e not in (PLAIN_DICTIONARY, RLE_DICTIONARY) for e in encodings]
        assert fallback == sorted(fallback)   # dictionary pages first, then only fallback
    else:
        assert RLE_DICTIONARY not in encodings and PLAIN_DICTIONARY not in encodings
    counts = [(h.data_page_header or h.data_page_header_v2).num_values for _, h, _ in data]
    assert sum(counts) == meta.num_values == n_rows
    assert max(counts) <= row_limit
    walked = Counter((h.type, (h.data_page_header or h.data_page_header_v2 or h.dictionary_page_header).encoding)
                     for _, h, _ in pages)
    assert {(s.page_type, s.encoding): s.count for s in meta.encoding_stats} == dict(walked)
    for off, h, s in pages:
        stored = buf[off + s:off + s + h.compressed_page_size]
        if checksum:
            crc = zlib.crc32(stored)
            assert h.crc == (crc - 2**32 if crc >= 2**31 else crc)
        else:
            assert h.crc is None
    locs = res.offset_index.page_locations
    assert [(loc.offset, loc.compressed_page_size) for loc in locs] == \
        [(o, s + h.compressed_page_size) for o, h, s in data]
    assert [loc.first_row_index for loc in locs] == np.concatenate(([0], np.cumsum(counts)[:-1])).tolist()
    return encodings


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("use_dictionary", [False, True])
@pytest.mark.parametrize("compression", ["none", "snappy", "zstd"])
def test_int64_chunk_with_nulls(version, use_dictionary, compression):
    rng = np.random.default_rng(7)
    n = 2000
    raw = rng.integers(-10**12, 10**12, 50)[rng.integers(0, 50, n)]   # 50 distinct values
    items = [None if i % 7 == 3 else int(v) for i, v in enumerate(raw)]
    buf, res = _write(pc.int64(), items, data_page_version=version, use_dictionary=use_dictionary,
                      compression=compression, data_page_row_count_limit=300, write_page_checksum=True)
    encodings = _check_layout(buf, res, n, 300, checksum=True)
    assert len(encodings) == 7   # ceil(2000 / 300) pages of rows
    if use_dictionary:
        assert set(encodings) == {RLE_DICTIONARY}
    table = pq.read_table(io.BytesIO(buf))
    assert table.column("c").to_pylist() == items
    col = pq.read_metadata(io.BytesIO(buf)).row_group(0).column(0)
    kept = np.array([x for x in items if x is not None])
    assert col.statistics.has_min_max
    assert (col.statistics.min, col.statistics.max) == (kept.min(), kept.max())
    assert col.statistics.null_count == items.count(None)
    assert col.has_dictionary_page is use_dictionary
    assert col.total_compressed_size == sum(len(p) for p in res.pages)
    assert col.compression == (compression.upper() if compression != "none" else "UNCOMPRESSED")


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_string_dictionary_fallback(version):
    """A dictionary past ``dictionary_pagesize_limit`` stops; later pages are PLAIN (v1) /
    the v2 fallback, and pyarrow reads the whole column back."""
    n = 5000
    items = [None if i % 11 == 0 else f"key-{i // 3:05d}" for i in range(n)]
    buf, res = _write(pc.string(), items, data_page_version=version, dictionary_pagesize_limit=4096,
                      data_page_size=2048, data_page_row_count_limit=10**6)
    encodings = _check_layout(buf, res, n, 10**6, checksum=False)
    assert encodings[0] == RLE_DICTIONARY and encodings[-1] not in (RLE_DICTIONARY, PLAIN_DICTIONARY)
    assert pq.read_table(io.BytesIO(buf)).column("c").to_pylist() == items
    col = pq.read_metadata(io.BytesIO(buf)).row_group(0).column(0)
    kept = sorted(x for x in items if x is not None)
    assert (col.statistics.min, col.statistics.max) == (kept[0], kept[-1])


def test_required_column_has_no_definition_levels():
    items = list(range(1000))
    buf, res = _write(pc.int64(), items, nullable=False, use_dictionary=False, compression="none",
                      data_page_row_count_limit=1000)
    (off, header, hsize), = _walk(buf, res)
    # a REQUIRED flat column: the v1 body is the PLAIN values alone (no level parts)
    assert buf[off + hsize:off + hsize + header.compressed_page_size] == np.arange(1000, dtype="<i8").tobytes()
    assert pq.read_table(io.BytesIO(buf)).column("c").to_pylist() == items


def test_all_null_chunk():
    items = [None] * 300
    buf, res = _write(pc.int64(), items, data_page_row_count_limit=100)
    _check_layout(buf, res, 300, 100, checksum=False)
    assert pq.read_table(io.BytesIO(buf)).column("c").to_pylist() == items
    stats = pq.read_metadata(io.BytesIO(buf)).row_group(0).column(0).statistics
    assert stats.null_count == 300 and not stats.has_min_max


# -- page_bounds: records cut into pages ----------------------------------------------------

def _cum(costs):
    return np.concatenate(([0], np.cumsum(costs))).astype(np.int64)


@pytest.mark.parametrize("costs, page_bytes, page_rows, forced, want", [
    ([3] * 5, 7, 100, None, [(0, 2), (2, 4), (4, 5)]),        # 2 records of 3 fit in 7
    ([3] * 5, 6, 100, None, [(0, 2), (2, 4), (4, 5)]),        # exactly full pages
    ([3] * 5, 100, 2, None, [(0, 2), (2, 4), (4, 5)]),        # the row limit
    ([3] * 5, 7, 100, 3, [(0, 2), (2, 3), (3, 5)]),           # a forced page start
    ([3] * 5, 7, 100, 0, [(0, 2), (2, 4), (4, 5)]),           # forcing record 0 changes nothing
    ([10, 1, 1], 5, 100, None, [(0, 1), (1, 3)]),             # an oversized record gets its own page
    ([1, 1, 10, 1], 5, 100, None, [(0, 2), (2, 3), (3, 4)]),
    ([], 5, 100, None, []),                                    # no records, no pages
])
def test_page_bounds_hand_computed(costs, page_bytes, page_rows, forced, want):
    assert page_bounds(_cum(costs), page_bytes, page_rows, forced) == want
