"""LocalWrapKmsClient: master keys fetched from the KMS, keys wrapped here.

The wrapped form is fixed by parquet-java/Arrow's local wrapping mode: a flat
JSON object {"masterKeyVersion": "NO_VERSION", "encryptedKey": base64(nonce |
ciphertext | tag)} with the master key id as AES-GCM AAD. The expected values
below are built with ``cryptography`` directly, not with our wrapping code.
"""

from __future__ import annotations

import base64
import json
import os

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import parquet_core as pc
from parquet_core.errors import ParquetEncryptionError

MASTER = {"kf": b"0123456789012345", "k1": b"12345678901234567890123456789012"}


class DictLocalWrap(pc.LocalWrapKmsClient):
    def __init__(self, log=None):
        super().__init__()
        self.log = [] if log is None else log

    def get_master_key(self, master_key_identifier):
        self.log.append(master_key_identifier)
        return MASTER[master_key_identifier]


def _reference_wrap(key: bytes, master_id: str, version: str = "NO_VERSION") -> str:
    nonce = os.urandom(12)
    sealed = AESGCM(MASTER[master_id]).encrypt(nonce, key, master_id.encode())
    return json.dumps({"masterKeyVersion": version,
                       "encryptedKey": base64.b64encode(nonce + sealed).decode()})


def test_wrap_format_matches_the_reference():
    obj = json.loads(DictLocalWrap().wrap_key(b"d" * 16, "k1"))
    assert obj["masterKeyVersion"] == "NO_VERSION"
    raw = base64.b64decode(obj["encryptedKey"])
    assert AESGCM(MASTER["k1"]).decrypt(raw[:12], raw[12:], b"k1") == b"d" * 16


def test_unwrap_reference_wrapped_key_and_cache_master_keys():
    log = []
    client = DictLocalWrap(log)
    assert client.unwrap_key(_reference_wrap(b"x" * 24, "kf"), "kf") == b"x" * 24
    assert client.unwrap_key(_reference_wrap(b"y" * 24, "kf"), "kf") == b"y" * 24
    assert log == ["kf"]


@pytest.mark.parametrize("wrapped, message", [
    (_reference_wrap(b"x" * 16, "kf", version="v2"), "'v2' is not supported"),
    ("not json", "must be JSON"),
    ('{"masterKeyVersion":"NO_VERSION"}', "must be JSON"),
])
def test_unwrap_rejects(wrapped, message):
    with pytest.raises(ParquetEncryptionError, match=message):
        DictLocalWrap().unwrap_key(wrapped, "kf")


def test_wrong_master_key_id_fails_authentication():
    with pytest.raises(ParquetEncryptionError, match="authentication failed"):
        DictLocalWrap().unwrap_key(_reference_wrap(b"x" * 16, "kf"), "k1")


def test_crypto_factory_with_local_wrapping():
    factory = pc.CryptoFactory(lambda config: DictLocalWrap())
    props = factory.file_encryption_properties(None, pc.EncryptionConfiguration(
        footer_key="kf", column_keys="k1:a", double_wrapping=False))
    material = json.loads(props.column_key_metadata["a"])
    assert json.loads(material["wrappedDEK"])["masterKeyVersion"] == "NO_VERSION"
    dec = factory.file_decryption_properties(None)
    assert dec.key_for_footer(props.footer_key_metadata) == props.footer_key
    assert dec.key_for_column("a", props.column_key_metadata["a"]) == props.column_keys["a"]
