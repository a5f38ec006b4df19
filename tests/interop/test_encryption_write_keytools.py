"""Encrypted files through the key tools, both directions with pyarrow.

Our side: ``pc.CryptoFactory`` with ``InMemoryKms``. pyarrow's side:
``pyarrow.parquet.encryption.CryptoFactory`` with a KmsClient written here
on ``cryptography`` that wraps the way parquet-java's and Arrow's in-memory
test KMSs do (AES-GCM under the master key, the master key id as AAD,
base64 of nonce | ciphertext | tag). The same master keys on both sides, so
each reads the other's key material.

Also: our writer read back by our reader (every algorithm x footer mode x
key layout, with Bloom filters and page indexes), and the values checked
against the source, not against our own output.
"""

from __future__ import annotations

import base64
import itertools
import os

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.encryption.keytools import InMemoryKms

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pe = pytest.importorskip("pyarrow.parquet.encryption")
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402

MASTER_KEYS = {"kf": b"0123456789012345", "kc1": b"1234567890123450",
               "kc2": b"12345678901234567890123456789012"}
N = 2000
DATA = {
    "i": np.arange(N, dtype=np.int64),
    "f": np.linspace(-1.0, 1.0, N),
    "s": [None if i % 9 == 0 else f"name{i % 41}" for i in range(N)],
    "l": [[i, -i] if i % 4 else None for i in range(N)],
}
LAYOUTS = {"uniform": None, "per_column": "kc1:i,s;kc2:f,l.list.element", "some_plaintext": "kc1:s;kc2:f"}
ALGORITHMS = ["AES_GCM_V1", "AES_GCM_CTR_V1"]
CASES = list(itertools.product(ALGORITHMS, [False, True], LAYOUTS, [False, True]))


class ArrowInMemoryKms(pe.KmsClient):
    """pyarrow KMS client: AES-GCM wrapping with the master key id as AAD."""

    def __init__(self, config):
        super().__init__()

    def wrap_key(self, key_bytes, master_key_identifier):
        nonce = os.urandom(12)
        ct = AESGCM(MASTER_KEYS[master_key_identifier]).encrypt(
            nonce, key_bytes, master_key_identifier.encode())
        return base64.b64encode(nonce + ct).decode()

    def unwrap_key(self, wrapped_key, master_key_identifier):
        raw = base64.b64decode(wrapped_key)
        return AESGCM(MASTER_KEYS[master_key_identifier]).decrypt(
            raw[:12], raw[12:], master_key_identifier.encode())


def _expected():
    return pa.table(DATA)


def _ours():
    return pc.CryptoFactory(lambda config: InMemoryKms(MASTER_KEYS))


def _theirs():
    return pe.CryptoFactory(lambda config: ArrowInMemoryKms(config))


def _assert_values(table):
    got = table.to_pylist() if not hasattr(table, "to_arrow") else table.to_arrow().to_pylist()
    assert got == _expected().to_pylist()


@pytest.mark.parametrize("algorithm,plaintext_footer,layout,double_wrapping", CASES)
def test_pyarrow_reads_files_we_encrypt_through_key_tools(tmp_path, algorithm, plaintext_footer,
                                                          layout, double_wrapping):
    path = tmp_path / "ours.parquet"
    props = _ours().file_encryption_properties(pc.KmsConnectionConfig(), pc.EncryptionConfiguration(
        footer_key="kf", column_keys=LAYOUTS[layout], uniform_encryption=layout == "uniform",
        encryption_algorithm=algorithm, plaintext_footer=plaintext_footer,
        double_wrapping=double_wrapping))
    pc.write_table(DATA, path, encryption=props, bloom_filter_options={"i": True, "s": True},
                   write_page_checksum=True, data_page_row_count_limit=500)
    dec = _theirs().file_decryption_properties(pe.KmsConnectionConfig())
    got = pq.read_table(path, decryption_properties=dec, page_checksum_verification=True)
    assert got.equals(_expected())
    # and our own reader, through our key tools
    ours = pc.read_table(path, decryption=_ours().file_decryption_properties(pc.KmsConnectionConfig()))
    _assert_values(ours)


@pytest.mark.parametrize("algorithm,plaintext_footer,layout", [c[:3] for c in CASES if c[3]])
def test_we_read_files_pyarrow_encrypts(tmp_path, algorithm, plaintext_footer, layout):
    path = tmp_path / "theirs.parquet"
    spec = LAYOUTS[layout]
    column_keys = {} if spec is None else {
        k: cols.split(",") for k, cols in (part.split(":") for part in spec.split(";"))}
    conf = pe.EncryptionConfiguration(
        footer_key="kf", column_keys=column_keys, uniform_encryption=spec is None,
        encryption_algorithm=algorithm, plaintext_footer=plaintext_footer)
    props = _theirs().file_encryption_properties(pe.KmsConnectionConfig(), conf)
    pq.write_table(_expected(), path, encryption_properties=props, write_page_index=True,
                   write_page_checksum=True, data_page_size=4096)
    dec = _ours().file_decryption_properties(pc.KmsConnectionConfig())
    _assert_values(pc.read_table(path, decryption=dec))


def test_external_key_material_written_with_the_file(tmp_path):
    path = tmp_path / "ext.parquet"
    props = _ours().file_encryption_properties(
        pc.KmsConnectionConfig(),
        pc.EncryptionConfiguration(footer_key="kf", column_keys="kc1:s", internal_key_material=False),
        parquet_file_path=str(path))
    pc.write_table(DATA, path, encryption=props)
    names = sorted(os.listdir(tmp_path))
    assert names == ["_KEY_MATERIAL_FOR_ext.parquet.json", "ext.parquet"]
    dec = _ours().file_decryption_properties(pc.KmsConnectionConfig(), parquet_file_path=str(path))
    _assert_values(pc.read_table(path, decryption=dec))


def test_failing_key_material_hook_publishes_nothing(tmp_path):
    path = tmp_path / "x.parquet"

    def hook(final_path):
        raise OSError("key material store unavailable")

    props = pc.FileEncryptionProperties(footer_key=MASTER_KEYS["kf"], on_file_written=hook)
    with pytest.raises(OSError, match="unavailable"):
        pc.write_table(DATA, path, encryption=props)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("plaintext_footer", [False, True])
def test_our_reader_reads_our_indexes_and_bloom_filters(tmp_path, algorithm, plaintext_footer):
    path = tmp_path / "f.parquet"
    props = pc.FileEncryptionProperties(
        footer_key=MASTER_KEYS["kf"], column_keys={"i": MASTER_KEYS["kc1"], "s": MASTER_KEYS["kc2"]},
        algorithm=algorithm, plaintext_footer=plaintext_footer, aad_prefix=b"tester",
        store_aad_prefix=False)
    pc.write_table(DATA, path, encryption=props, bloom_filter_options={"i": True, "s": True},
                   data_page_row_count_limit=300, row_group_size=1000)
    dec = pc.FileDecryptionProperties(footer_key=MASTER_KEYS["kf"], aad_prefix=b"tester",
                                      column_keys={"i": MASTER_KEYS["kc1"], "s": MASTER_KEYS["kc2"]})
    with pc.ParquetFile(path, decryption=dec) as pf:
        _assert_values(pf.read())
        for rg in range(2):
            oi = pf.offset_index(rg, "i")
            assert [p.first_row_index for p in oi.page_locations] == [0, 300, 600, 900]
            ci = pf.column_index(rg, "i")
            assert ci is not None
            bf = pf.bloom_filter(rg, "s")
            present = {v for v in DATA["s"][rg * 1000:(rg + 1) * 1000] if v is not None}
            assert all(bf.might_contain(v) for v in present)
        # page pruning through the decrypted page index keeps exactly the matching rows
        got = pf.read(filters=[("i", "==", 1234)])
        assert got.column("i").to_pylist() == [1234]
