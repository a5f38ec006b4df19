"""``ParquetFile`` and ``read_table``: the read path from a source to a Table.

``ParquetFile`` is a facade over the column-chunk layer::

    ParquetFile(source)
      footer.read_footer -> pt.FileMetadata -> FileMetadata (wrappers + schema)
      FileColumns      names -> top-level fields, shapes, leaf indexes      (file/columns.py)
      ChunkSources     the file and its file_path siblings                  (file/chunk_reader.py)
      FileIndexes      lazy, cached page indexes, Bloom filters, dictionaries (file/indexes.py)
      RowGroupPlanner  filters -> row groups and rows to read               (file/pushdown.py)
    read / read_row_group(s)      scan.read_fields: (leaf, row group) tasks, threads optional
      ColumnChunkReader.pages     one positional read per chunk, page.reader.iter_pages
      column.reader               levels + values -> ColumnData
      table.leaves.field_array    flat or nested: table's decision -> Array
    iter_batches                  batches.iter_batches: page by page, bounded memory
      -> Table
"""

from __future__ import annotations

import os
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Iterator, Protocol, Sequence, TypeGuard

from parquet_core.errors import ParquetError, UnsupportedFeatureError, file_context, names_file, path_of
from parquet_core.file.columns import FileColumns
from parquet_core.file.filesystem import FileSystem, IOStats, is_url, resolve_filesystem
from parquet_core.file.footer import read_footer
from parquet_core.file.source import RandomAccessSource, open_source
from parquet_core.metadata.wrappers import FileMetadata
from parquet_core.options.reader import ReaderOptions, document_reader_options, reader_options
from parquet_core.schema.types import Schema, ambiguous_name

# Opening a file reads its footer and builds its schema, nothing more: the decode stack
# (pages, codecs, encodings, kernels, Arrow assembly), the pruning planner and the page
# indexes are imported where they are first used, so a process that only asks for a
# schema or row counts (a Spark schema or planning worker, ``pqc schema``) never loads
# them.  tests/unit/file/test_open_imports.py names what must stay out.
if TYPE_CHECKING:
    from parquet_core.encryption.properties import FileDecryptionProperties
    from parquet_core.file.bloom_filter_reader import ColumnBloomFilter
    from parquet_core.file.chunk_reader import ChunkSources, ColumnChunkReader
    from parquet_core.file.columns import Selected
    from parquet_core.file.indexes import FileIndexes
    from parquet_core.file.pushdown import PruneReport, RowGroupPlanner
    from parquet_core.file.scan import ReadContext
    from parquet_core.metadata.page_index import ColumnIndex, OffsetIndex
    from parquet_core.page.reader import PageHeaderInfo
    from parquet_core.schema.descriptor import SchemaDescriptor
    from parquet_core.table.arrays import Array, Table

__all__ = ["ParquetFile", "IsAFolderError", "StrictValidator"]


class IsAFolderError(IsADirectoryError, ParquetError):
    """``ParquetFile`` was given a folder: it opens one file; a folder is a dataset.

    Both an ``IsADirectoryError`` (what ``pyarrow.parquet.ParquetFile`` raises there) and
    a :class:`~parquet_core.errors.ParquetError`.
    """


class StrictValidator(Protocol):
    """The check behind ``strict=True``: raise ParquetFormatError when the file breaks a rule
    of the spec at *level* (``"footer"`` when the file is opened, ``"data"`` before the first
    read).  :attr:`ParquetFile.strict_validator` holds it."""

    def __call__(self, source: RandomAccessSource, level: str,
                 decryption: FileDecryptionProperties | None) -> None: ...


@lru_cache(maxsize=32)
def _dictionary_fields(encoded: bytes | str) -> frozenset[str]:
    """:func:`dictionary_field_names`, remembered: the files of a dataset share one
    ``ARROW:schema``, decoded once rather than once per file."""
    from parquet_core.metadata.arrow_ipc import dictionary_field_names

    return frozenset(dictionary_field_names(encoded))


class ParquetFile:
    """A Parquet file opened for reading.

    Parameters
    ----------
    source:
        A path, a bytes-like object, or a binary file object with ``seek``/``read``.
    options : ReaderOptions, default None
        Every option below in one object (see :class:`~parquet_core.ReaderOptions`,
        which also holds ``use_threads``, the default of the read calls); the
        keywords given beside it override its fields.
    decryption_properties : FileDecryptionProperties, default None
        pyarrow's name of ``decryption``.
    filesystem, storage_options:
        Open a path or URL through this fsspec file system / with these options.
{reader options}

    The work is done by the column-chunk layer (see the module docstring);
    :attr:`columns`, :attr:`indexes` and :attr:`planner` expose it, and
    :meth:`column_chunk` gives one chunk's :class:`ColumnChunkReader`.

    A folder is refused with :class:`IsAFolderError` (an ``IsADirectoryError``, as in
    pyarrow) naming :func:`~parquet_core.read_table` and :class:`~parquet_core.ParquetDataset`,
    even when it holds a ``_metadata`` summary: read as one file, that summary would give the
    data without the partition columns the folder names, which a dataset read adds.  Open the
    summary itself (``ParquetFile(folder + "/_metadata")``) to read the row groups it lists.
    """

    #: The check behind ``strict=True`` (:class:`StrictValidator`).  The validator sits above
    #: this layer, which cannot import it: a subclass names it in its class body, as
    #: ``pc.ParquetFile`` does (:mod:`parquet_core.entry.file`); nothing writes it at run
    #: time.  None (this class): ``strict=True`` is refused with UnsupportedFeatureError.
    strict_validator: ClassVar[StrictValidator | None] = None

    @names_file("reading")
    def __init__(self, source: Any, *, page_checksum_verification: bool | None = None,
                 decryption: FileDecryptionProperties | None = None,
                 read_dictionary: Sequence[str] | None = None,
                 filesystem: Any = None, storage_options: dict[str, Any] | None = None,
                 strict: bool | None = None, decryption_properties: FileDecryptionProperties | None = None,
                 max_page_bytes: int | None = None, max_decoded_bytes: int | None = None,
                 options: ReaderOptions | None = None, metadata: Any = None, common_metadata: Any = None,
                 **pyarrow_options: Any) -> None:
        #: The reading options (every keyword above but the file's location), checked once;
        #: pyarrow's tuning knobs (memory_map, pre_buffer...) are checked and have no effect
        self.options: ReaderOptions = reader_options(
            options, page_checksum_verification=page_checksum_verification, decryption=decryption,
            decryption_properties=decryption_properties, read_dictionary=read_dictionary, strict=strict,
            max_page_bytes=max_page_bytes, max_decoded_bytes=max_decoded_bytes, **pyarrow_options)
        self._setup(source, filesystem, storage_options, None)
        if metadata is not None:
            _check_given_metadata(metadata, self.metadata)

    def _setup(self, source: Any, filesystem: Any, storage_options: dict[str, Any] | None,
               footer: tuple[Any, int] | None) -> None:
        """Open *source* and its footer (*footer*: ``(raw, footer length)`` already decoded
        from this source's bytes, see :meth:`from_footer`; None: read here)."""
        self._kept_dictionaries: frozenset[str] | None = None   # worked out on first read
        self._path = path_of(source)   # named in every error (see errors.names_file)
        self._source, self._owned = _open(source, filesystem, storage_options)
        self._strict: list[str] | None = [] if self.options.strict else None   # levels already validated
        try:
            if footer is None:
                raw, footer_len, decryptor = read_footer(self._source, self.options.decryption)
            else:
                (raw, footer_len), decryptor = footer, None
            self.metadata = FileMetadata(raw, footer_len, decryptor, self._source.size)
            self._validate("footer")
        except BaseException:
            self.close()
            raise
        #: The file's columns by name (top-level fields, shapes, leaf lookup).
        self.columns = FileColumns(self.metadata)
        # the chunk sources, page indexes and planner are made on first use (see below)

    @classmethod
    def open_in(cls, filesystem: FileSystem, path: str, *, size: int | None = None,
                stats: IOStats | None = None, options: ReaderOptions | None = None,
                **kwargs: Any) -> ParquetFile:
        """Open *path* inside a resolved file system (a
        :class:`~parquet_core.file.filesystem.FileSystem`, as
        :func:`~parquet_core.file.filesystem.resolve_filesystem` gives).

        The file is read through ``filesystem.open_source(path, size, stats)``
        (*size*: the length when already known, saving a request; *stats*: an
        :class:`~parquet_core.file.filesystem.IOStats` counting the reads), errors
        name ``filesystem.display(path)`` (the URL for a store), and :meth:`close`
        closes the source.  *options* and *kwargs* are the constructor's.
        """
        return cls.from_source(filesystem.open_source(path, size, stats), filesystem.display(path),
                               options=options, **kwargs)

    @classmethod
    def from_source(cls, source: RandomAccessSource, path: str | None, *,
                    options: ReaderOptions | None = None, **kwargs: Any) -> ParquetFile:
        """Open an already opened random-access *source* (see :mod:`parquet_core.file.source`)
        that the ParquetFile then owns: :meth:`close` closes it, and so does a failure to
        open.  Errors name *path* (None: nothing).
        """
        return cls._owned_open(source, path, lambda: cls(source, options=options, **kwargs))

    @classmethod
    def from_footer(cls, source: RandomAccessSource, path: str | None, raw: Any, footer_len: int, *,
                    options: ReaderOptions) -> ParquetFile:
        """Open an already opened *source* (owned, as :meth:`from_source`) whose plaintext,
        unsigned footer was decoded elsewhere from the very bytes *source* holds: *raw*
        (a fresh object, this file's own) and the footer's length.  For a summary file
        served from a cache verified by content (``dataset/summary_cache.py``); *options*
        must ask for no decryption."""
        if options.decryption is not None:
            raise ValueError("from_footer takes plaintext footers only (no decryption)")
        def make() -> ParquetFile:
            pf = cls.__new__(cls)
            pf.options = options
            pf._setup(source, None, None, (raw, footer_len))
            return pf
        return cls._owned_open(source, path, make)

    @staticmethod
    def _owned_open(source: RandomAccessSource, path: str | None, make: Any) -> ParquetFile:
        """``make()`` with errors naming *path*; the file it makes owns *source* (closed
        here if ``make`` fails)."""
        try:
            with file_context(path, "reading"):
                pf = make()
        except BaseException:
            source.close()
            raise
        pf._path = path
        pf._owned = True
        return pf

    @cached_property
    def _sources(self) -> ChunkSources:
        from parquet_core.file.chunk_reader import ChunkSources

        return ChunkSources(self._source, False)

    @cached_property
    def indexes(self) -> FileIndexes:
        """Lazily read, cached page indexes, Bloom filters and dictionary pages."""
        from parquet_core.file.indexes import FileIndexes

        return FileIndexes(self.metadata, self._sources, self.options.page_checksum_verification, self.options)

    @cached_property
    def planner(self) -> RowGroupPlanner:
        """The pruning planner behind ``filters=`` and :meth:`explain`."""
        from parquet_core.file.pushdown import RowGroupPlanner

        return RowGroupPlanner(self.metadata, self.columns, self.indexes)

    @property
    def path(self) -> str | None:
        """The file's path as errors name it (None for bytes and anonymous streams)."""
        return self._path

    @property
    def source(self) -> RandomAccessSource:
        """The random-access source the file is read from (``prefetch`` on an object store)."""
        return self._source

    # -- the column-chunk layer --------------------------------------------------
    def _context(self) -> ReadContext:
        from parquet_core.file.scan import ReadContext
        from parquet_core.metadata.arrow_ipc import dictionary_field_names

        if self._kept_dictionaries is None:
            names = set(self.options.read_dictionary)
            for name in sorted(names):      # a name several fields share says not which to keep
                if len(found := self.columns.schema.positions(name)) > 1:
                    raise ambiguous_name(name, found, " in read_dictionary")
            encoded = (self.metadata.metadata or {}).get(b"ARROW:schema")
            if self.options.binary_type in ("large_binary", "binary_view"):
                encoded = None     # pyarrow keeps no recorded dictionary then (see read_types.py)
            if encoded is not None:   # read without pyarrow: see metadata/arrow_ipc.py
                recorded = (_dictionary_fields(encoded) if isinstance(encoded, (bytes, str))
                            else dictionary_field_names(encoded))
                # kept by name: a name several columns share would give them all dictionaries
                # (to_arrow restores the recorded types by position from the same entry)
                names |= {n for n in recorded if len(self.columns.schema.positions(n)) < 2}
            self._kept_dictionaries = frozenset(names)
        return ReadContext(self.metadata, self.columns, self.indexes, self._sources,
                           self.options.page_checksum_verification, self._kept_dictionaries,
                           self.options.read_dictionary)

    @names_file("reading")
    def column_chunk(self, row_group: int, column: str | int) -> ColumnChunkReader:
        """The :class:`ColumnChunkReader` of one column chunk (pages, dictionary, headers).

        ``column`` is a leaf's dotted path (``"a"`` or ``"a.b.c"``) or its leaf index.
        """
        idx = self.columns.leaf(column)
        if not 0 <= row_group < self.num_row_groups:
            raise IndexError(f"row group {row_group} out of range (0..{self.num_row_groups - 1})")
        return self.indexes.reader(row_group, idx)

    @names_file("reading")
    def dictionary(self, row_group: int, column: str | int) -> Array | None:
        """The values of one chunk's dictionary page (one read of it), or None if it has none."""
        self.column_chunk(row_group, column)   # checks the names
        return self.indexes.dictionary(row_group, self.columns.leaf(column))

    def _prefetch(self, groups: Sequence[int], leaves: Sequence[int]) -> None:
        self._sources.prefetch(self.metadata.row_group(rg).column(i) for rg in groups for i in leaves)

    def _validate(self, level: str) -> None:
        """``strict=True``: raise ParquetFormatError on any ``pc.check`` error, once per level."""
        if self._strict is None or level in self._strict:
            return
        check = type(self).strict_validator     # read on the class: a plain function stays unbound
        if check is None:
            raise UnsupportedFeatureError(f"strict=True needs the validator, which {type(self).__qualname__} "
                                          "does not bring: open the file as parquet_core.ParquetFile")
        check(self._source, level, self.options.decryption)
        self._strict.append(level)

    # -- context management -------------------------------------------------
    def close(self, force: bool = False) -> None:
        """Close the underlying file if this object opened it (*force*: pyarrow's, no effect)."""
        sources = self.__dict__.get("_sources")   # only when a read made them
        if sources is not None:
            sources.close()
        if getattr(self, "_owned", False):
            self._source.close()
        self._closed = True

    @property
    def closed(self) -> bool:
        """:meth:`close` was called (as pyarrow's ``ParquetFile.closed``)."""
        return getattr(self, "_closed", False)

    def scan_contents(self, columns: Sequence[str] | None = None, batch_size: int = 65536) -> int:
        """Read the columns (all by default) and return the number of rows, as pyarrow's."""
        return sum(batch.num_rows for batch in self.iter_batches(batch_size, columns=columns))

    def __enter__(self) -> ParquetFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- metadata -----------------------------------------------------------
    @property
    def num_row_groups(self) -> int:
        """Number of row groups."""
        return self.metadata.num_row_groups

    @property
    def schema(self) -> SchemaDescriptor:
        """The Parquet schema (leaf descriptors), the same object as ``metadata.schema``.

        As pyarrow's ``ParquetFile.schema``; the table schema is :attr:`schema_arrow`.
        """
        return self.metadata.schema

    @property
    def schema_descriptor(self) -> SchemaDescriptor:
        """Another name for :attr:`schema` (the Parquet schema)."""
        return self.metadata.schema

    @property
    def schema_arrow(self) -> Schema:
        """The table schema (a :class:`~parquet_core.Schema`), under pyarrow's name for it,
        as the read options make it (INT96 columns as ``coerce_int96_timestamp_unit`` reads
        them; ``to_arrow()`` with the large or view types ``binary_type`` / ``list_type`` ask
        for), as pyarrow's."""
        opts = self.options
        if opts.coerce_int96_timestamp_unit is None and opts.binary_type is None and opts.list_type is None:
            return self.columns.schema     # the common case, without loading the read-type machinery
        from parquet_core.file.read_types import typed_schema

        return typed_schema(self.columns.schema, self.metadata.metadata, opts)

    # -- data ---------------------------------------------------------------
    @names_file("reading")
    def read_row_group(self, i: int, columns: Sequence[str] | None = None, *,
                       use_threads: bool | None = None, use_pandas_metadata: bool = False) -> Table:
        """Read one row group (``use_threads``, ``use_pandas_metadata`` as in :meth:`read`)."""
        from parquet_core.file.scan import read_fields
        from parquet_core.table.arrays import Table

        use_threads = self.options.threads(use_threads)
        columns = self._with_index_columns(columns, use_pandas_metadata)
        self._validate("data")
        selected = self.columns.select(columns)
        rg = self.metadata.row_group(i)
        self._prefetch([i], self.columns.leaves_of(selected))
        try:
            cols = read_fields(self._context(), selected, [i], use_threads) if selected else []
        finally:
            self._sources.release()
        return self._typed(Table(Schema([f for f, _ in selected]), cols, rg.num_rows))

    @names_file("reading")
    def read_row_groups(self, row_groups: Sequence[int], columns: Sequence[str] | None = None,
                        filters: Any = None, *, use_threads: bool | None = None,
                        use_pandas_metadata: bool = False) -> Table:
        """Read some row groups (``filters`` as in :meth:`read`, pruning only among them)."""
        if isinstance(filters, bool):     # pyarrow's read_row_groups(groups, columns, use_threads)
            filters, use_threads = None, filters
        use_threads = self.options.threads(use_threads)
        columns = self._with_index_columns(columns, use_pandas_metadata)
        groups = [int(i) for i in row_groups]
        for i in groups:
            if not 0 <= i < self.num_row_groups:
                raise IndexError(f"row group {i} out of range (0..{self.num_row_groups - 1})")
        if filters is not None:
            return self._typed(self._read_filtered(columns, filters, groups, use_threads))
        return self._typed(self._read_groups(groups, columns, sum(self.metadata.row_group(i).num_rows
                                                                  for i in groups), use_threads))

    @names_file("reading")
    def read(self, columns: Sequence[str] | None = None, filters: Any = None, *,
             use_threads: bool | None = None, use_pandas_metadata: bool = False) -> Table:
        """Read the whole file (or the selected columns).

        ``filters`` (an :class:`~parquet_core.predicate.Expression` or pyarrow's
        DNF list of ``(column, op, value)``) keeps exactly the matching rows,
        skipping the row groups that statistics, dictionaries or Bloom filters
        rule out.  ``use_threads`` (None: the file's ``options.use_threads``, True by
        default, as in pyarrow) decodes column chunks on a thread pool; False decodes
        them one after another.  The result, and any error raised, is the same either way.
        ``use_pandas_metadata`` (with ``columns``) also reads the pandas index columns the
        file's ``pandas`` metadata names, as pyarrow does.
        """
        if isinstance(filters, bool):     # pyarrow's read(columns, use_threads): positional
            filters, use_threads = None, filters
        use_threads = self.options.threads(use_threads)
        columns = self._with_index_columns(columns, use_pandas_metadata)
        self._validate("data")
        if filters is None:
            table = self._read_groups(range(self.num_row_groups), columns, self.metadata.num_rows, use_threads)
        else:
            table = self._read_filtered(columns, filters, None, use_threads)
        return self._typed(table)

    def _typed(self, table: Table) -> Table:
        """*table* as read, given the types the options ask (see :mod:`parquet_core.file.read_types`)."""
        from parquet_core.file.read_types import apply_read_types

        return apply_read_types(table, self.metadata.metadata, self.options)

    def _with_index_columns(self, columns: Sequence[str] | None, use_pandas_metadata: bool) -> Any:
        """*columns* and, with *use_pandas_metadata*, the pandas index columns not among them."""
        if not use_pandas_metadata or columns is None:
            return columns
        return with_pandas_index_columns(columns, self.metadata.metadata)

    def _read_groups(self, groups: Sequence[int], columns: Sequence[str] | None, rows: int,
                     use_threads: bool = True) -> Table:
        """The selected columns over *groups*; *rows* counts the rows of a read without columns."""
        from parquet_core.file.scan import read_fields
        from parquet_core.table.arrays import Table
        from parquet_core.table.assemble import empty_column

        selected = self.columns.select(columns)
        fields = [f for f, _ in selected]
        groups = list(groups)
        if not groups:
            return Table(Schema(fields), [empty_column(f) for f in fields], 0)
        self._prefetch(groups, self.columns.leaves_of(selected))
        try:
            cols = read_fields(self._context(), selected, groups, use_threads) if selected else []
        finally:
            self._sources.release()
        return Table(Schema(fields), cols, rows if not fields else None)

    @names_file("reading")
    def light_read(self, columns: Sequence[str] | None = None, filters: Any = None, light: bool = True) -> Any:
        """For a dataset of small files: the selected columns decoded up to their values
        (a ``LightRead``, joined with other files' by ``file/small_files.py``) when *light*
        and the file has one row group in the light shape, and *filters* (an Expression) is
        None or matches every row by the statistics; else the file's read, as
        ``read(columns, filters=filters, use_threads=False)`` gives it (planned once)."""
        self._validate("data")
        return self.light_read_groups(None, columns, filters, light)

    def light_read_groups(self, groups: Sequence[int] | None, columns: Sequence[str] | None = None,
                          filters: Any = None, light: bool = True, use_threads: bool = False) -> Any:
        """:meth:`light_read` of row groups *groups* (None: the file's), light when they are
        one row group: for a ``_metadata`` summary, the row group it lists for one data file
        (*light* False: :meth:`read_row_groups`' table, *use_threads* as there).  Errors do
        not name this file: a summary's caller names the data file whose chunks are read."""
        from parquet_core.file.filtered import read_plans
        from parquet_core.file.small_files import LightRead, light_parts

        expr = plans = None
        group_list = None if groups is None else [int(i) for i in groups]
        if group_list is not None:
            for i in group_list:
                if not 0 <= i < self.num_row_groups:
                    raise IndexError(f"row group {i} out of range (0..{self.num_row_groups - 1})")
        if filters is not None:
            expr, _, plans = self.planner.plan(filters, group_list, None if columns is None else list(columns),
                                               measure=False)
        every = plans is None or (len(plans) == 1 and plans[0].every_row and plans[0].rows is None)
        one = (self.num_row_groups == 1) if group_list is None else len(group_list) == 1
        if light and every and one:
            rg = 0 if group_list is None else group_list[0]
            selected = self.columns.select(columns)
            ctx = self._context()
            self._prefetch([rg], self.columns.leaves_of(selected))
            try:
                parts = light_parts(ctx, selected, rg)
            finally:
                self._sources.release()
            if parts is not None:
                return LightRead(ctx, selected, parts, self.schema_arrow, self.metadata.metadata, self._typed, rg)
        if plans is None:
            if group_list is None:
                return self._typed(self._read_groups(range(self.num_row_groups), columns, self.metadata.num_rows,
                                                     use_threads))
            return self._typed(self._read_groups(group_list, columns, sum(self.metadata.row_group(i).num_rows
                                                                          for i in group_list), use_threads))
        return self._typed(read_plans(self._context(), plans, self.columns.select(columns), expr, use_threads))

    @names_file("reading")
    def iter_batches(self, batch_size: int = 65536, columns: Sequence[str] | None = None,
                     row_groups: Sequence[int] | None = None, filters: Any = None, *,
                     use_threads: bool | None = None, use_pandas_metadata: bool = False) -> Iterator[Table]:
        """Yield tables of at most *batch_size* rows (``filters`` as in :meth:`read`).

        Pages are decoded as they are needed and a batch is yielded as soon
        as it is full, so memory stays bounded by the batch (plus about one
        page per column, or a few MiB of small pages decoded together); batches run across row groups, as pyarrow's do.
        With ``filters`` each kept row group is read and filtered, then sliced.
        """
        if batch_size <= 0:
            raise ValueError("batch_size must be positive")
        if _ints(columns) and (row_groups is None or _names(row_groups)):
            # pyarrow's positional order is (batch_size, row_groups, columns): the types tell
            given_groups = columns
            columns, row_groups = row_groups, given_groups
        use_threads = self.options.threads(use_threads)
        columns = self._with_index_columns(columns, use_pandas_metadata)
        self._validate("data")
        groups = list(range(self.num_row_groups) if row_groups is None else row_groups)
        for i in groups:
            if not 0 <= i < self.num_row_groups:
                raise IndexError(f"row group {i} out of range (0..{self.num_row_groups - 1})")
        if filters is not None:
            if not groups:
                return
            from parquet_core.predicate import from_filters

            expr = from_filters(filters)        # parsed once, planned row group by row group
            selected = self.columns.select(columns)
            for i in groups:
                for batch in self._read_filtered(columns, expr, [i], use_threads, selected).iter_slices(batch_size):
                    yield self._typed(batch)
            return
        from parquet_core.file.batches import iter_batches as _stream_batches

        selected = self.columns.select(columns)
        for batch in _stream_batches(self._context(), selected, groups, batch_size, use_threads):
            yield self._typed(batch)

    def _read_filtered(self, columns: Sequence[str] | None, filters: Any, groups: list[int] | None,
                       use_threads: bool = True, selected: list[Selected] | None = None) -> Table:
        from parquet_core.file.filtered import read_plans

        if selected is None:
            selected = self.columns.select(columns)
        expr, _, plans = self.planner.plan(filters, groups, None if columns is None else list(columns),
                                           measure=False)
        return read_plans(self._context(), plans, selected, expr, use_threads)

    # -- inspection ----------------------------------------------------------
    @names_file("reading")
    def explain(self, filters: Any, columns: Sequence[str] | None = None) -> PruneReport:
        """What ``filters=`` would prune: row groups by statistics, dictionaries, Bloom filters and
        page indexes, the pages and candidate rows left, and the bytes to read."""
        return self.planner.plan(filters, columns=None if columns is None else list(columns))[1]

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
        reader = self.column_chunk(row_group, column)
        return self.indexes.bloom_filter(row_group, reader.chunk.index)

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
        reader = self.column_chunk(row_group, column)
        return reader.headers(self.metadata.column_order(reader.chunk.index))

    @names_file("reading")
    def column_index(self, row_group: int, column: str | int) -> ColumnIndex | None:
        """The chunk's ColumnIndex (per-page bounds, null pages, boundary order), or None.

        Read now, with one positional read; ``column`` as for :meth:`bloom_filter`.
        """
        reader = self.column_chunk(row_group, column)
        return self.indexes.column_index(row_group, reader.chunk.index)

    @names_file("reading")
    def offset_index(self, row_group: int, column: str | int) -> OffsetIndex | None:
        """The chunk's OffsetIndex (location and first row of every data page), or None."""
        reader = self.column_chunk(row_group, column)
        return self.indexes.offset_index(row_group, reader.chunk.index)

    def __repr__(self) -> str:
        return f"<ParquetFile {self.metadata!r}>"


def _ints(values: Any) -> TypeGuard[Sequence[int]]:
    return isinstance(values, (list, tuple, range)) and len(values) > 0 and \
        all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _names(values: Any) -> TypeGuard[Sequence[str]]:
    return isinstance(values, (list, tuple)) and all(isinstance(v, str) for v in values)


def with_pandas_index_columns(columns: Sequence[str], key_values: Any) -> list[str]:
    """*columns* followed by the index columns that the ``pandas`` key of *key_values* names
    (its ``index_columns`` that are column names; a RangeIndex is stored as a description)."""
    import json

    out = list(columns)
    raw = (key_values or {}).get(b"pandas")
    if raw:
        try:
            names = json.loads(raw).get("index_columns", [])
        except (ValueError, AttributeError):   # unreadable pandas metadata: nothing added
            names = []
        out += [n for n in names if isinstance(n, str) and n not in out]
    return out


def _check_given_metadata(given: Any, own: FileMetadata) -> None:
    """pyarrow's ``ParquetFile(metadata=)``: the file's own footer is read, and a metadata
    of another file (other counts) is refused rather than silently ignored."""
    from parquet_core.errors import ParquetFormatError

    try:
        counts = (int(given.num_rows), int(given.num_row_groups), int(given.num_columns))
    except (AttributeError, TypeError, ValueError):
        raise TypeError(f"metadata must be a FileMetadata, not {type(given).__name__}") from None
    mine = (own.num_rows, own.num_row_groups, own.num_columns)
    if counts != mine:
        raise ParquetFormatError(f"the metadata given (rows, row groups, columns = {counts}) is not "
                                 f"this file's {mine}")


def _open(source: Any, filesystem: Any, storage_options: dict[str, Any] | None) -> tuple[Any, bool]:
    """Open *source* as a random-access source, through a file system for URLs / ``filesystem=``."""
    if filesystem is not None or storage_options or is_url(source):
        if not isinstance(source, (str, os.PathLike)):
            raise TypeError("filesystem= and storage_options= need a path, not a "
                            f"{type(source).__name__}")
        fs, (path,) = resolve_filesystem([source], filesystem, storage_options)
        if fs.kind(path) == "directory":
            raise _folder_error(os.fspath(source), fs.kind(fs.join(path, "_metadata")) == "file")
        return fs.open_source(path), True
    if isinstance(source, (str, os.PathLike)) and os.path.isdir(source):
        raise _folder_error(os.fspath(source), os.path.isfile(os.path.join(source, "_metadata")))
    return open_source(source)


def _folder_error(path: str, has_summary: bool) -> IsAFolderError:
    hint = (f"; it has a _metadata summary: pc.read_metadata({path!r}) gives it, and "
            f"pc.ParquetFile({path.rstrip('/') + '/_metadata'!r}) reads the row groups it lists "
            "(without partition columns)") if has_summary else ""
    return IsAFolderError(
        f"{path!r} is a folder, not a Parquet file: read it as a dataset with pc.read_table({path!r}) "
        f"or pc.ParquetDataset({path!r}) (files below it, partition folders as columns){hint}")


ParquetFile.__doc__ = (None if ParquetFile.__doc__ is None else
                       ParquetFile.__doc__.replace("{reader options}", document_reader_options(
                           ("page_checksum_verification", "decryption", "read_dictionary", "strict", "max_page_bytes",
                            "max_decoded_bytes"))))
