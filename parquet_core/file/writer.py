"""``ParquetWriter`` and ``write_table``: the write path from a Table to a file.

::

    ParquetWriter(where, schema, <options>)
      options.format_options                 version, flavor, timestamp storage
      schema.file_types.file_schema          the file's names and types
      schema.elements.schema_to_elements -> SchemaElements -> SchemaDescriptor
      options.writer_options                 validated once, resolved per leaf
      file.sink.open_sink                    temp file beside the target
    ParquetWriter.write_table(data)
      table.ingest.as_table                  inference / casting / validation (nothing written yet)
      table.file_values.to_file_table        to the file's types (lossy timestamp changes refused)
      for each row-group slice, for each leaf (in a thread pool when use_threads):
        schema.physical.to_physical          logical storage -> physical values
        column.writer.write_column_chunk     dictionary, pages, statistics, page index entries,
                                             Bloom filter
      in column order: sink.write(pages), then the row group's Bloom filters
    ParquetWriter.close()
      column indexes, offset indexes, footer (FileMetaData), length, PAR1
      sink.commit()                          atomic rename into place

With ``encryption=FileEncryptionProperties(...)`` a
:class:`~parquet_core.encryption.encryptor.FileEncryptor` gives each encrypted
chunk its encryptor (pages, headers, Bloom filters, page indexes and
column metadata become encrypted modules) and writes the encrypted
(``PARE``) or signed plaintext (``PAR1``) footer. Without it,
:data:`~parquet_core.encryption.context.PLAINTEXT_FILE` (the same protocol)
passes every module through.

Row groups are written as they fill, so memory holds one row group's
encoded pages at a time, never the whole dataset.
"""

from __future__ import annotations

import copy
import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.data import ColumnData
from parquet_core.column.writer import ChunkResult, write_column_chunk
from parquet_core.errors import ParquetError, add_context
from parquet_core.errors import file_context, names_file, path_of
from parquet_core.encryption.context import PLAINTEXT_FILE, ChunkEncryption, FileEncryption
from parquet_core.encryption.encryptor import FileEncryptor
from parquet_core.file.sink import Sink, open_sink
from parquet_core.encryption.properties import FileEncryptionProperties
from parquet_core.metadata.statistics import column_order_struct
from parquet_core.options import (
    WRITER_DEFAULTS as _D, BoolPerColumn, FormatOptions, PerColumn, WriterOptions,
    document_writer_options, format_options, kv_strings, writer_arguments, writer_options,
)
from parquet_core.schema.descriptor import ColumnDescriptor, SchemaDescriptor
from parquet_core.schema.elements import schema_to_elements
from parquet_core.schema.file_types import file_schema
from parquet_core.schema.physical import to_physical
from parquet_core.schema.types import Schema
from parquet_core.table.arrays import Array, Table
from parquet_core.table.dictionary import chunk_dictionaries
from parquet_core.table.file_values import to_file_table
from parquet_core.interop.ingest import as_table, input_stream
from parquet_core.table.shred import ShreddedLeaf, nested_nbytes, shred
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize

__all__ = ["ParquetWriter", "write_table", "CREATED_BY"]

#: ``created_by`` in the spec's recommended form: ``<app> version <semver> (build <hash>)``.
CREATED_BY = "parquet-core version 0.1.0 (build 0)"


def _as_schema(schema: Any) -> Schema:
    if isinstance(schema, Schema):
        return schema
    if type(schema).__module__.startswith("pyarrow"):
        from parquet_core.interop.arrow import schema_from_arrow

        return schema_from_arrow(schema)
    raise TypeError(f"schema must be a parquet_core Schema or a pyarrow Schema, not {type(schema).__name__}")


def _nonnull(values: Any, validity: np.ndarray | None) -> Any:
    if validity is None:
        return values
    idx = np.flatnonzero(validity)
    if isinstance(values, ByteArrays):
        return values.take(idx)
    return values[idx]


def _row_bytes(table: Table) -> float:
    """Approximate in-memory bytes per row (sizes row groups by bytes)."""
    total = 0
    for col in table.columns:
        v = col.values
        if col.type.is_nested:
            total += nested_nbytes(col)
        else:
            total += v.data.nbytes + v.offsets.nbytes if isinstance(v, ByteArrays) else np.asarray(v).nbytes
    return total / max(table.num_rows, 1)


class _NestedLeaf:
    """A shredded leaf of the whole table, cut into row groups by record."""

    def __init__(self, leaf: ShreddedLeaf) -> None:
        self.leaf = leaf
        n = leaf.num_levels
        reps, defs = leaf.rep_levels, leaf.def_levels
        self.record_starts = None if reps is None else \
            np.append(np.flatnonzero(reps == 0), n).astype(np.int64)
        self.value_at = None
        if defs is not None:
            self.value_at = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(defs == leaf.max_def, out=self.value_at[1:])

    def rows(self, start: int, stop: int) -> tuple[Any, Any, Any, int]:
        """(values, defs, reps, num_levels) of records ``start:stop``."""
        lf = self.leaf
        s0, s1 = (start, stop) if self.record_starts is None else \
            (int(self.record_starts[start]), int(self.record_starts[stop]))
        v0, v1 = (s0, s1) if self.value_at is None else (int(self.value_at[s0]), int(self.value_at[s1]))
        vals = lf.values.slice(v0, v1) if isinstance(lf.values, ByteArrays) else lf.values[v0:v1]
        defs = None if lf.def_levels is None else lf.def_levels[s0:s1]
        reps = None if lf.rep_levels is None else lf.rep_levels[s0:s1]
        return vals, defs, reps, s1 - s0


class ParquetWriter:
    """Write a Parquet file row group by row group.

    Use as a context manager, or call :meth:`close`; on an exception inside
    the ``with`` block the partial output is discarded.

    Parameters
    ----------
    where : path, URL or binary file object
        A path (written atomically through a temporary file), a URL
        (``s3://...``, with ``storage_options``; put with one request at
        ``close()``), a path inside ``filesystem`` (an fsspec file system), or
        a writable binary file object.
    schema : Schema or pyarrow.Schema
        A :class:`parquet_core.Schema` (see :func:`parquet_core.schema`) or a
        ``pyarrow.Schema``: the tables written must fit it. The file's own
        names and types follow from it and the options below (see
        :attr:`file_schema`).
    {writer options}

    Raises
    ------
    TypeError
        For an unknown option name, or an option value of the wrong kind.
    ValueError
        For an option value outside its allowed set (the message lists it).
    """

    @names_file("writing")
    def __init__(
        self, where: Any, schema: Any, *,
        version: str = _D["version"],
        flavor: str | None = _D["flavor"],
        use_deprecated_int96_timestamps: bool | None = _D["use_deprecated_int96_timestamps"],
        coerce_timestamps: str | None = _D["coerce_timestamps"],
        allow_truncated_timestamps: bool = _D["allow_truncated_timestamps"],
        compression: PerColumn[str | None] = _D["compression"],
        compression_level: PerColumn[int | None] = _D["compression_level"],
        use_dictionary: BoolPerColumn = _D["use_dictionary"],
        column_encoding: PerColumn[str | None] = _D["column_encoding"],
        use_byte_stream_split: BoolPerColumn = _D["use_byte_stream_split"],
        write_statistics: BoolPerColumn = _D["write_statistics"],
        statistics_truncate_length: PerColumn[int | None] = _D["statistics_truncate_length"],
        column_index_truncate_length: PerColumn[int | None] = _D["column_index_truncate_length"],
        bloom_filter_options: Mapping[str | None, Any] | None = _D["bloom_filter_options"],
        column_key_value_metadata: Mapping[str | None, Mapping[str, str]] | None
        = _D["column_key_value_metadata"],
        data_page_version: str = _D["data_page_version"],
        data_page_size: int | None = _D["data_page_size"],
        data_page_row_count_limit: int = _D["data_page_row_count_limit"],
        dictionary_pagesize_limit: int | None = _D["dictionary_pagesize_limit"],
        row_group_size: int | None = _D["row_group_size"],
        row_group_bytes: int | None = _D["row_group_bytes"],
        write_page_index: bool = _D["write_page_index"],
        write_page_statistics: bool | None = _D["write_page_statistics"],
        write_size_statistics: bool = _D["write_size_statistics"],
        write_page_checksum: bool = _D["write_page_checksum"],
        sorting_columns: Sequence[Any] | None = _D["sorting_columns"],
        key_value_metadata: Mapping[Any, Any] | None = _D["key_value_metadata"],
        created_by: str | None = _D["created_by"],
        validate_utf8: bool = _D["validate_utf8"],
        legacy_list_layout: bool = _D["legacy_list_layout"],
        use_compliant_nested_type: bool = _D["use_compliant_nested_type"],
        write_time_adjusted_to_utc: bool = _D["write_time_adjusted_to_utc"],
        encryption: FileEncryptionProperties | None = _D["encryption"],
        store_schema: bool = _D["store_schema"],
        float_column_order: str = _D["float_column_order"],
        int96_statistics: bool = _D["int96_statistics"],
        use_threads: bool = _D["use_threads"],
        filesystem: Any = None,
        storage_options: Mapping[str, Any] | None = None,
        **pyarrow_options: Any,
    ) -> None:
        # every keyword above but the last two (where the file goes) is an option of
        # options.WRITER_OPTIONS (a unit test checks it); pyarrow's names for some of
        # them, and its tuning knobs, arrive in pyarrow_options (options.pyarrow)
        options = {name: value for name, value in locals().items() if name in _D}
        options.update(pyarrow_options)
        self._path = path_of(where)   # named in every error (see errors.names_file)
        self.schema = _as_schema(schema)
        fmt: FormatOptions = format_options(**options)
        #: the names and types the file stores (``version``, ``coerce_timestamps``, ``flavor``)
        self.file_schema = file_schema(
            self.schema, version=fmt.version, coerce_timestamps=fmt.coerce_timestamps,
            int96_timestamps=fmt.use_deprecated_int96_timestamps, flavor=fmt.flavor,
            time_adjusted_to_utc=fmt.write_time_adjusted_to_utc)
        self._elements = schema_to_elements(self.file_schema, int96_timestamps=fmt.use_deprecated_int96_timestamps,
                                            legacy_list_layout=fmt.legacy_list_layout,
                                            list_element_name="element" if fmt.use_compliant_nested_type
                                            else "item")
        self._descriptor = SchemaDescriptor(self._elements)
        paths = [d.dotted_path for d in self._descriptor]
        #: every option, checked once and resolved per leaf
        self.options: WriterOptions = writer_options(
            paths, {d.dotted_path: d.physical_type for d in self._descriptor}, resolved_format=fmt, **options)
        self._store_schema = self.options.store_schema
        # footer key/values from a pyarrow schema now, else from the first table written
        self._schema_kv: dict[str, Any] | None = None
        if not isinstance(schema, Schema):
            self._adopt_key_values(schema)
        self._row_groups: list[Any] = []
        self._indexes: list[list[tuple[Any, Any]]] = []
        self._num_rows = 0
        self._closed = False
        encryption = self.options.encryption
        self._encryptor: FileEncryption = PLAINTEXT_FILE if encryption is None else \
            FileEncryptor(encryption, paths)
        self._crypts: list[list[ChunkEncryption]] = []   # per row group, per leaf
        self._pool: ThreadPoolExecutor | None = None   # made on the first threaded row group
        self._pool_workers = 0
        self._sink: Sink = open_sink(where, filesystem, storage_options)
        try:
            self._sink.write(self._encryptor.magic)
        except BaseException:
            self._sink.abort()
            raise

    # -- context management -------------------------------------------------
    def __enter__(self) -> "ParquetWriter":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def abort(self) -> None:
        """Discard everything written so far (the target is left untouched)."""
        self._shutdown_pool()
        if not self._closed:
            self._closed = True
            self._sink.abort()

    # -- writing -------------------------------------------------------------
    @names_file("writing")
    def write_table(self, data: Any = None, row_group_size: int | None = None, *,
                    table: Any = None) -> None:
        """Write *data* as one or more row groups (``table=`` is pyarrow's name of *data*).

        *data* is a Table, a mapping of columns, a pandas DataFrame, a pyarrow Table or
        RecordBatch, or any object with ``__arrow_c_stream__`` / ``__arrow_c_array__``
        (a polars DataFrame, a duckdb relation, a pyarrow RecordBatchReader...).  A
        stream is consumed batch by batch: batches are gathered up to
        ``row_group_size`` rows and written as they fill row groups, so the whole
        input is never held at once.
        """
        if table is not None:
            if data is not None:
                raise TypeError("write_table: data and table name the same argument; give one")
            data = table
        elif data is None:
            raise TypeError("write_table() missing the data to write (data= or pyarrow's table=)")
        if self._closed:
            raise ValueError("cannot write to a closed ParquetWriter")
        stream = input_stream(data, self.schema, validate_utf8=self.options.validate_utf8)
        if stream is not None:
            self._write_stream(stream[1], row_group_size)
            return
        self._write_one(data, row_group_size)

    write_batch = write_table
    write = write_table

    def _write_stream(self, batches: Iterator[Table], row_group_size: int | None) -> None:
        """Write a stream's batches, row groups of ``row_group_size`` rows (the last shorter)."""
        size = row_group_size or self.options.row_group_size
        pending: list[Table] = []
        rows = 0
        for batch in batches:
            if self._schema_kv is None and batch.metadata:
                # what the stream's schema brings (ARROW:schema for durations...): batches
                # are concatenated below, which keeps no metadata
                self._adopt_key_values(batch)
            if batch.num_rows == 0:
                continue
            pending.append(batch)
            rows += batch.num_rows
            if rows >= size:
                table = Table.concat(pending) if len(pending) > 1 else pending[0]
                full = rows - rows % size
                self._write_one(table.slice_rows(0, full), size)
                rest = table.slice_rows(full, rows)
                pending, rows = ([rest], rest.num_rows) if rest.num_rows else ([], 0)
        if pending or not self._row_groups:
            table = Table.concat(pending, self.schema) if len(pending) != 1 else pending[0]
            self._write_one(table, size)

    def _write_one(self, data: Any, row_group_size: int | None) -> None:
        # validation errors leave the writer usable: nothing was written for this call
        table = as_table(data, self.schema, validate_utf8=self.options.validate_utf8)
        if self._schema_kv is None:
            # a converted frame carries its pandas metadata; other data brings its own
            self._adopt_key_values(table if table.metadata else data)
        if self.file_schema != self.schema:
            table = self._to_file(table)
        # nested columns are shredded whole before anything is written: the walk
        # validates them (nulls in required children, null map keys)
        nested = self._shred(table)
        try:
            size = row_group_size or self.options.row_group_size
            if self.options.row_group_bytes is not None and table.num_rows:
                per_row = _row_bytes(table)
                if per_row > 0:
                    size = min(size, max(1, int(self.options.row_group_bytes // per_row)))
            for start in range(0, table.num_rows, size):
                self._write_row_group(table.slice_rows(start, start + size), nested, start)
        except BaseException:
            self.abort()
            raise

    def _adopt_key_values(self, source: Any) -> None:
        from parquet_core.interop.stored_schema import footer_key_values, schema_key_values_of

        self._schema_kv = footer_key_values(schema_key_values_of(source), self.schema,
                                            self._store_schema)

    def _to_file(self, table: Table) -> Table:
        """*table* in the file's names and types (a lossy timestamp change raises)."""
        fmt = self.options.format
        if fmt.coerce_timestamps is not None:
            hint = "pass allow_truncated_timestamps=True to cut such values toward zero"
        else:
            hint = (f"version={fmt.version!r} stores nanosecond timestamps as microseconds; keep "
                    "them with version='2.6', or pass coerce_timestamps='us' with "
                    "allow_truncated_timestamps=True to cut them")
        return to_file_table(table, self.file_schema, hint=hint, allow_truncated_timestamps=(
            fmt.allow_truncated_timestamps and fmt.coerce_timestamps is not None))

    def _shred(self, table: Table) -> dict[int, list[_NestedLeaf]]:
        """Shred every nested column of *table* (keyed by column position)."""
        out = {}
        for i, (f, col) in enumerate(zip(table.schema, table.columns)):
            if f.type.is_nested:
                out[i] = [_NestedLeaf(leaf) for leaf in shred(col, f)]
        return out

    def _leaf_data(self, table: Table, nested: dict[int, list[_NestedLeaf]],
                   first_row: int) -> Any:
        """Yield (descriptor, ColumnData thunk) for every leaf, in schema order."""
        descs = iter(self._descriptor)
        stop = first_row + table.num_rows
        for i, column in enumerate(table.columns):
            if i not in nested:
                desc = next(descs)
                yield desc, (lambda d=desc, c=column: self._column_data(d, c))
                continue
            for nl in nested[i]:
                desc = next(descs)
                yield desc, (lambda d=desc, nl=nl: self._nested_data(d, nl, first_row, stop))

    @staticmethod
    def _nested_data(desc: ColumnDescriptor, nl: _NestedLeaf, start: int, stop: int) -> ColumnData:
        vals, defs, reps, n = nl.rows(start, stop)
        return ColumnData(values=to_physical(desc, nl.leaf.type, vals), def_levels=defs,
                          rep_levels=reps, num_levels=n)

    def _write_row_group(self, table: Table, nested: dict[int, list[_NestedLeaf]] | None = None,
                         first_row: int = 0) -> None:
        if table.num_rows == 0:
            return
        ordinal = len(self._row_groups)
        chunks = []
        indexes = []
        blooms: list[bytes | None] = []
        total_uncompressed = 0
        start = self._sink.offset
        crypts: list[ChunkEncryption] = []
        leaves = list(self._leaf_data(table, nested or {}, first_row))
        for col, (desc, make) in enumerate(leaves):
            try:
                crypts.append(self._encryptor.chunk(desc.dotted_path, ordinal, col))
            except ParquetError as exc:
                add_context(exc, column=desc.dotted_path, row_group=ordinal)
                raise
        for result in self._encoded_chunks(leaves, crypts, ordinal):
            for page in result.pages:
                self._sink.write(page)
            meta = result.meta
            total_uncompressed += meta.total_uncompressed_size
            chunk_start = meta.dictionary_page_offset if meta.dictionary_page_offset is not None \
                else meta.data_page_offset
            chunks.append(pt.ColumnChunk(file_offset=chunk_start, meta_data=meta))
            indexes.append((result.column_index, result.offset_index))
            blooms.append(result.bloom_filter)
        sorting = [pt.SortingColumn(column_idx=s.column_index, descending=s.descending,
                                    nulls_first=s.nulls_first) for s in self.options.sorting_columns]
        self._row_groups.append(pt.RowGroup(
            columns=chunks, total_byte_size=total_uncompressed, num_rows=table.num_rows,
            sorting_columns=sorting or None, file_offset=start,
            total_compressed_size=self._sink.offset - start, ordinal=ordinal))
        # Bloom filters go right after their row group (the spec allows any place;
        # memory then holds one row group's filters, never the whole file's)
        for chunk, bloom in zip(chunks, blooms):
            if bloom is not None:
                chunk.meta_data.bloom_filter_offset = self._sink.write(bloom)
                chunk.meta_data.bloom_filter_length = len(bloom)
        self._indexes.append(indexes)
        self._crypts.append(crypts)
        self._num_rows += table.num_rows

    def _encode_chunk(self, desc: ColumnDescriptor, make: Any, crypt: ChunkEncryption, ordinal: int,
                      offset: int) -> ChunkResult:
        """One leaf's chunk of a row group, its first byte at *offset*."""
        try:
            return write_column_chunk(make(), desc, self.options.column(desc.dotted_path),
                                      self.options, offset, crypt)
        except ParquetError as exc:
            add_context(exc, column=desc.dotted_path, row_group=ordinal)
            raise

    def _encoded_chunks(self, leaves: list[tuple[ColumnDescriptor, Any]], crypts: list[ChunkEncryption],
                        ordinal: int) -> Iterator[ChunkResult]:
        """Yield the row group's chunks in column order, each placed at the sink's offset.

        Sequentially, each chunk is encoded at the offset it will be written
        at.  With threads, every chunk is encoded at offset 0 in the pool
        and moved into place (:meth:`ChunkResult.rebase`) as its turn comes,
        so the bytes are the same; the first error in column order is raised
        and the chunks not yet started are cancelled.
        """
        pool = self._thread_pool(len(leaves), crypts)
        if pool is None:
            for (desc, make), crypt in zip(leaves, crypts):
                yield self._encode_chunk(desc, make, crypt, ordinal, self._sink.offset)
            return
        # a bounded window of chunks ahead of the one being written, so memory
        # holds a few encoded chunks, not the whole row group's
        tasks = iter(zip(leaves, crypts))
        window: deque[Future[ChunkResult]] = deque()

        def submit_next() -> None:
            for (desc, make), crypt in tasks:
                window.append(pool.submit(self._encode_chunk, desc, make, crypt, ordinal, 0))
                return

        try:
            for _ in range(2 * self._pool_workers):
                submit_next()
            while window:
                result = window.popleft().result()
                submit_next()
                result.rebase(self._sink.offset)
                yield result
        finally:
            for future in window:
                future.cancel()

    def _thread_pool(self, leaves: int, crypts: list[ChunkEncryption]) -> ThreadPoolExecutor | None:
        """The pool that encodes chunks, or None for the sequential path."""
        if not self.options.use_threads or leaves < 2 or any(c.encrypted for c in crypts):
            # encrypted chunks share cipher contexts, which are not made for threads
            return None
        workers = min(leaves, os.cpu_count() or 1)
        if workers < 2:
            return None
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pqc-write")
            self._pool_workers = workers
        return self._pool

    def _shutdown_pool(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            self._pool = None
            pool.shutdown(wait=True, cancel_futures=True)

    @staticmethod
    def _column_data(desc: ColumnDescriptor, column: Array) -> ColumnData:
        validity = column.validity
        values = to_physical(desc, column.type, _nonnull(column.values, validity))
        defs = None
        if validity is not None and desc.max_definition_level > 0:
            defs = validity.astype(np.int16)
        # a dictionary column (Arrow dictionary, pandas categorical) brings its dictionary
        given = chunk_dictionaries(column, lambda d: to_physical(desc, column.type, d))
        return ColumnData(values=values, def_levels=defs, rep_levels=None, num_levels=len(column),
                          dictionaries=given)

    # -- finishing -----------------------------------------------------------
    def _write_page_indexes(self) -> None:
        if not self.options.write_page_index:
            return
        for rg, indexes, crypts in zip(self._row_groups, self._indexes, self._crypts):
            for chunk, (column_index, _), crypt in zip(rg.columns, indexes, crypts):
                if column_index is not None:
                    buf = crypt.column_index(serialize(column_index))
                    chunk.column_index_offset = self._sink.write(buf)
                    chunk.column_index_length = len(buf)
        for rg, indexes, crypts in zip(self._row_groups, self._indexes, self._crypts):
            for chunk, (_, offset_index), crypt in zip(rg.columns, indexes, crypts):
                buf = crypt.offset_index(serialize(offset_index))
                chunk.offset_index_offset = self._sink.write(buf)
                chunk.offset_index_length = len(buf)

    def _footer_row_groups(self) -> list[Any]:
        """Row groups as the footer holds them (encrypted chunks' metadata rewritten)."""
        enc = self._encryptor
        paths = [d.dotted_path for d in self._descriptor]
        out = []
        for rg, crypts in zip(self._row_groups, self._crypts):
            rg_out = copy.copy(rg)
            rg_out.columns = [enc.footer_chunk(chunk, path, crypt)
                              for chunk, path, crypt in zip(rg.columns, paths, crypts)]
            out.append(rg_out)
        return out

    def add_key_value_metadata(self, key_value_metadata: Mapping[Any, Any]) -> None:
        """Add footer key/value metadata before :meth:`close`, as pyarrow's (later calls win)."""
        if self._closed:
            raise ValueError("cannot add metadata to a closed ParquetWriter")
        added = kv_strings(key_value_metadata, "key_value_metadata")
        self._added_kv = {**getattr(self, "_added_kv", {}), **added}

    def _footer(self) -> Any:
        kv = {**(self._schema_kv or {}), **(self.options.key_value_metadata or {}),
              **getattr(self, "_added_kv", {})}
        return pt.FileMetaData(
            version=self.options.format.format_version, schema=self._elements, num_rows=self._num_rows,
            row_groups=self._footer_row_groups(),
            key_value_metadata=[pt.KeyValue(key=k, value=v) for k, v in kv.items()] if kv else None,
            created_by=self.options.created_by or CREATED_BY,
            column_orders=[column_order_struct(self.options.column_order(d)) for d in self._descriptor])

    @names_file("writing")
    def close(self) -> None:
        """Write the page indexes and the footer, then publish the file."""
        if self._closed:
            return
        self._shutdown_pool()
        try:
            self._write_page_indexes()
            self._sink.write(self._encryptor.footer_tail(self._footer()))
            hook = self._encryptor.on_file_written
            if hook is not None:
                # e.g. the key tools storing external key material beside the file;
                # if it fails the file is not published
                hook(getattr(self._sink, "path", None))
            self._closed = True
            self._sink.commit()
        except BaseException:
            self._closed = True
            self._sink.abort()
            raise

    @property
    def num_rows(self) -> int:
        """Rows written so far."""
        return self._num_rows


def write_table(
    data: Any, where: Any, schema: Any = None, *,
    version: str = _D["version"],
    flavor: str | None = _D["flavor"],
    use_deprecated_int96_timestamps: bool | None = _D["use_deprecated_int96_timestamps"],
    coerce_timestamps: str | None = _D["coerce_timestamps"],
    allow_truncated_timestamps: bool = _D["allow_truncated_timestamps"],
    compression: PerColumn[str | None] = _D["compression"],
    compression_level: PerColumn[int | None] = _D["compression_level"],
    use_dictionary: BoolPerColumn = _D["use_dictionary"],
    column_encoding: PerColumn[str | None] = _D["column_encoding"],
    use_byte_stream_split: BoolPerColumn = _D["use_byte_stream_split"],
    write_statistics: BoolPerColumn = _D["write_statistics"],
    statistics_truncate_length: PerColumn[int | None] = _D["statistics_truncate_length"],
    column_index_truncate_length: PerColumn[int | None] = _D["column_index_truncate_length"],
    bloom_filter_options: Mapping[str | None, Any] | None = _D["bloom_filter_options"],
    column_key_value_metadata: Mapping[str | None, Mapping[str, str]] | None
    = _D["column_key_value_metadata"],
    data_page_version: str = _D["data_page_version"],
    data_page_size: int | None = _D["data_page_size"],
    data_page_row_count_limit: int = _D["data_page_row_count_limit"],
    dictionary_pagesize_limit: int | None = _D["dictionary_pagesize_limit"],
    row_group_size: int | None = _D["row_group_size"],
    row_group_bytes: int | None = _D["row_group_bytes"],
    write_page_index: bool = _D["write_page_index"],
    write_page_statistics: bool | None = _D["write_page_statistics"],
    write_size_statistics: bool = _D["write_size_statistics"],
    write_page_checksum: bool = _D["write_page_checksum"],
    sorting_columns: Sequence[Any] | None = _D["sorting_columns"],
    key_value_metadata: Mapping[Any, Any] | None = _D["key_value_metadata"],
    created_by: str | None = _D["created_by"],
    validate_utf8: bool = _D["validate_utf8"],
    legacy_list_layout: bool = _D["legacy_list_layout"],
    use_compliant_nested_type: bool = _D["use_compliant_nested_type"],
    write_time_adjusted_to_utc: bool = _D["write_time_adjusted_to_utc"],
    encryption: FileEncryptionProperties | None = _D["encryption"],
    store_schema: bool = _D["store_schema"],
    float_column_order: str = _D["float_column_order"],
    int96_statistics: bool = _D["int96_statistics"],
    use_threads: bool = _D["use_threads"],
    filesystem: Any = None,
    storage_options: Mapping[str, Any] | None = None,
    **pyarrow_options: Any,
) -> None:
    """Write *data* to *where* as a Parquet file (one :class:`ParquetWriter` pass).

    Parameters
    ----------
    data : Table, mapping, pandas.DataFrame, pyarrow.Table or Arrow stream
        A :class:`Table`, a mapping of column name to numpy array / list, a
        pandas DataFrame, a pyarrow Table, or any object with ``__arrow_c_stream__``
        / ``__arrow_c_array__`` (a polars DataFrame, a duckdb relation, a pyarrow
        RecordBatchReader), whose batches are written as they come.
    where : path, URL or binary file object
        A path (written atomically), a URL (``s3://...``, with ``storage_options``),
        a path inside ``filesystem`` (an fsspec file system), or a writable binary
        file object.
    schema : Schema, pyarrow.Schema or None, default None
        Explicit schema (values are cast and validated against it);
        inferred from the data when omitted.
    {writer options}

    Raises
    ------
    ParquetSchemaError
        The data does not fit the schema, or a timestamp would lose digits.
    TypeError, ValueError
        For unknown options or option values outside their allowed set.
    """
    # every keyword above is an option of options.WRITER_OPTIONS (a unit test checks it);
    # pyarrow's names and tuning knobs are resolved by options.writer_arguments
    if isinstance(schema, int) and not isinstance(schema, bool):
        # pyarrow's third positional argument is row_group_size (ours is schema)
        schema, row_group_size = None, schema
    options = {name: value for name, value in locals().items() if name in _D}
    options.update(pyarrow_options)
    row_group_size = writer_arguments(options)["row_group_size"]   # pyarrow's chunk_size
    with file_context(path_of(where), "writing"):
        stream = input_stream(data, None if schema is None else _as_schema(schema),
                              validate_utf8=validate_utf8)
        if stream is not None:   # a polars DataFrame, a duckdb relation...: batch by batch
            with ParquetWriter(where, schema if schema is not None else stream[0], filesystem=filesystem,
                               storage_options=storage_options, **options) as writer:
                writer._write_stream(stream[1], row_group_size)
            return
        table = as_table(data, None if schema is None else _as_schema(schema),
                         validate_utf8=validate_utf8)
        # a pyarrow schema given brings its key/values, else the converted data brings its own
        arrow_schema = schema is not None and not isinstance(schema, Schema)
        with ParquetWriter(where, schema if arrow_schema else table.schema, filesystem=filesystem,
                           storage_options=storage_options, **options) as writer:
            writer.write_table(table)


ParquetWriter.__doc__ = document_writer_options(ParquetWriter.__doc__)
write_table.__doc__ = document_writer_options(write_table.__doc__)
