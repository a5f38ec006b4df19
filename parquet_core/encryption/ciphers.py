"""AES-GCM and AES-CTR *module* framing (on the ``cryptography`` package).

An encrypted module is stored as::

    GCM:  length (4 bytes LE) | nonce (12) | ciphertext | tag (16)
    CTR:  length (4 bytes LE) | nonce (12) | ciphertext

``length`` counts the bytes after itself. CTR's 16-byte initial counter
block is the nonce followed by the 32-bit big-endian counter 1, as the spec
requires. CTR has no tag: a CTR-encrypted page can be altered without the
reader noticing (AES_GCM_CTR_V1 only uses CTR for page payloads; headers,
indexes, Bloom filters and the footer are always GCM).

A plaintext footer is *signed*: the writer GCM-encrypts it with the footer
key and keeps only ``nonce | tag`` (28 bytes) after the plaintext; a reader
re-encrypts with the same nonce and compares tags.

CTR is computed through AES-GCM (see :meth:`ModuleCipher._ctr_parts`): with a
12-byte nonce, GCM encrypts its data blocks with the keystream of CTR from
the counter block ``nonce | 2`` on, so only the first 16 bytes need one AES
block of their own. This avoids building a CTR cipher (a key schedule) for
every page and runs at GCM's speed.
"""

from __future__ import annotations

import hmac
import os
import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from parquet_core.encryption.properties import check_key
from parquet_core.errors import ParquetEncryptionError, ParquetFormatError

__all__ = [
    "GCM_NONCE_LENGTH", "GCM_TAG_LENGTH", "LENGTH_BYTES", "ModuleCipher",
    "sign_footer", "verify_footer_signature",
]

GCM_NONCE_LENGTH = 12
GCM_TAG_LENGTH = 16
LENGTH_BYTES = 4
_CTR_FIRST_COUNTER = b"\x00\x00\x00\x01"


def _frame_length(buf, where: str) -> int:
    if len(buf) < LENGTH_BYTES:
        raise ParquetFormatError(f"encrypted {where} is truncated: no length field")
    (length,) = struct.unpack_from("<I", buf, 0)
    if length > len(buf) - LENGTH_BYTES:
        raise ParquetFormatError(
            f"encrypted {where} claims {length} bytes but only {len(buf) - LENGTH_BYTES} follow")
    return length


class ModuleCipher:
    """Encrypt and decrypt modules with one key (GCM, or CTR when ``ctr=True``)."""

    __slots__ = ("_key", "_gcm", "_ecb")

    def __init__(self, key: bytes) -> None:
        self._key = check_key(key, "encryption key")
        self._gcm = AESGCM(self._key)
        self._ecb = Cipher(algorithms.AES(self._key), modes.ECB()).encryptor()

    def _ctr_parts(self, nonce: bytes, data) -> tuple:
        """AES-CTR of *data* from the counter block ``nonce | 00000001`` (its own
        inverse), as two buffers to be joined.

        GCM with a 12-byte nonce XORs its n-th 16-byte block with
        AES(nonce | n + 1) (the spec of GCM: the counter starts at
        ``nonce | 1``, which GCM keeps for the tag). That is CTR's keystream
        for block n + 1, so everything after the first block is GCM's
        ciphertext without its tag; the first block is XORed with
        AES(nonce | 1), one block in ECB.
        """
        view = memoryview(data).cast("B")
        first = bytes(view[:16])
        stream = self._ecb.update(nonce + _CTR_FIRST_COUNTER)[:len(first)]
        head = (int.from_bytes(first, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(first), "big")
        if len(view) <= 16:
            return head, b""
        return head, memoryview(self._gcm.encrypt(nonce, view[16:], None))[:-GCM_TAG_LENGTH]

    # -- writing -----------------------------------------------------------
    def encrypt(self, plaintext, aad: bytes, *, ctr: bool = False,
                nonce: bytes | None = None) -> bytes:
        """Return the framed module for *plaintext*."""
        return b"".join(self.encrypt_parts(plaintext, aad, ctr=ctr, nonce=nonce))

    def encrypt_parts(self, plaintext, aad: bytes, *, ctr: bool = False,
                      nonce: bytes | None = None) -> tuple:
        """The framed module as buffers whose concatenation is :meth:`encrypt`'s
        result (a writer joins them with the page header: one copy, not two)."""
        nonce = os.urandom(GCM_NONCE_LENGTH) if nonce is None else nonce
        if ctr:
            head, tail = self._ctr_parts(nonce, plaintext)
            size = len(head) + len(tail)
            return struct.pack("<I", GCM_NONCE_LENGTH + size) + nonce + head, tail
        body = self._gcm.encrypt(nonce, plaintext, aad)
        return struct.pack("<I", GCM_NONCE_LENGTH + len(body)) + nonce, body

    # -- reading -----------------------------------------------------------
    def decrypt(self, buf, aad: bytes, *, ctr: bool = False,
                where: str = "module") -> tuple[bytes, int]:
        """Decrypt the framed module at the start of *buf*.

        Returns the plaintext and the number of bytes the module occupies
        (length field included). A failed tag check (wrong key, wrong AAD,
        altered bytes) raises :class:`ParquetEncryptionError`.
        """
        length = _frame_length(buf, where)
        minimum = GCM_NONCE_LENGTH + (0 if ctr else GCM_TAG_LENGTH)
        if length < minimum:
            raise ParquetFormatError(
                f"encrypted {where} is {length} bytes, shorter than its nonce and tag")
        view = memoryview(buf)[LENGTH_BYTES:LENGTH_BYTES + length]
        nonce = bytes(view[:GCM_NONCE_LENGTH])
        body = bytes(view[GCM_NONCE_LENGTH:])
        if ctr:
            plain = b"".join(self._ctr_parts(nonce, body))
        else:
            try:
                plain = self._gcm.decrypt(nonce, body, aad)
            except InvalidTag:
                raise ParquetEncryptionError(
                    f"cannot decrypt the {where}: authentication failed (wrong key, wrong or "
                    "missing AAD prefix, or the bytes were altered)") from None
        return plain, LENGTH_BYTES + length


def sign_footer(key: bytes, footer: bytes, aad: bytes, nonce: bytes | None = None) -> bytes:
    """Return the 28-byte ``nonce | tag`` signature of a plaintext footer."""
    nonce = os.urandom(GCM_NONCE_LENGTH) if nonce is None else nonce
    tag = AESGCM(check_key(key, "footer key")).encrypt(nonce, bytes(footer), aad)[-GCM_TAG_LENGTH:]
    return nonce + tag


def verify_footer_signature(key: bytes, footer: bytes, signature: bytes, aad: bytes) -> None:
    """Raise :class:`ParquetEncryptionError` unless *signature* signs *footer*."""
    if len(signature) != GCM_NONCE_LENGTH + GCM_TAG_LENGTH:
        raise ParquetFormatError(
            f"plaintext footer signature is {len(signature)} bytes, expected 28")
    expected = sign_footer(key, footer, aad, nonce=bytes(signature[:GCM_NONCE_LENGTH]))
    if not hmac.compare_digest(expected, bytes(signature)):
        raise ParquetEncryptionError(
            "the plaintext footer's signature does not match: the footer was altered, or "
            "the footer key or AAD prefix is wrong")
