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

from typing import Any, Callable, Iterator, Sequence

import numpy as np
import numpy.typing as npt

from parquet_core.column.data import ColumnData
from parquet_core.column.reader import read_column_chunks
from parquet_core.errors import (
    ParquetError,
    ParquetFormatError,
    ParquetSchemaError,
    UnsupportedFeatureError,
    add_context,
)
from parquet_core.constants import Encoding
from parquet_core.encodings import decode_values
from parquet_core.file.bloom_filter_reader import ColumnBloomFilter, read_bloom_filter
from parquet_core.file.footer import read_footer
from parquet_core.file.page_index_reader import read_column_index, read_offset_index
from parquet_core.file.pushdown import PruneReport, plan_row_groups, select_pages
from parquet_core.file.source import open_source
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
from parquet_core.table.nested import StructArray
from parquet_core.table.convert import to_array
from parquet_core.table.select import filter_table, take_array
from parquet_core.predicate import filter_mask

__all__ = ["ParquetFile", "read_table", "read_metadata", "read_schema"]


def _field_of(node: SchemaNode, desc: ColumnDescriptor | None) -> Field:
    nullable = node.repetition != 0
    if desc is not None and desc.is_flat:
        return Field(node.name, desc.data_type, nullable, desc.path)
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
    """

    def __init__(self, source: Any, *, page_checksum_verification: bool = True,
                 decryption: Any = None) -> None:
        self._source, self._owned = open_source(source)
        self.options = ReaderOptions(page_checksum_verification=page_checksum_verification)
        self._indexes: dict[tuple[Any, ...], Any] = {}
        try:
            raw, footer_len, decryptor = read_footer(self._source, decryption)
            self.metadata = FileMetadata(raw, footer_len, decryptor)
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
                self._fields.append(Field(node.name, shape.data_type, shape.nullable, (node.name,)))
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
                raise ValueError(f"no column named {name!r} in the file")
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
        if chunk.file_path:
            raise UnsupportedFeatureError(f"column chunk stored in another file ({chunk.file_path!r})")
        rows = self.metadata.row_group(rg).num_rows
        if desc.max_repetition_level == 0 and chunk.num_values != rows:
            raise ParquetFormatError(f"column chunk has {chunk.num_values} values for {rows} rows")
        start, length = chunk.byte_range(self._source.size)
        buf = self._source.read_at(start, length)
        return iter_pages(buf, chunk.codec_id, chunk.num_values,
                          verify_crc=self.options.page_checksum_verification, base_offset=start,
                          decryptor=chunk.decryptor, dictionary_first=start != chunk.data_page_offset)

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
        if name in self._shapes:
            leaves = schema.leaves_under(name)
            desc = schema.column(leaves[0])
            return leaves[0] if len(leaves) == 1 and desc.is_flat else None
        try:
            return schema.index_of(tuple(name.split(".")))
        except KeyError:
            raise ValueError(f"no column named {name!r} in the file") from None

    def _needed_leaves(self, names: set[str] | None) -> list[int]:
        """Leaf indices under the given column names (all leaves for None)."""
        schema = self.metadata.schema
        if names is None:
            return list(range(len(schema)))
        idx: set[int] = set()
        for name in names:
            if name in self._shapes:
                idx.update(schema.leaves_under(name))
            else:
                found = self._leaf_index(name)
                if found is None:
                    raise ValueError(f"no column named {name!r} in the file")
                idx.add(found)
        return sorted(idx)

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

    def explain(self, filters: Any, columns: Sequence[str] | None = None) -> PruneReport:
        """What ``filters=`` would prune: row groups by statistics, dictionaries, Bloom filters and
        page indexes, the pages and candidate rows left, and the bytes to read."""
        return plan_row_groups(self, filters, columns=None if columns is None else list(columns))[1]

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
        start, length = chunk.byte_range(self._source.size)
        buf = self._source.read_at(start, length)
        ordered = self.metadata.column_order_defined(chunk.index)

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
    def column_index(self, row_group: int, column: str | int) -> ColumnIndex | None:
        """The chunk's ColumnIndex (per-page bounds, null pages, boundary order), or None.

        Read now, with one positional read; ``column`` as for :meth:`bloom_filter`.
        """
        return self._page_index("column", row_group, column, read_column_index)

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
            self._indexes[key] = read(self._source, chunk)
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
    def read_row_group(self, i: int, columns: Sequence[str] | None = None) -> Table:
        """Read one row group."""
        selected = self._select(columns)
        rg = self.metadata.row_group(i)
        cols = [self._read_column([i], f, s) for f, s in selected]
        return Table(Schema([f for f, _ in selected]), cols, rg.num_rows)

    def read(self, columns: Sequence[str] | None = None, filters: Any = None) -> Table:
        """Read the whole file (or the selected columns).

        ``filters`` (an :class:`~parquet_core.predicate.Expression` or pyarrow's
        DNF list of ``(column, op, value)``) keeps exactly the matching rows,
        skipping the row groups that statistics, dictionaries or Bloom filters
        rule out.
        """
        table = self._read_whole(columns) if filters is None else self._read_filtered(columns, filters, None)
        table._metadata = self.metadata.metadata
        return table

    def _read_whole(self, columns: Sequence[str] | None) -> Table:
        selected = self._select(columns)
        fields = [f for f, _ in selected]
        groups = list(range(self.num_row_groups))
        if not groups:
            return Table(Schema(fields), [empty_column(f) for f in fields], 0)
        cols = [self._read_column(groups, f, s) for f, s in selected]
        return Table(Schema(fields), cols, self.metadata.num_rows if not fields else None)

    def iter_batches(self, batch_size: int = 65536, columns: Sequence[str] | None = None,
                     row_groups: Sequence[int] | None = None, filters: Any = None) -> Iterator[Table]:
        """Yield tables of at most *batch_size* rows, row group by row group (``filters`` as in :meth:`read`)."""
        if batch_size <= 0:
            raise ValueError("batch_size must be positive")
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
        for plan in plans:
            rg = plan.index
            rows = None if plan.rows is None else np.flatnonzero(plan.rows)
            n = self.metadata.row_group(rg).num_rows if rows is None else int(rows.size)
            part = Table(Schema(fields), [self._read_rows(rg, f, s, plan.rows, rows) for f, s in selected], n)
            if expr is not None:
                probe = self._filter_columns(expr.columns(), rg, plan.rows, rows, part)
                part = filter_table(part, filter_mask(expr, probe))
            parts.append(part)
        if not parts:
            return Table(Schema(fields), [empty_column(f) for f in fields], 0)
        return parts[0] if len(parts) == 1 else Table.concat(parts, Schema(fields))

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
        try:
            data, _ = read_column_chunks([self._selected_pages(rg, shape.column, oi, keep)], desc)
            arr = to_array(data, desc)
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

    def _selected_pages(self, rg: int, idx: int, oi: OffsetIndex, keep: list[int]) -> list[Any]:
        """The data pages *keep* (one positional read each), after the chunk's dictionary page
        when one of them needs it (a chunk that fell back keeps its large dictionary unread)."""
        chunk = self.metadata.row_group(rg).column(idx)
        if chunk.file_path:
            raise UnsupportedFeatureError(f"column chunk stored in another file ({chunk.file_path!r})")
        verify = self.options.page_checksum_verification
        dec = chunk.decryptor
        size = self._source.size
        ranges = oi.row_ranges(self.metadata.row_group(rg).num_rows)
        pages: list[Any] = []
        for i in keep:
            loc = oi.page_locations[i]
            if loc.offset + loc.compressed_page_size > size:
                raise ParquetFormatError(f"offset index page {i} at {loc.offset} (+{loc.compressed_page_size} "
                                         f"bytes) is past the end of the file ({size} bytes)")
            page = read_page(self._source.read_at(loc.offset, loc.compressed_page_size), chunk.codec_id,
                             ordinal=i, verify_crc=verify, base_offset=loc.offset, decryptor=dec)
            if page is None or isinstance(page, DictionaryPage):
                raise ParquetFormatError(f"offset index page {i} at {loc.offset} is not a data page")
            want = ranges[i][1] - ranges[i][0]
            if page.num_values != want:
                raise ParquetFormatError(f"data page {i} at {loc.offset} holds {page.num_values} values; "
                                         f"the offset index gives it {want} rows")
            pages.append(page)
        if any(p.encoding in (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY) for p in pages):
            start = chunk.byte_range(size)[0]
            first = oi.page_locations[0].offset
            if start < first <= size:
                page = read_page(self._source.read_at(start, first - start), chunk.codec_id,
                                 verify_crc=verify, base_offset=start, decryptor=dec, chunk_start=True)
                if isinstance(page, DictionaryPage):
                    pages.insert(0, page)
        return pages

    def _filter_columns(self, names: set[str], rg: int, mask: npt.NDArray[np.bool_] | None,
                        rows: npt.NDArray[np.int64] | None, table: Table) -> Table:
        """A table holding each column a filter names, by that name, at the rows of *table*.

        Dotted names reach leaves inside structs; a null struct makes its
        fields null.  Leaves below a list or map cannot be filtered on (one
        value per row is needed).
        """
        fields, arrays = [], []
        for name in sorted(names):
            if name in table.column_names:
                arr = table.column(name)
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
            if type(arr) is not Array:
                raise UnsupportedFeatureError(f"filter column {name!r} is a {arr.type.name}, not a value column")
            fields.append(Field(name, arr.type))
            arrays.append(arr)
        return Table(Schema(fields), arrays, table.num_rows)

    def __repr__(self) -> str:
        return f"<ParquetFile {self.metadata!r}>"


def read_table(source: Any, columns: Sequence[str] | None = None, *, filters: Any = None,
               page_checksum_verification: bool = True, decryption: Any = None) -> Table:
    """Read a whole Parquet file into a :class:`Table` (``filters`` as in :meth:`ParquetFile.read`;
    ``decryption`` as in :class:`ParquetFile`)."""
    with ParquetFile(source, page_checksum_verification=page_checksum_verification,
                     decryption=decryption) as pf:
        return pf.read(columns, filters=filters)


def read_metadata(source: Any, *, decryption: Any = None) -> FileMetadata:
    """Read only the footer."""
    with ParquetFile(source, decryption=decryption) as pf:
        return pf.metadata


def read_schema(source: Any, *, decryption: Any = None) -> Schema:
    """Read only the schema."""
    with ParquetFile(source, decryption=decryption) as pf:
        return pf.schema
