"""Keeping a dataset's ``_metadata`` / ``_common_metadata`` in step with ``write_to_dataset``.

pyarrow leaves both as they were when files are added or deleted, so a reader
planning from ``_metadata`` misses the new files and fails on the deleted
ones.  A write into a folder holding them (see ``write.py``):

* ``_metadata``: the row groups of the files it replaces (``delete_matching``,
  or a same-named file under ``overwrite_or_ignore``) are dropped, those of the
  new files appended with their ``file_path``; everything else in the footer
  (schema, key-value metadata, ``created_by``) is kept.  The new footer is
  staged and renamed into place with the data (``transaction.py``), so a reader
  sees the old or the new ``_metadata``, never half of one;
* ``_common_metadata`` holds only the schema: it is checked, not rewritten.

New files whose columns differ from the summary's are refused
(:class:`ParquetSchemaError`, naming the summary file) before anything is
visible: a summary that no longer describes its files would answer wrongly.
"""

from __future__ import annotations

import struct
from typing import Any, Iterable

from parquet_core.constants import MAGIC
from parquet_core.errors import ParquetFormatError, ParquetSchemaError
from parquet_core.file.filesystem import FileSystem
from parquet_core.file.reader import ParquetFile
from parquet_core.metadata.wrappers import FileMetadata
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse, serialize

__all__ = ["footer_with_file_path", "updated_metadata", "check_common_metadata"]


def footer_with_file_path(fs: FileSystem, path: str, rel: str) -> FileMetadata:
    """The footer of the file at *path*, its column chunks' ``file_path`` set to *rel*."""
    src = fs.open_source(path)
    try:
        md = ParquetFile(src).metadata
    finally:
        src.close()
    for rg in md.raw.row_groups or []:
        for chunk in rg.columns:
            chunk.file_path = rel
    return FileMetadata(md.raw, md.footer_size)


def _read_footer(fs: FileSystem, path: str) -> Any:
    src = fs.open_source(path)
    try:
        size = src.size
        if size < 12:
            raise ParquetFormatError(f"{fs.display(path)!r} is too short to be a Parquet footer "
                                     f"({size} bytes)")
        tail = bytes(src.read_at(size - 8, 8))
        if tail[4:] != MAGIC:
            raise ParquetFormatError(f"{fs.display(path)!r} does not end with the Parquet magic")
        (n,) = struct.unpack("<I", tail[:4])
        if n > size - 12:
            raise ParquetFormatError(f"{fs.display(path)!r}: footer length {n} exceeds the file")
        raw, _ = parse(bytes(src.read_at(size - 8 - n, n)), pt.FileMetaData)
    finally:
        src.close()
    return raw


def _leaves(raw: Any) -> list[tuple[str, int | None]]:
    return [(el.name, el.type) for el in raw.schema[1:] if el.num_children in (None, 0)]


def _check(fs: FileSystem, path: str, summary: Any, added: Iterable[FileMetadata]) -> None:
    want = _leaves(summary)
    for md in added:
        got = _leaves(md.raw)
        if got != want:
            raise ParquetSchemaError(
                f"{fs.display(path)!r} describes the columns {want}; the new files have {got}. "
                "Write files with its schema, or delete it and write a new one")


def check_common_metadata(fs: FileSystem, path: str, added: Iterable[FileMetadata]) -> None:
    """Refuse new files whose columns are not the ones ``_common_metadata`` at *path* gives."""
    _check(fs, path, _read_footer(fs, path), added)


def updated_metadata(fs: FileSystem, path: str, removed: set[str], added: list[FileMetadata]) -> bytes:
    """The bytes of ``_metadata`` at *path* without the row groups of the files *removed*
    (``file_path`` values) and with those of *added* appended."""
    raw = _read_footer(fs, path)
    _check(fs, path, raw, added)
    kept = [rg for rg in raw.row_groups or []
            if not (rg.columns and rg.columns[0].file_path in removed)]
    for md in added:
        kept.extend(md.raw.row_groups or [])
    raw.row_groups = kept
    raw.num_rows = sum(int(rg.num_rows) for rg in kept)
    footer = serialize(raw)
    return MAGIC + footer + struct.pack("<I", len(footer)) + MAGIC
