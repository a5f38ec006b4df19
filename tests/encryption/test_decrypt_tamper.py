"""Security behaviour of the read path: every failure is a ParquetEncryptionError.

Tampered files are corpus files (parquet-cpp/parquet-java output) with one
bit flipped inside one module, found from the file's own metadata: a
module is ``length (4) | nonce (12) | ciphertext | tag (16)``, so a flip at
``module + 4 + 12 + k`` lands in the ciphertext. The swapped-page file is
written by pyarrow (two identical row groups, so the page modules have
the same size) and has one page module moved between row groups.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest

import parquet_core as pc
from parquet_core.errors import ParquetEncryptionError
from tests.encryption.corpus_keys import COLUMNS_16, FOOTER_16, decryption

UNIFORM = "uniform_encryption.parquet.encrypted"
COLUMNS_AND_FOOTER = "encrypt_columns_and_footer.parquet.encrypted"
PLAIN_FOOTER = "encrypt_columns_plaintext_footer.parquet.encrypted"
BLOOM = "encrypt_columns_and_footer_bloom_filter.parquet.encrypted"
CIPHERTEXT = 4 + 12 + 3   # a byte inside a module's ciphertext


def _flip(corpus, tmp_path, name, offset, bit=0x10):
    data = bytearray((corpus / name).read_bytes())
    data[offset] ^= bit
    out = tmp_path / ("tampered_" + name.replace("/", "_"))
    out.write_bytes(bytes(data))
    return out


def _module_len(corpus, name, offset):
    return 4 + struct.unpack_from("<I", (corpus / name).read_bytes(), offset)[0]


def _chunk(corpus, name, column):
    md = pc.read_metadata(corpus / name, decryption=decryption(name))
    return md.row_group(0).column(md.schema.index_of(tuple(column.split("."))))


def _raises(path, name, call, match=None):
    with pytest.raises(ParquetEncryptionError, match=match):
        call(pc.ParquetFile(path, decryption=decryption(name)))


# -- keys and AAD prefixes ---------------------------------------------------
def test_wrong_footer_key(corpus):
    with pytest.raises(ParquetEncryptionError, match="footer"):
        pc.read_table(corpus / UNIFORM, decryption=pc.FileDecryptionProperties(footer_key=b"x" * 16))


def test_missing_decryption_and_missing_footer_key(corpus):
    with pytest.raises(ParquetEncryptionError, match="decryption="):
        pc.read_metadata(corpus / UNIFORM)
    with pytest.raises(ParquetEncryptionError, match="footer key"):
        pc.read_metadata(corpus / UNIFORM, decryption=pc.FileDecryptionProperties(column_keys=COLUMNS_16))


def test_wrong_column_key(corpus):
    props = pc.FileDecryptionProperties(footer_key=FOOTER_16,
                                        column_keys={**COLUMNS_16, "double_field": b"y" * 16})
    pf = pc.ParquetFile(corpus / COLUMNS_AND_FOOTER, decryption=props)
    assert pf.read(columns=["float_field"]).num_rows == 50
    with pytest.raises(ParquetEncryptionError, match="double_field"):
        pf.read(columns=["double_field"])


def test_missing_column_key_names_the_column(corpus):
    props = pc.FileDecryptionProperties(footer_key=FOOTER_16, column_keys={"float_field": COLUMNS_16["float_field"]})
    with pytest.raises(ParquetEncryptionError, match="double_field"):
        pc.read_table(corpus / COLUMNS_AND_FOOTER, decryption=props)


@pytest.mark.parametrize("prefix", ["aes256/", ""])
def test_aad_prefix_missing_or_wrong(corpus, prefix):
    name = prefix + "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted"
    with pytest.raises(ParquetEncryptionError, match="AAD prefix"):
        pc.read_table(corpus / name, decryption=decryption(name, aad_prefix=None))
    with pytest.raises(ParquetEncryptionError, match="authentication failed"):
        pc.read_table(corpus / name, decryption=decryption(name, aad_prefix=b"tester2"))


def test_aad_prefix_differing_from_the_stored_one(corpus):
    name = "encrypt_columns_and_footer_aad.parquet.encrypted"
    assert pc.read_table(corpus / name, decryption=decryption(name, aad_prefix=None)).num_rows == 50
    with pytest.raises(ParquetEncryptionError, match="differs"):
        pc.read_table(corpus / name, decryption=decryption(name, aad_prefix=b"other"))


# -- one flipped bit per module kind -----------------------------------------
def test_flipped_bit_in_encrypted_footer(corpus, tmp_path):
    data = (corpus / UNIFORM).read_bytes()
    footer_len = struct.unpack_from("<I", data, len(data) - 8)[0]
    # the footer module is the last part of the footer: flip a bit in its tag
    path = _flip(corpus, tmp_path, UNIFORM, len(data) - 8 - 5)
    assert footer_len > 16
    with pytest.raises(ParquetEncryptionError, match="footer"):
        pc.read_metadata(path, decryption=decryption(UNIFORM))


@pytest.mark.parametrize("name", [UNIFORM, "encrypt_columns_and_footer_ctr.parquet.encrypted"])
def test_flipped_bit_in_data_page_header(corpus, tmp_path, name):
    # boolean_field has no dictionary: its first module is data page 0's header (GCM also under CTR)
    chunk = _chunk(corpus, name, "boolean_field" if name == UNIFORM else "double_field")
    offset = chunk.data_page_offset if name == UNIFORM else chunk.dictionary_page_offset
    path = _flip(corpus, tmp_path, name, offset + CIPHERTEXT)
    column = chunk.path_in_schema
    _raises(path, name, lambda pf: pf.read(columns=[column]), match=column)


def test_flipped_bit_in_page_length_field(corpus, tmp_path):
    chunk = _chunk(corpus, UNIFORM, "boolean_field")
    path = _flip(corpus, tmp_path, UNIFORM, chunk.data_page_offset + 3, bit=0x40)   # high byte of the length
    _raises(path, UNIFORM, lambda pf: pf.read(columns=["boolean_field"]), match="boolean_field")


def test_flipped_bit_in_data_page(corpus, tmp_path):
    chunk = _chunk(corpus, UNIFORM, "boolean_field")
    page = chunk.data_page_offset + _module_len(corpus, UNIFORM, chunk.data_page_offset)
    path = _flip(corpus, tmp_path, UNIFORM, page + CIPHERTEXT)
    _raises(path, UNIFORM, lambda pf: pf.read(columns=["boolean_field"]), match="data page 0")


@pytest.mark.parametrize("part", ["header", "page"])
def test_flipped_bit_in_dictionary(corpus, tmp_path, part):
    chunk = _chunk(corpus, UNIFORM, "int32_field")
    offset = chunk.dictionary_page_offset
    if part == "page":
        offset += _module_len(corpus, UNIFORM, offset)
    path = _flip(corpus, tmp_path, UNIFORM, offset + CIPHERTEXT)
    _raises(path, UNIFORM, lambda pf: pf.read(columns=["int32_field"]), match="dictionary page")


@pytest.mark.parametrize("kind", ["column_index", "offset_index"])
def test_flipped_bit_in_page_index(corpus, tmp_path, kind):
    chunk = _chunk(corpus, COLUMNS_AND_FOOTER, "double_field")
    offset = getattr(chunk.raw, f"{kind}_offset")
    path = _flip(corpus, tmp_path, COLUMNS_AND_FOOTER, offset + CIPHERTEXT)
    _raises(path, COLUMNS_AND_FOOTER, lambda pf: getattr(pf, kind)(0, "double_field"),
            match=kind.replace("_", " "))


@pytest.mark.parametrize("part", ["header", "bitset"])
def test_flipped_bit_in_bloom_filter(corpus, tmp_path, part):
    chunk = _chunk(corpus, BLOOM, "double_field")
    offset = chunk.bloom_filter_offset
    if part == "bitset":
        offset += _module_len(corpus, BLOOM, offset)
    path = _flip(corpus, tmp_path, BLOOM, offset + CIPHERTEXT)
    _raises(path, BLOOM, lambda pf: pf.bloom_filter(0, "double_field"), match=f"Bloom filter {part}")
    # the filter is also read by filters=: the failure is not swallowed there
    _raises(path, BLOOM, lambda pf: pf.read(filters=[("double_field", "==", 1000.75)]))


def test_flipped_bit_in_encrypted_column_metadata(corpus, tmp_path):
    raw = _chunk(corpus, PLAIN_FOOTER, "double_field").raw.encrypted_column_metadata
    data = (corpus / PLAIN_FOOTER).read_bytes()
    assert data.count(raw) == 1
    path = _flip(corpus, tmp_path, PLAIN_FOOTER, data.index(raw) + CIPHERTEXT)
    # the plaintext footer's signature covers it ...
    with pytest.raises(ParquetEncryptionError, match="signature"):
        pc.read_metadata(path, decryption=decryption(PLAIN_FOOTER))
    # ... and so does the module's own tag when the signature is not checked
    md = pc.read_metadata(path, decryption=decryption(PLAIN_FOOTER, verify_plaintext_footer=False))
    with pytest.raises(ParquetEncryptionError, match="column metadata"):
        md.row_group(0).column(md.schema.index_of(("double_field",)))


def test_tampered_plaintext_footer(corpus, tmp_path):
    data = (corpus / PLAIN_FOOTER).read_bytes()
    at = data.rindex(b"parquet-cpp-arrow")                  # created_by, in the signed footer
    path = _flip(corpus, tmp_path, PLAIN_FOOTER, at + 8, bit=0x20)   # "cpp" -> "Cpp"
    with pytest.raises(ParquetEncryptionError, match="signature"):
        pc.read_metadata(path, decryption=decryption(PLAIN_FOOTER))
    # the signature is checked with the footer key; without one it cannot be
    assert pc.read_metadata(path).created_by.startswith("parquet-Cpp")
    ok = pc.ParquetFile(corpus / PLAIN_FOOTER, decryption=decryption(PLAIN_FOOTER))
    assert ok.metadata.decryptor.footer_verified


# -- files written by pyarrow (its CryptoFactory, a KMS that only base64s keys) ----
def _pyarrow_encrypted(tmp_path, name, **write_options):
    """Two identical row groups of (x int64 with its own key, y string with the footer key)."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pe = pytest.importorskip("pyarrow.parquet.encryption")

    class PlainKms(pe.KmsClient):
        """'Wraps' keys by base64 only: the test then knows every data key."""

        def __init__(self, config):
            pe.KmsClient.__init__(self)

        def wrap_key(self, key_bytes, master_key_identifier):
            return base64.b64encode(key_bytes).decode()

        def unwrap_key(self, wrapped_key, master_key_identifier):
            return base64.b64decode(wrapped_key)

    factory = pe.CryptoFactory(lambda config: PlainKms(config))
    props = factory.file_encryption_properties(pe.KmsConnectionConfig(), pe.EncryptionConfiguration(
        footer_key="kf", column_keys={"kc": ["x"]}, double_wrapping=False))
    table = pa.table({"x": pa.array(range(100), pa.int64()), "y": [str(i) for i in range(100)]})
    path = tmp_path / name
    with pq.ParquetWriter(path, table.schema, encryption_properties=props, use_dictionary=False,
                          **write_options) as w:
        w.write_table(table)
        w.write_table(table)
    ours = pc.FileDecryptionProperties(
        key_retriever=lambda meta: base64.b64decode(json.loads(meta)["wrappedDEK"]))
    return path, ours, table.to_pylist() * 2


def test_page_crc_of_an_encrypted_page_is_over_the_stored_bytes(tmp_path):
    # parquet-cpp (pyarrow) computes the CRC over the page as stored: the encrypted module.
    from parquet_core.encryption.modules import ModuleType
    from parquet_core.thrift import pt
    from parquet_core.thrift.codec import parse

    path, ours, rows = _pyarrow_encrypted(tmp_path, "crc.parquet", write_page_checksum=True)
    pf = pc.ParquetFile(path, decryption=ours)
    data = path.read_bytes()
    for rg in range(2):
        chunk = pf.metadata.row_group(rg).column(0)
        at = chunk.data_page_offset
        plain, used = chunk.decryptor.decrypt(data[at:], ModuleType.DATA_PAGE_HEADER, 0)
        header, _ = parse(plain, pt.PageHeader)
        stored = data[at + used: at + used + header.compressed_page_size]
        assert header.crc is not None
        assert zlib.crc32(stored) == header.crc & 0xFFFFFFFF
    assert pf.read().to_pylist() == rows          # CRCs verified (the default)


def test_page_swapped_between_row_groups(tmp_path):
    path, ours, rows = _pyarrow_encrypted(tmp_path, "two_groups.parquet")
    pf = pc.ParquetFile(path, decryption=ours)
    assert pf.read().to_pylist() == rows
    data = bytearray(path.read_bytes())
    starts = []
    for rg in range(2):
        at = pf.metadata.row_group(rg).column(0).data_page_offset
        at += 4 + struct.unpack_from("<I", data, at)[0]              # past the page header module
        starts.append((at, 4 + struct.unpack_from("<I", data, at)[0]))
    (a, n), (b, m) = starts
    assert n == m
    data[a:a + n], data[b:b + n] = data[b:b + n], data[a:a + n]
    path.write_bytes(bytes(data))
    pf = pc.ParquetFile(path, decryption=ours)
    assert pf.read(columns=["y"]).num_rows == 200
    with pytest.raises(ParquetEncryptionError, match="data page 0 of column x"):
        pf.read(columns=["x"])
