"""The crypto contexts (encryption/context.py, decryptor.py, encryptor.py).

Outside truths: the AAD suffix layout of the spec (Encryption.md 4.4.2, written
out by hand below as golden bytes, not built with ``module_aad``), the module
framing of 5.1 (``length | nonce | ciphertext | tag``), and ``cryptography``'s
AES-GCM used directly as the reference cipher. The plaintext null object is
checked against the bytes it is given and the footer layout of the spec
(``FileMetaData | length (4 bytes LE) | PAR1``).
"""

from __future__ import annotations

import dataclasses
import os
import struct

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from hypothesis import given, settings, strategies as st

from parquet_core.constants import CompressionCodec, Encoding, PageType
from parquet_core.encryption.ciphers import ModuleCipher
from parquet_core.encryption.context import (
    PLAINTEXT, PLAINTEXT_FILE, ChunkDecryption, ChunkEncryption, FileDecryption, FileEncryption,
    chunk_decryption,
)
from parquet_core.encryption.decryptor import ColumnDecryptor
from parquet_core.encryption.encryptor import ChunkEncryptor
from parquet_core.encryption.modules import ModuleType
from parquet_core.errors import ParquetEncryptionError, ParquetFormatError
from parquet_core.page.reader import iter_pages, walk_pages
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse, serialize

KEY = bytes(range(16))
PREFIX = b"employees.part7"
UNIQUE = b"\x11\x22\x33\x44\x55\x66\x77\x88"
FILE_AAD = PREFIX + UNIQUE   # 4.4: prefix, then the suffix's internal file identifier
RG, COL = 258, 3             # 258 = 0x0102: checks the byte order of the ordinals


def golden(module_type: int, page: int | None = None) -> bytes:
    """The module AAD by the spec's table, written out byte by byte."""
    out = FILE_AAD + bytes([module_type]) + bytes([0x02, 0x01]) + bytes([COL, 0x00])
    if page is not None:
        out += bytes([page & 0xFF, page >> 8])
    return out


def open_module(buf: bytes, aad: bytes) -> tuple[bytes, int]:
    """Decrypt one framed GCM module with cryptography directly (the reference)."""
    (length,) = struct.unpack_from("<I", buf)
    nonce, body = buf[4:16], buf[16:4 + length]
    return AESGCM(KEY).decrypt(nonce, body, aad), 4 + length


def seal_module(plain: bytes, aad: bytes) -> bytes:
    nonce = os.urandom(12)
    body = AESGCM(KEY).encrypt(nonce, plain, aad)
    return struct.pack("<I", 12 + len(body)) + nonce + body


def header_bytes(ptype: int, size: int, num_values: int = 3) -> bytes:
    h = pt.PageHeader(type=ptype, uncompressed_page_size=size, compressed_page_size=size)
    if ptype == PageType.DICTIONARY_PAGE:
        h.dictionary_page_header = pt.DictionaryPageHeader(num_values=num_values, encoding=Encoding.PLAIN)
    else:
        h.data_page_header = pt.DataPageHeader(num_values=num_values, encoding=Encoding.PLAIN,
                                               definition_level_encoding=Encoding.RLE,
                                               repetition_level_encoding=Encoding.RLE)
    return serialize(h)


def parse_at(buf, pos):
    return parse(buf, pt.PageHeader, offset=pos)


# -- the plaintext null object ----------------------------------------------

def test_plaintext_objects_implement_the_protocols_and_are_frozen():
    assert isinstance(PLAINTEXT, ChunkDecryption) and isinstance(PLAINTEXT, ChunkEncryption)
    assert isinstance(PLAINTEXT_FILE, FileEncryption) and isinstance(PLAINTEXT_FILE, FileDecryption)
    assert not PLAINTEXT.encrypted and not PLAINTEXT_FILE.encrypted
    with pytest.raises(dataclasses.FrozenInstanceError):
        PLAINTEXT.encrypted = True   # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        PLAINTEXT_FILE.magic = b"PARE"   # type: ignore[misc]


def test_plaintext_reading_passes_through():
    head = header_bytes(PageType.DATA_PAGE, 5)
    buf = memoryview(b"xx" + head + b"body!")
    header, hlen, is_dict = PLAINTEXT.read_header(buf, 2, 7, True, parse_at)
    assert (header.type, header.compressed_page_size, hlen, is_dict) == (PageType.DATA_PAGE, 5, len(head), None)
    stored = buf[2 + hlen:]
    assert PLAINTEXT.page_body(stored, None, 0) is stored
    plain, used = PLAINTEXT.decrypt(b"index bytes", 6, where="column index")
    assert (bytes(plain), used) == (b"index bytes", 11)


def test_plaintext_writing_passes_through():
    assert PLAINTEXT.page(b"body", 3) == (b"body",)
    assert PLAINTEXT.page_header(b"head", None) == b"head"
    assert PLAINTEXT.column_index(b"ci") == b"ci" and PLAINTEXT.offset_index(b"oi") == b"oi"
    assert PLAINTEXT.bloom_filter(b"H", b"bits") == b"Hbits"
    assert PLAINTEXT.check_page_ordinal(1 << 40) is None   # no AAD: no ordinal limit


def test_plaintext_file():
    md = pt.FileMetaData(version=2, schema=[pt.SchemaElement(name="schema", num_children=0)], num_rows=0,
                         row_groups=[])
    body = serialize(md)
    assert PLAINTEXT_FILE.footer_tail(md) == body + len(body).to_bytes(4, "little") + b"PAR1"
    assert PLAINTEXT_FILE.magic == b"PAR1" and PLAINTEXT_FILE.on_file_written is None
    assert PLAINTEXT_FILE.chunk("a.b", 0, 1) is PLAINTEXT
    chunk = pt.ColumnChunk(file_offset=4)
    assert PLAINTEXT_FILE.footer_chunk(chunk, "a.b", PLAINTEXT) is chunk
    assert PLAINTEXT_FILE.column(chunk, 0, 0, "a.b") is PLAINTEXT
    chunk.crypto_metadata = pt.ColumnCryptoMetaData(ENCRYPTION_WITH_FOOTER_KEY=pt.EncryptionWithFooterKey())
    with pytest.raises(ParquetFormatError, match="no encryption algorithm"):
        PLAINTEXT_FILE.column(chunk, 0, 0, "a.b")


def test_chunk_decryption_of_a_wrapper():
    class Wrapper:
        decryptor = None
    assert chunk_decryption(Wrapper()) is PLAINTEXT
    dec = ColumnDecryptor(ModuleCipher(KEY), FILE_AAD, False, "a", RG, COL)
    Wrapper.decryptor = dec
    assert chunk_decryption(Wrapper()) is dec and isinstance(dec, ChunkDecryption) and dec.encrypted


# -- AADs against the spec's layout -----------------------------------------

def test_encryptor_modules_carry_the_specs_aads():
    enc = ChunkEncryptor(ModuleCipher(KEY), FILE_AAD, False, RG, COL)
    assert isinstance(enc, ChunkEncryption) and enc.encrypted
    cases = [
        (b"".join(enc.page(b"data page", 5)), 2, 5, b"data page"),
        (b"".join(enc.page(b"dict page", None)), 3, None, b"dict page"),
        (enc.page_header(b"data header", 300), 4, 300, b"data header"),
        (enc.page_header(b"dict header", None), 5, None, b"dict header"),
        (enc.column_index(b"ci"), 6, None, b"ci"),
        (enc.offset_index(b"oi"), 7, None, b"oi"),
        (enc.column_metadata(b"cmd"), 1, None, b"cmd"),
    ]
    for module, mtype, page, plain in cases:
        got, used = open_module(module, golden(mtype, page))
        assert (got, used) == (plain, len(module)), mtype
    bloom = enc.bloom_filter(b"bloom header", b"bitset")
    header, used = open_module(bloom, golden(8))
    bitset, rest = open_module(bloom[used:], golden(9))
    assert (header, bitset, used + rest) == (b"bloom header", b"bitset", len(bloom))


def test_decryptor_reads_modules_sealed_with_the_specs_aads():
    dec = ColumnDecryptor(ModuleCipher(KEY), FILE_AAD, False, "a", RG, COL)
    for mtype, page in [(1, None), (6, None), (7, None), (8, None), (9, None)]:
        module = seal_module(b"payload", golden(mtype, page))
        plain, used = dec.decrypt(module + b"trailing", ModuleType(mtype))
        assert (bytes(plain), used) == (b"payload", len(module))
    # a data page header at ordinal 513, then its page
    head = seal_module(header_bytes(PageType.DATA_PAGE, 40), golden(4, 513))
    header, hlen, is_dict = dec.read_header(memoryview(b"??" + head), 2, 513, None, parse_at)
    assert (header.type, hlen, is_dict) == (PageType.DATA_PAGE, len(head), False)
    body = seal_module(b"the data page", golden(2, 513))
    assert bytes(dec.page_body(memoryview(body), False, 513)) == b"the data page"
    with pytest.raises(ParquetEncryptionError):   # the same module at another ordinal
        dec.page_body(memoryview(body), False, 512)


@pytest.mark.parametrize("hint", [True, False])
def test_first_header_tries_the_other_kind_when_the_hint_is_wrong(hint):
    dec = ColumnDecryptor(ModuleCipher(KEY), FILE_AAD, False, "a", RG, COL)
    head = seal_module(header_bytes(PageType.DICTIONARY_PAGE, 10), golden(5))
    header, _, is_dict = dec.read_header(memoryview(head), 0, 0, hint, parse_at)
    assert header.type == PageType.DICTIONARY_PAGE and is_dict is True
    body = seal_module(b"dictionary", golden(3))
    assert bytes(dec.page_body(memoryview(body), True, 0)) == b"dictionary"


def test_header_sealed_as_the_wrong_kind_is_refused():
    dec = ColumnDecryptor(ModuleCipher(KEY), FILE_AAD, False, "a", RG, COL)
    # a data page header sealed with the dictionary header's AAD
    head = seal_module(header_bytes(PageType.DATA_PAGE, 10), golden(5))
    with pytest.raises(ParquetFormatError, match="encrypted as a dictionary page header"):
        dec.read_header(memoryview(head), 0, 0, True, parse_at)
    with pytest.raises(ParquetEncryptionError):   # not a data page header at ordinal 0 either
        dec.read_header(memoryview(head), 0, 0, None, parse_at)


def test_encrypted_chunk_through_the_page_walk():
    """Pages sealed by hand with the spec's AADs read back through iter_pages."""
    dec = ColumnDecryptor(ModuleCipher(KEY), FILE_AAD, False, "a", RG, COL)
    parts = []
    for ordinal, values in enumerate([[1, 2, 3], [4, 5]]):
        plain_body = struct.pack(f"<{len(values)}i", *values)
        body = seal_module(plain_body, golden(2, ordinal))
        h = pt.PageHeader(type=PageType.DATA_PAGE, uncompressed_page_size=len(plain_body),
                          compressed_page_size=len(body),
                          data_page_header=pt.DataPageHeader(num_values=len(values), encoding=Encoding.PLAIN,
                                                             definition_level_encoding=Encoding.RLE,
                                                             repetition_level_encoding=Encoding.RLE))
        parts += [seal_module(serialize(h), golden(4, ordinal)), body]
    pages = list(iter_pages(b"".join(parts), CompressionCodec.UNCOMPRESSED, 5, crypto=dec))
    assert [bytes(p.body) for p in pages] == [struct.pack("<3i", 1, 2, 3), struct.pack("<2i", 4, 5)]
    assert [p.ordinal for p in pages] == [0, 1]


# -- the one page walk: in memory, or through a reader window ------------------

def _chunk(sizes: list[int]) -> bytes:
    out = []
    for i, size in enumerate(sizes):
        body = bytes([i % 251]) * size
        h = pt.PageHeader(type=PageType.DATA_PAGE, uncompressed_page_size=size, compressed_page_size=size,
                          data_page_header=pt.DataPageHeader(num_values=1, encoding=Encoding.PLAIN,
                                                             definition_level_encoding=Encoding.RLE,
                                                             repetition_level_encoding=Encoding.RLE))
        out += [serialize(h), body]
    return b"".join(out)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 700), min_size=0, max_size=12), st.integers(1, 900))
def test_walk_through_a_reader_matches_the_walk_in_memory(sizes, probe):
    chunk = _chunk(sizes)
    view = memoryview(chunk)
    reads = []

    def read(pos: int, size: int) -> memoryview:
        assert 0 <= pos and pos + size <= len(chunk)
        reads.append(size)
        return view[pos:pos + size]

    def summary(walk):
        return [(h.compressed_page_size, hlen, pos, bytes(stored), ordinal, is_dict)
                for h, hlen, pos, stored, ordinal, is_dict in walk]

    expected = summary(walk_pages(view, len(view)))
    assert summary(walk_pages(read, len(chunk), probe=probe)) == expected
    assert [s[0] for s in expected] == sizes
    assert [s[4] for s in expected] == list(range(len(sizes)))

