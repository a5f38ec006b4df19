"""Our key tools against pyarrow's (Arrow's properties-driven crypto factory).

Both sides use an in-memory test KMS that wraps keys the way parquet-java's
and Arrow's test KMSs do (AES-GCM under the master key, master key id as AAD,
base64). The pyarrow-side client below is written independently of ours (on
``cryptography`` directly), so agreement proves the formats, not a shared bug.

* pyarrow writes through ``pe.CryptoFactory``; we unwrap its key material and
  read the file (``pc.read_table(decryption=...)``), value for value.
* we write through ``pc.CryptoFactory``; pyarrow reads through its factory.
* external key material both ways, including after the other side rotated
  the master keys (rewriting the ``_KEY_MATERIAL_FOR_...json`` file).
"""

from __future__ import annotations

import base64
import itertools
import os

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import parquet_core as pc
from parquet_core.encryption.keytools import InMemoryKms
from tests.unit.encryption._footer import column_key_metadata, file_metadata, footer_key_metadata

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pe = pytest.importorskip("pyarrow.parquet.encryption")

MASTER_KEYS = {"kf": "0123456789012345", "kc1": "1234567890123450",
               "kc2": "123456789012345678901234"}  # 192-bit master key on purpose
N = 500
DATA = {
    "i": list(range(N)),
    "f": [i / 7 for i in range(N)],
    "s": [None if i % 9 == 0 else f"s{i % 31}" for i in range(N)],
    "p": [i * 3 for i in range(N)],  # stays plaintext with column keys
}
ARROW_COLUMN_KEYS = {"kc1": ["i", "s"], "kc2": ["f"]}
OUR_COLUMN_KEYS = "kc1: i, s; kc2: f"


class ArrowTestKms(pe.KmsClient):
    """pyarrow KMS client: AES-GCM(master key, AAD = master key id), base64."""

    def __init__(self, config):
        super().__init__()
        self.keys = {k: v.encode() for k, v in config.custom_kms_conf.items()}

    def wrap_key(self, key_bytes, master_key_identifier):
        nonce = os.urandom(12)
        sealed = AESGCM(self.keys[master_key_identifier]).encrypt(
            nonce, key_bytes, master_key_identifier.encode())
        return base64.b64encode(nonce + sealed).decode()

    def unwrap_key(self, wrapped_key, master_key_identifier):
        raw = base64.b64decode(wrapped_key)
        return AESGCM(self.keys[master_key_identifier]).decrypt(
            raw[:12], raw[12:], master_key_identifier.encode())


def _arrow_kms_config():
    return pe.KmsConnectionConfig(custom_kms_conf=MASTER_KEYS)


def _our_factory():
    return pc.CryptoFactory(lambda config: InMemoryKms(config.custom_kms_conf))


def _our_kms_config():
    return pc.KmsConnectionConfig(custom_kms_conf=MASTER_KEYS)


def _table():
    return pa.table({k: pa.array(v) for k, v in DATA.items()})


def _our_read(path, external: bool):
    dec = _our_factory().file_decryption_properties(
        _our_kms_config(), parquet_file_path=path if external else None)
    return pc.read_table(path, decryption=dec).to_pydict()


def _our_write(path, **config):
    props = _our_factory().file_encryption_properties(
        _our_kms_config(), pc.EncryptionConfiguration(footer_key="kf", **config), path)
    pc.write_table(DATA, path, encryption=props)
    return props


# pyarrow plaintext_footer applies only with column keys, so uniform x plaintext is left out.
ARROW_CASES = [c for c in itertools.product([True, False], [True, False], [False, True], [False, True])
               if not (c[2] and c[3])]


@pytest.mark.parametrize("double,internal,plaintext_footer,uniform", ARROW_CASES)
def test_we_read_files_pyarrow_encrypted(tmp_path, double, internal, plaintext_footer, uniform):
    path = tmp_path / "arrow.parquet"
    config = pe.EncryptionConfiguration(
        footer_key="kf", column_keys={} if uniform else ARROW_COLUMN_KEYS,
        uniform_encryption=uniform, double_wrapping=double, internal_key_material=internal,
        plaintext_footer=plaintext_footer, data_key_length_bits=256)
    props = pe.CryptoFactory(ArrowTestKms).file_encryption_properties(
        _arrow_kms_config(), config, str(path) if not internal else None)
    pq.write_table(_table(), path, encryption_properties=props)
    assert os.path.exists(tmp_path / "_KEY_MATERIAL_FOR_arrow.parquet.json") == (not internal)

    # The keys, without our read path: footer key from the tail, column keys from the footer.
    dec = _our_factory().file_decryption_properties(_our_kms_config(), parquet_file_path=path)
    footer_key = dec.key_for_footer(footer_key_metadata(path))
    assert len(footer_key) == 32
    fmd = file_metadata(path, footer_key)
    assert fmd.num_rows == N
    metas = column_key_metadata(fmd)
    assert sorted(metas) == ([] if uniform else ["f", "i", "s"])
    assert all(len(dec.key_for_column(p, m)) == 32 for p, m in metas.items())

    assert _our_read(path, external=not internal) == DATA


OUR_CASES = list(itertools.product([True, False], [True, False], [False, True],
                                   ["AES_GCM_V1", "AES_GCM_CTR_V1"]))


@pytest.mark.parametrize("double,internal,plaintext_footer,algorithm", OUR_CASES)
def test_pyarrow_reads_files_we_encrypted(tmp_path, double, internal, plaintext_footer, algorithm):
    path = tmp_path / "ours.parquet"
    _our_write(path, column_keys=OUR_COLUMN_KEYS, double_wrapping=double, internal_key_material=internal,
               plaintext_footer=plaintext_footer, encryption_algorithm=algorithm,
               data_key_length_bits=192)
    material = tmp_path / "_KEY_MATERIAL_FOR_ours.parquet.json"
    assert material.exists() == (not internal)
    assert sorted(os.listdir(tmp_path)) == sorted(["ours.parquet"] + ([] if internal else [material.name]))
    dec = pe.CryptoFactory(ArrowTestKms).file_decryption_properties(
        _arrow_kms_config(), pe.DecryptionConfiguration(), str(path))
    assert pq.read_table(path, decryption_properties=dec).equals(_table())
    assert _our_read(path, external=not internal) == DATA


def test_pyarrow_reads_our_uniform_file(tmp_path):
    path = tmp_path / "ours.parquet"
    _our_write(path, uniform_encryption=True, data_key_length_bits=128)
    dec = pe.CryptoFactory(ArrowTestKms).file_decryption_properties(_arrow_kms_config())
    assert pq.read_table(path, decryption_properties=dec).equals(_table())


def test_pyarrow_reads_after_we_rotate_its_key_material(tmp_path):
    path = tmp_path / "arrow.parquet"
    config = pe.EncryptionConfiguration(footer_key="kf", column_keys=ARROW_COLUMN_KEYS,
                                        internal_key_material=False)
    props = pe.CryptoFactory(ArrowTestKms).file_encryption_properties(
        _arrow_kms_config(), config, str(path))
    pq.write_table(_table(), path, encryption_properties=props)
    material = tmp_path / "_KEY_MATERIAL_FOR_arrow.parquet.json"
    before = material.read_text()
    for double in (False, True):  # our JSON, single then double wrapped, replaces Arrow's
        _our_factory().rotate_master_keys(_our_kms_config(), path, double_wrapping=double)
        assert material.read_text() != before
        dec = pe.CryptoFactory(ArrowTestKms).file_decryption_properties(
            _arrow_kms_config(), pe.DecryptionConfiguration(), str(path))
        assert pq.read_table(path, decryption_properties=dec).equals(_table())


def test_we_read_after_pyarrow_rotates_our_key_material(tmp_path):
    path = tmp_path / "ours.parquet"
    _our_write(path, column_keys=OUR_COLUMN_KEYS, internal_key_material=False)
    material = tmp_path / "_KEY_MATERIAL_FOR_ours.parquet.json"
    before = material.read_text()
    pe.CryptoFactory(ArrowTestKms).rotate_master_keys(_arrow_kms_config(), str(path),
                                                      double_wrapping=False)
    assert material.read_text() != before
    assert _our_read(path, external=True) == DATA


def test_our_factory_accepts_a_pyarrow_kms_client(tmp_path):
    """A pyarrow KmsClient subclass works unchanged as our KMS client (duck typed)."""
    path = tmp_path / "ours.parquet"
    factory = pc.CryptoFactory(ArrowTestKms)
    props = factory.file_encryption_properties(
        _our_kms_config(), pc.EncryptionConfiguration(footer_key="kf", column_keys=OUR_COLUMN_KEYS), path)
    pc.write_table(DATA, path, encryption=props)
    dec = factory.file_decryption_properties(_our_kms_config())
    assert pc.read_table(path, decryption=dec).to_pydict() == DATA
