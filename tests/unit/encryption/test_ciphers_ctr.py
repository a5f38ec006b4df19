"""AES-CTR modules (computed through AES-GCM) equal plain AES-CTR from counter ``nonce | 1``."""

from __future__ import annotations

import os

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from parquet_core.encryption.ciphers import ModuleCipher


@pytest.mark.parametrize("key_length", [16, 24, 32])
@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 31, 32, 33, 4096, 100_003])
def test_ctr_module_is_aes_ctr_from_counter_one(key_length, size):
    key, nonce, data = os.urandom(key_length), os.urandom(12), os.urandom(size)
    reference = Cipher(algorithms.AES(key), modes.CTR(nonce + b"\x00\x00\x00\x01")).encryptor()
    expected = reference.update(data) + reference.finalize()
    cipher = ModuleCipher(key)
    framed = cipher.encrypt(data, b"ignored by CTR", ctr=True, nonce=nonce)
    assert framed[:4] == (12 + size).to_bytes(4, "little")
    assert framed[4:16] == nonce and framed[16:] == expected
    plain, used = cipher.decrypt(bytearray(framed) + b"trailing", b"", ctr=True)
    assert plain == data and used == len(framed)
