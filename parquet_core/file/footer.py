"""Read the file tail and parse the footer (plaintext, signed or encrypted).

::

    plain:      "PAR1" | chunks ... | FileMetaData | len: u32 LE | "PAR1"
    signed:     "PAR1" | chunks ... | FileMetaData | nonce (12) | tag (16) | len | "PAR1"
    encrypted:  "PARE" | chunks ... | FileCryptoMetaData | encrypted FileMetaData | len | "PARE"

A *signed* plaintext footer is recognised by ``FileMetaData.encryption_algorithm``;
its ``len`` counts the 28 signature bytes. An encrypted footer's ``len``
covers the plaintext FileCryptoMetaData and the footer module after it.
Either kind yields a :class:`~parquet_core.encryption.decryptor.FileDecryptor`
(imported only then, so unencrypted files never load ``cryptography``).
"""

from __future__ import annotations

import struct
from functools import partial
from typing import TYPE_CHECKING, Any

from parquet_core.constants import FOOTER_READ_SIZE, FOOTER_SIZE_BYTES, MAGIC, MAGIC_ENCRYPTED
from parquet_core.errors import (
    ParquetEncryptionError,
    ParquetError,
    ParquetFormatError,
    add_context,
    add_note,
    location,
)
from parquet_core.file.source import RandomAccessSource
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse
from parquet_core.thrift.lazy_footer import lazy_state, parse_file_metadata, raise_eager

if TYPE_CHECKING:   # imported at run time only for an encrypted file (it loads cryptography)
    from parquet_core.encryption.decryptor import FileDecryptor
    from parquet_core.encryption.properties import FileDecryptionProperties

__all__ = ["read_footer", "FOOTER_READ_SIZE"]

_SIGNATURE_BYTES = 28


def read_footer(source: RandomAccessSource, decryption: FileDecryptionProperties | None = None
                ) -> tuple[Any, int, FileDecryptor | None]:
    """Return the raw ``pt.FileMetaData``, the footer's length, and the file's decryptor.

    The decryptor is None for an unencrypted file (the public face of
    ``FileMetadata.decryptor``); the column-chunk layer turns it into the
    chunks' crypto contexts (:func:`parquet_core.encryption.context.chunk_decryption`).

    Raises
    ------
    ParquetFormatError
        If the file is too small, lacks the magic bytes, or the footer length
        points outside the file.
    ParquetEncryptionError
        An encrypted footer without a footer key, a wrong key or AAD prefix,
        an altered footer, or a signed footer whose signature does not match.
    """
    size = source.size
    if size < len(MAGIC) + FOOTER_SIZE_BYTES:
        raise ParquetFormatError(f"file of {size} bytes is too small to be Parquet")
    # One read of the tail: for most files it holds the whole footer (one round trip on an
    # object store, as pyarrow's default footer read); a larger footer costs one more read.
    tail_start = size - min(size, FOOTER_READ_SIZE)
    tail = source.read_at(tail_start, size - tail_start)
    if len(tail) != size - tail_start:
        raise ParquetFormatError(f"short read of the file's tail: {len(tail)} of {size - tail_start} bytes")
    end = bytes(tail[-FOOTER_SIZE_BYTES:])
    magic = end[4:]
    if magic not in (MAGIC, MAGIC_ENCRYPTED):
        raise ParquetFormatError(f"file does not end with the Parquet magic (found {magic!r})")
    if magic == MAGIC_ENCRYPTED and decryption is None:
        raise ParquetEncryptionError(
            "the file has an encrypted footer (PARE): pass decryption=FileDecryptionProperties(...) "
            "with the footer key")
    (footer_len,) = struct.unpack("<I", end[:4])
    if footer_len == 0 or footer_len > size - FOOTER_SIZE_BYTES - len(MAGIC):
        raise ParquetFormatError(
            f"footer length {footer_len} does not fit in a file of {size} bytes")
    start = size - FOOTER_SIZE_BYTES - footer_len
    # The leading magic: inside the tail for a small file; a remote source skips it otherwise
    # (one request fewer; pyarrow does not check it either).
    if tail_start == 0:
        head = bytes(tail[:len(MAGIC)])
    else:
        head = magic if getattr(source, "remote", False) else bytes(source.read_at(0, len(MAGIC)))
    if head != magic:   # an encrypted-footer file starts with "PARE" too
        raise ParquetFormatError(f"file does not start with the Parquet magic (found {head!r})")
    # As ``bytes`` so the thrift decoder reads it in place, in one pass.
    if start >= tail_start:
        buf = bytes(tail[start - tail_start:size - FOOTER_SIZE_BYTES - tail_start])
    else:   # a footer longer than the tail: read only what precedes it (one copy of each part)
        buf = b"".join((source.read_at(start, tail_start - start), tail[:len(tail) - FOOTER_SIZE_BYTES]))
    del tail
    path = getattr(source, "path", None)
    if magic == MAGIC_ENCRYPTED:
        raw, encrypted = _encrypted_footer(buf, start, decryption, path)
        return raw, footer_len, encrypted
    raw, used = _file_metadata(buf, location(part=f"the footer of {footer_len} bytes", file_offset=start), path)
    decryptor: FileDecryptor | None = None
    if raw.encryption_algorithm is not None:
        try:
            decryptor = _signed_footer(raw, buf, used, decryption)
        except ParquetError:
            _check_eagerly(raw)
            raise
    return raw, footer_len, decryptor


def _check_eagerly(raw: Any) -> None:
    """A lazily decoded footer failed a check at open: raise the eager decoder's error instead
    when the whole footer does not decode (that error came first before the footer was lazy)."""
    state = lazy_state(raw)
    if state is not None:
        state.check_eagerly()


def _new_decryptor(algorithm: Any, decryption: FileDecryptionProperties | None,
                   key_metadata: bytes | None) -> FileDecryptor:
    from parquet_core.encryption.decryptor import FileDecryptor  # loads cryptography: encrypted files only

    return FileDecryptor(algorithm, decryption, key_metadata)


def _file_metadata(buf: bytes, note: str, path: str | None) -> tuple[Any, int]:
    """The ``FileMetaData`` at the start of *buf* and its length in bytes.

    Decoded lazily (row groups, statistics and key/value metadata when first used, see
    :mod:`parquet_core.thrift.lazy_footer`) when the layout allows; a lazy decode that
    fails later raises the error, with *note*, that the eager decode here would have.
    """
    path = path if isinstance(path, str) else None
    lazy = parse_file_metadata(buf, partial(raise_eager, buf, (note,), path))
    if lazy is not None:
        return lazy
    try:
        return parse(buf, pt.FileMetaData)
    except ParquetFormatError as exc:
        add_note(exc, note)
        raise


def _encrypted_footer(buf: bytes, start: int, decryption: FileDecryptionProperties | None,
                      path: str | None) -> tuple[Any, FileDecryptor]:
    """FileCryptoMetaData, then the footer module decrypted with the footer key."""
    try:
        crypto, used = parse(buf, pt.FileCryptoMetaData)
        if crypto.encryption_algorithm is None:
            raise ParquetFormatError("FileCryptoMetaData has no encryption_algorithm")
        decryptor = _new_decryptor(crypto.encryption_algorithm, decryption, crypto.key_metadata)
    except ParquetFormatError as exc:
        add_context(exc, part="the FileCryptoMetaData", file_offset=start)
        raise
    try:
        plain = decryptor.decrypt_footer(buf[used:])
    except ParquetFormatError as exc:
        raise ParquetEncryptionError(f"the encrypted footer module is malformed: {exc}") from exc
    raw, _ = _file_metadata(bytes(plain), location(part=f"the decrypted footer of {len(plain)} bytes"), path)
    return raw, decryptor


def _signed_footer(raw: Any, buf: bytes, used: int, decryption: FileDecryptionProperties | None
                   ) -> FileDecryptor:
    """A plaintext footer of an encrypted file: its decryptor, after checking the signature."""
    if len(buf) - used != _SIGNATURE_BYTES:
        raise ParquetFormatError(
            f"plaintext footer of an encrypted file is followed by {len(buf) - used} bytes, "
            f"not its {_SIGNATURE_BYTES}-byte signature")
    meta = raw.footer_signing_key_metadata
    decryptor = _new_decryptor(raw.encryption_algorithm, decryption, None if meta is None else bytes(meta))
    decryptor.verify_footer(buf[:used], buf[used:])
    return decryptor
