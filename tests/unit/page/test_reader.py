"""Page walking: unknown page types, CRC, sizes, v2 layout — on hand-built chunks."""

from __future__ import annotations

import struct
import zlib

import pytest

from parquet_core.constants import CompressionCodec, Encoding, PageType
from parquet_core.errors import ParquetFormatError
from parquet_core.page.model import DataPageV1, DataPageV2
from parquet_core.page.reader import iter_pages
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize


def _page(ptype: int, body: bytes, crc: bool = False, **headers) -> bytes:
    h = pt.PageHeader(type=ptype, uncompressed_page_size=len(body), compressed_page_size=len(body),
                      crc=(zlib.crc32(body) - (1 << 32) if zlib.crc32(body) >= 1 << 31 else zlib.crc32(body)) if crc else None,
                      **headers)
    return serialize(h) + body


def _v1(values: list[int], **kw) -> bytes:
    body = struct.pack(f"<{len(values)}i", *values)
    return _page(PageType.DATA_PAGE, body, data_page_header=pt.DataPageHeader(
        num_values=len(values), encoding=Encoding.PLAIN, definition_level_encoding=Encoding.RLE,
        repetition_level_encoding=Encoding.RLE), **kw)


def test_index_and_unknown_pages_are_skipped() -> None:
    chunk = (_page(PageType.INDEX_PAGE, b"\x00" * 5, index_page_header=pt.IndexPageHeader())
             + _page(42, b"junk") + _v1([1, 2, 3]))
    pages = list(iter_pages(chunk, CompressionCodec.UNCOMPRESSED, 3))
    assert len(pages) == 1 and isinstance(pages[0], DataPageV1)
    assert bytes(pages[0].body) == struct.pack("<3i", 1, 2, 3)


def test_crc_verified_and_optional() -> None:
    good = _v1([7, 8], crc=True)
    assert len(list(iter_pages(good, CompressionCodec.UNCOMPRESSED, 2))) == 1
    bad = bytearray(good)
    bad[-1] ^= 1
    with pytest.raises(ParquetFormatError, match="CRC") as info:
        list(iter_pages(bytes(bad), CompressionCodec.UNCOMPRESSED, 2, base_offset=100))
    assert "page 0" in " ".join(info.value.__notes__) and "file offset 100" in " ".join(info.value.__notes__)
    assert len(list(iter_pages(bytes(bad), CompressionCodec.UNCOMPRESSED, 2, verify_crc=False))) == 1


def test_page_running_past_chunk() -> None:
    chunk = _v1([1, 2, 3])[:-2]
    with pytest.raises(ParquetFormatError, match="runs past"):
        list(iter_pages(chunk, CompressionCodec.UNCOMPRESSED, 3))


def test_more_values_than_chunk_promises() -> None:
    with pytest.raises(ParquetFormatError, match="values"):
        list(iter_pages(_v1([1, 2, 3]), CompressionCodec.UNCOMPRESSED, 2))


def test_chunk_ends_early() -> None:
    with pytest.raises(ParquetFormatError, match="promises"):
        list(iter_pages(_v1([1]), CompressionCodec.UNCOMPRESSED, 5))


def test_v2_levels_stay_uncompressed_and_is_compressed_false() -> None:
    import snappy

    levels = b"\x06\x01"  # RLE run: 3 x level 1
    values = struct.pack("<3i", 4, 5, 6)
    for is_compressed in (True, False):
        stored = levels + (snappy.compress(values) if is_compressed else values)
        h = pt.PageHeader(type=PageType.DATA_PAGE_V2, uncompressed_page_size=len(levels) + len(values),
                          compressed_page_size=len(stored),
                          data_page_header_v2=pt.DataPageHeaderV2(
                              num_values=3, num_nulls=0, num_rows=3, encoding=Encoding.PLAIN,
                              definition_levels_byte_length=2, repetition_levels_byte_length=0,
                              is_compressed=is_compressed))
        (page,) = iter_pages(serialize(h) + stored, CompressionCodec.SNAPPY, 3)
        assert isinstance(page, DataPageV2)
        assert bytes(page.definition_levels) == levels and bytes(page.values) == values


def test_v2_level_lengths_larger_than_page() -> None:
    h = pt.PageHeader(type=PageType.DATA_PAGE_V2, uncompressed_page_size=4, compressed_page_size=4,
                      data_page_header_v2=pt.DataPageHeaderV2(
                          num_values=1, num_nulls=0, num_rows=1, encoding=Encoding.PLAIN,
                          definition_levels_byte_length=10, repetition_levels_byte_length=0))
    with pytest.raises(ParquetFormatError, match="level lengths"):
        list(iter_pages(serialize(h) + b"\0" * 4, CompressionCodec.UNCOMPRESSED, 1))


def test_negative_sizes() -> None:
    h = pt.PageHeader(type=PageType.DATA_PAGE, uncompressed_page_size=-1, compressed_page_size=4,
                      data_page_header=pt.DataPageHeader(num_values=1, encoding=0,
                                                         definition_level_encoding=3,
                                                         repetition_level_encoding=3))
    with pytest.raises(ParquetFormatError, match="invalid sizes"):
        list(iter_pages(serialize(h) + b"\0" * 4, CompressionCodec.UNCOMPRESSED, 1))
