"""Encrypted writes that fail leave no file behind (and never touch an existing one)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetEncryptionError
from parquet_core.encryption.encryptor import ChunkEncryptor, FileEncryptor

KEY = b"0123456789012345"


def _leftovers(directory):
    return sorted(p for p in os.listdir(directory) if p.endswith(".pqcore-tmp"))


@pytest.fixture
def existing(tmp_path):
    path = tmp_path / "out.parquet"
    path.write_bytes(b"precious")
    return path


def test_page_ordinal_overflow_leaves_no_file(existing):
    # 32769 data pages in one chunk: the last ordinal, 32768, does not fit the AAD's
    # signed 2 bytes
    data = {"a": np.zeros(32769, dtype=np.int8)}
    props = pc.FileEncryptionProperties(footer_key=KEY)
    with pytest.raises(ParquetEncryptionError, match="page ordinal 32768"):
        pc.write_table(data, existing, encryption=props, data_page_row_count_limit=1,
                       use_dictionary=False)
    assert existing.read_bytes() == b"precious"
    assert _leftovers(existing.parent) == []


def test_32768_pages_still_fit(tmp_path):
    # ordinals 0..32767: the most data pages an encrypted chunk may hold
    path = tmp_path / "ok.parquet"
    pc.write_table({"a": np.zeros(32768, dtype=np.int8)}, path, use_dictionary=False,
                   encryption=pc.FileEncryptionProperties(footer_key=KEY),
                   data_page_row_count_limit=1, write_page_index=False)
    assert path.read_bytes()[:4] == b"PARE"


def test_row_group_ordinal_overflow_is_refused():
    enc = FileEncryptor(pc.FileEncryptionProperties(footer_key=KEY), ["a"])
    with pytest.raises(ParquetEncryptionError, match="row group"):
        enc.chunk("a", 32768, 0)
    assert isinstance(enc.chunk("a", 32767, 0), ChunkEncryptor)


def test_column_key_for_unknown_column_creates_nothing(existing):
    props = pc.FileEncryptionProperties(footer_key=KEY, column_keys={"nope": KEY})
    with pytest.raises(ValueError, match="nope"):
        pc.write_table({"a": [1, 2]}, existing, encryption=props)
    assert existing.read_bytes() == b"precious"
    assert _leftovers(existing.parent) == []


def test_bad_key_is_refused_before_writing(existing):
    with pytest.raises(ValueError, match="16, 24 or 32"):
        pc.FileEncryptionProperties(footer_key=b"short")
    with pytest.raises(TypeError, match="FileEncryptionProperties"):
        pc.write_table({"a": [1]}, existing, encryption={"footer_key": KEY})
    assert existing.read_bytes() == b"precious"
    assert _leftovers(existing.parent) == []


@pytest.mark.parametrize("fail_at", ["page", "footer"])
def test_cipher_failure_mid_write_leaves_no_file(existing, monkeypatch, fail_at):
    from parquet_core.encryption import ciphers

    calls = {"n": 0}
    real_encrypt = ciphers.ModuleCipher.encrypt
    real_sign = ciphers.sign_footer

    def encrypt(self, plaintext, aad, **kw):
        calls["n"] += 1
        if fail_at == "page" and calls["n"] == 5:
            raise ParquetEncryptionError("simulated cipher failure")
        return real_encrypt(self, plaintext, aad, **kw)

    def sign(*a, **kw):
        raise ParquetEncryptionError("simulated signing failure")

    monkeypatch.setattr(ciphers.ModuleCipher, "encrypt", encrypt)
    monkeypatch.setattr(ciphers, "sign_footer", sign if fail_at == "footer" else real_sign)
    props = pc.FileEncryptionProperties(footer_key=KEY, plaintext_footer=True)
    with pytest.raises(ParquetEncryptionError, match="simulated"):
        with pc.ParquetWriter(existing, pc.schema([pc.field("a", pc.int64())]),
                              encryption=props, data_page_row_count_limit=10) as w:
            w.write_table({"a": np.arange(100)})
            w.write_table({"a": np.arange(100)})
    assert existing.read_bytes() == b"precious"
    assert _leftovers(existing.parent) == []


def test_unencrypted_write_does_not_load_cryptography(tmp_path):
    # ciphers (and `cryptography`) are imported only when a file is encrypted
    import subprocess
    import sys

    code = ("import sys, parquet_core as pc; pc.write_table({'a': [1]}, sys.argv[1]); "
            "assert 'cryptography' not in sys.modules, 'cryptography imported'")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "x.parquet")], check=True,
                   cwd=os.path.dirname(os.path.dirname(pc.__file__)))
