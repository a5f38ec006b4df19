"""PKMT1 key material / key metadata JSON, column_keys parsing, configurations."""

from __future__ import annotations

import base64
import json

import pytest

import parquet_core as pc
from parquet_core.encryption.keytools import KeyMaterial, KeyMetadata, parse_column_keys
from parquet_core.errors import ParquetEncryptionError

# Key material as parquet-java wrote it (the corpus JSON file), field order and all.
JAVA_COLUMN_MATERIAL = (
    '{"masterKeyID":"kc2","wrappedDEK":"cTH8VFwBMb+3u0r7XJrcjxPu1agMZ7gXWeo8WX6nKFVWpRWsgSLlJSIBo+w=",'
    '"keyEncryptionKeyID":"wxefHIzuJo6FH93Gqrc8OQ==","doubleWrapping":true,"isFooterKey":false,'
    '"keyMaterialType":"PKMT1","wrappedKEK":"ImQvItflZylrO0xon5ydb76OTbQgaL8iLSkBoyQ0h2FdoBbh9saOtNsdP2E="}')


def test_parse_java_material_in_any_field_order():
    m = KeyMaterial.parse(JAVA_COLUMN_MATERIAL)
    assert (m.is_footer_key, m.master_key_id, m.double_wrapping) == (False, "kc2", True)
    assert m.kms_instance_id is None and m.kek_id == "wxefHIzuJo6FH93Gqrc8OQ=="
    assert len(base64.b64decode(m.kek_id)) == 16


def test_internal_footer_material_fields_in_order():
    m = KeyMaterial(True, "kf", "DEK", True, kms_instance_id="DEFAULT", kms_instance_url="DEFAULT",
                    kek_id="ID", wrapped_kek="KEK")
    text = m.to_json(internal_storage=True)
    assert list(json.loads(text)) == [
        "keyMaterialType", "internalStorage", "isFooterKey", "kmsInstanceID", "kmsInstanceURL",
        "masterKeyID", "wrappedDEK", "doubleWrapping", "keyEncryptionKeyID", "wrappedKEK"]
    assert " " not in text
    meta = KeyMetadata.parse(text.encode())
    assert meta.internal and meta.material == m


def test_column_single_wrapped_material_has_no_kms_or_kek_fields():
    m = KeyMaterial(False, "kc1", "DEK", False, kms_instance_id="X", kms_instance_url="Y")
    obj = json.loads(m.to_json(internal_storage=False))
    assert obj == {"keyMaterialType": "PKMT1", "isFooterKey": False, "masterKeyID": "kc1",
                   "wrappedDEK": "DEK", "doubleWrapping": False}


def test_external_key_metadata_is_a_reference():
    text = KeyMetadata.external_json("columnKey3")
    # The exact bytes parquet-java stores in the corpus file's FileCryptoMetaData, modulo the id.
    assert text == '{"keyMaterialType":"PKMT1","internalStorage":false,"keyReference":"columnKey3"}'
    meta = KeyMetadata.parse(text)
    assert not meta.internal and meta.key_reference == "columnKey3"


@pytest.mark.parametrize("bad, message", [
    (b"\xff\xfe", "UTF-8"),
    (b"kf", "not valid JSON"),
    (b"[1]", "not a JSON object"),
    (b'{"keyMaterialType":"PKMT2","internalStorage":true}', "PKMT2"),
    (b'{"internalStorage":true}', "key material type None"),
    (b'{"keyMaterialType":"PKMT1"}', "internalStorage"),
    (b'{"keyMaterialType":"PKMT1","internalStorage":"yes"}', "expected bool"),
    (b'{"keyMaterialType":"PKMT1","internalStorage":false}', "keyReference"),
    (b'{"keyMaterialType":"PKMT1","internalStorage":true,"isFooterKey":true,"masterKeyID":"kf",'
     b'"wrappedDEK":"x","doubleWrapping":false}', "kmsInstanceID"),
    (b'{"keyMaterialType":"PKMT1","internalStorage":true,"isFooterKey":false,"masterKeyID":"k",'
     b'"wrappedDEK":"x","doubleWrapping":true,"wrappedKEK":"y"}', "keyEncryptionKeyID"),
])
def test_malformed_key_metadata_is_a_clear_error(bad, message):
    with pytest.raises(ParquetEncryptionError, match=message):
        KeyMetadata.parse(bad)


def test_parse_column_keys_grammar():
    assert parse_column_keys(" k1 : a , b.c ;; k2:d ; ") == {"a": "k1", "b.c": "k1", "d": "k2"}
    assert parse_column_keys({"k1": ["a", "b"], "k2": ["c"]}) == {"a": "k1", "b": "k1", "c": "k2"}
    assert parse_column_keys(None) == {} and parse_column_keys(" ; ") == {}


@pytest.mark.parametrize("spec, message", [
    ("k1", "not 'masterKeyID:col1,col2'"),
    ("k1:a:b", "not 'masterKeyID:col1,col2'"),
    (" :a", "empty master key id"),
    ("k1:", "empty column name"),
    ("k1:a,,b", "empty column name"),
    ("k1:a;k2:a", "column 'a' is given two keys"),
    ("k1:a,a", "column 'a' is given two keys"),
    ({"k1": "a"}, "must be a list"),
    ({"k1": []}, "no columns"),
])
def test_parse_column_keys_rejects(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_column_keys(spec)


def test_encryption_configuration_defaults_match_pyarrow():
    c = pc.EncryptionConfiguration(footer_key="kf", column_keys="k1:a")
    assert (c.encryption_algorithm, c.plaintext_footer, c.double_wrapping, c.cache_lifetime,
            c.internal_key_material, c.data_key_length_bits, c.uniform_encryption) == (
        "AES_GCM_V1", False, True, 600.0, True, 128, False)
    assert c.column_master_keys == {"a": "k1"}


@pytest.mark.parametrize("kwargs, message", [
    (dict(footer_key=""), "footer_key"),
    (dict(footer_key="kf"), "column_keys .* or uniform_encryption"),
    (dict(footer_key="kf", column_keys="k:a", uniform_encryption=True), "cannot both"),
    (dict(footer_key="kf", uniform_encryption=True, data_key_length_bits=64), "128, 192 or 256"),
    (dict(footer_key="kf", uniform_encryption=True, encryption_algorithm="AES_CBC"), "AES_GCM_V1"),
    (dict(footer_key="kf", uniform_encryption=True, cache_lifetime=-1), "non-negative"),
])
def test_encryption_configuration_rejects(kwargs, message):
    with pytest.raises(ValueError, match=message):
        pc.EncryptionConfiguration(**kwargs)


def test_hostile_nesting_is_an_encryption_error():
    with pytest.raises(ParquetEncryptionError, match="not valid JSON"):
        KeyMetadata.parse(b"[" * 200_000 + b"]" * 200_000)
