"""Module types and additional authenticated data (AAD), per the encryption spec.

Every encrypted *module* (footer, column metadata, page, page header, index,
Bloom filter part) is bound to its place in the file by its AAD::

    file AAD   = aad_prefix (optional) + aad_file_unique
    module AAD = file AAD + module type (1 byte)
                 [+ row group ordinal (2 bytes LE)
                  + column ordinal    (2 bytes LE)
                  [+ page ordinal     (2 bytes LE)]]

The footer's AAD stops after the module type; data pages and data page
headers carry a page ordinal; every other module stops after the column
ordinal. Ordinals are signed 16-bit values in the spec, so a file may hold at
most 32767 row groups, columns and pages per chunk when encrypted.
"""

from __future__ import annotations

import enum
import struct

from parquet_core.errors import ParquetEncryptionError

__all__ = ["ModuleType", "file_aad", "module_aad", "MAX_ORDINAL"]

MAX_ORDINAL = 32767


class ModuleType(enum.IntEnum):
    """The module type byte of a module AAD (numbers fixed by the spec)."""

    FOOTER = 0
    COLUMN_META_DATA = 1
    DATA_PAGE = 2
    DICTIONARY_PAGE = 3
    DATA_PAGE_HEADER = 4
    DICTIONARY_PAGE_HEADER = 5
    COLUMN_INDEX = 6
    OFFSET_INDEX = 7
    BLOOM_FILTER_HEADER = 8
    BLOOM_FILTER_BITSET = 9


_PAGE_MODULES = frozenset({ModuleType.DATA_PAGE, ModuleType.DATA_PAGE_HEADER})


def file_aad(aad_prefix: bytes | None, aad_file_unique: bytes) -> bytes:
    """Return the file AAD: the optional prefix followed by the file's unique part."""
    return bytes(aad_prefix or b"") + bytes(aad_file_unique)


def _ordinal(name: str, value: int) -> bytes:
    if not 0 <= value <= MAX_ORDINAL:
        raise ParquetEncryptionError(
            f"{name} ordinal {value} does not fit the 2-byte AAD field (0..{MAX_ORDINAL})")
    return struct.pack("<h", value)


def module_aad(file_aad_bytes: bytes, module_type: ModuleType, row_group: int = -1,
               column: int = -1, page: int = -1) -> bytes:
    """Return the AAD of one module.

    *row_group* and *column* are required for every module except the
    footer; *page* is required for data pages and data page headers and
    ignored (must be left at -1) for the rest.
    """
    module_type = ModuleType(module_type)
    out = file_aad_bytes + bytes([module_type])
    if module_type is ModuleType.FOOTER:
        return out
    out += _ordinal("row group", row_group) + _ordinal("column", column)
    if module_type in _PAGE_MODULES:
        out += _ordinal("page", page)
    elif page != -1:
        raise ValueError(f"{module_type.name} modules carry no page ordinal")
    return out
