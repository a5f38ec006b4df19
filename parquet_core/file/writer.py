"""``ParquetWriter`` and ``write_table``: the write path from a Table to a file.

``ParquetWriter`` is a facade, like ``ParquetFile`` on the read side::

    ParquetWriter(where, schema, <options>)
      options.writer_arguments               once: names resolved, defaults filled in
      options.resolved_format_options        version, flavor, timestamp storage
      schema.file_types.file_schema          the file's names and types
      schema.elements.schema_to_elements -> SchemaElements -> SchemaDescriptor
      options.writer_options                 checked once, resolved per leaf
      file.sink.open_sink                    temp file beside the target
    ParquetWriter.write_table(data)
      interop.ingest.as_write_table          inference / casting / validation (nothing written yet)
      table.file_values.to_file_table        to the file's types (lossy timestamp changes refused)
      table.write_leaves.WriteLeaves         every leaf's levels and physical values, per row
                                             group (flat fields the trivial case, nested ones
                                             shredded; the file layer never asks which)
      file.row_group_writer.RowGroupWriter   per row group: each chunk's encryption,
                                             column.writer.write_column_chunk (in a thread
                                             pool when use_threads), pages, Bloom filters
    ParquetWriter.close()
      file.footer_writer.write_file_tail     column indexes, offset indexes, footer, length, PAR1
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

from typing import Any, Iterator, Mapping

from parquet_core.encryption.context import PLAINTEXT_FILE, FileEncryption
from parquet_core.encryption.encryptor import FileEncryptor
from parquet_core.errors import file_context, names_file, path_of
from parquet_core.file.footer_writer import FooterContent, write_file_tail
from parquet_core.file.row_group_writer import RowGroupWriter, WrittenRowGroup
from parquet_core.file.sink import Sink, open_sink
from parquet_core.interop.ingest import as_write_table, input_stream
from parquet_core.options import (
    WRITER_DEFAULTS,
    FormatOptions,
    WriterOptions,
    document_writer_options,
    kv_strings,
    resolved_format_options,
    writer_arguments,
    writer_options,
)
from parquet_core.options.presets import check_compatible, preset_defaults
from parquet_core.options.signature import writer_signature
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.elements import schema_to_elements
from parquet_core.schema.file_types import file_schema
from parquet_core.schema.types import Schema
from parquet_core.table.arrays import Table
from parquet_core.table.file_values import to_file_table
from parquet_core.table.write_leaves import WriteLeaves, bytes_per_row

__all__ = ["ParquetWriter", "write_table", "as_writer_schema", "CREATED_BY"]

#: ``created_by`` in the spec's recommended form: ``<app> version <semver> (build <hash>)``.
CREATED_BY = "parquet-core version 0.1.0 (build 0)"


def as_writer_schema(schema: Any) -> Schema:
    """*schema* (ours, or pyarrow's) as our :class:`Schema`, the way the writer takes it."""
    if isinstance(schema, Schema):
        return schema
    if type(schema).__module__.startswith("pyarrow"):
        from parquet_core.interop.arrow import schema_from_arrow

        return schema_from_arrow(schema)
    raise TypeError(f"schema must be a parquet_core Schema or a pyarrow Schema, not {type(schema).__name__}")


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

    @writer_signature
    @names_file("writing")
    def __init__(self, where: Any, schema: Any, *, filesystem: Any = None,
                 storage_options: Mapping[str, Any] | None = None, **pyarrow_options: Any) -> None:
        # the writer options (options.WRITER_OPTIONS, shown in the signature by
        # options.signature.writer_signature) and pyarrow's names for some of them and
        # its tuning knobs (options.pyarrow) all arrive in pyarrow_options
        # compatible_with= changes the options left at their defaults to what its reader reads
        args = preset_defaults(writer_arguments(pyarrow_options), WRITER_DEFAULTS)
        self._path = path_of(where)   # named in every error (see errors.names_file)
        self.schema = as_writer_schema(schema)
        fmt: FormatOptions = resolved_format_options(args)
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
            paths, {d.dotted_path: d.physical_type for d in self._descriptor}, resolved_format=fmt,
            resolved_arguments=args)
        check_compatible(self.options, self._elements, self._descriptor)
        # footer key/values from a pyarrow schema now, else from the first table written
        self._schema_kv: dict[str, Any] | None = None
        self._added_kv: dict[str, str] = {}
        if not isinstance(schema, Schema):
            self._adopt_key_values(schema)
        self._groups: list[WrittenRowGroup] = []
        self._num_rows = 0
        self._closed = False
        encryption = self.options.encryption
        self._encryptor: FileEncryption = PLAINTEXT_FILE if encryption is None else \
            FileEncryptor(encryption, paths)
        self._sink: Sink = open_sink(where, filesystem, storage_options)
        self._row_groups = RowGroupWriter(self._sink, self.options, self._encryptor)
        try:
            self._sink.write(self._encryptor.magic)
        except BaseException:
            self._sink.abort()
            raise

    # -- context management -------------------------------------------------
    def __enter__(self) -> ParquetWriter:
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
        if pending or not self._groups:
            table = Table.concat(pending, self.schema) if len(pending) != 1 else pending[0]
            self._write_one(table, size)

    def _write_one(self, data: Any, row_group_size: int | None) -> None:
        # validation errors leave the writer usable: nothing was written for this call
        table = as_write_table(data, self.schema, validate_utf8=self.options.validate_utf8)
        if self._schema_kv is None:
            # a converted frame carries its pandas metadata; other data brings its own
            self._adopt_key_values(table if table.metadata else data)
        if self.file_schema != self.schema:
            table = self._to_file(table)
        # nested columns are shredded whole before anything is written: the walk
        # validates them (nulls in required children, null map keys)
        leaves = WriteLeaves(table, self._descriptor)
        try:
            size = row_group_size or self.options.row_group_size
            if self.options.row_group_bytes is not None and table.num_rows:
                per_row = bytes_per_row(table)
                if per_row > 0:
                    size = min(size, max(1, int(self.options.row_group_bytes // per_row)))
            for start in range(0, table.num_rows, size):
                stop = min(start + size, table.num_rows)
                self._groups.append(self._row_groups.write(leaves.row_group(start, stop), stop - start))
                self._num_rows += stop - start
        except BaseException:
            self.abort()
            raise

    def _adopt_key_values(self, source: Any) -> None:
        from parquet_core.interop.stored_schema import footer_key_values, schema_key_values_of

        self._schema_kv = footer_key_values(schema_key_values_of(source), self.schema,
                                            self.options.store_schema)

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

    def _shutdown_pool(self) -> None:
        row_groups = getattr(self, "_row_groups", None)   # absent when __init__ failed early
        if row_groups is not None:
            row_groups.close()

    # -- finishing -----------------------------------------------------------
    def add_key_value_metadata(self, key_value_metadata: Mapping[Any, Any]) -> None:
        """Add footer key/value metadata before :meth:`close`, as pyarrow's (later calls win)."""
        if self._closed:
            raise ValueError("cannot add metadata to a closed ParquetWriter")
        self._added_kv.update(kv_strings(key_value_metadata, "key_value_metadata"))

    @names_file("writing")
    def close(self) -> None:
        """Write the page indexes and the footer, then publish the file."""
        if self._closed:
            return
        self._shutdown_pool()
        try:
            kv = {**(self._schema_kv or {}), **(self.options.key_value_metadata or {}), **self._added_kv}
            content = FooterContent(self._elements, self._descriptor, self.options, kv,
                                    self.options.created_by or CREATED_BY)
            write_file_tail(self._sink, self._groups, content, self._encryptor, self._num_rows)
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


@writer_signature
def write_table(data: Any, where: Any, schema: Any = None, *, filesystem: Any = None,
                storage_options: Mapping[str, Any] | None = None, **pyarrow_options: Any) -> None:
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
    # the writer options arrive in pyarrow_options (see ParquetWriter.__init__)
    options = dict(pyarrow_options)
    if isinstance(schema, int) and not isinstance(schema, bool):
        # pyarrow's third positional argument is row_group_size (ours is schema)
        schema, options["row_group_size"] = None, schema
    validate_utf8 = options.get("validate_utf8", WRITER_DEFAULTS["validate_utf8"])
    with file_context(path_of(where), "writing"):
        stream = input_stream(data, None if schema is None else as_writer_schema(schema),
                              validate_utf8=validate_utf8)
        if stream is not None:   # a polars DataFrame, a duckdb relation...: batch by batch
            with ParquetWriter(where, schema if schema is not None else stream[0], filesystem=filesystem,
                               storage_options=storage_options, **options) as writer:
                writer._write_stream(stream[1], None)   # row groups of the writer's row_group_size
            return
        table = as_write_table(data, None if schema is None else as_writer_schema(schema),
                               validate_utf8=validate_utf8)
        # a pyarrow schema given brings its key/values, else the converted data brings its own
        arrow_schema = schema is not None and not isinstance(schema, Schema)
        with ParquetWriter(where, schema if arrow_schema else table.schema, filesystem=filesystem,
                           storage_options=storage_options, **options) as writer:
            writer.write_table(table)


ParquetWriter.__doc__ = document_writer_options(ParquetWriter.__doc__)
write_table.__doc__ = document_writer_options(write_table.__doc__)
