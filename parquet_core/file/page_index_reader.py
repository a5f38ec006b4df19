"""Read a column chunk's page index (ColumnIndex and OffsetIndex) with one positional read each.

The offsets and lengths come from the chunk's metadata; both are checked
against the file size before anything is read, and the thrift decoder is
limited to the stated length, so a hostile footer cannot make the reader
allocate more than the file holds. In an encrypted column each index is
one GCM module (``length | nonce | ciphertext | tag``) of the stated length.  See
:mod:`parquet_core.metadata.page_index` for what the structs mean.
"""

from __future__ import annotations

from typing import Any

from parquet_core.encryption.context import chunk_decryption
from parquet_core.encryption.modules import ModuleType
from parquet_core.errors import ParquetEncryptionError, ParquetError, ParquetFormatError, add_context, quoted
from parquet_core.file.source import RandomAccessSource
from parquet_core.metadata.page_index import ColumnIndex, OffsetIndex
from parquet_core.metadata.wrappers import ColumnChunkMetadata
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse

__all__ = ["read_column_index", "read_offset_index", "read_offset_index_struct"]


def _read_struct(source: RandomAccessSource, chunk: ColumnChunkMetadata, offset: int | None,
                 length: int | None, cls: Any, what: str, module: ModuleType) -> Any | None:
    if offset is None:
        return None
    try:
        if length is None or length <= 0:
            raise ParquetFormatError(f"{what} at offset {offset} has no valid length ({length})")
        if offset < 0 or length > source.size - offset:
            raise ParquetFormatError(f"{what} at offset {offset} with {length} bytes does not fit the "
                                     f"file ({source.size} bytes)")
        # plaintext, or one GCM module holding the thrift struct
        buf, used = chunk_decryption(chunk).decrypt(source.read_at(offset, length), module, where=what)
        if used != length:
            raise ParquetEncryptionError(f"encrypted {what} module is {used} bytes, the metadata "
                                         f"says {length}")
        struct, used = parse(buf, cls, limit=len(buf))
        return struct
    except ParquetError as exc:
        add_context(exc, column=chunk.path_in_schema, row_group=chunk.row_group, file_offset=offset)
        raise


def read_offset_index_struct(source: RandomAccessSource, chunk: ColumnChunkMetadata) -> Any | None:
    """The chunk's OffsetIndex as decoded thrift (``pt.OffsetIndex``), its locations not yet checked.

    For the validator, which checks each page location on its own; readers use
    :func:`read_offset_index`.
    """
    raw = chunk.raw
    return _read_struct(source, chunk, raw.offset_index_offset, raw.offset_index_length,
                        pt.OffsetIndex, "offset index", ModuleType.OFFSET_INDEX)


def read_offset_index(source: RandomAccessSource, chunk: ColumnChunkMetadata,
                      num_rows: int | None = None) -> OffsetIndex | None:
    """The chunk's OffsetIndex, or None when the writer stored none (*num_rows*: the row
    group's, checked against the last page's first row)."""
    struct = read_offset_index_struct(source, chunk)
    if struct is None:
        return None
    return OffsetIndex(struct, f"column {quoted(chunk.path_in_schema, bare=True)}, row group {chunk.row_group}",
                       num_rows)


def read_column_index(source: RandomAccessSource, chunk: ColumnChunkMetadata) -> ColumnIndex | None:
    """The chunk's ColumnIndex, or None when the writer stored none."""
    raw = chunk.raw
    struct = _read_struct(source, chunk, raw.column_index_offset, raw.column_index_length,
                          pt.ColumnIndex, "column index", ModuleType.COLUMN_INDEX)
    if struct is None:
        return None
    return ColumnIndex(struct, chunk.descriptor, f"column {quoted(chunk.path_in_schema, bare=True)}, row group {chunk.row_group}")
