"""The writer calls ``on_file_written`` so external key material lands with the file."""

from __future__ import annotations

import json
import os

import pytest

import parquet_core as pc
from parquet_core.encryption.keytools import InMemoryKms

MASTER = {"kf": "0123456789012345", "k1": "1234567890123450"}


def _props(path):
    factory = pc.CryptoFactory(lambda config: InMemoryKms(MASTER))
    config = pc.EncryptionConfiguration(footer_key="kf", column_keys="k1:a", internal_key_material=False)
    return factory, factory.file_encryption_properties(None, config, path)


def _write(path, props):
    pc.write_table({"a": [1, 2, 3], "b": ["x", "y", "z"]}, path, encryption=props)


def test_writer_saves_key_material_beside_the_file(tmp_path):
    path = tmp_path / "t.parquet"
    factory, props = _props(path)
    _write(path, props)
    assert sorted(os.listdir(tmp_path)) == ["_KEY_MATERIAL_FOR_t.parquet.json", "t.parquet"]
    stored = json.loads((tmp_path / "_KEY_MATERIAL_FOR_t.parquet.json").read_text())
    assert sorted(stored) == ["columnKey0", "footerKey"]
    got = pc.read_table(path, decryption=factory.file_decryption_properties(None, parquet_file_path=path))
    assert got.to_pydict() == {"a": [1, 2, 3], "b": ["x", "y", "z"]}


def test_failed_key_material_save_leaves_no_parquet_file(tmp_path):
    path = tmp_path / "t.parquet"
    _, props = _props(path)
    (tmp_path / "_KEY_MATERIAL_FOR_t.parquet.json").mkdir()  # the rename onto it must fail
    with pytest.raises(OSError):
        _write(path, props)
    assert sorted(os.listdir(tmp_path)) == ["_KEY_MATERIAL_FOR_t.parquet.json"]
