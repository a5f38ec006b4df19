"""Test helper: reach an encrypted file's key metadata without the reader.

Parses the file tail with the thrift codec and decrypts an encrypted footer
with the foundation's ``ModuleCipher``, so the key tools can be checked on
files other writers produced before the read path knows encryption.
"""

from __future__ import annotations

import struct
from pathlib import Path

from parquet_core.thrift import codec, pt


def _tail(path: Path) -> tuple[bytes, bytes]:
    buf = Path(path).read_bytes()
    (length,) = struct.unpack("<I", buf[-8:-4])
    return buf[-8 - length:-8], buf[-4:]


def footer_key_metadata(path: Path) -> bytes:
    """The footer's key metadata (encrypted footer or signed plaintext footer)."""
    tail, magic = _tail(path)
    if magic == b"PARE":
        crypto, _ = codec.parse(tail, pt.FileCryptoMetaData)
        return crypto.key_metadata
    fmd, _ = codec.parse(tail, pt.FileMetaData)
    return fmd.footer_signing_key_metadata


def file_metadata(path: Path, footer_key: bytes):
    """The FileMetaData, decrypting the footer with *footer_key* when needed."""
    from parquet_core.encryption.ciphers import ModuleCipher
    from parquet_core.encryption.modules import ModuleType, file_aad, module_aad

    tail, magic = _tail(path)
    if magic == b"PAR1":
        return codec.parse(tail, pt.FileMetaData)[0]
    crypto, used = codec.parse(tail, pt.FileCryptoMetaData)
    alg = crypto.encryption_algorithm.AES_GCM_V1 or crypto.encryption_algorithm.AES_GCM_CTR_V1
    aad = module_aad(file_aad(alg.aad_prefix, alg.aad_file_unique), ModuleType.FOOTER)
    plain, _ = ModuleCipher(footer_key).decrypt(tail[used:], aad, where="footer")
    return codec.parse(plain, pt.FileMetaData)[0]


def column_key_metadata(fmd) -> dict[str, bytes]:
    """``{dotted path: key metadata}`` of the columns encrypted with column keys."""
    out = {}
    for chunk in fmd.row_groups[0].columns:
        crypto = chunk.crypto_metadata
        if crypto is not None and crypto.ENCRYPTION_WITH_COLUMN_KEY is not None:
            with_key = crypto.ENCRYPTION_WITH_COLUMN_KEY
            out[".".join(with_key.path_in_schema)] = with_key.key_metadata
    return out
