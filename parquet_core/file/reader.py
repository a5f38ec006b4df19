"""``ParquetFile`` and ``read_table``: the read path from a source to a Table.

::

    ParquetFile(source)
      footer.read_footer -> pt.FileMetaData -> FileMetadata (wrappers + schema)
    ParquetFile.read_row_group(i, columns)
      for each selected leaf:
        source.read_at(chunk range)                one positional read per chunk
        page.reader.iter_pages                     header, CRC, decompress
        column.reader.read_column_chunk            levels + values -> ColumnData
        table.convert.to_array                     logical storage, nulls spread
      -> Table
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import numpy.typing as npt

from parquet_core.column.data import ColumnData
from parquet_core.column.reader import read_column_chunks
from parquet_core.errors import names_file, path_of
from parquet_core.errors import (
    ParquetError,
    ParquetFormatError,
    ParquetSchemaError,
    UnsupportedFeatureError,
    add_context,
)
from parquet_core.constants import Encoding, PhysicalType
from parquet_core.encodings import decode_values
from parquet_core.file.bloom_filter_reader import ColumnBloomFilter, read_bloom_filter
from parquet_core.file.footer import read_footer
from parquet_core.file.page_index_reader import read_column_index, read_offset_index
from parquet_core.file.pushdown import PruneReport, plan_row_groups, select_pages
from parquet_core.file.variant_paths import split_variant_path, variant_field_array
from parquet_core.file.filesystem import is_url, resolve_filesystem
from parquet_core.file.source import open_source
from parquet_core.metadata.arrow_ipc import dictionary_field_names
from parquet_core.metadata.page_index_model import ColumnIndex, OffsetIndex
from parquet_core.metadata.statistics import Statistics, decode_statistics
from parquet_core.metadata.wrappers import ColumnChunkMetadata, FileMetadata
from parquet_core.options import ReaderOptions
from parquet_core.page.model import DictionaryPage
from parquet_core.page.reader import PageHeaderInfo, iter_page_headers, iter_pages, read_page
from parquet_core.schema.descriptor import ColumnDescriptor, SchemaDescriptor
from parquet_core.schema.nested import Shape, build_shape, prune_shape
from parquet_core.schema.tree import SchemaNode
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.table.arrays import Array, Table
from parquet_core.table.assemble import assemble, empty_column
from parquet_core.table.dictionary import DictionaryArray
from parquet_core.table.nested import StructArray
from parquet_core.table.convert import to_array
from parquet_core.table.select import filter_table, take_array
from parquet_core.predicate import filter_mask

__all__ = ["ParquetFile", "read_table", "read_metadata", "read_schema"]


#: The validator behind ``strict=True``: ``validate(source, level, decryption)`` raising
#: ParquetFormatError on any error finding. Installed by :mod:`parquet_core.validation`, which sits
#: above this layer (importing ``parquet_core`` installs it).
STRICT_VALIDATOR: list[Callable[[Any, str, Any], None]] = []


def _field_of(node: SchemaNode, desc: ColumnDescriptor | None) -> Field:
    nullable = node.repetition != 0
    if desc is not None and desc.is_flat:
        return Field(node.name, desc.data_type, nullable, desc.path, node.element.field_id)
    # A group the reader cannot lay out (its error is raised when it is read).
    return Field(node.name, DataType("nested"), nullable, (node.name,))


def _type_of(d: SchemaDescriptor) -> Callable[[int], DataType]:
    return lambda i: d.column(i).data_type


class ParquetFile:
    """A Parquet file opened for reading.

    Parameters
    ----------
    source:
        A path, a bytes-like object, or a binary file object with ``seek``/``read``.
    page_checksum_verification:
        Verify page CRCs when present (default True).
    decryption:
        A :class:`~parquet_core.encryption.FileDecryptionProperties` for an
        encrypted file (keys, key retriever, AAD prefix). Without it, an
        encrypted footer cannot be read, and encrypted columns of a file with a
        plaintext footer raise :class:`ParquetEncryptionError` naming them.
    read_dictionary:
        Names of string / binary columns to read dictionary-encoded, as
        pyarrow's option of that name: each row group's dictionary page is
        kept as the column's dictionary (``to_arrow`` gives int32 indices).
        Other names are ignored, as pyarrow ignores them.  Columns that the
        file's ``ARROW:schema`` records as dictionaries are kept so as well.
    strict:
        Turn every error :func:`parquet_core.validation` finds into a
        :class:`ParquetFormatError`: the footer's when the file is opened, the
        pages' and values' before the first data is read. Without it, files
        that break a rule but are unambiguous are read (as duckdb does).
    """

    @names_file("reading")
    def __init__(self, source: Any, *, page_checksum_verification: bool = True,
                 decryption: Any = None, read_dictionary: Sequence[str] | None = None,
                 filesystem: Any = None, storage_options: dict[str, Any] | None = None,
                 strict: bool = False) -> None:
        if isinstance(read_dictionary, str):
            raise TypeError("read_dictionary must be a list of column names, not a string")
        self._read_dictionary = frozenset(read_dictionary or ())
        self._kept_dictionaries: frozenset[str] | None = None   # worked out on first read
        self._path = path_of(source)   # named in every error (see errors.names_file)
        self._source, self._owned = _open(source, filesystem, storage_options)
        self._strict = [] if strict else None   # levels already validated
        self._decryption = decryption
        self.options = ReaderOptions(page_checksum_verification=page_checksum_verification)
        self._indexes: dict[tuple[Any, ...], Any] = {}
        self._siblings: dict[str, Any] = {}
        try:
            raw, footer_len, decryptor = read_footer(self._source, decryption)
            self.metadata = FileMetadata(raw, footer_len, decryptor, self._source.size)
            self._validate("footer")
        except BaseException:
            self.close()
            raise
        d = self.metadata.schema
        self._fields: list[Field] = []
        # Top-level name -> its Shape, or the schema error that stops it being read.
        self._shapes: dict[str, Shape | ParquetSchemaError] = {}
        for node in d.top_level_fields:
            leaves = d.leaves_under(node.name)
            if not leaves:
                continue  # a group without columns holds no data
            try:
                shape = build_shape(node, d.index_of, _type_of(d))
            except ParquetSchemaError as exc:
                exc.add_note(f"in the schema of field {node.name!r}")
                self._shapes[node.name] = exc
                self._fields.append(_field_of(node, None))
                continue
            assert shape is not None  # the node has leaves
            self._shapes[node.name] = shape
            desc = d.column(leaves[0])
            if shape.is_flat:
                self._fields.append(_field_of(node, desc))
            else:
                self._fields.append(Field(node.name, shape.data_type, shape.nullable, (node.name,),
                                          node.element.field_id))
        self.schema = Schema(self._fields)

    # -- remote reads ---------------------------------------------------------
    def _prefetch(self, groups: Sequence[int], leaves: Sequence[int]) -> None:
        """Tell a remote source which column chunks a read needs (fetched coalesced, at once)."""
        prefetch = getattr(self._source, "prefetch", None)
        if prefetch is None:
            return
        by_source: dict[int, tuple[Any, list[tuple[int, int]]]] = {}
        for rg in groups:
            group = self.metadata.row_group(rg)
            for idx in leaves:
                chunk = group.column(idx)
                src = self._src(chunk)
                by_source.setdefault(id(src), (src, []))[1].append(chunk.byte_range(src.size))
        for src, ranges in by_source.values():
            fetch = getattr(src, "prefetch", None)
            if fetch is not None:
                fetch(ranges)

    def _release(self) -> None:
        for src in [self._source, *self._siblings.values()]:
            release = getattr(src, "release", None)
            if release is not None:
                release()

    def _src(self, chunk: ColumnChunkMetadata) -> Any:
        """Where a column chunk's bytes are: this file, or the file its ``file_path`` names
        (a ``_metadata`` summary file, or the spec's column data in an external file),
        resolved beside this file; opened once and kept until :meth:`close`."""
        rel = chunk.file_path
        if not rel:
            return self._source
        src = self._siblings.get(rel)
        if src is None:
            parts = rel.replace("\\", "/").split("/")
            if rel.startswith("/") or ":" in parts[0] or ".." in parts or not all(parts):
                raise ParquetFormatError(f"column chunk file_path {rel!r} is not a relative path below "
                                         "the file's folder")
            sibling = getattr(self._source, "sibling", None)
            if sibling is None:
                raise UnsupportedFeatureError(
                    f"column chunk stored in another file ({rel!r}): open this file by its path "
                    "to read it")
            src = self._siblings[rel] = sibling(rel)
        return src

    @staticmethod
    def _leaves_of(selected: Sequence[tuple[Field, Shape | ParquetSchemaError]]) -> list[int]:
        return sorted({i for _, s in selected if not isinstance(s, ParquetSchemaError) for i in s.leaves})

    def _validate(self, level: str) -> None:
        """``strict=True``: raise ParquetFormatError on any ``pc.check`` error, once per level."""
        if self._strict is None or level in self._strict:
            return
        if not STRICT_VALIDATOR:
            raise UnsupportedFeatureError("strict=True needs parquet_core.validation (import parquet_core)")
        STRICT_VALIDATOR[0](self._source, level, self._decryption)
        self._strict.append(level)

    # -- context management -------------------------------------------------
    def close(self) -> None:
        """Close the underlying file if this object opened it."""
        for src in getattr(self, "_siblings", {}).values():
            src.close()
        if getattr(self, "_owned", False):
            self._source.close()

    def __enter__(self) -> "ParquetFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- metadata -----------------------------------------------------------
    @property
    def num_row_groups(self) -> int:
        """Number of row groups."""
        return self.metadata.num_row_groups

    @property
    def schema_descriptor(self):  # type: ignore[no-untyped-def]
        """The leaf-level :class:`SchemaDescriptor`."""
        return self.metadata.schema

    def _select(self, columns: Sequence[str] | None) -> list[tuple[Field, Shape | ParquetSchemaError]]:
        """The fields to read: whole top-level fields, or ones pruned to dotted leaf paths.

        Like pyarrow's ``ParquetFile.read``: a name is a top-level field or a
        dotted prefix of leaf paths (``"a.b"``, ``"m.key_value.key"``); the
        result has one column per top-level field named, in order of first
        mention, holding only the selected leaves.
        """
        if columns is None:
            return [(f, self._shapes[f.name]) for f in self._fields]
        if isinstance(columns, str):
            raise TypeError("columns must be a list of names, not a string")
        by_name = {f.name: f for f in self._fields}
        schema = self.metadata.schema
        picked: dict[str, set[int] | None] = {}   # None: the whole field
        for name in columns:
            if name in by_name:
                picked[name] = None
                continue
            path = tuple(name.split("."))
            top = path[0]
            leaves = [i for i in schema.leaves_under(top)
                      if schema.column(i).path[:len(path)] == path] if top in by_name else []
            if not leaves:
                raise self._unknown_column(name)
            if top not in picked:
                picked[top] = set(leaves)
            elif picked[top] is not None:
                picked[top].update(leaves)  # type: ignore[union-attr]
        out: list[tuple[Field, Shape | ParquetSchemaError]] = []
        for top, keep in picked.items():
            shape = self._shapes[top]
            pruned = shape if keep is None or isinstance(shape, ParquetSchemaError) \
                else prune_shape(shape, keep)
            assert pruned is not None  # keep holds leaves of this field
            if pruned is shape:
                out.append((by_name[top], shape))
            else:
                out.append((Field(top, pruned.data_type, pruned.nullable, (top,)), pruned))
        return out

    def _pages_of(self, rg: int, idx: int, desc: ColumnDescriptor) -> Iterator[Any]:
        """Check one column chunk, read its bytes and walk its pages."""
        chunk = self.metadata.row_group(rg).column(idx)
        src = self._src(chunk)
        rows = self.metadata.row_group(rg).num_rows
        if desc.max_repetition_level == 0 and chunk.num_values != rows:
            raise ParquetFormatError(f"column chunk has {chunk.num_values} values for {rows} rows")
        start, length = chunk.byte_range(src.size)
        buf = src.read_at(start, length)
        return iter_pages(buf, chunk.codec_id, chunk.num_values,
                          verify_crc=self.options.page_checksum_verification, base_offset=start,
                          decryptor=chunk.decryptor, dictionary_first=start != chunk.data_page_offset)

    def _keeps_dictionary(self, field: Field, desc: ColumnDescriptor) -> bool:
        """Whether a flat column is read with its dictionaries (``read_dictionary``,
        or a dictionary in ``ARROW:schema``): string and binary columns only, as in pyarrow."""
        if desc.physical_type != PhysicalType.BYTE_ARRAY or desc.data_type.name not in ("string", "binary"):
            return False
        if self._kept_dictionaries is None:
            names = set(self._read_dictionary)
            encoded = (self.metadata.metadata or {}).get(b"ARROW:schema")
            if encoded is not None:   # read without pyarrow: see metadata/arrow_ipc.py
                names |= dictionary_field_names(encoded)
            self._kept_dictionaries = frozenset(names)
        return field.name in self._kept_dictionaries

    def _read_column(self, groups: Sequence[int], field: Field,
                     shape: Shape | ParquetSchemaError) -> Array:
        """Read one column over the given row groups into a single Array."""
        schema = self.metadata.schema
        if isinstance(shape, ParquetSchemaError):
            raise shape
        if not shape.is_flat:
            return self._read_nested(groups, field, shape)
        idx = shape.column
        desc = schema.column(idx)
        current = [-1]

        def chunks() -> Iterator[Iterator[Any]]:
            for rg in groups:
                current[0] = rg
                yield self._pages_of(rg, idx, desc)

        keep = self._keeps_dictionary(field, desc)
        try:
            data, levels = read_column_chunks(chunks(), desc, keep)
            for rg, n in zip(groups, levels):
                expected = self.metadata.row_group(rg).num_rows
                if desc.max_repetition_level == 0 and n != expected:
                    current[0] = rg
                    raise ParquetFormatError(
                        f"column chunk holds {n} rows, the row group says {expected}")
            return to_array(data, desc, requested=field.name in self._read_dictionary)
        except ParquetError as exc:
            exc.add_note(f"in column {desc.dotted_path}, row group {current[0]}")
            raise

    # -- Bloom filters ------------------------------------------------------
    @names_file("reading")
    def bloom_filter(self, row_group: int, column: str | int) -> ColumnBloomFilter | None:
        """The Bloom filter of one column chunk, read now (lazily), or None if it has none.

        Parameters
        ----------
        row_group:
            Row group index.
        column:
            Leaf column: its dotted path (``"a"`` or ``"a.b.c"``) or its leaf index.

        Returns
        -------
        ColumnBloomFilter or None
            ``might_contain(value)`` / ``check(values)`` take logical values
            (``str``, ``int``, ``Decimal``, ``datetime``...).
        """
        chunk = self._chunk(row_group, column)
        bloom = read_bloom_filter(self._src(chunk), chunk)
        return None if bloom is None else ColumnBloomFilter(bloom, chunk.descriptor)

    def _chunk(self, row_group: int, column: str | int) -> ColumnChunkMetadata:
        """The metadata of one column chunk, by leaf dotted path or leaf index."""
        schema = self.metadata.schema
        if isinstance(column, str):
            try:
                idx = schema.index_of(tuple(column.split(".")))
            except KeyError:
                raise self._unknown_column(column, leaf=True) from None
        else:
            idx = int(column)
            if not 0 <= idx < len(schema):
                raise IndexError(f"leaf column index {idx} out of range (0..{len(schema) - 1})")
        if not 0 <= row_group < self.num_row_groups:
            raise IndexError(f"row group {row_group} out of range (0..{self.num_row_groups - 1})")
        return self.metadata.row_group(row_group).column(idx)

    def _unknown_column(self, name: str, leaf: bool = False) -> ValueError:
        """The error for a column name the file lacks, listing the names it has."""
        tops = [f.name for f in self._fields]
        leaves = [d.dotted_path for d in self.metadata.schema]
        if leaf or "." in name:
            return ValueError(f"no {'leaf ' if leaf else ''}column named {name!r} in the file; "
                              f"its columns are {tops}, its leaf columns {leaves}")
        return ValueError(f"no column named {name!r} in the file; its columns are {tops}")

    def _leaf_index(self, name: str) -> int | None:
        """Leaf index of a column named in a filter (top-level name or dotted path).

        None for a top-level group (no single leaf); ValueError when unknown.
        """
        schema = self.metadata.schema
        if name in self._shapes:
            leaves = schema.leaves_under(name)
            desc = schema.column(leaves[0])
            return leaves[0] if len(leaves) == 1 and desc.is_flat else None
        if split_variant_path(self._shapes, name) is not None:
            return None     # a field inside a variant: see parquet_core.file.variant_paths
        try:
            return schema.index_of(tuple(name.split(".")))
        except KeyError:
            raise self._unknown_column(name) from None

    def _needed_leaves(self, names: set[str] | None) -> list[int]:
        """Leaf indices under the given column names (all leaves for None)."""
        schema = self.metadata.schema
        if names is None:
            return list(range(len(schema)))
        idx: set[int] = set()
        for name in names:
            variant = split_variant_path(self._shapes, name)
            if name in self._shapes or variant is not None:
                idx.update(schema.leaves_under(name if variant is None else variant[0]))
            else:
                found = self._leaf_index(name)
                if found is None:
                    raise self._unknown_column(name)
                idx.add(found)
        return sorted(idx)

    def _dictionary_of(self, rg: int, idx: int) -> Array | None:
        """The values of a chunk's dictionary page (one read of it), or None if it has none."""
        chunk = self.metadata.row_group(rg).column(idx)
        desc = chunk.descriptor
        src = self._src(chunk)
        start, length = chunk.byte_range(src.size)
        first_data = chunk.data_page_offset
        if not start < first_data <= start + length:
            return None       # no dictionary page before the data pages
        buf = src.read_at(start, first_data - start)
        try:
            page = next(iter_pages(buf, chunk.codec_id, chunk.num_values,
                                   verify_crc=self.options.page_checksum_verification, base_offset=start,
                                   decryptor=chunk.decryptor, dictionary_first=True), None)
            if not isinstance(page, DictionaryPage):
                return None
            phys = decode_values(Encoding.PLAIN, page.body, page.num_values, desc.physical_type,
                                 desc.type_length)
        except ParquetError as exc:
            add_context(exc, column=desc.dotted_path, row_group=rg, offset=start)
            raise
        return to_array(ColumnData(values=phys, def_levels=None, rep_levels=None,
                                   num_levels=page.num_values), desc)

    @names_file("reading")
    def explain(self, filters: Any, columns: Sequence[str] | None = None) -> PruneReport:
        """What ``filters=`` would prune: row groups by statistics, dictionaries, Bloom filters and
        page indexes, the pages and candidate rows left, and the bytes to read."""
        return plan_row_groups(self, filters, columns=None if columns is None else list(columns))[1]

    @names_file("reading")
    def page_headers(self, row_group: int, column: str | int) -> list[PageHeaderInfo]:
        """Every page header of one column chunk, in file order; page bodies are not decoded.

        Each entry is ``(header, header_size, offset, stored, statistics)``: the
        thrift ``PageHeader`` (decrypted for an encrypted chunk whose key is
        known), its size in bytes, the page's file offset, the page's bytes as
        stored (what a CRC covers), and a data page's header statistics decoded
        with the spec's sort orders (a :class:`~parquet_core.Statistics`, or None).  For inspection tools such as ``pqmeta``;
        ``column`` as for :meth:`bloom_filter`.
        """
        chunk = self._chunk(row_group, column)
        src = self._src(chunk)
        start, length = chunk.byte_range(src.size)
        buf = src.read_at(start, length)
        ordered = self.metadata.column_order(chunk.index)

        def stats(h: Any) -> Statistics | None:
            dph = h.data_page_header or h.data_page_header_v2
            return None if dph is None else decode_statistics(dph.statistics, chunk.descriptor, ordered)

        try:
            return [PageHeaderInfo(h, n, start + pos, body, stats(h)) for h, n, pos, body in iter_page_headers(
                buf, chunk.num_values, decryptor=chunk.decryptor, dictionary_first=start != chunk.data_page_offset)]
        except ParquetError as exc:
            add_context(exc, column=chunk.path_in_schema, row_group=row_group, offset=start)
            raise

    # -- page index ---------------------------------------------------------
    @names_file("reading")
    def column_index(self, row_group: int, column: str | int) -> ColumnIndex | None:
        """The chunk's ColumnIndex (per-page bounds, null pages, boundary order), or None.

        Read now, with one positional read; ``column`` as for :meth:`bloom_filter`.
        """
        return self._page_index("column", row_group, column, read_column_index)

    @names_file("reading")
    def offset_index(self, row_group: int, column: str | int) -> OffsetIndex | None:
        """The chunk's OffsetIndex (location and first row of every data page), or None."""
        return self._page_index("offset", row_group, column, read_offset_index)

    def _page_index(self, kind: str, row_group: int, column: str | int, read: Any) -> Any:
        # kept once read: a filtered read asks for the same index while planning and reading
        chunk = self._chunk(row_group, column)
        raw = chunk.raw
        where = (raw.column_index_offset, raw.column_index_length) if kind == "column" else \
            (raw.offset_index_offset, raw.offset_index_length)
        key = (kind, row_group, chunk.index, where)
        if key not in self._indexes:
            self._indexes[key] = read(self._src(chunk), chunk)
        return self._indexes[key]

    def _read_nested(self, groups: Sequence[int], field: Field, shape: Shape) -> Array:
        """Read every leaf below *shape* over the given row groups and assemble them."""
        schema = self.metadata.schema
        data: dict[int, ColumnData] = {}
        for idx in shape.leaves:
            desc = schema.column(idx)
            current = [-1]

            def chunks(idx: int = idx, desc: ColumnDescriptor = desc,
                       current: list[int] = current) -> Iterator[Iterator[Any]]:
                for rg in groups:
                    current[0] = rg
                    yield self._pages_of(rg, idx, desc)

            try:
                data[idx], per_chunk = read_column_chunks(chunks(), desc)
                self._check_records(data[idx], per_chunk, groups, desc, current)
            except ParquetError as exc:
                exc.add_note(f"in column {desc.dotted_path}, row group {current[0]}")
                raise
        try:
            return assemble(shape, data, schema.columns)
        except ParquetError as exc:
            exc.add_note(f"while assembling field {field.name!r}")
            raise

    def _check_records(self, data: ColumnData, per_chunk: list[int], groups: Sequence[int],
                       desc: ColumnDescriptor, current: list[int]) -> None:
        """Each chunk starts a record and holds as many records as its row group has rows."""
        reps = data.rep_levels
        start = 0
        # One check per row group (not per value): the chunk boundaries are known here only.
        for rg, n in zip(groups, per_chunk):
            current[0] = rg
            expected = self.metadata.row_group(rg).num_rows
            if reps is None:
                records = n
            else:
                if n and reps[start] != 0:
                    raise ParquetFormatError("column chunk does not start at a record boundary "
                                             f"(first repetition level {int(reps[start])})")
                records = int(np.count_nonzero(reps[start:start + n] == 0))
            if records != expected:
                raise ParquetFormatError(
                    f"column chunk holds {records} records, the row group says {expected}")
            start += n

    # -- data ---------------------------------------------------------------
    @names_file("reading")
    def read_row_group(self, i: int, columns: Sequence[str] | None = None) -> Table:
        """Read one row group."""
        self._validate("data")
        selected = self._select(columns)
        rg = self.metadata.row_group(i)
        self._prefetch([i], self._leaves_of(selected))
        try:
            cols = [self._read_column([i], f, s) for f, s in selected]
        finally:
            self._release()
        return Table(Schema([f for f, _ in selected]), cols, rg.num_rows)

    @names_file("reading")
    def read_row_groups(self, row_groups: Sequence[int], columns: Sequence[str] | None = None,
                        filters: Any = None) -> Table:
        """Read some row groups (``filters`` as in :meth:`read`, pruning only among them)."""
        groups = [int(i) for i in row_groups]
        for i in groups:
            if not 0 <= i < self.num_row_groups:
                raise IndexError(f"row group {i} out of range (0..{self.num_row_groups - 1})")
        if filters is not None:
            return self._read_filtered(columns, filters, groups)
        return self._read_groups(groups, columns, sum(self.metadata.row_group(i).num_rows for i in groups))

    @names_file("reading")
    def read(self, columns: Sequence[str] | None = None, filters: Any = None) -> Table:
        """Read the whole file (or the selected columns).

        ``filters`` (an :class:`~parquet_core.predicate.Expression` or pyarrow's
        DNF list of ``(column, op, value)``) keeps exactly the matching rows,
        skipping the row groups that statistics, dictionaries or Bloom filters
        rule out.
        """
        self._validate("data")
        table = self._read_whole(columns) if filters is None else self._read_filtered(columns, filters, None)
        table._metadata = self.metadata.metadata
        return table

    def _read_whole(self, columns: Sequence[str] | None) -> Table:
        return self._read_groups(range(self.num_row_groups), columns, self.metadata.num_rows)

    def _read_groups(self, groups: Sequence[int], columns: Sequence[str] | None, rows: int) -> Table:
        """The selected columns over *groups*; *rows* counts the rows of a read without columns."""
        selected = self._select(columns)
        fields = [f for f, _ in selected]
        groups = list(groups)
        if not groups:
            return Table(Schema(fields), [empty_column(f) for f in fields], 0)
        self._prefetch(groups, self._leaves_of(selected))
        try:
            cols = [self._read_column(groups, f, s) for f, s in selected]
        finally:
            self._release()
        return Table(Schema(fields), cols, rows if not fields else None)

    @names_file("reading")
    def iter_batches(self, batch_size: int = 65536, columns: Sequence[str] | None = None,
                     row_groups: Sequence[int] | None = None, filters: Any = None) -> Iterator[Table]:
        """Yield tables of at most *batch_size* rows, row group by row group (``filters`` as in :meth:`read`)."""
        if batch_size <= 0:
            raise ValueError("batch_size must be positive")
        self._validate("data")
        groups = list(range(self.num_row_groups) if row_groups is None else row_groups)
        if filters is not None:
            for i in groups:
                yield from self._read_filtered(columns, filters, [i]).iter_slices(batch_size)
            return
        for i in groups:
            yield from self.read_row_group(i, columns).iter_slices(batch_size)

    def _read_filtered(self, columns: Sequence[str] | None, filters: Any, groups: list[int] | None) -> Table:
        selected = self._select(columns)
        fields = [f for f, _ in selected]
        expr, _, plans = plan_row_groups(self, filters, groups, columns=[f.name for f in fields],
                                         measure=False)
        parts = []
        if expr is not None:
            needed = set(self._leaves_of(selected)) | set(self._needed_leaves(expr.columns()))
        else:
            needed = set(self._leaves_of(selected))
        whole = [p.index for p in plans if p.rows is None]
        if whole:
            self._prefetch(whole, sorted(needed))
        try:
            parts = self._read_plans(plans, selected, fields, expr)
        finally:
            self._release()
        if not parts:
            return Table(Schema(fields), [empty_column(f) for f in fields], 0)
        return parts[0] if len(parts) == 1 else Table.concat(parts, Schema(fields))

    def _read_plans(self, plans: list[Any], selected: Any, fields: list[Field], expr: Any) -> list[Table]:
        parts = []
        for plan in plans:
            rg = plan.index
            rows = None if plan.rows is None else np.flatnonzero(plan.rows)
            n = self.metadata.row_group(rg).num_rows if rows is None else int(rows.size)
            part = Table(Schema(fields), [self._read_rows(rg, f, s, plan.rows, rows) for f, s in selected], n)
            if expr is not None:
                probe = self._filter_columns(expr.columns(), rg, plan.rows, rows, part, expr)
                part = filter_table(part, filter_mask(expr, probe))
            parts.append(part)
        return parts

    def _read_rows(self, rg: int, field: Field, shape: Shape | ParquetSchemaError,
                   mask: npt.NDArray[np.bool_] | None, rows: npt.NDArray[np.int64] | None) -> Array:
        """One column of one row group, only at *rows* (all rows when None).

        A flat column with an offset index is read page by page: its
        dictionary page and the data pages holding a wanted row; anything
        else is read whole and then gathered.
        """
        if rows is None:
            return self._read_column([rg], field, shape)
        if isinstance(shape, ParquetSchemaError):
            raise shape
        oi = None
        if shape.is_flat:
            desc = self.metadata.schema.column(shape.column)
            if desc.max_repetition_level == 0:
                oi = self.offset_index(rg, shape.column)
        if oi is None:
            return take_array(self._read_column([rg], field, shape), rows)
        num_rows = self.metadata.row_group(rg).num_rows
        if num_rows > 0 and oi.num_pages == 0:
            # nothing would be read, and the rows could not be located in the pages (found by fuzzing)
            raise ParquetFormatError(f"the offset index of column {desc.dotted_path}, row group {rg} lists no "
                                     f"data pages, but the row group has {num_rows} rows")
        keep = select_pages(oi, num_rows, mask)  # type: ignore[arg-type]
        kept = self._keeps_dictionary(field, desc)
        try:
            data, _ = read_column_chunks([self._selected_pages(rg, shape.column, oi, keep, kept)], desc, kept)
            arr = to_array(data, desc, requested=field.name in self._read_dictionary)
        except ParquetError as exc:
            exc.add_note(f"in column {desc.dotted_path}, row group {rg} (pages read through the offset index)")
            raise
        # The decoded values are the kept pages' row ranges one after another: a row's
        # position is its offset in its page plus the rows of the kept pages before it.
        first = oi.first_rows[keep]
        sizes = np.append(oi.first_rows[1:], num_rows)[keep] - first
        before = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        page = np.searchsorted(first, rows, side="right") - 1
        return take_array(arr, rows - first[page] + before[page])

    def _selected_pages(self, rg: int, idx: int, oi: OffsetIndex, keep: list[int],
                        with_dictionary: bool = False) -> list[Any]:
        """The data pages *keep* (one positional read each), after the chunk's dictionary page
        when one of them needs it (a chunk that fell back keeps its large dictionary unread)."""
        chunk = self.metadata.row_group(rg).column(idx)
        src = self._src(chunk)
        verify = self.options.page_checksum_verification
        dec = chunk.decryptor
        size = src.size
        ranges = oi.row_ranges(self.metadata.row_group(rg).num_rows)
        pages: list[Any] = []
        for i in keep:
            loc = oi.page_locations[i]
            if loc.offset + loc.compressed_page_size > size:
                raise ParquetFormatError(f"offset index page {i} at {loc.offset} (+{loc.compressed_page_size} "
                                         f"bytes) is past the end of the file ({size} bytes)")
            page = read_page(src.read_at(loc.offset, loc.compressed_page_size), chunk.codec_id,
                             ordinal=i, verify_crc=verify, base_offset=loc.offset, decryptor=dec)
            if page is None or isinstance(page, DictionaryPage):
                raise ParquetFormatError(f"offset index page {i} at {loc.offset} is not a data page")
            want = ranges[i][1] - ranges[i][0]
            if page.num_values != want:
                raise ParquetFormatError(f"data page {i} at {loc.offset} holds {page.num_values} values; "
                                         f"the offset index gives it {want} rows")
            pages.append(page)
        if with_dictionary or any(p.encoding in (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)
                                  for p in pages):
            start = chunk.byte_range(size)[0]
            first = oi.page_locations[0].offset
            if start < first <= size:
                page = read_page(src.read_at(start, first - start), chunk.codec_id,
                                 verify_crc=verify, base_offset=start, decryptor=dec, chunk_start=True)
                if isinstance(page, DictionaryPage):
                    pages.insert(0, page)
        return pages

    def _filter_columns(self, names: set[str], rg: int, mask: npt.NDArray[np.bool_] | None,
                        rows: npt.NDArray[np.int64] | None, table: Table, expr: Any = None) -> Table:
        """A table holding each column a filter names, by that name, at the rows of *table*.

        Dotted names reach leaves inside structs; a null struct makes its
        fields null.  Leaves below a list or map cannot be filtered on (one
        value per row is needed).
        """
        fields, arrays = [], []
        for name in sorted(names):
            variant = split_variant_path(self._shapes, name)
            if name in table.column_names:
                arr = table.column(name)
            elif variant is not None:
                (top, shape), = self._select([variant[0]])
                arr = variant_field_array(self, self._read_rows(rg, top, shape, mask, rows), name, expr)
            else:
                path = name.split(".")
                (top, shape), = self._select([name])      # the top-level field pruned to that leaf
                arr = self._read_rows(rg, top, shape, mask, rows)
                for part in path[1:]:
                    if not isinstance(arr, StructArray):
                        raise UnsupportedFeatureError(
                            f"filter column {name!r}: only leaves reached through structs can be filtered on")
                    parent = arr.validity
                    arr = arr.field(part)
                    if parent is not None:
                        validity = parent if arr.validity is None else arr.validity & parent
                        arr = Array(arr.type, arr.values, validity)
            if isinstance(arr, DictionaryArray):
                arr = arr.dense()
            if type(arr) is not Array:
                raise UnsupportedFeatureError(f"filter column {name!r} is a {arr.type.name}, not a value column")
            fields.append(Field(name, arr.type))
            arrays.append(arr)
        return Table(Schema(fields), arrays, table.num_rows)

    def __repr__(self) -> str:
        return f"<ParquetFile {self.metadata!r}>"


def _open(source: Any, filesystem: Any, storage_options: dict[str, Any] | None) -> tuple[Any, bool]:
    """Open *source* as a random-access source, through a file system for URLs / ``filesystem=``."""
    if filesystem is not None or storage_options or is_url(source):
        if not isinstance(source, (str, os.PathLike)):
            raise TypeError("filesystem= and storage_options= need a path, not a "
                            f"{type(source).__name__}")
        fs, (path,) = resolve_filesystem([source], filesystem, storage_options)
        if fs.kind(path) == "directory":
            raise IsADirectoryError(f"{source!r} is a folder: read it with pc.read_table or pc.ParquetDataset")
        return fs.open_source(path), True
    if isinstance(source, (str, os.PathLike)) and os.path.isdir(source):
        raise IsADirectoryError(f"{os.fspath(source)!r} is a folder: read it with pc.read_table or "
                                "pc.ParquetDataset (ParquetFile opens one file)")
    return open_source(source)


def read_table(source: Any, columns: Sequence[str] | None = None, *, filters: Any = None,
               page_checksum_verification: bool = True, decryption: Any = None,
               read_dictionary: Sequence[str] | None = None, strict: bool = False) -> Table:
    """Read a whole Parquet file into a :class:`Table` (``filters`` as in :meth:`ParquetFile.read`;
    ``decryption``, ``read_dictionary`` and ``strict`` as in :class:`ParquetFile`)."""
    with ParquetFile(source, page_checksum_verification=page_checksum_verification,
                     decryption=decryption, read_dictionary=read_dictionary, strict=strict) as pf:
        return pf.read(columns, filters=filters)


def read_metadata(source: Any, *, decryption: Any = None) -> FileMetadata:
    """Read only the footer."""
    with ParquetFile(source, decryption=decryption) as pf:
        return pf.metadata


def read_schema(source: Any, *, decryption: Any = None) -> Schema:
    """Read only the schema."""
    with ParquetFile(source, decryption=decryption) as pf:
        return pf.schema
