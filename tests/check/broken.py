"""Make broken files by editing one fact of a valid file (test helper).

Footers are edited through the thrift structs (``tests/interop/footer_edit``).
Page headers are re-serialized in place: the bytes after the page move by the
change in header size, and every footer offset behind it moves with them (the
chunk's sizes too), so that the edited fact is the only one that changes; a
page CRC is recomputed unless the edit is about the CRC.  Page indexes and
Bloom filters are edited by writing the edited struct just before the footer
and pointing the footer at it.
"""

from __future__ import annotations

import io
import struct
import zlib
from typing import Any, Callable

from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse, serialize
from tests.interop.footer_edit import edit_footer

__all__ = ["edit_footer", "footer_of", "pages_of", "edit_page", "edit_index", "replace_bloom", "pyarrow_bytes"]


def pyarrow_bytes(table: Any, **options: Any) -> bytes:
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(table, buf, **options)
    return buf.getvalue()


def footer_of(data: bytes) -> tuple[Any, int]:
    (flen,) = struct.unpack("<I", data[-8:-4])
    start = len(data) - 8 - flen
    meta, _ = parse(data[start:-8], pt.FileMetaData)
    return meta, start


def pages_of(data: bytes, rg: int, col: int) -> list[tuple[int, Any, int]]:
    """``(file offset, header, header length)`` of every page of one chunk."""
    meta, _ = footer_of(data)
    md = meta.row_groups[rg].columns[col].meta_data
    pos = md.dictionary_page_offset or md.data_page_offset
    end = pos + md.total_compressed_size
    out = []
    while pos < end:
        h, n = parse(data, pt.PageHeader, offset=pos)
        out.append((pos, h, n))
        pos += n + h.compressed_page_size
    return out


def _shift(meta: Any, after: int, delta: int) -> None:
    for rg in meta.row_groups:
        if rg.file_offset is not None and rg.file_offset > after:
            rg.file_offset += delta
        for cc in rg.columns:
            md = cc.meta_data
            for obj, name in ((md, "data_page_offset"), (md, "dictionary_page_offset"), (md, "bloom_filter_offset"),
                              (cc, "offset_index_offset"), (cc, "column_index_offset")):
                v = getattr(obj, name)
                if v is not None and v > after:
                    setattr(obj, name, v + delta)


def edit_page(data: bytes, rg: int, col: int, page: int,
              edit: Callable[[Any, bytes], bytes | None], *, keep_crc: bool = False) -> bytes:
    """Apply *edit(header, stored) -> new stored bytes or None* to one page and rebuild the file."""
    meta, fstart = footer_of(data)
    pos, header, hlen = pages_of(data, rg, col)[page]
    stored = data[pos + hlen:pos + hlen + header.compressed_page_size]
    old_usize = header.uncompressed_page_size
    new_stored = edit(header, stored)
    if new_stored is None:
        new_stored = stored
    size_change = len(new_stored) - len(stored)
    header.compressed_page_size = len(new_stored)
    if header.crc is not None and not keep_crc:
        crc = zlib.crc32(new_stored) & 0xFFFFFFFF
        header.crc = crc - (1 << 32) if crc >= 1 << 31 else crc
    raw_header = serialize(header)
    delta = len(raw_header) - hlen + size_change
    out = data[:pos] + raw_header + new_stored + data[pos + hlen + len(stored):fstart]
    _shift(meta, pos, delta)
    md = meta.row_groups[rg].columns[col].meta_data
    unc = len(raw_header) - hlen + (header.uncompressed_page_size - old_usize)
    md.total_compressed_size += delta
    md.total_uncompressed_size += unc
    group = meta.row_groups[rg]
    if group.total_compressed_size is not None:
        group.total_compressed_size += delta
    if group.total_byte_size is not None:
        group.total_byte_size += unc
    footer = serialize(meta)
    return out + footer + struct.pack("<I", len(footer)) + b"PAR1"


def edit_index(data: bytes, rg: int, col: int, kind: str, edit: Callable[[Any], None]) -> bytes:
    """Edit a chunk's ``"column"`` or ``"offset"`` index (written anew just before the footer)."""
    meta, fstart = footer_of(data)
    cc = meta.row_groups[rg].columns[col]
    off, length = getattr(cc, f"{kind}_index_offset"), getattr(cc, f"{kind}_index_length")
    cls = pt.ColumnIndex if kind == "column" else pt.OffsetIndex
    obj, _ = parse(data[off:off + length], cls)
    edit(obj)
    raw = serialize(obj)
    setattr(cc, f"{kind}_index_offset", fstart)
    setattr(cc, f"{kind}_index_length", len(raw))
    footer = serialize(meta)
    return data[:fstart] + raw + footer + struct.pack("<I", len(footer)) + b"PAR1"


def replace_bloom(data: bytes, rg: int, col: int, header_and_bitset: bytes, *, length: int | None = None) -> bytes:
    """Point a chunk at a new Bloom filter (header + bitset) written just before the footer."""
    meta, fstart = footer_of(data)
    md = meta.row_groups[rg].columns[col].meta_data
    md.bloom_filter_offset = fstart
    md.bloom_filter_length = len(header_and_bitset) if length is None else length
    footer = serialize(meta)
    return data[:fstart] + header_and_bitset + footer + struct.pack("<I", len(footer)) + b"PAR1"


def bloom_bytes(data: bytes, rg: int, col: int) -> tuple[Any, bytes]:
    """The chunk's Bloom filter header (thrift) and bitset."""
    meta, _ = footer_of(data)
    md = meta.row_groups[rg].columns[col].meta_data
    h, n = parse(data, pt.BloomFilterHeader, offset=md.bloom_filter_offset)
    start = md.bloom_filter_offset + n
    return h, data[start:start + h.numBytes]
