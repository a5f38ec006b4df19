"""Encryption rules: files written by us with keys, checked with right, wrong and missing keys,
and with one stored byte altered."""

from __future__ import annotations

import io

import numpy as np
import pytest

import parquet_core as pc
from tests._support.check_files import expect, find

FOOTER = b"0123456789012345"
COL = b"1234567890123450"


def _write(plaintext_footer=False, algorithm="AES_GCM_V1", **props) -> bytes:
    n = 300
    table = {"i": np.arange(n, dtype=np.int64), "s": [f"v{k % 17}" for k in range(n)]}
    enc = pc.FileEncryptionProperties(footer_key=FOOTER, column_keys={"s": COL}, plaintext_footer=plaintext_footer,
                                      algorithm=algorithm, **props)
    buf = io.BytesIO()
    pc.write_table(table, buf, encryption=enc, write_page_index=True, write_page_checksum=True,
                   bloom_filter_options={"s": True}, data_page_row_count_limit=100)
    return buf.getvalue()


def _keys(**kw):
    return pc.FileDecryptionProperties(**{"footer_key": FOOTER, "column_keys": {"s": COL}, **kw})


@pytest.mark.parametrize("plaintext", [False, True], ids=["encrypted-footer", "plaintext-footer"])
@pytest.mark.parametrize("algorithm", ["AES_GCM_V1", "AES_GCM_CTR_V1"])
def test_clean_with_keys(plaintext, algorithm):
    report = pc.check(_write(plaintext, algorithm), decryption=_keys())
    assert report.ok and not report.findings, [str(f) for f in report.findings]


def test_encrypted_footer_without_keys_cannot_be_read():
    report = expect(_write(), "encryption.footer-key-needed", severity="info")
    assert not report.readable


def test_wrong_footer_key():
    report = expect(_write(), "encryption.footer", decryption=_keys(footer_key=b"x" * 16))
    assert not report.readable


def test_plaintext_footer_without_keys():
    report = pc.check(_write(True))
    find(report, "encryption.column-key-missing", 0, "s")
    assert report.ok and {f.column for f in report.findings if f.column} == {"s"}


def test_plaintext_footer_not_verified_without_footer_key():
    report = expect(_write(True), "encryption.footer-not-verified", severity="info",
                    decryption=pc.FileDecryptionProperties(column_keys={"s": COL}))
    assert report.ok


def test_footer_signature():
    data = bytearray(_write(True))
    data[-8 - 5] ^= 0x01          # a byte of the GCM tag after the plaintext footer
    report = expect(bytes(data), "encryption.footer-signature", decryption=_keys())
    assert report.readable


def test_wrong_column_key():
    expect(_write(True), "encryption.column-metadata", 0, "s", decryption=_keys(column_keys={"s": b"y" * 16}))


def test_aad_prefix_needed():
    data = _write(aad_prefix=b"tester", store_aad_prefix=False)
    expect(data, "encryption.aad-prefix", severity="info", decryption=_keys())
    assert pc.check(data, decryption=_keys(aad_prefix=b"tester")).ok


def test_altered_page_module():
    data = bytearray(_write(True))
    chunk = pc.ParquetFile(bytes(data), decryption=_keys()).metadata.row_group(0).column(1)   # s: encrypted
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    data[start + chunk.total_compressed_size - 3] ^= 0x01   # inside the last page's GCM tag
    report = expect(bytes(data), "encryption.module", 0, "s", decryption=_keys())
    find(report, "pages.crc", 0, "s")   # the CRC covers the encrypted bytes


def test_plaintext_statistics_and_mismatch():
    from parquet_core.thrift import pt

    def stats(m):
        m.row_groups[0].columns[1].meta_data.statistics = pt.Statistics(min_value=b"a", max_value=b"z")
    # the footer is signed: an edited plaintext footer is only read with verification off
    keys = _keys(verify_plaintext_footer=False)
    expect(_signed_edit(_write(True), stats), "encryption.plaintext-statistics", 0, "s", severity="warning",
           decryption=keys, level="footer")

    def offsets(m):
        m.row_groups[0].columns[1].meta_data.num_values += 1
    expect(_signed_edit(_write(True), offsets), "encryption.plaintext-metadata-mismatch", 0, "s", decryption=keys,
           level="footer")


def _signed_edit(data: bytes, edit) -> bytes:
    """Edit a signed plaintext footer, keeping 28 (now stale) signature bytes after it."""
    import struct
    from parquet_core.thrift import pt
    from parquet_core.thrift.codec import parse, serialize
    (flen,) = struct.unpack("<I", data[-8:-4])
    start = len(data) - 8 - flen
    meta, used = parse(data[start:-8], pt.FileMetaData)
    sig = data[start + used:-8]
    edit(meta)
    footer = serialize(meta) + sig
    return data[:start] + footer + struct.pack("<I", len(footer)) + b"PAR1"


def test_algorithm_without_file_aad():
    def edit(m):
        m.encryption_algorithm.AES_GCM_V1.aad_file_unique = None
    expect(_signed_edit(_write(True), edit), "encryption.algorithm", decryption=_keys(verify_plaintext_footer=False),
           level="footer")


# -- key metadata in the key tools' format (encryption.key-metadata) ---------------------------

_MATERIAL = ('{"keyMaterialType":"PKMT1","internalStorage":true,"isFooterKey":%s,%s"masterKeyID":"k1",'
             '"wrappedDEK":"AAAA","doubleWrapping":false}')


def _with_metadata(footer_meta, column_meta, plaintext_footer=True) -> bytes:
    return _write(plaintext_footer, footer_key_metadata=footer_meta, column_key_metadata={"s": column_meta})


def test_key_tools_metadata_from_parquet_java_is_clean(corpus):
    # written by parquet-java's key tools: key metadata is a PKMT1 reference into external material
    report = pc.check(str(corpus / "external_key_material_java.parquet.encrypted"), level="footer")
    assert not [f for f in report.findings if f.rule == "encryption.key-metadata"], report


def test_opaque_and_valid_key_metadata_are_clean():
    footer = _MATERIAL % ("true", '"kmsInstanceID":"DEFAULT","kmsInstanceURL":"DEFAULT",')
    column = _MATERIAL % ("false", "")
    for f, c in ((b"kf", b"kc1"), (footer, column)):
        report = pc.check(_with_metadata(f, c), decryption=_keys())
        assert not [x for x in report.findings if x.rule == "encryption.key-metadata"], report


@pytest.mark.parametrize("plaintext", [True, False], ids=["plaintext-footer", "encrypted-footer"])
def test_broken_key_tools_metadata_is_a_warning(plaintext):
    bad_footer = b'{"keyMaterialType":"PKMT2","internalStorage":false,"keyReference":"footerKey"}'
    column_says_footer = _MATERIAL % ("true", '"kmsInstanceID":"DEFAULT","kmsInstanceURL":"DEFAULT",')
    data = _with_metadata(bad_footer, column_says_footer, plaintext)
    report = expect(data, "encryption.key-metadata", None, None, level="footer", severity="warning",
                    decryption=_keys())
    texts = [f.message for f in report.findings if f.rule == "encryption.key-metadata"]
    assert any("footer key metadata" in t and "PKMT2" in t for t in texts), texts
    col = find(report, "encryption.key-metadata", 0, "s")
    assert "isFooterKey=true for the column key" in col.message
    assert report.ok    # warnings only: the file reads with the keys
    assert pc.read_table(data, decryption=_keys()).num_rows == 300


def test_truncated_key_tools_json_is_a_warning():
    data = _with_metadata(b"kf", b'{"keyMaterialType":"PKMT1","internalSto', True)
    expect(data, "encryption.key-metadata", 0, "s", level="footer", severity="warning", decryption=_keys())
