"""Read the file tail and parse the footer.

::

    "PAR1" | column chunks ... | FileMetaData (compact thrift) | len: u32 LE | "PAR1"

A file whose footer is encrypted ends in ``"PARE"`` instead; reading it
needs decryption keys (a later feature) and raises
:class:`ParquetEncryptionError` here.
"""

from __future__ import annotations

import struct
from typing import Any

from parquet_core.constants import FOOTER_SIZE_BYTES, MAGIC, MAGIC_ENCRYPTED
from parquet_core.errors import ParquetEncryptionError, ParquetFormatError
from parquet_core.file.source import RandomAccessSource
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse

__all__ = ["read_footer"]


def read_footer(source: RandomAccessSource) -> tuple[Any, int]:
    """Return the raw ``pt.FileMetaData`` and the footer's length in bytes.

    Raises
    ------
    ParquetFormatError
        If the file is too small, lacks the magic bytes, or the footer length
        points outside the file.
    ParquetEncryptionError
        If the footer is encrypted.
    """
    size = source.size
    if size < len(MAGIC) + FOOTER_SIZE_BYTES:
        raise ParquetFormatError(f"file of {size} bytes is too small to be Parquet")
    tail = bytes(source.read_at(size - FOOTER_SIZE_BYTES, FOOTER_SIZE_BYTES))
    magic = tail[4:]
    if magic == MAGIC_ENCRYPTED:
        raise ParquetEncryptionError(
            "the file has an encrypted footer (PARE); decryption is not supported yet")
    if magic != MAGIC:
        raise ParquetFormatError(f"file does not end with the Parquet magic (found {magic!r})")
    (footer_len,) = struct.unpack("<I", tail[:4])
    if footer_len == 0 or footer_len > size - FOOTER_SIZE_BYTES - len(MAGIC):
        raise ParquetFormatError(
            f"footer length {footer_len} does not fit in a file of {size} bytes")
    start = size - FOOTER_SIZE_BYTES - footer_len
    head = bytes(source.read_at(0, len(MAGIC)))
    if head != MAGIC:
        raise ParquetFormatError(f"file does not start with the Parquet magic (found {head!r})")
    # As ``bytes`` so the thrift decoder reads it in place, in one pass.
    buf = bytes(source.read_at(start, footer_len))
    try:
        raw, _ = parse(buf, pt.FileMetaData)
    except ParquetFormatError as exc:
        exc.add_note(f"in the footer ({footer_len} bytes at file offset {start})")
        raise
    return raw, footer_len
