"""Turn encoded page parts into the bytes of a page: header, compression, CRC.

The inverse of :mod:`parquet_core.page.reader`.  Each function takes the
*plaintext* parts of one page (levels and values already encoded by the
column layer), compresses what the format says is compressed, computes the
CRC-32 over the bytes as stored when asked, and returns a
:class:`WrittenPage` holding the serialized header followed by the body.
Where the bytes go is decided by ``file/``.

Encryption: ``crypt`` is the chunk's
:class:`~parquet_core.encryption.context.ChunkEncryption` (default
:data:`~parquet_core.encryption.context.PLAINTEXT`, which passes bytes through).
For an encrypted chunk the stored body becomes one encrypted module and the
serialized header another; ``compressed_page_size`` and the CRC then cover the body module as
written (length, nonce, ciphertext and tag), as the spec's "bytes as stored".

::

    v1 body  = compress(rep levels | def levels | values)
    v2 body  = rep levels | def levels | compress(values)    (levels never compressed)
    dict     = compress(PLAIN dictionary values)
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

from parquet_core.constants import CompressionCodec, Encoding, PageType
from parquet_core.encryption.context import PLAINTEXT, ChunkEncryption
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize

__all__ = ["WrittenPage", "dictionary_page", "data_page_v1", "data_page_v2"]


@dataclass(frozen=True, slots=True)
class WrittenPage:
    """A page ready to be appended to a column chunk.

    Attributes
    ----------
    data:
        Serialized ``PageHeader`` followed by the (compressed) body.
    header_size:
        Length of the header part of :attr:`data`.
    uncompressed_size:
        Header length plus the body's uncompressed size (what
        ``total_uncompressed_size`` adds up).
    """

    data: bytes
    header_size: int
    uncompressed_size: int

    @property
    def compressed_size(self) -> int:
        """Length of the whole page as stored (header included)."""
        return len(self.data)


def _compress(codec: Any, body: bytes, level: int | None) -> bytes:
    if codec is None or codec.codec_id == CompressionCodec.UNCOMPRESSED:
        return body
    return codec.compress(body, level)


def _finish(header: Any, stored: bytes, uncompressed_body: int, checksum: bool,
            crypt: ChunkEncryption = PLAINTEXT, ordinal: int | None = None) -> WrittenPage:
    # the body as stored, in parts (an encrypted module comes as framing + ciphertext,
    # joined once with the header below)
    parts = crypt.page(stored, ordinal)
    header.uncompressed_page_size = uncompressed_body
    header.compressed_page_size = sum(len(p) for p in parts)
    if checksum:
        # CRC-32 (zlib's polynomial) of the page bytes as stored, as a signed i32
        crc = 0
        for p in parts:
            crc = zlib.crc32(p, crc)
        header.crc = crc - (1 << 32) if crc >= 1 << 31 else crc
    head = crypt.page_header(serialize(header), ordinal)
    data = b"".join((head, *parts))
    return WrittenPage(data, len(head), len(head) + uncompressed_body)


def dictionary_page(values: bytes, num_values: int, codec: Any, level: int | None = None, *,
                    checksum: bool = False, crypt: ChunkEncryption = PLAINTEXT) -> WrittenPage:
    """Build a dictionary page from PLAIN-encoded dictionary values."""
    header = pt.PageHeader(type=PageType.DICTIONARY_PAGE)
    header.dictionary_page_header = pt.DictionaryPageHeader(
        num_values=num_values, encoding=Encoding.PLAIN, is_sorted=False)
    return _finish(header, _compress(codec, values, level), len(values), checksum, crypt)


def data_page_v1(rep_levels: bytes, def_levels: bytes, values: bytes, *, num_values: int,
                 encoding: int, codec: Any, level: int | None = None,
                 statistics: Any = None, checksum: bool = False,
                 crypt: ChunkEncryption = PLAINTEXT, ordinal: int | None = None) -> WrittenPage:
    """Build a v1 data page; level parts already carry their 4-byte length prefix."""
    body = rep_levels + def_levels + values if (rep_levels or def_levels) else values
    header = pt.PageHeader(type=PageType.DATA_PAGE)
    header.data_page_header = pt.DataPageHeader(
        num_values=num_values, encoding=encoding, definition_level_encoding=Encoding.RLE,
        repetition_level_encoding=Encoding.RLE, statistics=statistics)
    return _finish(header, _compress(codec, body, level), len(body), checksum, crypt, ordinal)


def data_page_v2(rep_levels: bytes, def_levels: bytes, values: bytes, *, num_values: int,
                 num_nulls: int, num_rows: int, encoding: int, codec: Any,
                 level: int | None = None, statistics: Any = None,
                 checksum: bool = False, crypt: ChunkEncryption = PLAINTEXT,
                 ordinal: int | None = None) -> WrittenPage:
    """Build a v2 data page; levels are RLE hybrid without a length prefix."""
    compressed = _compress(codec, values, level)
    is_compressed = compressed is not values
    if is_compressed and len(compressed) >= len(values):
        # storing the values as they are is allowed in v2 and cheaper to read
        compressed, is_compressed = values, False
    header = pt.PageHeader(type=PageType.DATA_PAGE_V2)
    header.data_page_header_v2 = pt.DataPageHeaderV2(
        num_values=num_values, num_nulls=num_nulls, num_rows=num_rows, encoding=encoding,
        definition_levels_byte_length=len(def_levels),
        repetition_levels_byte_length=len(rep_levels),
        is_compressed=is_compressed, statistics=statistics)
    stored = rep_levels + def_levels + compressed
    return _finish(header, stored, len(rep_levels) + len(def_levels) + len(values), checksum,
                   crypt, ordinal)
