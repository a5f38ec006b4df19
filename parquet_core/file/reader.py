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

from typing import Any, Iterator, Sequence

from parquet_core.column.data import ColumnData
from parquet_core.column.reader import read_column_chunks
from parquet_core.errors import (
    ParquetEncryptionError,
    ParquetError,
    ParquetFormatError,
    UnsupportedFeatureError,
    add_context,
)
from parquet_core.constants import Encoding
from parquet_core.encodings import decode_values
from parquet_core.file.bloom_filter_reader import ColumnBloomFilter, read_bloom_filter
from parquet_core.file.footer import read_footer
from parquet_core.file.page_index_reader import read_column_index, read_offset_index
from parquet_core.file.pushdown import PruneReport, plan_row_groups
from parquet_core.file.source import open_source
from parquet_core.metadata.page_index_model import ColumnIndex, OffsetIndex
from parquet_core.metadata.wrappers import ColumnChunkMetadata, FileMetadata
from parquet_core.options import ReaderOptions
from parquet_core.page.model import DictionaryPage
from parquet_core.page.reader import iter_pages
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.tree import SchemaNode
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.table.arrays import Array, Table, empty_array
from parquet_core.table.convert import to_array
from parquet_core.table.select import filter_table
from parquet_core.predicate import filter_mask

__all__ = ["ParquetFile", "read_table", "read_metadata", "read_schema"]


def _field_of(node: SchemaNode, desc: ColumnDescriptor | None) -> Field:
    nullable = node.repetition != 0
    if desc is not None and desc.is_flat:
        return Field(node.name, desc.data_type, nullable, desc.path)
    # Nested fields are assembled by a later layer; expose them as an opaque type.
    return Field(node.name, DataType("nested"), nullable, (node.name,))


class ParquetFile:
    """A Parquet file opened for reading.

    Parameters
    ----------
    source:
        A path, a bytes-like object, or a binary file object with ``seek``/``read``.
    page_checksum_verification:
        Verify page CRCs when present (default True).
    """

    def __init__(self, source: Any, *, page_checksum_verification: bool = True) -> None:
        self._source, self._owned = open_source(source)
        self.options = ReaderOptions(page_checksum_verification=page_checksum_verification)
        try:
            raw, footer_len = read_footer(self._source)
            self.metadata = FileMetadata(raw, footer_len)
        except BaseException:
            self.close()
            raise
        d = self.metadata.schema
        self._fields: list[Field] = []
        self._leaves_of: dict[str, list[int]] = {}
        for node in d.top_level_fields:
            leaves = d.leaves_under(node.name)
            self._leaves_of[node.name] = leaves
            desc = d.column(leaves[0]) if len(leaves) == 1 else None
            self._fields.append(_field_of(node, desc))
        self.schema = Schema(self._fields)

    # -- context management -------------------------------------------------
    def close(self) -> None:
        """Close the underlying file if this object opened it."""
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

    def _select(self, columns: Sequence[str] | None) -> list[Field]:
        if columns is None:
            return list(self._fields)
        if isinstance(columns, str):
            raise TypeError("columns must be a list of names, not a string")
        out: list[Field] = []
        by_name = {f.name: f for f in self._fields}
        for name in columns:
            if name in by_name:
                out.append(by_name[name])
                continue
            path = tuple(name.split("."))
            try:
                idx = self.metadata.schema.index_of(path)
            except KeyError:
                raise ValueError(f"no column named {name!r} in the file") from None
            desc = self.metadata.schema.column(idx)
            out.append(Field(name, desc.data_type, desc.max_definition_level > 0, desc.path))
        return out

    def _pages_of(self, rg: int, idx: int, desc: ColumnDescriptor) -> Iterator[Any]:
        """Check one column chunk, read its bytes and walk its pages."""
        chunk = self.metadata.row_group(rg).column(idx)
        if chunk.is_encrypted:
            raise ParquetEncryptionError("the column is encrypted; decryption is not supported yet")
        if chunk.file_path:
            raise UnsupportedFeatureError(f"column chunk stored in another file ({chunk.file_path!r})")
        rows = self.metadata.row_group(rg).num_rows
        if desc.max_repetition_level == 0 and chunk.num_values != rows:
            raise ParquetFormatError(f"column chunk has {chunk.num_values} values for {rows} rows")
        start, length = chunk.byte_range(self._source.size)
        buf = self._source.read_at(start, length)
        return iter_pages(buf, chunk.codec_id, chunk.num_values,
                          verify_crc=self.options.page_checksum_verification, base_offset=start)

    def _read_column(self, groups: Sequence[int], field: Field) -> Array:
        """Read one column over the given row groups into a single Array."""
        schema = self.metadata.schema
        if field.type.name == "nested":
            raise UnsupportedFeatureError(
                f"column {field.name!r} is nested (groups/lists/maps); nested columns are not supported yet")
        idx = schema.index_of(field.path)
        desc = schema.column(idx)
        current = [-1]

        def chunks() -> Iterator[Iterator[Any]]:
            for rg in groups:
                current[0] = rg
                yield self._pages_of(rg, idx, desc)

        try:
            data, levels = read_column_chunks(chunks(), desc)
            for rg, n in zip(groups, levels):
                expected = self.metadata.row_group(rg).num_rows
                if desc.max_repetition_level == 0 and n != expected:
                    current[0] = rg
                    raise ParquetFormatError(
                        f"column chunk holds {n} rows, the row group says {expected}")
            return to_array(data, desc)
        except ParquetError as exc:
            exc.add_note(f"in column {desc.dotted_path}, row group {current[0]}")
            raise

    # -- Bloom filters ------------------------------------------------------
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
        bloom = read_bloom_filter(self._source, chunk)
        return None if bloom is None else ColumnBloomFilter(bloom, chunk.descriptor)

    def _chunk(self, row_group: int, column: str | int) -> ColumnChunkMetadata:
        """The metadata of one column chunk, by leaf dotted path or leaf index."""
        schema = self.metadata.schema
        if isinstance(column, str):
            try:
                idx = schema.index_of(tuple(column.split(".")))
            except KeyError:
                raise ValueError(f"no leaf column named {column!r} in the file") from None
        else:
            idx = int(column)
            if not 0 <= idx < len(schema):
                raise IndexError(f"leaf column index {idx} out of range (0..{len(schema) - 1})")
        if not 0 <= row_group < self.num_row_groups:
            raise IndexError(f"row group {row_group} out of range (0..{self.num_row_groups - 1})")
        return self.metadata.row_group(row_group).column(idx)

    def _leaf_index(self, name: str) -> int | None:
        """Leaf index of a column named in a filter (top-level name or dotted path).

        None for a top-level group (no single leaf); ValueError when unknown.
        """
        schema = self.metadata.schema
        leaves = self._leaves_of.get(name)
        if leaves is not None:
            desc = schema.column(leaves[0])
            return leaves[0] if len(leaves) == 1 and desc.is_flat else None
        try:
            return schema.index_of(tuple(name.split(".")))
        except KeyError:
            raise ValueError(f"no column named {name!r} in the file") from None

    def _chunk_bytes(self, rg: int, columns: set[str] | None) -> int:
        """Compressed bytes of a row group's chunks (all, or those under *columns*)."""
        group = self.metadata.row_group(rg)
        if columns is None:
            return sum(group.column(i).total_compressed_size for i in range(group.num_columns))
        idx: set[int] = set()
        for name in columns:
            leaves = self._leaves_of.get(name)
            if leaves is None:
                found = self._leaf_index(name)
                leaves = [] if found is None else [found]
            idx.update(leaves)
        return sum(group.column(i).total_compressed_size for i in idx)

    def _dictionary_of(self, rg: int, idx: int) -> Array | None:
        """The values of a chunk's dictionary page (one read of it), or None if it has none."""
        chunk = self.metadata.row_group(rg).column(idx)
        desc = chunk.descriptor
        start, length = chunk.byte_range(self._source.size)
        first_data = chunk.data_page_offset
        if not start < first_data <= start + length:
            return None       # no dictionary page before the data pages
        buf = self._source.read_at(start, first_data - start)
        try:
            page = next(iter_pages(buf, chunk.codec_id, chunk.num_values,
                                   verify_crc=self.options.page_checksum_verification, base_offset=start), None)
            if not isinstance(page, DictionaryPage):
                return None
            phys = decode_values(Encoding.PLAIN, page.body, page.num_values, desc.physical_type,
                                 desc.type_length)
        except ParquetError as exc:
            add_context(exc, column=desc.dotted_path, row_group=rg, offset=start)
            raise
        return to_array(ColumnData(values=phys, def_levels=None, rep_levels=None,
                                   num_levels=page.num_values), desc)

    def explain(self, filters: Any, columns: Sequence[str] | None = None) -> PruneReport:
        """What ``filters=`` would prune (row groups by statistics and Bloom filters, bytes to read)."""
        return plan_row_groups(self, filters, columns=None if columns is None else list(columns))[1]

    # -- page index ---------------------------------------------------------
    def column_index(self, row_group: int, column: str | int) -> ColumnIndex | None:
        """The chunk's ColumnIndex (per-page bounds, null pages, boundary order), or None.

        Read now, with one positional read; ``column`` as for :meth:`bloom_filter`.
        """
        return read_column_index(self._source, self._chunk(row_group, column))

    def offset_index(self, row_group: int, column: str | int) -> OffsetIndex | None:
        """The chunk's OffsetIndex (location and first row of every data page), or None."""
        return read_offset_index(self._source, self._chunk(row_group, column))

    # -- data ---------------------------------------------------------------
    def read_row_group(self, i: int, columns: Sequence[str] | None = None) -> Table:
        """Read one row group."""
        fields = self._select(columns)
        rg = self.metadata.row_group(i)
        cols = [self._read_column([i], f) for f in fields]
        return Table(Schema(fields), cols, rg.num_rows)

    def read(self, columns: Sequence[str] | None = None, filters: Any = None) -> Table:
        """Read the whole file (or the selected columns).

        ``filters`` (an :class:`~parquet_core.predicate.Expression` or pyarrow's
        DNF list of ``(column, op, value)``) keeps exactly the matching rows,
        skipping the row groups that statistics or Bloom filters rule out.
        """
        if filters is not None:
            return self._read_filtered(columns, filters, None)
        fields = self._select(columns)
        groups = list(range(self.num_row_groups))
        if not groups:
            return Table(Schema(fields), [empty_array(f) for f in fields], 0)
        cols = [self._read_column(groups, f) for f in fields]
        return Table(Schema(fields), cols, self.metadata.num_rows if not fields else None)

    def iter_batches(self, batch_size: int = 65536, columns: Sequence[str] | None = None,
                     row_groups: Sequence[int] | None = None, filters: Any = None) -> Iterator[Table]:
        """Yield tables of at most *batch_size* rows, row group by row group (``filters`` as in :meth:`read`)."""
        if batch_size <= 0:
            raise ValueError("batch_size must be positive")
        groups = list(range(self.num_row_groups) if row_groups is None else row_groups)
        if filters is not None:
            for i in plan_row_groups(self, filters, groups)[1].kept:
                yield from self._read_filtered(columns, filters, [i]).iter_slices(batch_size)
            return
        for i in groups:
            yield from self.read_row_group(i, columns).iter_slices(batch_size)

    def _read_filtered(self, columns: Sequence[str] | None, filters: Any, groups: list[int] | None) -> Table:
        expr, report = plan_row_groups(self, filters, groups)
        fields = self._select(columns)
        kept = report.kept
        names = [f.name for f in fields]
        extra = [] if expr is None else sorted(c for c in expr.columns() if c not in names)
        need = fields + self._select(extra)
        if not kept:
            return Table(Schema(fields), [empty_array(f) for f in fields], 0)
        table = Table(Schema(need), [self._read_column(kept, f) for f in need],
                      sum(self.metadata.row_group(i).num_rows for i in kept))
        if expr is not None:
            table = filter_table(table, filter_mask(expr, table))
        return Table(Schema(fields), table.columns[:len(fields)], table.num_rows)

    def __repr__(self) -> str:
        return f"<ParquetFile {self.metadata!r}>"


def read_table(source: Any, columns: Sequence[str] | None = None, *, filters: Any = None,
               page_checksum_verification: bool = True) -> Table:
    """Read a whole Parquet file into a :class:`Table` (``filters`` as in :meth:`ParquetFile.read`)."""
    with ParquetFile(source, page_checksum_verification=page_checksum_verification) as pf:
        return pf.read(columns, filters=filters)


def read_metadata(source: Any) -> FileMetadata:
    """Read only the footer."""
    with ParquetFile(source) as pf:
        return pf.metadata


def read_schema(source: Any) -> Schema:
    """Read only the schema."""
    with ParquetFile(source) as pf:
        return pf.schema
