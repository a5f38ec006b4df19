"""CryptoFactory: data keys, single/double wrapping, caches, external key material, rotation."""

from __future__ import annotations

import base64
import json
import os

import pytest

import parquet_core as pc
from parquet_core.encryption.keytools import InMemoryKms
from parquet_core.encryption.keytools import KeyMaterial, KeyMetadata
from parquet_core.errors import ParquetEncryptionError

MASTER = {"kf": b"0123456789012345", "k1": b"1234567890123450", "k2": b"123456789012345678901234"}


class CountingKms(InMemoryKms):
    """The in-memory KMS, counting calls (to observe the caches)."""

    def __init__(self, keys, log):
        super().__init__(keys)
        self.log = log

    def wrap_key(self, key_bytes, master_key_identifier):
        self.log.append(("wrap", master_key_identifier, len(key_bytes)))
        return super().wrap_key(key_bytes, master_key_identifier)

    def unwrap_key(self, wrapped_key, master_key_identifier):
        self.log.append(("unwrap", master_key_identifier))
        return super().unwrap_key(wrapped_key, master_key_identifier)


@pytest.fixture()
def log():
    return []


@pytest.fixture()
def factory(log):
    return pc.CryptoFactory(lambda config: CountingKms(MASTER, log))


def _config(**kw):
    kw.setdefault("footer_key", "kf")
    kw.setdefault("column_keys", "k1:a,b.c;k2:d")
    return pc.EncryptionConfiguration(**kw)


def _roundtrip(factory, props):
    dec = factory.file_decryption_properties(pc.KmsConnectionConfig())
    assert dec.key_for_footer(props.footer_key_metadata) == props.footer_key
    for path, key in props.column_keys.items():
        assert dec.key_for_column(path, props.column_key_metadata[path]) == key


@pytest.mark.parametrize("bits", [128, 192, 256])
@pytest.mark.parametrize("double", [True, False])
def test_roundtrip_key_lengths_and_wrapping(factory, bits, double):
    props = factory.file_encryption_properties(
        pc.KmsConnectionConfig(), _config(data_key_length_bits=bits, double_wrapping=double))
    assert isinstance(props, pc.FileEncryptionProperties)
    assert len(props.footer_key) == bits // 8
    assert sorted(props.column_keys) == ["a", "b.c", "d"]
    assert all(len(k) == bits // 8 for k in props.column_keys.values())
    assert len({props.footer_key, *props.column_keys.values()}) == 4  # fresh random keys
    footer = KeyMetadata.parse(props.footer_key_metadata).material
    assert footer.is_footer_key and footer.master_key_id == "kf" and footer.double_wrapping == double
    assert (footer.kms_instance_id, footer.kms_instance_url) == ("DEFAULT", "DEFAULT")
    column = KeyMetadata.parse(props.column_key_metadata["d"]).material
    assert column.master_key_id == "k2" and not column.is_footer_key
    wrapped_dek = base64.b64decode(column.wrapped_dek)
    assert len(wrapped_dek) == 12 + bits // 8 + 16  # nonce | ciphertext | tag
    _roundtrip(factory, props)


def test_options_reach_the_properties(factory):
    props = factory.file_encryption_properties(
        None, _config(encryption_algorithm="AES_GCM_CTR_V1", plaintext_footer=True))
    assert props.algorithm == "AES_GCM_CTR_V1" and props.plaintext_footer
    assert props.aad_prefix is None and props.on_file_written is None


def test_uniform_encryption_has_only_a_footer_key(factory):
    props = factory.file_encryption_properties(None, _config(column_keys=None, uniform_encryption=True))
    assert props.uniform and props.column_keys == {} and props.column_key(("any")) == props.footer_key


def test_double_wrapping_calls_the_kms_once_per_master_key(factory, log):
    factory.file_encryption_properties(None, _config())
    factory.file_encryption_properties(None, _config())
    # Three master keys, one 16-byte KEK each, cached across files.
    assert sorted(log) == [("wrap", "k1", 16), ("wrap", "k2", 16), ("wrap", "kf", 16)]


def test_kek_is_shared_by_keys_of_one_master_key(factory):
    props = factory.file_encryption_properties(None, _config())
    a = KeyMetadata.parse(props.column_key_metadata["a"]).material
    bc = KeyMetadata.parse(props.column_key_metadata["b.c"]).material
    d = KeyMetadata.parse(props.column_key_metadata["d"]).material
    assert a.kek_id == bc.kek_id != d.kek_id
    assert len(base64.b64decode(a.kek_id)) == 16


def test_single_wrapping_calls_the_kms_per_key(factory, log):
    factory.file_encryption_properties(None, _config(double_wrapping=False, data_key_length_bits=256))
    assert sorted(log) == [("wrap", "k1", 32), ("wrap", "k1", 32), ("wrap", "k2", 32), ("wrap", "kf", 32)]


def test_unwrapped_keks_are_cached_and_tokens_are_separate(factory, log):
    props = factory.file_encryption_properties(None, _config())
    log.clear()
    _roundtrip(factory, props)
    _roundtrip(factory, props)
    assert sorted(log) == [("unwrap", "k1"), ("unwrap", "k2"), ("unwrap", "kf")]
    log.clear()
    dec = factory.file_decryption_properties(pc.KmsConnectionConfig(key_access_token="other"))
    dec.key_for_footer(props.footer_key_metadata)
    assert log == [("unwrap", "kf")]
    log.clear()
    factory.remove_cache_entries_for_all_tokens()
    _roundtrip(factory, props)
    assert len(log) == 3


def test_zero_cache_lifetime_disables_the_kek_cache(factory, log):
    factory.file_encryption_properties(None, _config(cache_lifetime=0))
    factory.file_encryption_properties(None, _config(cache_lifetime=0))
    assert len([c for c in log if c[0] == "wrap"]) == 6


def test_kms_config_reaches_the_client_factory():
    seen = []

    def make(config):
        seen.append(config)
        return InMemoryKms(config.custom_kms_conf)

    factory = pc.CryptoFactory(make)
    config = pc.KmsConnectionConfig(kms_instance_id="kms-7", kms_instance_url="https://kms",
                                    custom_kms_conf={"kf": "0123456789012345"})
    props = factory.file_encryption_properties(config, _config(column_keys=None, uniform_encryption=True))
    material = KeyMetadata.parse(props.footer_key_metadata).material
    assert (material.kms_instance_id, material.kms_instance_url) == ("kms-7", "https://kms")
    assert seen[0].custom_kms_conf == {"kf": "0123456789012345"}
    # A reader with an empty config learns the instance from the footer key material.
    dec = factory.file_decryption_properties(pc.KmsConnectionConfig(custom_kms_conf=config.custom_kms_conf))
    assert dec.key_for_footer(props.footer_key_metadata) == props.footer_key
    assert seen[-1].kms_instance_id == "kms-7"


def test_column_key_before_footer_key_without_kms_instance_is_an_error(factory):
    props = factory.file_encryption_properties(None, _config())
    dec = factory.file_decryption_properties(pc.KmsConnectionConfig())
    with pytest.raises(ParquetEncryptionError, match="kms_instance_id is missing"):
        dec.key_for_column("a", props.column_key_metadata["a"])
    dec = factory.file_decryption_properties(pc.KmsConnectionConfig(kms_instance_id="DEFAULT",
                                                                    kms_instance_url="DEFAULT"))
    assert dec.key_for_column("a", props.column_key_metadata["a"]) == props.column_keys["a"]


def test_kms_failures_become_encryption_errors():
    class Broken(pc.KmsClient):
        def wrap_key(self, key_bytes, master_key_identifier):
            raise ConnectionError("KMS down")

        def unwrap_key(self, wrapped_key, master_key_identifier):
            return "not bytes"

    factory = pc.CryptoFactory(lambda config: Broken())
    with pytest.raises(ParquetEncryptionError, match="KMS down"):
        factory.file_encryption_properties(None, _config())
    material = KeyMaterial(True, "kf", "x", False, "DEFAULT", "DEFAULT").to_json(True)
    dec = factory.file_decryption_properties(None)
    with pytest.raises(ParquetEncryptionError, match="not bytes"):
        dec.key_for_footer(material.encode())


def test_tampered_wrapped_key_fails_authentication(factory):
    props = factory.file_encryption_properties(None, _config(double_wrapping=False))
    obj = json.loads(props.footer_key_metadata)
    raw = bytearray(base64.b64decode(obj["wrappedDEK"]))
    raw[15] ^= 1
    obj["wrappedDEK"] = base64.b64encode(bytes(raw)).decode()
    dec = factory.file_decryption_properties(None)
    with pytest.raises(ParquetEncryptionError, match="authentication failed"):
        dec.key_for_footer(json.dumps(obj).encode())


def test_in_memory_kms_binds_the_master_key_id():
    kms = InMemoryKms({"a": b"0123456789012345", "b": b"0123456789012345"})
    wrapped = kms.wrap_key(b"k" * 16, "a")
    assert kms.unwrap_key(wrapped, "a") == b"k" * 16
    with pytest.raises(ParquetEncryptionError, match="authentication failed"):
        kms.unwrap_key(wrapped, "b")  # same key bytes, other id -> other AAD
    with pytest.raises(ParquetEncryptionError, match="not known"):
        kms.wrap_key(b"k" * 16, "c")
    with pytest.raises(ValueError, match="16, 24 or 32"):
        InMemoryKms({"a": b"short"})


# -- external key material ------------------------------------------------------

def test_external_material_is_saved_by_the_writer_hook(factory, tmp_path):
    target = tmp_path / "part-0.parquet"
    with pytest.raises(ValueError, match="parquet_file_path"):
        factory.file_encryption_properties(None, _config(internal_key_material=False))
    props = factory.file_encryption_properties(None, _config(internal_key_material=False), target)
    assert json.loads(props.footer_key_metadata) == {
        "keyMaterialType": "PKMT1", "internalStorage": False, "keyReference": "footerKey"}
    refs = {p: json.loads(m)["keyReference"] for p, m in props.column_key_metadata.items()}
    assert sorted(refs.values()) == ["columnKey0", "columnKey1", "columnKey2"]
    material_file = tmp_path / "_KEY_MATERIAL_FOR_part-0.parquet.json"
    assert not material_file.exists()  # nothing before the file is written
    assert props.on_file_written(str(target)) == str(material_file)
    assert sorted(os.listdir(tmp_path)) == [material_file.name]  # no temp file left
    stored = json.loads(material_file.read_text())
    assert sorted(stored) == ["columnKey0", "columnKey1", "columnKey2", "footerKey"]
    footer = KeyMaterial.parse(stored["footerKey"])
    assert footer.is_footer_key and footer.master_key_id == "kf"
    assert "internalStorage" not in json.loads(stored["footerKey"])
    dec = factory.file_decryption_properties(None, parquet_file_path=target)
    assert dec.key_for_footer(props.footer_key_metadata) == props.footer_key
    for path, key in props.column_keys.items():
        assert dec.key_for_column(path, props.column_key_metadata[path]) == key


def test_hook_saves_next_to_the_path_actually_written(factory, tmp_path):
    props = factory.file_encryption_properties(None, _config(internal_key_material=False),
                                               tmp_path / "planned.parquet")
    (tmp_path / "sub").mkdir()
    props.on_file_written(str(tmp_path / "sub" / "real.parquet"))
    assert os.listdir(tmp_path / "sub") == ["_KEY_MATERIAL_FOR_real.parquet.json"]
    props.on_file_written(None)  # a file-object sink: the planned path
    assert (tmp_path / "_KEY_MATERIAL_FOR_planned.parquet.json").exists()


def test_rotate_master_keys_rewraps_external_material(tmp_path):
    old = dict(MASTER)
    new = {k: bytes(reversed(v)) for k, v in MASTER.items()}

    class RotatingKms(pc.KmsClient):  # unwraps with the old keys, wraps with the new
        def __init__(self, unwrap_keys, wrap_keys):
            self.u, self.w = InMemoryKms(unwrap_keys), InMemoryKms(wrap_keys)

        def wrap_key(self, key_bytes, master_key_identifier):
            return self.w.wrap_key(key_bytes, master_key_identifier)

        def unwrap_key(self, wrapped_key, master_key_identifier):
            return self.u.unwrap_key(wrapped_key, master_key_identifier)

    target = tmp_path / "f.parquet"
    writer = pc.CryptoFactory(lambda c: InMemoryKms(old))
    props = writer.file_encryption_properties(None, _config(internal_key_material=False), target)
    props.on_file_written(str(target))
    pc.CryptoFactory(lambda c: RotatingKms(old, new)).rotate_master_keys(
        None, target, double_wrapping=False)
    stored = json.loads((tmp_path / "_KEY_MATERIAL_FOR_f.parquet.json").read_text())
    assert not KeyMaterial.parse(stored["columnKey0"]).double_wrapping
    with pytest.raises(ParquetEncryptionError):
        pc.CryptoFactory(lambda c: InMemoryKms(old)).file_decryption_properties(
            None, parquet_file_path=target).key_for_footer(props.footer_key_metadata)
    dec = pc.CryptoFactory(lambda c: InMemoryKms(new)).file_decryption_properties(
        None, parquet_file_path=target)
    assert dec.key_for_footer(props.footer_key_metadata) == props.footer_key
    for path, key in props.column_keys.items():
        assert dec.key_for_column(path, props.column_key_metadata[path]) == key


def test_kek_cache_expires_after_its_lifetime(factory, log, monkeypatch):
    from parquet_core.encryption.keytools import cache

    now = [1000.0]
    monkeypatch.setattr(cache.time, "monotonic", lambda: now[0])
    first = factory.file_encryption_properties(None, _config(cache_lifetime=60))
    now[0] += 59
    second = factory.file_encryption_properties(None, _config(cache_lifetime=60))
    now[0] += 2
    third = factory.file_encryption_properties(None, _config(cache_lifetime=60))
    kek = [KeyMetadata.parse(p.footer_key_metadata).material.kek_id for p in (first, second, third)]
    assert kek[0] == kek[1] != kek[2]
    assert len(log) == 6


@pytest.mark.parametrize("content, message", [
    (b"{", "not valid JSON"),
    (b'{"footerKey": {"nested": 1}}', "JSON object of key id -> material string"),
    (b'{"columnKey0": "{}"}', "no key 'footerKey'"),
])
def test_malformed_key_material_file(factory, tmp_path, content, message):
    target = tmp_path / "f.parquet"
    (tmp_path / "_KEY_MATERIAL_FOR_f.parquet.json").write_bytes(content)
    dec = factory.file_decryption_properties(None, parquet_file_path=target)
    with pytest.raises(ParquetEncryptionError, match=message):
        dec.key_for_footer(_external_meta("footerKey"))


def _external_meta(reference):
    """Key metadata pointing at *reference* in the external key material file."""
    return KeyMetadata.external_json(reference).encode()
