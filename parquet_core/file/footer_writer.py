"""The end of a file: page indexes, the footer (FileMetaData), its length and the magic.

::

    write_file_tail(sink, groups, FooterContent, encryption)
      column indexes of every chunk, then offset indexes      (write_page_index)
      FileMetaData: schema, row groups (each chunk's footer form, encrypted
                    chunks' metadata rewritten), key/values, column orders
      encryption.footer_tail                                  footer, length, PAR1 / PARE

The row groups come from :class:`~parquet_core.file.row_group_writer.RowGroupWriter`;
the page index offsets are set on their chunks here, before the footer is
serialized.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from parquet_core.encryption.context import FileEncryption
from parquet_core.file.row_group_writer import WrittenRowGroup
from parquet_core.file.sink import Sink
from parquet_core.metadata.statistics import column_order_struct
from parquet_core.options import WriterOptions
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize

__all__ = ["FooterContent", "write_page_indexes", "file_metadata", "write_file_tail"]


@dataclass(frozen=True, slots=True)
class FooterContent:
    """What the footer says besides the row groups."""

    elements: list[Any]                 # pt.SchemaElement, in the file's order
    descriptor: SchemaDescriptor
    options: WriterOptions
    key_values: Mapping[str, str]
    created_by: str


def write_page_indexes(sink: Sink, groups: Sequence[WrittenRowGroup]) -> None:
    """Every chunk's column index, then every chunk's offset index (each encrypted as its chunk)."""
    for g in groups:
        for chunk, (column_index, _), crypt in zip(g.row_group.columns, g.indexes, g.crypts):
            if column_index is not None:
                buf = crypt.column_index(serialize(column_index))
                chunk.column_index_offset = sink.write(buf)
                chunk.column_index_length = len(buf)
    for g in groups:
        for chunk, (_, offset_index), crypt in zip(g.row_group.columns, g.indexes, g.crypts):
            buf = crypt.offset_index(serialize(offset_index))
            chunk.offset_index_offset = sink.write(buf)
            chunk.offset_index_length = len(buf)


def file_metadata(groups: Sequence[WrittenRowGroup], content: FooterContent, encryption: FileEncryption,
                  num_rows: int) -> pt.FileMetaData:
    """The FileMetaData of the file (encrypted chunks' metadata in their footer form)."""
    paths = [d.dotted_path for d in content.descriptor]
    row_groups = []
    for g in groups:
        rg = copy.copy(g.row_group)
        rg.columns = [encryption.footer_chunk(chunk, path, crypt)
                      for chunk, path, crypt in zip(g.row_group.columns, paths, g.crypts)]
        row_groups.append(rg)
    kv = content.key_values
    options = content.options
    return pt.FileMetaData(
        version=options.format.format_version, schema=content.elements, num_rows=num_rows,
        row_groups=row_groups,
        key_value_metadata=[pt.KeyValue(key=k, value=v) for k, v in kv.items()] if kv else None,
        created_by=content.created_by,
        column_orders=[column_order_struct(options.column_order(d)) for d in content.descriptor])


def write_file_tail(sink: Sink, groups: Sequence[WrittenRowGroup], content: FooterContent,
                    encryption: FileEncryption, num_rows: int) -> None:
    """Page indexes (when the options ask for them), then the footer, its length and magic."""
    if content.options.write_page_index:
        write_page_indexes(sink, groups)
    sink.write(encryption.footer_tail(file_metadata(groups, content, encryption, num_rows)))
