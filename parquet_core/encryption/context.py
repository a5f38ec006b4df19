"""The crypto context every layer below the file takes: one per file, one per column chunk.

Reading and writing each have a per-file and a per-chunk context, given as
:class:`typing.Protocol` types so that the page, index and Bloom filter code
is written once against them::

    reading   FileDecryption   -> ChunkDecryption     (encrypted: decryptor.FileDecryptor ->
                                                       decryptor.ColumnDecryptor)
    writing   FileEncryption   -> ChunkEncryption     (encrypted: encryptor.FileEncryptor ->
                                                       encryptor.ChunkEncryptor)

A plaintext file or column gets the null objects :data:`PLAINTEXT_FILE` and
:data:`PLAINTEXT` (one object serves both directions): their methods pass
bytes through unchanged, so callers never ask whether a file is encrypted.
``encrypted`` is there for the few decisions that are about layout rather
than bytes (e.g. an encrypted Bloom filter is two length-prefixed modules).

This module imports neither ``cryptography`` nor the encrypted
implementations; :mod:`.decryptor` and :mod:`.encryptor` are imported only
once a file turns out to be encrypted.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Callable, Protocol, runtime_checkable

from parquet_core.constants import MAGIC
from parquet_core.encryption.modules import ModuleType
from parquet_core.errors import ParquetFormatError, quoted
from parquet_core.thrift.codec import serialize

__all__ = [
    "ChunkDecryption", "ChunkEncryption", "FileDecryption", "FileEncryption", "HeaderParser",
    "PLAINTEXT", "PLAINTEXT_FILE", "PlaintextChunk", "PlaintextFile", "chunk_decryption",
]

#: ``parse(buf, pos) -> (PageHeader, header length)``: the page layer's header parser, given
#: to :meth:`ChunkDecryption.read_header` (which parses in place, or the decrypted module).
HeaderParser = Callable[[Any, int], "tuple[Any, int]"]


@runtime_checkable
class ChunkDecryption(Protocol):
    """Reads the modules of one column chunk (pages, page headers, indexes, Bloom filter)."""

    @property
    def encrypted(self) -> bool:
        """True for an encrypted context (read-only: a context never changes kind)."""
        ...

    def read_header(self, buf: Any, pos: int, ordinal: int, at_start: bool | None,
                    parse: HeaderParser) -> tuple[Any, int, bool | None]:
        """The page header at *pos*: ``(PageHeader, bytes it occupies, authenticated as a
        dictionary page header?)``; the last item is None when nothing was authenticated.

        *ordinal* is the data page ordinal of the page; *at_start* is None for a page that
        must be a data page, else the chunk's first page and the metadata's hint (True: a
        dictionary page first).
        """
        ...

    def page_body(self, stored: Any, is_dict: bool | None, ordinal: int) -> Any:
        """The page body in plaintext (still compressed) from its stored bytes."""
        ...

    def decrypt(self, buf: Any, module_type: ModuleType, page: int = -1,
                where: str | None = None) -> tuple[Any, int]:
        """The module at the start of *buf*: ``(plaintext, bytes it occupies)``."""
        ...


@runtime_checkable
class ChunkEncryption(Protocol):
    """Writes the modules of one column chunk."""

    @property
    def encrypted(self) -> bool:
        """True for an encrypted context (read-only: a context never changes kind)."""
        ...

    def page(self, body: bytes, ordinal: int | None) -> tuple[Any, ...]:
        """A page body as stored, as buffers to be joined (``ordinal=None``: the dictionary page)."""
        ...

    def page_header(self, header: bytes, ordinal: int | None) -> bytes:
        """A serialized page header as stored."""
        ...

    def check_page_ordinal(self, ordinal: int) -> None:
        """Raise before encoding a page whose ordinal cannot be written."""
        ...

    def column_index(self, data: bytes) -> bytes:
        ...

    def offset_index(self, data: bytes) -> bytes:
        ...

    def bloom_filter(self, header: bytes, bitset: bytes) -> bytes:
        ...


@runtime_checkable
class FileDecryption(Protocol):
    """One file's read context: hands each column chunk its :class:`ChunkDecryption`."""

    @property
    def encrypted(self) -> bool:
        """True for an encrypted context (read-only: a context never changes kind)."""
        ...

    @property
    def algorithm(self) -> str | None:
        """The algorithm's name (``AES_GCM_V1`` or ``AES_GCM_CTR_V1``), None for a plaintext file."""
        ...

    def column(self, chunk: Any, row_group: int, column: int, path: str) -> ChunkDecryption:
        ...

    def column_metadata(self, chunk: Any, dec: ChunkDecryption) -> Any:
        ...


@runtime_checkable
class FileEncryption(Protocol):
    """One file's write context: magic, per-chunk contexts, footer."""

    @property
    def encrypted(self) -> bool:
        """True for an encrypted context (read-only: a context never changes kind)."""
        ...

    @property
    def magic(self) -> bytes:
        ...

    @property
    def on_file_written(self) -> Callable[[Any], None] | None:
        ...

    def chunk(self, path: str, row_group: int, column: int) -> ChunkEncryption:
        ...

    def footer_chunk(self, chunk: Any, path: str, enc: ChunkEncryption) -> Any:
        ...

    def footer_tail(self, file_metadata: Any) -> bytes:
        ...


@dataclass(frozen=True, slots=True)
class PlaintextChunk:
    """The context of a plaintext column chunk: every module passes through unchanged."""

    encrypted: bool = False

    # -- reading -------------------------------------------------------------
    def read_header(self, buf: Any, pos: int, ordinal: int, at_start: bool | None,
                    parse: HeaderParser) -> tuple[Any, int, bool | None]:
        header, hlen = parse(buf, pos)
        return header, hlen, None

    def page_body(self, stored: Any, is_dict: bool | None, ordinal: int) -> Any:
        return stored

    def decrypt(self, buf: Any, module_type: ModuleType, page: int = -1,
                where: str | None = None) -> tuple[Any, int]:
        return buf, len(buf)

    # -- writing -------------------------------------------------------------
    def page(self, body: bytes, ordinal: int | None) -> tuple[Any, ...]:
        return (body,)

    def page_header(self, header: bytes, ordinal: int | None) -> bytes:
        return header

    def check_page_ordinal(self, ordinal: int) -> None:
        return None

    def column_index(self, data: bytes) -> bytes:
        return data

    def offset_index(self, data: bytes) -> bytes:
        return data

    def bloom_filter(self, header: bytes, bitset: bytes) -> bytes:
        return header + bitset


#: The one plaintext chunk context.
PLAINTEXT = PlaintextChunk()


@dataclass(frozen=True, slots=True)
class PlaintextFile:
    """The context of a file without encryption (both directions)."""

    encrypted: bool = False
    algorithm: str | None = None
    magic: bytes = MAGIC
    on_file_written: Callable[[Any], None] | None = None

    # -- reading -------------------------------------------------------------
    def column(self, chunk: Any, row_group: int, column: int, path: str) -> ChunkDecryption:
        if getattr(chunk, "crypto_metadata", None) is not None:
            raise ParquetFormatError(f"column chunk {quoted(path, bare=True)} of row group {row_group} has crypto "
                                     "metadata but the file declares no encryption algorithm")
        return PLAINTEXT

    def column_metadata(self, chunk: Any, dec: ChunkDecryption) -> Any:
        return chunk.meta_data

    # -- writing -------------------------------------------------------------
    def chunk(self, path: str, row_group: int, column: int) -> ChunkEncryption:
        return PLAINTEXT

    def footer_chunk(self, chunk: Any, path: str, enc: ChunkEncryption) -> Any:
        return chunk

    def footer_tail(self, file_metadata: Any) -> bytes:
        footer = serialize(file_metadata)
        return footer + struct.pack("<I", len(footer)) + MAGIC


#: The one plaintext file context.
PLAINTEXT_FILE = PlaintextFile()


def chunk_decryption(chunk: Any) -> ChunkDecryption:
    """The read context of a column chunk's metadata wrapper
    (:class:`~parquet_core.metadata.wrappers.ColumnChunkMetadata`).

    The wrapper keeps ``decryptor = None`` for a plaintext chunk (its public face, which
    tools test); this is the one place that turns that into :data:`PLAINTEXT`.
    """
    dec = chunk.decryptor
    return PLAINTEXT if dec is None else dec
