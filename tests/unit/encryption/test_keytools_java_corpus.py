"""The key tools on parquet-java's file with external key material (outside truth).

``external_key_material_java.parquet.encrypted`` was written by parquet-java's
key tools with its in-memory test KMS (master keys kf/kc1/kc2 are the corpus
keys), double wrapping, and key material in the JSON file beside it. Its
content (documented by Arrow's key-management test that reads it): one row
group, ``integers`` = 0..99 and ``strings`` = "a0", "b1", ..., the letter
cycling a..j.
"""

from __future__ import annotations

import shutil

import pytest

import parquet_core as pc
from parquet_core.encryption.keytools import InMemoryKms
from parquet_core.errors import ParquetEncryptionError
from tests.unit.encryption._footer import column_key_metadata, file_metadata, footer_key_metadata

NAME = "external_key_material_java.parquet.encrypted"
MASTER_KEYS = {"kf": "0123456789012345", "kc1": "1234567890123450", "kc2": "1234567890123451"}
EXPECTED_INTS = list(range(100))
EXPECTED_STRINGS = [f"{'abcdefghij'[i % 10]}{i}" for i in range(100)]


@pytest.fixture()
def java_file(corpus):
    return corpus / NAME


def _decryption(path, master_keys=MASTER_KEYS):
    factory = pc.CryptoFactory(lambda config: InMemoryKms(master_keys))
    return factory.file_decryption_properties(pc.KmsConnectionConfig(), parquet_file_path=path)


def test_footer_key_unwraps_and_decrypts_the_footer(java_file):
    dec = _decryption(java_file)
    meta = footer_key_metadata(java_file)
    assert b'"keyReference":"footerKey"' in meta
    footer_key = dec.key_for_footer(meta)
    assert len(footer_key) == 16
    # The unwrapped key authenticates the AES-GCM footer parquet-java wrote.
    fmd = file_metadata(java_file, footer_key)
    assert fmd.num_rows == 100
    assert [s.name for s in fmd.schema[1:]] == ["integers", "strings"]


def test_column_keys_unwrap_and_polars_reads_the_values(java_file):
    pl = pytest.importorskip("polars")
    dec = _decryption(java_file)
    footer_key = dec.key_for_footer(footer_key_metadata(java_file))
    metas = column_key_metadata(file_metadata(java_file, footer_key))
    assert sorted(metas) == ["integers", "strings"]
    keys = {path: dec.key_for_column(path, meta) for path, meta in metas.items()}
    assert len(set(keys.values())) == 2 and footer_key not in keys.values()
    df = pl.read_parquet(java_file, decryption=pl.ParquetDecryptionProperties(
        footer_key=footer_key, column_keys=keys))
    assert df["integers"].to_list() == EXPECTED_INTS
    assert df["strings"].to_list() == EXPECTED_STRINGS


def test_read_table_through_the_key_tools(java_file):
    table = pc.read_table(java_file, decryption=_decryption(java_file))
    assert table.column("integers").to_pylist() == EXPECTED_INTS
    assert table.column("strings").to_pylist() == EXPECTED_STRINGS


def test_wrong_master_key_is_an_encryption_error(java_file):
    dec = _decryption(java_file, {**MASTER_KEYS, "kf": "9999999999999999"})
    with pytest.raises(ParquetEncryptionError, match="authentication failed"):
        dec.key_for_footer(footer_key_metadata(java_file))


def test_unknown_master_key_is_an_encryption_error(java_file):
    dec = _decryption(java_file, {"kc1": MASTER_KEYS["kc1"]})
    with pytest.raises(ParquetEncryptionError, match="'kf'"):
        dec.key_for_footer(footer_key_metadata(java_file))


def test_missing_key_material_file_says_where_it_looked(java_file, tmp_path):
    lonely = tmp_path / NAME
    shutil.copyfile(java_file, lonely)
    dec = _decryption(lonely)
    with pytest.raises(ParquetEncryptionError, match="_KEY_MATERIAL_FOR_"):
        dec.key_for_footer(footer_key_metadata(lonely))


def test_external_material_needs_the_file_path(java_file):
    factory = pc.CryptoFactory(lambda config: InMemoryKms(MASTER_KEYS))
    dec = factory.file_decryption_properties(pc.KmsConnectionConfig())
    with pytest.raises(ParquetEncryptionError, match="parquet_file_path"):
        dec.key_for_footer(footer_key_metadata(java_file))
