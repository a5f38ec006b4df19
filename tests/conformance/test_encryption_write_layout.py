"""The bytes of files we encrypt, checked module by module against the spec.

The modules are decrypted here with ``cryptography``'s AES-GCM / AES-CTR
directly and AADs built in this file from the spec's table (module type
numbers, 2-byte little-endian ordinals), not with parquet_core's own
encryption package. The oracles (pyarrow, polars) read the data but never
touch Bloom filters or page indexes; these tests cover those modules, the
sizes and offsets that count encrypted bytes, the CRC, and the footer forms.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.bloom_filter import parse_filter
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse

from cryptography.exceptions import InvalidTag  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402

FOOTER_KEY = b"0123456789012345"
KEY1 = b"1234567890123450"
KEY2 = b"12345678901234567890123456789012"

# module types of the spec's AAD table
FOOTER, COLUMN_META_DATA, DATA_PAGE, DICTIONARY_PAGE = 0, 1, 2, 3
DATA_PAGE_HEADER, DICTIONARY_PAGE_HEADER, COLUMN_INDEX, OFFSET_INDEX = 4, 5, 6, 7
BLOOM_FILTER_HEADER, BLOOM_FILTER_BITSET = 8, 9

N = 2500
DATA = {"i": np.arange(N, dtype=np.int64) * 3,
        "s": [None if i % 7 == 0 else f"v{i % 50}" for i in range(N)],
        "p": np.arange(N, dtype=np.int32)}


def _aad(file_aad, module, rg=None, col=None, page=None):
    out = file_aad + bytes([module])
    if rg is not None:
        out += struct.pack("<hh", rg, col)
    if page is not None:
        out += struct.pack("<h", page)
    return out


def _module(buf, pos, key, aad, ctr=False):
    """Decrypt the framed module at *pos*; return (plaintext, bytes occupied)."""
    (length,) = struct.unpack_from("<I", buf, pos)
    nonce = bytes(buf[pos + 4:pos + 16])
    body = bytes(buf[pos + 16:pos + 4 + length])
    if ctr:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

        dec = Cipher(algorithms.AES(key), modes.CTR(nonce + b"\x00\x00\x00\x01")).decryptor()
        return dec.update(body) + dec.finalize(), 4 + length
    return AESGCM(key).decrypt(nonce, body, aad), 4 + length


def _footer(buf, key, prefix=None):
    """(FileMetaData, file AAD, EncryptionAlgorithm member) of an encrypted file."""
    (flen,) = struct.unpack_from("<I", buf, len(buf) - 8)
    start = len(buf) - 8 - flen
    if buf[-4:] == b"PARE":
        assert buf[:4] == b"PARE"
        cmd, used = parse(buf[start:len(buf) - 8], pt.FileCryptoMetaData)
        alg = cmd.encryption_algorithm.AES_GCM_V1 or cmd.encryption_algorithm.AES_GCM_CTR_V1
        file_aad = (alg.aad_prefix or prefix or b"") + alg.aad_file_unique
        plain, size = _module(buf, start + used, key, _aad(file_aad, FOOTER))
        assert used + size == flen
        fmd, _ = parse(plain, pt.FileMetaData)
        return fmd, file_aad, alg, cmd
    assert buf[:4] == buf[-4:] == b"PAR1"
    fmd, used = parse(buf[start:len(buf) - 8], pt.FileMetaData)
    assert used + 28 == flen
    alg = fmd.encryption_algorithm.AES_GCM_V1 or fmd.encryption_algorithm.AES_GCM_CTR_V1
    file_aad = (alg.aad_prefix or prefix or b"") + alg.aad_file_unique
    nonce, tag = buf[start + used:start + used + 12], buf[start + used + 12:start + flen]
    signed = AESGCM(key).encrypt(bytes(nonce), bytes(buf[start:start + used]), _aad(file_aad, FOOTER))
    assert signed[-16:] == tag
    return fmd, file_aad, alg, None


def _write(tmp_path, **enc):
    path = tmp_path / "f.parquet"
    pc.write_table(DATA, path, encryption=pc.FileEncryptionProperties(**enc),
                   bloom_filter_options={"i": True, "s": True}, write_page_checksum=True,
                   data_page_row_count_limit=600, row_group_size=1300)
    return path.read_bytes()


def _check_chunk(buf, file_aad, key, ctr, rg, col, meta, chunk):
    """Walk one chunk's pages through its offset index; check sizes, CRCs, AADs."""
    oi_plain, size = _module(buf, chunk.offset_index_offset, key, _aad(file_aad, OFFSET_INDEX, rg, col))
    assert size == chunk.offset_index_length
    oi, _ = parse(oi_plain, pt.OffsetIndex)
    pos = meta.dictionary_page_offset if meta.dictionary_page_offset is not None else meta.data_page_offset
    start = pos
    if meta.dictionary_page_offset is not None:
        h, hsize = _module(buf, pos, key, _aad(file_aad, DICTIONARY_PAGE_HEADER, rg, col))
        header, _ = parse(h, pt.PageHeader)
        assert header.type == pt.PageType.DICTIONARY_PAGE
        _, psize = _module(buf, pos + hsize, key, _aad(file_aad, DICTIONARY_PAGE, rg, col), ctr)
        assert header.compressed_page_size == psize
        assert header.crc == _signed_crc(buf[pos + hsize:pos + hsize + psize])
        pos += hsize + psize
    assert pos == meta.data_page_offset
    for ordinal, loc in enumerate(oi.page_locations):
        assert loc.offset == pos
        h, hsize = _module(buf, pos, key, _aad(file_aad, DATA_PAGE_HEADER, rg, col, ordinal))
        header, _ = parse(h, pt.PageHeader)
        _, psize = _module(buf, pos + hsize, key, _aad(file_aad, DATA_PAGE, rg, col, ordinal), ctr)
        # the header counts the page module as stored: length + nonce + ciphertext (+ tag)
        assert header.compressed_page_size == psize
        assert header.crc == _signed_crc(buf[pos + hsize:pos + hsize + psize])
        assert loc.compressed_page_size == hsize + psize
        pos += hsize + psize
    assert pos - start == meta.total_compressed_size
    ci_plain, size = _module(buf, chunk.column_index_offset, key, _aad(file_aad, COLUMN_INDEX, rg, col))
    assert size == chunk.column_index_length
    ci, _ = parse(ci_plain, pt.ColumnIndex)
    assert len(ci.null_pages) == len(oi.page_locations)
    if meta.bloom_filter_offset is not None:
        bpos = meta.bloom_filter_offset
        h, hsize = _module(buf, bpos, key, _aad(file_aad, BLOOM_FILTER_HEADER, rg, col))
        bh, _ = parse(h, pt.BloomFilterHeader)
        bitset, bsize = _module(buf, bpos + hsize, key, _aad(file_aad, BLOOM_FILTER_BITSET, rg, col))
        assert len(bitset) == bh.numBytes
        assert meta.bloom_filter_length == hsize + bsize
        return parse_filter(h + bitset)[0]
    return None


def _signed_crc(b):
    c = zlib.crc32(bytes(b))
    return c - (1 << 32) if c >= 1 << 31 else c


@pytest.mark.parametrize("algorithm", ["AES_GCM_V1", "AES_GCM_CTR_V1"])
@pytest.mark.parametrize("plaintext_footer", [False, True])
def test_uniform_modules(tmp_path, algorithm, plaintext_footer):
    buf = _write(tmp_path, footer_key=FOOTER_KEY, algorithm=algorithm,
                 plaintext_footer=plaintext_footer, aad_prefix=b"tester",
                 footer_key_metadata=b"kf")
    fmd, file_aad, alg, cmd = _footer(buf, FOOTER_KEY)
    assert alg.aad_prefix == b"tester" and not alg.supply_aad_prefix
    assert len(alg.aad_file_unique) == 8
    if plaintext_footer:
        assert fmd.footer_signing_key_metadata == b"kf"
    else:
        assert cmd.key_metadata == b"kf" and fmd.encryption_algorithm is None
    ctr = algorithm == "AES_GCM_CTR_V1"
    assert (fmd.encryption_algorithm if plaintext_footer else cmd.encryption_algorithm).AES_GCM_CTR_V1 \
        is (alg if ctr else None)
    assert len(fmd.row_groups) == 2
    for rg_i, rg in enumerate(fmd.row_groups):
        for col, chunk in enumerate(rg.columns):
            assert chunk.crypto_metadata.ENCRYPTION_WITH_FOOTER_KEY is not None
            meta = chunk.meta_data
            if plaintext_footer:
                # the plaintext copy is stripped; the full one is encrypted with the footer key
                assert meta.statistics is None and meta.encoding_stats is None
                full, _ = _module(chunk.encrypted_column_metadata, 0, FOOTER_KEY,
                                  _aad(file_aad, COLUMN_META_DATA, rg_i, col))
                meta, _ = parse(full, pt.ColumnMetaData)
                assert meta.statistics is not None
            else:
                assert chunk.encrypted_column_metadata is None and meta.statistics is not None
            bf = _check_chunk(buf, file_aad, FOOTER_KEY, ctr, rg_i, col, meta, chunk)
            if meta.path_in_schema == ["i"]:
                lo = rg_i * 1300
                assert bf.check(DATA["i"][lo:lo + 1300]).all()


def test_per_column_keys_and_plaintext_columns(tmp_path):
    keys = {"i": KEY1, "s": KEY2}
    buf = _write(tmp_path, footer_key=FOOTER_KEY, column_keys=keys, plaintext_footer=True,
                 column_key_metadata={"i": "kc1"})
    fmd, file_aad, _, _ = _footer(buf, FOOTER_KEY)
    for rg_i, rg in enumerate(fmd.row_groups):
        i_chunk, s_chunk, p_chunk = rg.columns
        eck = i_chunk.crypto_metadata.ENCRYPTION_WITH_COLUMN_KEY
        assert eck.path_in_schema == ["i"] and eck.key_metadata == b"kc1"
        assert s_chunk.crypto_metadata.ENCRYPTION_WITH_COLUMN_KEY.key_metadata is None
        for col, (chunk, key) in enumerate([(i_chunk, KEY1), (s_chunk, KEY2)]):
            assert chunk.meta_data.statistics is None and chunk.meta_data.size_statistics is None
            full, _ = _module(chunk.encrypted_column_metadata, 0, key,
                              _aad(file_aad, COLUMN_META_DATA, rg_i, col))
            meta, _ = parse(full, pt.ColumnMetaData)
            assert meta.statistics is not None
            # offsets and sizes in the stripped copy equal the encrypted copy's
            assert meta.data_page_offset == chunk.meta_data.data_page_offset
            assert meta.total_compressed_size == chunk.meta_data.total_compressed_size
            _check_chunk(buf, file_aad, key, False, rg_i, col, meta, chunk)
        # a column without a key stays plaintext, with its statistics
        assert p_chunk.crypto_metadata is None and p_chunk.encrypted_column_metadata is None
        assert p_chunk.meta_data.statistics is not None
        oi, _ = parse(buf[p_chunk.offset_index_offset:
                          p_chunk.offset_index_offset + p_chunk.offset_index_length], pt.OffsetIndex)
        header, _ = parse(buf, pt.PageHeader, offset=oi.page_locations[0].offset)
        assert header.type == pt.PageType.DATA_PAGE


def test_encrypted_footer_hides_column_key_metadata(tmp_path):
    buf = _write(tmp_path, footer_key=FOOTER_KEY, column_keys={"s": KEY1},
                 aad_prefix=b"tester", store_aad_prefix=False)
    with pytest.raises(InvalidTag):  # the prefix is needed and not stored
        _footer(buf, FOOTER_KEY)
    fmd, file_aad, alg, _ = _footer(buf, FOOTER_KEY, prefix=b"tester")
    assert alg.aad_prefix is None and alg.supply_aad_prefix is True
    for rg_i, rg in enumerate(fmd.row_groups):
        chunk = rg.columns[1]
        assert chunk.meta_data is None
        full, _ = _module(chunk.encrypted_column_metadata, 0, KEY1,
                          _aad(file_aad, COLUMN_META_DATA, rg_i, 1))
        meta, _ = parse(full, pt.ColumnMetaData)
        _check_chunk(buf, file_aad, KEY1, False, rg_i, 1, meta, chunk)
        assert rg.columns[0].crypto_metadata is None and rg.columns[0].meta_data is not None


def test_each_file_gets_a_fresh_aad_file_unique(tmp_path):
    a = _footer(_write(tmp_path, footer_key=FOOTER_KEY), FOOTER_KEY)[2].aad_file_unique
    b = _footer(_write(tmp_path, footer_key=FOOTER_KEY), FOOTER_KEY)[2].aad_file_unique
    assert a != b
