"""Encryption in the write path: which module gets which key and AAD.

A :class:`FileEncryptor` is made once per file from the user's
:class:`~parquet_core.encryption.FileEncryptionProperties`. It draws the
file's random 8-byte ``aad_file_unique``, builds the ``EncryptionAlgorithm``
written to the file, and hands out one :class:`ChunkEncryptor` per encrypted
column chunk (:data:`~parquet_core.encryption.context.PLAINTEXT` for a plaintext
column of a per-column-key file). A file without encryption is written with
:data:`~parquet_core.encryption.context.PLAINTEXT_FILE`, the null object of the
same :class:`~parquet_core.encryption.context.FileEncryption` protocol.

What is encrypted, per the spec's encryption chapter::

    column chunk   data page header    GCM   AAD(DATA_PAGE_HEADER, rg, col, page)
                   data page           GCM (CTR for AES_GCM_CTR_V1), AAD(DATA_PAGE, rg, col, page)
                   dictionary header   GCM   AAD(DICTIONARY_PAGE_HEADER, rg, col)
                   dictionary page     as data pages, AAD(DICTIONARY_PAGE, rg, col)
    page indexes   ColumnIndex         GCM   AAD(COLUMN_INDEX, rg, col)
                   OffsetIndex         GCM   AAD(OFFSET_INDEX, rg, col)
    Bloom filter   header, bitset      GCM   AAD(BLOOM_FILTER_HEADER / _BITSET, rg, col)
    ColumnMetaData (column key, or any key with a plaintext footer)
                                       GCM   AAD(COLUMN_META_DATA, rg, col)
    footer         encrypted (PARE) or signed (PAR1)   AAD(FOOTER)

Page ordinals count a chunk's data pages from 0 (the dictionary page has
none). Ordinals that do not fit the AAD's 2 bytes raise
:class:`~parquet_core.errors.ParquetEncryptionError` before the module is
written.
"""

from __future__ import annotations

import copy
import os
import struct
from typing import Any

from parquet_core.encryption.context import PLAINTEXT, ChunkEncryption
from parquet_core.encryption.modules import MAX_ORDINAL, ModuleType, file_aad, module_aad
from parquet_core.encryption.properties import AES_GCM_CTR_V1, FileEncryptionProperties
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize

__all__ = ["FileEncryptor", "ChunkEncryptor", "AAD_FILE_UNIQUE_LENGTH", "MAGIC_ENCRYPTED"]

AAD_FILE_UNIQUE_LENGTH = 8
#: Magic at both ends of a file whose footer is encrypted.
MAGIC_ENCRYPTED = b"PARE"
_ORDINAL = struct.Struct("<h")  # AAD ordinals: 2 bytes, little-endian


class ChunkEncryptor:
    """Encrypts the modules of one column chunk (one key, fixed ordinals)."""

    __slots__ = ("_cipher", "_aad", "_ctr", "row_group", "column", "_page_aad", "_header_aad")

    encrypted = True

    def __init__(self, cipher: Any, aad: bytes, ctr: bool, row_group: int, column: int) -> None:
        self._cipher = cipher
        self._aad = aad
        self._ctr = ctr
        self.row_group = row_group
        self.column = column
        # fail now, before any page is written, if the ordinals cannot be encoded
        module_aad(aad, ModuleType.COLUMN_META_DATA, row_group, column)
        # data page and header AADs without their 2-byte page ordinal (built per page)
        self._page_aad = module_aad(aad, ModuleType.DATA_PAGE, row_group, column, 0)[:-2]
        self._header_aad = module_aad(aad, ModuleType.DATA_PAGE_HEADER, row_group, column, 0)[:-2]

    def _with_ordinal(self, base: bytes, ordinal: int) -> bytes:
        if not 0 <= ordinal <= MAX_ORDINAL:
            self.check_page_ordinal(ordinal)  # raises, naming the ordinal
        return base + _ORDINAL.pack(ordinal)

    def _module(self, data: bytes, module: ModuleType, page: int = -1, ctr: bool = False) -> bytes:
        aad = module_aad(self._aad, module, self.row_group, self.column, page)
        return self._cipher.encrypt(data, aad, ctr=ctr)

    def page(self, body: bytes, ordinal: int | None) -> tuple:
        """A data page (``ordinal`` = its index among the chunk's data pages) or,
        with ``ordinal=None``, the dictionary page, as buffers to be joined
        (framing, ciphertext) so the page is copied once, with its header."""
        if ordinal is None:
            aad = module_aad(self._aad, ModuleType.DICTIONARY_PAGE, self.row_group, self.column)
        else:
            aad = self._with_ordinal(self._page_aad, ordinal)
        return self._cipher.encrypt_parts(body, aad, ctr=self._ctr)

    def page_header(self, header: bytes, ordinal: int | None) -> bytes:
        """A serialized page header (dictionary header when ``ordinal`` is None)."""
        if ordinal is None:
            return self._module(header, ModuleType.DICTIONARY_PAGE_HEADER)
        return self._cipher.encrypt(header, self._with_ordinal(self._header_aad, ordinal))

    def check_page_ordinal(self, ordinal: int) -> None:
        """Raise before encoding a page whose ordinal cannot be put in its AAD."""
        module_aad(self._aad, ModuleType.DATA_PAGE, self.row_group, self.column, ordinal)

    def column_index(self, data: bytes) -> bytes:
        return self._module(data, ModuleType.COLUMN_INDEX)

    def offset_index(self, data: bytes) -> bytes:
        return self._module(data, ModuleType.OFFSET_INDEX)

    def bloom_filter(self, header: bytes, bitset: bytes) -> bytes:
        """The Bloom filter as two modules: header, then bitset."""
        return (self._module(header, ModuleType.BLOOM_FILTER_HEADER)
                + self._module(bitset, ModuleType.BLOOM_FILTER_BITSET))

    def column_metadata(self, data: bytes) -> bytes:
        return self._module(data, ModuleType.COLUMN_META_DATA)


def _strip(meta: Any) -> Any:
    """The plaintext-footer copy of an encrypted column's ColumnMetaData.

    Statistics (min/max values), page encoding statistics and size
    statistics (level histograms, byte-array sizes) describe the data, so
    they stay only in ``encrypted_column_metadata``; offsets, sizes and
    codec stay so that readers without the key can still skip the chunk.
    """
    out = copy.copy(meta)
    out.statistics = None
    out.encoding_stats = None
    out.size_statistics = None
    return out


class FileEncryptor:
    """Per-file encryption state: algorithm, file AAD, ciphers per key
    (a :class:`~parquet_core.encryption.context.FileEncryption`)."""

    encrypted = True

    def __init__(self, props: FileEncryptionProperties, leaf_paths: list[str]) -> None:
        if not isinstance(props, FileEncryptionProperties):
            raise TypeError("encryption= must be a parquet_core.FileEncryptionProperties, "
                            f"not {type(props).__name__}")
        unknown = sorted(set(props.column_keys or {}) - set(leaf_paths))
        if unknown:
            raise ValueError(f"encryption column_keys name columns not in the schema: {unknown} "
                             f"(leaf columns: {leaf_paths})")
        # imported here: `cryptography` is loaded only when a file is encrypted
        from parquet_core.encryption.ciphers import ModuleCipher

        self._cipher_cls = ModuleCipher
        self.props = props
        self.aad_file_unique = os.urandom(AAD_FILE_UNIQUE_LENGTH)
        self.file_aad = file_aad(props.aad_prefix, self.aad_file_unique)
        self.ctr = props.algorithm == AES_GCM_CTR_V1
        self._ciphers: dict[bytes, Any] = {}
        self.footer_cipher = self._cipher(props.footer_key)

    @property
    def magic(self) -> bytes:
        """The magic at the start and end of the file."""
        return b"PAR1" if self.props.plaintext_footer else MAGIC_ENCRYPTED

    @property
    def on_file_written(self) -> Any:
        """The properties' hook called with the file's path once it is written (or None)."""
        return self.props.on_file_written

    def _cipher(self, key: bytes) -> Any:
        cipher = self._ciphers.get(key)
        if cipher is None:
            cipher = self._ciphers[key] = self._cipher_cls(key)
        return cipher

    def algorithm(self) -> Any:
        """The thrift ``EncryptionAlgorithm`` of this file."""
        p = self.props
        stored = p.aad_prefix if p.aad_prefix and p.store_aad_prefix else None
        fields = dict(aad_prefix=stored, aad_file_unique=self.aad_file_unique,
                      supply_aad_prefix=True if p.aad_prefix and not p.store_aad_prefix else None)
        if self.ctr:
            return pt.EncryptionAlgorithm(AES_GCM_CTR_V1=pt.AesGcmCtrV1(**fields))
        return pt.EncryptionAlgorithm(AES_GCM_V1=pt.AesGcmV1(**fields))

    def chunk(self, path: str, row_group: int, column: int) -> ChunkEncryption:
        """The encryptor of column *path* in *row_group* (:data:`PLAINTEXT` if it stays plaintext)."""
        key = self.props.column_key(path)
        if key is None:
            return PLAINTEXT
        return ChunkEncryptor(self._cipher(key), self.file_aad, self.ctr, row_group, column)

    # -- footer --------------------------------------------------------------
    def footer_chunk(self, chunk: Any, path: str, enc: ChunkEncryption) -> Any:
        """The ``ColumnChunk`` as it goes into the footer.

        Encrypted columns get ``crypto_metadata``; their ColumnMetaData is
        serialized and encrypted into ``encrypted_column_metadata`` when it
        has its own key or the footer is plaintext. With an encrypted footer
        a column-key chunk keeps no plaintext ``meta_data``; with a plaintext
        footer it keeps a stripped copy for readers without the key.
        """
        if not isinstance(enc, ChunkEncryptor):   # a plaintext column
            return chunk
        out = copy.copy(chunk)
        p = self.props
        if p.uniform:
            out.crypto_metadata = pt.ColumnCryptoMetaData(
                ENCRYPTION_WITH_FOOTER_KEY=pt.EncryptionWithFooterKey())
        else:
            out.crypto_metadata = pt.ColumnCryptoMetaData(
                ENCRYPTION_WITH_COLUMN_KEY=pt.EncryptionWithColumnKey(
                    path_in_schema=list(chunk.meta_data.path_in_schema),
                    key_metadata=(p.column_key_metadata or {}).get(path)))
        if p.plaintext_footer or not p.uniform:
            out.encrypted_column_metadata = enc.column_metadata(serialize(chunk.meta_data))
            out.meta_data = _strip(chunk.meta_data) if p.plaintext_footer else None
        return out

    def footer_tail(self, file_metadata: Any) -> bytes:
        """Everything after the last index: footer, its length and the magic."""
        aad = module_aad(self.file_aad, ModuleType.FOOTER)
        p = self.props
        if p.plaintext_footer:
            from parquet_core.encryption.ciphers import sign_footer

            file_metadata.encryption_algorithm = self.algorithm()
            file_metadata.footer_signing_key_metadata = p.footer_key_metadata
            plain = serialize(file_metadata)
            footer = plain + sign_footer(p.footer_key, plain, aad)
        else:
            crypto = pt.FileCryptoMetaData(encryption_algorithm=self.algorithm(),
                                           key_metadata=p.footer_key_metadata)
            footer = serialize(crypto) + self.footer_cipher.encrypt(serialize(file_metadata), aad)
        return footer + struct.pack("<I", len(footer)) + self.magic
