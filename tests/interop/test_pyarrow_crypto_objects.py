"""pyarrow.parquet.encryption's configuration objects and KMS clients, given to our CryptoFactory:
files written so are read by pyarrow's CryptoFactory with the same KMS, and the other way."""

from __future__ import annotations

import base64
import io

import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pe = pytest.importorskip("pyarrow.parquet.encryption")

MASTER = {"footer": b"0123456789012345", "col": b"1234567890123450"}


class XorKms(pe.KmsClient):
    """A pyarrow KMS client as pyarrow's documentation writes them (toy wrapping)."""

    def __init__(self, config):
        pe.KmsClient.__init__(self)

    def wrap_key(self, key_bytes, master_key_identifier):
        key = MASTER[master_key_identifier]
        return base64.b64encode(bytes(a ^ b for a, b in zip(key_bytes, key))).decode()

    def unwrap_key(self, wrapped_key, master_key_identifier):
        key = MASTER[master_key_identifier]
        return bytes(a ^ b for a, b in zip(base64.b64decode(wrapped_key), key))


def _configs():
    kms = pe.KmsConnectionConfig(custom_kms_conf={"x": "y"})
    enc = pe.EncryptionConfiguration(footer_key="footer", column_keys={"col": ["a"]}, double_wrapping=False)
    return kms, enc


TABLE = pa.table({"a": [1, 2, 3], "b": ["x", "y", "z"]})


def test_our_factory_takes_pyarrows_objects_and_pyarrow_reads_the_file():
    kms, enc = _configs()
    ours = pc.CryptoFactory(lambda config: XorKms(config))
    props = ours.file_encryption_properties(kms, enc)
    buf = io.BytesIO()
    pc.write_table(TABLE, buf, encryption_properties=props)
    theirs = pe.CryptoFactory(lambda config: XorKms(config))
    dec = theirs.file_decryption_properties(kms, pe.DecryptionConfiguration())
    assert pq.read_table(pa.BufferReader(buf.getvalue()), decryption_properties=dec).equals(TABLE)
    ours_dec = ours.file_decryption_properties(kms, pe.DecryptionConfiguration())
    assert pc.read_table(buf.getvalue(), decryption_properties=ours_dec).to_arrow().equals(TABLE)


def test_pyarrows_file_is_read_with_our_factory_and_pyarrows_configs():
    kms, enc = _configs()
    theirs = pe.CryptoFactory(lambda config: XorKms(config))
    buf = pa.BufferOutputStream()
    pq.write_table(TABLE, buf, encryption_properties=theirs.file_encryption_properties(kms, enc))
    ours = pc.CryptoFactory(lambda config: XorKms(config))
    dec = ours.file_decryption_properties(kms, pe.DecryptionConfiguration())
    assert pc.read_table(pa.BufferReader(buf.getvalue()), decryption_properties=dec).to_arrow().equals(TABLE)
