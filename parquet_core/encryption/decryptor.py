"""The read side of modular encryption: one file's AAD, keys and ciphers.

A :class:`FileDecryptor` is made by :mod:`parquet_core.file.footer` when a
file is encrypted (a ``PARE`` tail, or a ``PAR1`` footer carrying an
``encryption_algorithm``). It knows the file AAD and the footer key, and hands
out one :class:`ColumnDecryptor` per encrypted column chunk (cached), which
decrypts that chunk's modules::

    module                  key                     AAD ordinals      cipher
    ColumnMetaData          column (or footer) key  row group, column  GCM
    page header (data)      column key              rg, col, page      GCM
    page header (dict)      column key              rg, col            GCM
    data page               column key              rg, col, page      GCM, CTR*
    dictionary page         column key              rg, col            GCM, CTR*
    column / offset index   column key              rg, col            GCM
    Bloom header / bitset   column key              rg, col            GCM

    * CTR for AES_GCM_CTR_V1 (no AAD, no tag: no integrity for page bodies)

:class:`ColumnDecryptor` is the encrypted implementation of
:class:`~parquet_core.encryption.context.ChunkDecryption` (the page walk's
context; a plaintext chunk gets :data:`~parquet_core.encryption.context.PLAINTEXT`).

The page ordinal counts data pages only (the dictionary page has none). The
row group ordinal is ``RowGroup.ordinal`` when the writer stored it, else the
row group's position in the footer; the column ordinal is the chunk's
position in its row group.

This module imports ``cryptography`` (through the ciphers) and is itself
imported only once a file turns out to be encrypted.
"""

from __future__ import annotations

from typing import Any

from parquet_core.constants import PageType
from parquet_core.encryption.ciphers import ModuleCipher, verify_footer_signature
from parquet_core.encryption.context import ChunkDecryption, HeaderParser
from parquet_core.encryption.modules import ModuleType, file_aad, module_aad
from parquet_core.encryption.properties import AES_GCM_CTR_V1, AES_GCM_V1, FileDecryptionProperties
from parquet_core.errors import (
    ParquetEncryptionError,
    ParquetError,
    ParquetFormatError,
    UnsupportedFeatureError,
    quoted,
)
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse

__all__ = ["FileDecryptor", "ColumnDecryptor"]

_CTR_MODULES = frozenset({ModuleType.DATA_PAGE, ModuleType.DICTIONARY_PAGE})
_PAGE_MODULES = frozenset({ModuleType.DATA_PAGE, ModuleType.DATA_PAGE_HEADER})


def _as_decryption(decryption: Any) -> FileDecryptionProperties | None:
    if decryption is None or isinstance(decryption, FileDecryptionProperties):
        return decryption
    raise TypeError("decryption must be a FileDecryptionProperties, not "
                    f"{type(decryption).__name__}")


class ColumnDecryptor:
    """Decrypts the modules of one column chunk (one key, fixed row group and column ordinals)."""

    __slots__ = ("path", "row_group", "column", "ctr", "_cipher", "_prefixes")

    #: A :class:`~parquet_core.encryption.context.ChunkDecryption` of an encrypted chunk.
    encrypted = True

    def __init__(self, cipher: ModuleCipher, file_aad_bytes: bytes, ctr: bool, path: str,
                 row_group: int, column: int) -> None:
        self.path = path
        self.row_group = row_group
        self.column = column
        self.ctr = ctr
        self._cipher = cipher
        # The AAD of every module type without its page ordinal, built once.
        self._prefixes: dict[ModuleType, bytes] = {t: module_aad(file_aad_bytes, t, row_group, column, 0 if t in _PAGE_MODULES else -1)
                          for t in ModuleType if t is not ModuleType.FOOTER}

    def decrypt(self, buf: Any, module_type: ModuleType, page: int = -1,
                where: str | None = None) -> tuple[bytes, int]:
        """Decrypt the module at the start of *buf*; return its plaintext and stored length.

        Any failure (a failed tag, a length field pointing past the data)
        raises :class:`ParquetEncryptionError` naming the module and column.
        """
        aad = self._prefixes[module_type]
        if module_type in _PAGE_MODULES:
            aad = aad[:-2] + _page_ordinal(page)
        what = where or module_type.name.lower().replace("_", " ")
        try:
            return self._cipher.decrypt(buf, aad, ctr=self.ctr and module_type in _CTR_MODULES,
                                        where=f"{what} of column {quoted(self.path, bare=True)}")
        except ParquetFormatError as exc:
            # A truncated or altered frame of an encrypted module is an integrity failure.
            raise ParquetEncryptionError(
                f"encrypted {what} of column {quoted(self.path, bare=True)} (row group {self.row_group}) is "
                f"malformed: {exc}") from exc


    # -- the page walk's context (ChunkDecryption) ----------------------------
    def read_header(self, buf: Any, pos: int, ordinal: int, at_start: bool | None,
                    parse: HeaderParser) -> tuple[Any, int, bool | None]:
        """Decrypt and parse the page header at *pos*: (header, stored length, is the dictionary's).

        A dictionary page header's AAD has no page ordinal, a data page header's
        has the data page ordinal; the module type is part of the AAD, so it must
        be known before decrypting. Only a chunk's first page can be either:
        *at_start* is then the metadata's hint (True: dictionary first), the
        other kind being tried when the hint fails authentication.
        """
        kinds = (False,) if at_start is None else (at_start, not at_start)
        first_error: ParquetError | None = None
        rest = memoryview(buf)[pos:]
        for is_dict in kinds:
            try:
                if is_dict:
                    plain, used = self.decrypt(rest, ModuleType.DICTIONARY_PAGE_HEADER,
                                               where="dictionary page header")
                else:
                    plain, used = self.decrypt(rest, ModuleType.DATA_PAGE_HEADER, ordinal,
                                               where=f"header of data page {ordinal}")
            except ParquetError as exc:
                first_error = first_error or exc
                continue
            header, _ = parse(memoryview(plain), 0)
            if (header.type == PageType.DICTIONARY_PAGE) != is_dict:
                raise ParquetFormatError(
                    f"decrypted page header has page type {header.type}, but was encrypted as a "
                    f"{'dictionary' if is_dict else 'data'} page header")
            return header, used, is_dict
        assert first_error is not None
        raise first_error

    def page_body(self, stored: Any, is_dict: bool | None, ordinal: int) -> Any:
        """Decrypt a page module (``compressed_page_size`` counts the whole module)."""
        if is_dict:
            body, used = self.decrypt(stored, ModuleType.DICTIONARY_PAGE, where="dictionary page")
        else:
            body, used = self.decrypt(stored, ModuleType.DATA_PAGE, ordinal, where=f"data page {ordinal}")
        if used != len(stored):
            raise ParquetEncryptionError(f"encrypted page module is {used} bytes, its header says {len(stored)}")
        return memoryview(body)


def _page_ordinal(page: int) -> bytes:
    if not 0 <= page <= 32767:
        raise ParquetEncryptionError(
            f"page ordinal {page} does not fit the 2-byte AAD field of an encrypted chunk")
    return page.to_bytes(2, "little")


class FileDecryptor:
    """The file AAD, footer key and per-column ciphers of one encrypted file
    (a :class:`~parquet_core.encryption.context.FileDecryption`)."""

    encrypted = True

    def __init__(self, algorithm: Any, decryption: FileDecryptionProperties | None,
                 footer_key_metadata: bytes | None) -> None:
        if algorithm.AES_GCM_V1 is not None:
            params, self.algorithm = algorithm.AES_GCM_V1, AES_GCM_V1
        elif algorithm.AES_GCM_CTR_V1 is not None:
            params, self.algorithm = algorithm.AES_GCM_CTR_V1, AES_GCM_CTR_V1
        else:
            raise UnsupportedFeatureError("the file is encrypted with an unknown algorithm")
        if params.aad_file_unique is None:
            raise ParquetFormatError(f"{self.algorithm} parameters lack aad_file_unique")
        self.ctr = self.algorithm == AES_GCM_CTR_V1
        self.decryption = _as_decryption(decryption)
        self._unique = bytes(params.aad_file_unique)
        self._stored_prefix = None if params.aad_prefix is None else bytes(params.aad_prefix)
        self._supply_prefix = bool(params.supply_aad_prefix)
        self.footer_key_metadata = footer_key_metadata
        self._file_aad: bytes | None = None
        self._ciphers: dict[bytes, ModuleCipher] = {}
        self._columns: dict[tuple[int, int], ColumnDecryptor] = {}
        self._metadata: dict[tuple[int, int], Any] = {}
        self.footer_verified = False

    # -- keys and AAD -------------------------------------------------------
    def _props(self, what: str) -> FileDecryptionProperties:
        if self.decryption is None:
            raise ParquetEncryptionError(
                f"{what} is encrypted; pass decryption=FileDecryptionProperties(...) with its key")
        return self.decryption

    @property
    def file_aad(self) -> bytes:
        """``aad_prefix + aad_file_unique``, the prefix stored in the file or supplied."""
        if self._file_aad is None:
            supplied = None if self.decryption is None else self.decryption.aad_prefix
            stored = self._stored_prefix
            if stored is not None and supplied is not None and stored != supplied:
                raise ParquetEncryptionError(
                    "the AAD prefix given in decryption= differs from the one stored in the file")
            prefix = stored if stored is not None else supplied
            if prefix is None and self._supply_prefix:
                raise ParquetEncryptionError(
                    "the file was encrypted with an AAD prefix that it does not store: supply it "
                    "as FileDecryptionProperties(aad_prefix=...)")
            self._file_aad = file_aad(prefix, self._unique)
        return self._file_aad

    def _cipher(self, key: bytes) -> ModuleCipher:
        cipher = self._ciphers.get(key)
        if cipher is None:
            cipher = self._ciphers[key] = ModuleCipher(key)
        return cipher

    def _footer_key(self) -> bytes:
        return self._props("the footer").key_for_footer(self.footer_key_metadata)

    # -- footer ---------------------------------------------------------------
    def decrypt_footer(self, module: bytes) -> bytes:
        """The plaintext FileMetaData bytes of an encrypted footer module."""
        cipher = self._cipher(self._footer_key())
        plain, used = cipher.decrypt(module, module_aad(self.file_aad, ModuleType.FOOTER), where="footer")
        if used != len(module):
            raise ParquetEncryptionError(
                f"the encrypted footer module is {used} bytes, the footer length leaves {len(module)}")
        return plain

    def verify_footer(self, footer: bytes, signature: bytes) -> None:
        """Check a plaintext footer's signature when a footer key is at hand.

        Skipped without ``decryption=`` (plaintext columns are still
        readable), with ``verify_plaintext_footer=False``, or when neither an
        explicit footer key nor the key retriever gives one.
        """
        props = self.decryption
        if props is None or not props.verify_plaintext_footer:
            return
        key = props.find_footer_key(self.footer_key_metadata)
        if key is None:
            return
        verify_footer_signature(key, footer, signature, module_aad(self.file_aad, ModuleType.FOOTER))
        self.footer_verified = True

    # -- columns --------------------------------------------------------------
    def column(self, chunk: Any, row_group: int, column: int, path: str) -> ColumnDecryptor:
        """The decryptor of one encrypted column chunk (raises naming it when its key is unknown)."""
        found = self._columns.get((row_group, column))
        if found is not None:
            return found
        crypto = chunk.crypto_metadata
        with_column_key = crypto.ENCRYPTION_WITH_COLUMN_KEY
        if with_column_key is not None:
            stored_path = ".".join(with_column_key.path_in_schema or [])
            if stored_path != path:
                raise ParquetFormatError(
                    f"column chunk {quoted(path, bare=True)} of row group {row_group}: its crypto metadata names "
                    f"column {quoted(stored_path)}")
            props = self._props(f"column {quoted(path, bare=True)}")
            key = props.key_for_column(path, with_column_key.key_metadata)
            if key is None:
                raise ParquetEncryptionError(
                    f"column {quoted(path, bare=True)} is encrypted with a column key that was not given "
                    "(column_keys= or key_retriever=)")
        elif crypto.ENCRYPTION_WITH_FOOTER_KEY is not None:
            key = self._props(f"column {quoted(path, bare=True)}").key_for_footer(self.footer_key_metadata)
        else:
            raise ParquetFormatError(f"column chunk {quoted(path, bare=True)} of row group {row_group} has empty crypto metadata")
        dec = ColumnDecryptor(self._cipher(key), self.file_aad, self.ctr, path, row_group, column)
        self._columns[(row_group, column)] = dec
        return dec

    def column_metadata(self, chunk: Any, dec: ChunkDecryption) -> Any:
        """The chunk's full ``pt.ColumnMetaData``, decrypted from ``encrypted_column_metadata``."""
        if not isinstance(dec, ColumnDecryptor):   # the context this file's column() returned
            raise ParquetEncryptionError("the metadata of an encrypted column chunk needs its own decryption "
                                         f"context, got {type(dec).__name__}")
        where = (dec.row_group, dec.column)
        md = self._metadata.get(where)
        if md is None:
            plain, _ = dec.decrypt(bytes(chunk.encrypted_column_metadata), ModuleType.COLUMN_META_DATA,
                                   where="column metadata")
            md, _ = parse(plain, pt.ColumnMetaData)
            self._metadata[where] = md
        return md
