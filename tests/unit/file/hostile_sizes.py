"""Small files whose declarations ask for gigabytes (issue 29, item 4), built from Thrift structs.

* :func:`null_run_file`: one optional INT32 column whose only page's definition levels are
  one RLE run declaring *n* nulls (126 bytes for ``n = 2**31 - 1``);
* :func:`long_list_file`: one row holding one list of *n* null elements, its repetition
  and definition levels two and one RLE runs;
* :func:`zeros_page_file`: one required INT32 column whose only PLAIN page is *size* bytes
  of zeros, compressed by zstd or brotli (2 GiB of zeros: about 65 KB in zstd), compressed
  in steps so that building it never holds the inflated page.

Every count and size in them is honest: the bytes really decode to what they declare.
"""

from __future__ import annotations

import struct

from parquet_core.constants import (
    CompressionCodec,
    ConvertedType,
    Encoding,
    PageType,
    PhysicalType,
    Repetition,
)
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize
from tests.unit.encodings.golden import uleb as _uleb

__all__ = ["null_run_file", "long_list_file", "zeros_page_file", "rle_run", "MAX_INT32"]

MAX_INT32 = 2**31 - 1


def rle_run(count: int, value: int) -> bytes:
    """One RLE run of the RLE/bit-packed hybrid: *count* copies of *value* (< 256)."""
    return _uleb(count << 1) + bytes([value])


def _v1_levels(stream: bytes) -> bytes:
    return struct.pack("<I", len(stream)) + stream


def _file(schema: list, path: list[str], ptype: int, codec: int, pages: bytes, num_values: int,
          num_rows: int, uncompressed: int | None = None) -> bytes:
    out = bytearray(b"PAR1")
    start = len(out)
    out += pages
    size = len(pages)
    meta = pt.ColumnMetaData(
        type=ptype, encodings=[Encoding.PLAIN, Encoding.RLE], path_in_schema=path, codec=codec,
        num_values=num_values, total_uncompressed_size=size if uncompressed is None else uncompressed,
        total_compressed_size=size, data_page_offset=start)
    rg = pt.RowGroup(columns=[pt.ColumnChunk(file_offset=start, meta_data=meta)], total_byte_size=size,
                     num_rows=num_rows)
    footer = serialize(pt.FileMetaData(version=1, schema=schema, num_rows=num_rows, row_groups=[rg]))
    return bytes(out) + footer + struct.pack("<I", len(footer)) + b"PAR1"


def _v1_page(body: bytes, num_values: int, stored: bytes | None = None) -> bytes:
    stored = body if stored is None else stored
    header = pt.PageHeader(
        type=PageType.DATA_PAGE, uncompressed_page_size=len(body), compressed_page_size=len(stored),
        data_page_header=pt.DataPageHeader(num_values=num_values, encoding=Encoding.PLAIN,
                                           definition_level_encoding=Encoding.RLE,
                                           repetition_level_encoding=Encoding.RLE))
    return serialize(header) + stored


def null_run_file(n: int = MAX_INT32) -> bytes:
    """An optional INT32 column of *n* rows, all null: one page, one RLE run of level 0."""
    schema = [pt.SchemaElement(name="schema", num_children=1),
              pt.SchemaElement(name="x", repetition_type=Repetition.OPTIONAL, type=PhysicalType.INT32)]
    page = _v1_page(_v1_levels(rle_run(n, 0)), n)
    return _file(schema, ["x"], PhysicalType.INT32, CompressionCodec.UNCOMPRESSED, page, n, n)


def long_list_file(n: int = MAX_INT32) -> bytes:
    """One row: a list of *n* null INT32 elements (levels as RLE runs, no values)."""
    schema = [pt.SchemaElement(name="schema", num_children=1),
              pt.SchemaElement(name="a", repetition_type=Repetition.OPTIONAL, num_children=1,
                               converted_type=ConvertedType.LIST),
              pt.SchemaElement(name="list", repetition_type=Repetition.REPEATED, num_children=1),
              pt.SchemaElement(name="element", repetition_type=Repetition.OPTIONAL, type=PhysicalType.INT32)]
    reps = rle_run(1, 0) + rle_run(n - 1, 1)
    defs = rle_run(n, 2)    # 2: the element is null (3 would be a value)
    page = _v1_page(_v1_levels(reps) + _v1_levels(defs), n)
    return _file(schema, ["a", "list", "element"], PhysicalType.INT32, CompressionCodec.UNCOMPRESSED,
                 page, n, 1)


def _zstd_zeros(size: int) -> bytes:
    import zstandard

    comp = zstandard.ZstdCompressor(level=3).compressobj(size=size)
    step = bytes(min(size, 1 << 24))
    out, left = [], size
    while left:
        take = min(left, len(step))
        out.append(comp.compress(step[:take] if take < len(step) else step))
        left -= take
    out.append(comp.flush())
    return b"".join(out)


def _brotli_zeros(size: int) -> bytes:
    import brotli

    comp = brotli.Compressor(quality=5)
    step = bytes(min(size, 1 << 24))
    out, left = [], size
    while left:
        take = min(left, len(step))
        out.append(comp.process(step[:take] if take < len(step) else step))
        left -= take
    out.append(comp.finish())
    return b"".join(out)


def zeros_page_file(size: int, codec: str = "zstd", chunk_uncompressed: int | None = None,
                    pages: int = 1) -> bytes:
    """A required INT32 column of ``size // 4`` zeros in one compressed PLAIN page
    (*size*: a multiple of 4), or *pages* such pages. *chunk_uncompressed* overrides the
    chunk's ``total_uncompressed_size`` (default: the pages' sizes, headers included)."""
    assert size % 4 == 0
    n = size // 4
    stored = _zstd_zeros(size) if codec == "zstd" else _brotli_zeros(size)
    codec_id = CompressionCodec.ZSTD if codec == "zstd" else CompressionCodec.BROTLI
    header = pt.PageHeader(
        type=PageType.DATA_PAGE, uncompressed_page_size=size, compressed_page_size=len(stored),
        data_page_header=pt.DataPageHeader(num_values=n, encoding=Encoding.PLAIN,
                                           definition_level_encoding=Encoding.RLE,
                                           repetition_level_encoding=Encoding.RLE))
    head = serialize(header)
    schema = [pt.SchemaElement(name="schema", num_children=1),
              pt.SchemaElement(name="x", repetition_type=Repetition.REQUIRED, type=PhysicalType.INT32)]
    total = (len(head) + size) * pages if chunk_uncompressed is None else chunk_uncompressed
    return _file(schema, ["x"], PhysicalType.INT32, codec_id, (head + stored) * pages, n * pages, n * pages,
                 uncompressed=total)
