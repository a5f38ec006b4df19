"""parquet_core.page.writer: page headers and bodies checked against the format spec.

Headers are decoded with the generated Thrift classes through the pure-Python
``thrift`` compact protocol (not our codec), bodies are decompressed with
pyarrow's codecs, and every field is compared with what parquet.thrift and
the spec say it must hold:

* ``uncompressed_page_size``: the body's length before compression (v2: levels
  plus uncompressed values); ``compressed_page_size``: the body as stored;
* ``crc``: CRC-32 (the gzip polynomial) of the body as stored, a signed i32;
* v1: levels and values compressed together; v2: repetition then definition
  levels stored uncompressed before the (compressed) values, with their byte
  lengths in the header, and ``is_compressed`` telling whether the values are;
* dictionary pages: PLAIN values, ``num_values`` entries.
"""

from __future__ import annotations

import os
import zlib

import pytest
from thrift.protocol import TCompactProtocol
from thrift.transport import TTransport

from parquet_core.compression import get_codec
from parquet_core.page.writer import data_page_v1, data_page_v2, dictionary_page
from parquet_core.thrift.generated import ttypes

pa = pytest.importorskip("pyarrow")

# spec enum values (parquet.thrift), written out rather than taken from our constants
DATA_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 2, 3
PLAIN, RLE, DELTA_BINARY_PACKED = 0, 3, 5
CODECS = {0: None, 1: "snappy", 2: "gzip", 4: "brotli", 6: "zstd"}


def _header(data: bytes) -> tuple[ttypes.PageHeader, int]:
    """The page header at the start of *data* and its length, decoded independently."""
    trans = TTransport.TMemoryBuffer(data)
    header = ttypes.PageHeader()
    header.read(TCompactProtocol.TCompactProtocol(trans))
    return header, trans._buffer.tell()


def _decompress(codec_id: int, body: bytes, size: int) -> bytes:
    name = CODECS[codec_id]
    if name is None:
        return body
    return pa.Codec(name).decompress(body, decompressed_size=size).to_pybytes()


def _signed_crc(data: bytes) -> int:
    crc = zlib.crc32(data)
    return crc - 2**32 if crc >= 2**31 else crc


LEVELS_REP = b"\x02\x00\x00\x00\x03\x01"         # 4-byte length + an RLE run (v1 framing)
LEVELS_DEF = b"\x02\x00\x00\x00\x05\x01"
VALUES = b"".join((i % 5).to_bytes(4, "little") for i in range(500))   # compressible PLAIN int32


@pytest.mark.parametrize("codec_id", sorted(CODECS))
@pytest.mark.parametrize("checksum", [False, True])
def test_v1_page_fields_match_the_spec(codec_id, checksum):
    page = data_page_v1(LEVELS_REP, LEVELS_DEF, VALUES, num_values=500, encoding=PLAIN,
                        codec=get_codec(codec_id), checksum=checksum)
    header, hsize = _header(page.data)
    assert page.header_size == hsize
    body = page.data[hsize:]
    plain = LEVELS_REP + LEVELS_DEF + VALUES
    assert header.type == DATA_PAGE
    assert header.uncompressed_page_size == len(plain)
    assert header.compressed_page_size == len(body)
    assert _decompress(codec_id, body, len(plain)) == plain
    dph = header.data_page_header
    assert (dph.num_values, dph.encoding) == (500, PLAIN)
    assert dph.definition_level_encoding == RLE and dph.repetition_level_encoding == RLE
    assert header.data_page_header_v2 is None and header.dictionary_page_header is None
    assert header.crc == (_signed_crc(body) if checksum else None)
    assert page.compressed_size == len(page.data)
    assert page.uncompressed_size == hsize + len(plain)
    if codec_id:
        assert len(body) < len(plain)


def test_v1_page_without_levels_is_the_values_alone():
    page = data_page_v1(b"", b"", VALUES, num_values=500, encoding=PLAIN, codec=get_codec(0))
    header, hsize = _header(page.data)
    assert page.data[hsize:] == VALUES
    assert header.uncompressed_page_size == header.compressed_page_size == len(VALUES)


@pytest.mark.parametrize("codec_id", sorted(CODECS))
@pytest.mark.parametrize("checksum", [False, True])
def test_v2_page_levels_stay_uncompressed(codec_id, checksum):
    rep, defs = b"\x06\x01", b"\x08\x01\x02\x00"     # RLE hybrid runs, no length prefix in v2
    page = data_page_v2(rep, defs, VALUES, num_values=510, num_nulls=10, num_rows=300,
                        encoding=DELTA_BINARY_PACKED, codec=get_codec(codec_id), checksum=checksum)
    header, hsize = _header(page.data)
    body = page.data[hsize:]
    assert header.type == DATA_PAGE_V2
    v2 = header.data_page_header_v2
    assert (v2.num_values, v2.num_nulls, v2.num_rows, v2.encoding) == (510, 10, 300, DELTA_BINARY_PACKED)
    assert v2.repetition_levels_byte_length == len(rep)
    assert v2.definition_levels_byte_length == len(defs)
    assert body[:len(rep)] == rep and body[len(rep):len(rep) + len(defs)] == defs
    values = body[len(rep) + len(defs):]
    assert v2.is_compressed is (codec_id != 0)
    assert _decompress(codec_id if v2.is_compressed else 0, values, len(VALUES)) == VALUES
    assert header.uncompressed_page_size == len(rep) + len(defs) + len(VALUES)
    assert header.compressed_page_size == len(body)
    assert header.crc == (_signed_crc(body) if checksum else None)
    assert page.uncompressed_size == hsize + header.uncompressed_page_size


@pytest.mark.parametrize("codec_id", [1, 2, 6])
def test_v2_incompressible_values_are_stored_as_they_are(codec_id):
    noise = os.urandom(3000)
    page = data_page_v2(b"", b"\x02\x01", noise, num_values=3000, num_nulls=0, num_rows=3000,
                        encoding=PLAIN, codec=get_codec(codec_id))
    header, hsize = _header(page.data)
    assert header.data_page_header_v2.is_compressed is False
    assert page.data[hsize + 2:] == noise
    assert header.compressed_page_size == header.uncompressed_page_size == 3002


@pytest.mark.parametrize("codec_id", sorted(CODECS))
def test_dictionary_page(codec_id):
    entries = b"".join(len(w).to_bytes(4, "little") + w for w in (b"apple", b"", b"pear" * 50))
    page = dictionary_page(entries, 3, get_codec(codec_id), checksum=True)
    header, hsize = _header(page.data)
    body = page.data[hsize:]
    assert header.type == DICTIONARY_PAGE
    dh = header.dictionary_page_header
    assert (dh.num_values, dh.encoding) == (3, PLAIN) and not dh.is_sorted
    assert header.uncompressed_page_size == len(entries)
    assert header.compressed_page_size == len(body)
    assert _decompress(codec_id, body, len(entries)) == entries
    assert header.crc == _signed_crc(body)


def test_crc_covers_the_stored_bytes_not_the_plain_ones():
    """With compression, the CRC of the uncompressed body must not be what is written."""
    page = data_page_v1(b"", b"", VALUES, num_values=500, encoding=PLAIN, codec=get_codec(2),
                        checksum=True)
    header, hsize = _header(page.data)
    assert header.crc == _signed_crc(page.data[hsize:]) != _signed_crc(VALUES)
