"""Local key wrapping: AES-GCM of a key under another key, as base64 text.

The wrapped form is ``base64(nonce (12) | ciphertext | tag (16))`` with no
length prefix (unlike a Parquet module). It wraps DEKs under KEKs (AAD: the
KEK's raw 16-byte id) and, in the in-memory test KMS, keys under master keys
(AAD: the master key id as UTF-8). ``cryptography`` is imported on first use.
"""

from __future__ import annotations

import base64
import binascii
import os

from parquet_core.encryption.properties import check_key
from parquet_core.errors import ParquetEncryptionError

__all__ = ["encrypt_key_locally", "decrypt_key_locally", "b64decode", "random_bytes"]

_NONCE = 12
_TAG = 16


def random_bytes(n: int) -> bytes:
    """*n* bytes from the operating system's CSPRNG."""
    return os.urandom(n)


def b64decode(text: str, what: str) -> bytes:
    """Strict base64 decoding with a clear error."""
    if not isinstance(text, (str, bytes)):
        raise ParquetEncryptionError(f"{what} must be base64 text, not {type(text).__name__}")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ParquetEncryptionError(f"{what} is not valid base64") from None


def encrypt_key_locally(key: bytes, wrapping_key: bytes, aad: bytes) -> str:
    """Wrap *key* with *wrapping_key* (AES-GCM, fresh random nonce)."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = random_bytes(_NONCE)
    sealed = AESGCM(check_key(wrapping_key, "wrapping key")).encrypt(nonce, bytes(key), aad)
    return base64.b64encode(nonce + sealed).decode("ascii")


def decrypt_key_locally(wrapped: str, wrapping_key: bytes, aad: bytes,
                        what: str = "wrapped key") -> bytes:
    """Unwrap what :func:`encrypt_key_locally` produced."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    raw = b64decode(wrapped, what)
    try:
        wrapping_key = check_key(wrapping_key, "wrapping key")
    except (TypeError, ValueError) as exc:  # e.g. a KMS returned a malformed key
        raise ParquetEncryptionError(f"cannot unwrap the {what}: {exc}") from None
    if len(raw) < _NONCE + _TAG:
        raise ParquetEncryptionError(f"{what} is {len(raw)} bytes, shorter than a nonce and tag")
    try:
        return AESGCM(wrapping_key).decrypt(raw[:_NONCE], raw[_NONCE:], aad)
    except InvalidTag:
        raise ParquetEncryptionError(
            f"cannot unwrap the {what}: authentication failed (wrong wrapping key or "
            "altered key material)") from None
