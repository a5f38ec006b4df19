"""``ParquetDataset``: many Parquet files read as one table.

::

    ParquetDataset(path_or_paths, filesystem=, partitioning=, schema=, filters=)
      file.filesystem.resolve_filesystem     local disk or an fsspec store
      discovery.discover                     files (the listing), root, _metadata / _common_metadata
      metadata_file.load_summary             _metadata opened, or its decode reused when its
                                             bytes equal a kept one's (summary_cache)
      metadata_file.Summary.match            the listed files _metadata still describes
                                             (staleness.classify): footers from it, others' read
      partitioning.Partitioning.infer        key=value folders -> typed columns
    .schema                                  schemas.FooterSchemas: each footer's schema prefix,
                                             unify.SchemaUnifier over the distinct schemas
    .read(columns, filters)
      for each file:
        partial evaluation of the filter on the file's partition values
          false  -> the file is skipped before it is opened
          true   -> read the file without a filter
          else   -> the rest (on data columns) goes to ParquetFile.read(filters=),
                    which prunes by statistics, dictionaries, Bloom filters, page indexes
        unify.conform                        widen types, nulls for missing columns
        partition columns appended (one value repeated)
      Table.concat

Filters are exact: a row is kept when the whole filter is true for it, with
SQL's nulls (a null partition value matches no comparison, as in pyarrow).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Collection, Iterable, Iterator, Sequence

import numpy as np

from parquet_core.dataset.discovery import DEFAULT_IGNORE_PREFIXES, Discovery, discover
from parquet_core.dataset.partitioning import Partitioning, check_stored_values, repeat, resolve_partitioning
from parquet_core.dataset.progress import Progress
from parquet_core.dataset.recorded_types import check_recorded, recorded_meanings
from parquet_core.dataset.unify import SchemaUnifier, check_against, check_unique_names, conform
from parquet_core.errors import (
    ParquetError,
    ParquetSchemaError,
    add_context,
    note_file,
    out_of_memory,
    refuses_memory_errors,
)
from parquet_core.file.columns import FileSchema
from parquet_core.file.filesystem import FileSystem, IOStats, LocalFileSystem, resolve_filesystem
from parquet_core.file.pushdown import PruneReport
from parquet_core.file.read_types import arrow_key_values, coerce_int96_schema
from parquet_core.file.reader import ParquetFile
from parquet_core.options.reader import ReaderOptions, reader_options
from parquet_core.predicate import Expression, filter_mask, from_filters, negation_normal_form
from parquet_core.predicate.expr import And, Or
from parquet_core.schema.types import Field, Schema
from parquet_core.table.arrays import Array, Table

if TYPE_CHECKING:  # pragma: no cover - metadata_file.py imports this module
    from parquet_core.dataset.metadata_file import Summary

__all__ = ["ParquetDataset", "Fragment", "DatasetReport"]

#: A file smaller than this is decoded on the calling thread even with ``use_threads=True``:
#: handing its few small chunks to the pool costs more (task hand-offs, wake-ups) than
#: decoding them, which for a many-small-files dataset was a third of the read.
THREADS_MIN_FILE_BYTES = 1 << 20
#: Files planned from ``_metadata`` are read this many at a time (see ``_read_summarised_runs``).
SUMMARY_RUN_FILES = 256
#: Small files decoded together (``_read_small_files``) are joined in runs of at most this many
#: uncompressed bytes of the chunks read (their decompressed pages are held until their run is
#: joined).
SMALL_FILES_RUN_BYTES = 64 << 20


@dataclass(slots=True)
class Fragment:
    """One data file: its path, size and partition values (decoded text, None for null).

    Slotted: planning makes one per listed file (1,000 here cost ~1.2 ms as a plain
    dataclass, ~0.6 ms slotted with every field passed)."""

    path: str
    size: int
    partition: list[tuple[str, str | None]]
    row_groups: list[int] | None = None      # from _metadata: the row groups of this file


@dataclass
class DatasetReport:
    """What a filtered read of a dataset would do (``ParquetDataset.explain``)."""

    filter: Expression | None
    files: int = 0
    pruned_by_partition: list[str] = field(default_factory=list)
    files_opened: int = 0
    row_groups: int = 0
    row_groups_kept: int = 0
    bytes_to_read: int = 0
    requests: int = 0
    bytes_fetched: int = 0
    per_file: dict[str, PruneReport] = field(default_factory=dict)
    planned_from: str = "footers"
    #: files whose footer came from ``_metadata``, and files whose own footer is read
    footers_from_metadata: int = 0
    footers_read: int = 0
    #: ``_metadata`` entries not used (the file is gone, or was replaced), with why
    stale_metadata: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return (f"filter {self.filter!r}: {self.files - len(self.pruned_by_partition)} of {self.files} files "
                f"kept ({len(self.pruned_by_partition)} pruned by partition folders, none of them opened); "
                f"{self.row_groups_kept} of {self.row_groups} row groups kept in the files opened; "
                f"{self.bytes_to_read} column bytes to read; planning fetched {self.bytes_fetched} bytes "
                f"in {self.requests} requests (from {self.planned_from}); footers: "
                f"{self.footers_from_metadata} from _metadata, {self.footers_read} read from the files"
                + ("" if not self.stale_metadata else
                   f"; {len(self.stale_metadata)} stale _metadata entries ignored: "
                   + ", ".join(f"{k} ({v})" for k, v in sorted(self.stale_metadata.items()))))


def _fragments(found: Discovery, part: Partitioning | None,
               picked: Sequence[Sequence[int] | None] | None = None) -> list[Fragment]:
    """A fragment per listed file, with its row groups in ``_metadata`` (*picked*, parallel
    to the listing; None: none from there; each fragment gets a list of its own: *picked*
    may hold the summary's shared tuples), its partition values parsed once per run of
    files of one folder (they share the listing's list of folder names)."""
    groups: Iterable[list[int] | None] = itertools.repeat(None) if picked is None else \
        [None if rgs is None else list(rgs) for rgs in picked]
    if part is None:
        return [Fragment(p, size, [], rgs) for (p, size), rgs in zip(found.files, groups)]
    parse = part.parse
    out = []
    last: list[str] | None = None
    spec: list[tuple[str, str | None]] = []
    for (p, size), below, rgs in zip(found.files, found.folders, groups):
        if below is not last:     # sorted: a folder's files follow one another
            spec = parse(below)
            last = below
        out.append(Fragment(p, size, spec, rgs))
    return out


def _as_schema(schema: Any) -> Schema | None:
    """``schema=``: a pc.Schema, a pyarrow schema, or a list of Fields."""
    if schema is None or isinstance(schema, Schema):
        return schema
    if isinstance(schema, (list, tuple)) and all(isinstance(f, Field) for f in schema):
        return Schema(list(schema))
    if hasattr(schema, "names") and hasattr(schema, "types"):
        from parquet_core.interop.arrow import schema_from_arrow

        return schema_from_arrow(schema)
    raise TypeError(f"schema must be a pc.Schema (or a pyarrow schema), not {type(schema).__name__}")


_TRUE = True
_FALSE = False


def _common_type(a: Any, b: Any) -> Any:
    """The type both a stored partition column and its folder values are compared as."""
    from parquet_core.dataset.unify import wider_type

    return wider_type(a, b) or b


def partial_eval(expr: Expression, known: Table) -> Expression | bool:
    """*expr* (negation normal form) with the leaves on *known*'s columns decided.

    *known* holds one row: the values the columns have for the whole file
    (partition values, or nulls for columns the file lacks).  A leaf that is
    null there is false, which is exact in negation normal form (no ``~``
    above a leaf can turn the null into a match).
    """
    if isinstance(expr, (And, Or)):
        is_and = isinstance(expr, And)
        kept = []
        for child in expr.children:
            r = partial_eval(child, known)
            if r is (_FALSE if is_and else _TRUE):
                return r
            if isinstance(r, Expression):
                kept.append(r)
        if not kept:
            return is_and
        return kept[0] if len(kept) == 1 else (And(*kept) if is_and else Or(*kept))
    cols = expr.columns()
    if cols and cols <= set(known.column_names):
        return bool(filter_mask(expr, known)[0])
    return expr


def _leaves(expr: Expression) -> list[Expression]:
    if isinstance(expr, (And, Or)):
        return [leaf for c in expr.children for leaf in _leaves(c)]
    return [expr]


def _combine(expr: Expression, decided: dict[int, Any], row: int) -> Expression | bool:
    """*expr* with the leaves in *decided* (a mask over files) replaced by their value at *row*."""
    if isinstance(expr, (And, Or)):
        is_and = isinstance(expr, And)
        kept = []
        for child in expr.children:
            r = _combine(child, decided, row)
            if r is (not is_and):
                return r
            if isinstance(r, Expression):
                kept.append(r)
        if not kept:
            return is_and
        return kept[0] if len(kept) == 1 else (And(*kept) if is_and else Or(*kept))
    mask = decided.get(id(expr))
    return expr if mask is None else bool(mask[row])


def _literals(expr: Expression) -> dict[str, list[Any]]:
    """The literal values each column is compared with in *expr*."""
    from parquet_core.predicate.expr import Comparison, IsIn, StartsWith

    out: dict[str, list[Any]] = {}
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, (And, Or)):
            stack.extend(e.children)
        elif isinstance(e, Comparison):
            out.setdefault(e.column, []).append(e.value)
        elif isinstance(e, IsIn):
            out.setdefault(e.column, []).extend(v for v in e.values if v is not None)
        elif isinstance(e, StartsWith):
            out.setdefault(e.column, []).append(e.prefix)
    return out


def _literal_type(values: list[Any]) -> Any:
    """A type the literals fit, for a column no file opened so far has (its values are all null)."""
    from parquet_core.schema.types import DataType
    from parquet_core.table.ingest import as_array

    try:
        return as_array(values[:1]).type if values else DataType("null")
    except Exception:  # noqa: BLE001 - any literal type will do: the column is null everywhere
        return DataType("string")


def prefetch_indexes(pf: ParquetFile, expr: Expression) -> int:
    """Fetch, before a filtered read of a file in an object store, the column and offset
    indexes of the filter's columns and the Bloom filters of its ``==`` / ``isin`` columns
    (of chunks not wholly dictionary-encoded: pruning asks their dictionary instead), in the
    row groups statistics keep: coalesced and concurrent (``StoreSource.prefetch``)
    rather than one request per chunk as pruning asks for them.  Only ranges inside the
    file are asked for (the readers check them when they parse).

    For most files these ranges lie in the tail already fetched with the footer (writers put
    indexes and Bloom filters just before it), and nothing is requested.  Returns the number
    of ranges handed over (0 for a local file).
    """
    fetch = getattr(pf.source, "prefetch", None)
    if fetch is None:
        return 0
    try:
        ranges = pf.planner.index_ranges(expr)
    except ParquetError:
        return 0    # e.g. an encrypted column without its key: the read itself says so
    if ranges:
        fetch(ranges)
    return len(ranges)


class _OpenedFile:
    """``with``: a data file opened from its own footer, as ``(ParquetFile, None)``."""

    def __init__(self, ds: ParquetDataset, frag: Fragment) -> None:
        self.pf = ds.open_fragment(frag)

    def __enter__(self) -> tuple[ParquetFile, None]:
        return self.pf, None

    def __exit__(self, *exc: Any) -> None:
        self.pf.close()


class ParquetDataset:
    """Parquet files in a folder (recursively), a glob or a list, read as one table.

    Parameters
    ----------
    path_or_paths:
        A file, a folder, a glob (``"ds/*/part-*.parquet"``) or a list of
        files and folders: local paths, URLs (``s3://``, ``gs://``, ``memory://``...)
        or paths inside *filesystem*.
    filesystem:
        An fsspec file system (or a pyarrow one); default: from the URL, else the local disk.
    partitioning:
        ``"hive"`` (``key=value`` folders, types inferred), a :class:`~parquet_core.Schema`
        (Hive folders with these types), a list of names (bare folders, level by
        level) or None.
    schema:
        Read every file as this schema (columns are widened or filled with nulls;
        partition columns may be named to set their types).
    filters:
        Applied by every :meth:`read` (AND-ed with the read's own filters).
    storage_options:
        Options of the fsspec file system a URL names (credentials, endpoint...).
    ignore_prefixes:
        Names (files or folders below the root) to skip; default ``(".", "_")``.
    page_checksum_verification, decryption, read_dictionary, strict, max_page_bytes, max_decoded_bytes, options:
        As for :class:`~parquet_core.ParquetFile`, for every file (checked once, here);
        ``decryption_properties`` is pyarrow's name of ``decryption``.
    progress:
        Default for :meth:`read`: ``True`` (a tqdm bar, if tqdm is installed) or a
        callable ``(done, total)``; nothing is shown by default.
    """

    #: The class every file of the dataset is opened with (its data files, ``_metadata``,
    #: ``_common_metadata``), and that :func:`~parquet_core.read_table` opens one file with.
    #: Set by a subclass in its class body, never written from outside: ``pc.ParquetDataset``
    #: names ``pc.ParquetFile`` here, which brings the validator behind ``strict=True``.
    file_class: ClassVar[type[ParquetFile]] = ParquetFile

    def __init__(self, path_or_paths: Any, filesystem: Any = None, partitioning: Any = "hive",
                 schema: Any = None, filters: Any = None, *, storage_options: dict[str, Any] | None = None,
                 ignore_prefixes: Sequence[str] | None = None, page_checksum_verification: bool | None = None,
                 decryption: Any = None, progress: Any = None, use_metadata_file: bool = True,
                 read_dictionary: Sequence[str] | None = None, strict: bool | None = None,
                 decryption_properties: Any = None, max_page_bytes: int | None = None,
                 max_decoded_bytes: int | None = None, options: ReaderOptions | None = None,
                 **pyarrow_options: Any) -> None:
        #: How every file is read (one object, shared by the files this dataset opens);
        #: pyarrow's tuning knobs (memory_map, pre_buffer...) are checked and have no effect
        self.options: ReaderOptions = reader_options(
            options, page_checksum_verification=page_checksum_verification, decryption=decryption,
            decryption_properties=decryption_properties, read_dictionary=read_dictionary, strict=strict,
            max_page_bytes=max_page_bytes, max_decoded_bytes=max_decoded_bytes, **pyarrow_options)
        paths = list(path_or_paths) if isinstance(path_or_paths, (list, tuple)) else [path_or_paths]
        if not paths:
            raise ValueError("path_or_paths is empty")
        self._fs, self._paths = resolve_filesystem(paths, filesystem, storage_options)
        self._filter = from_filters(filters)
        self._progress = progress
        self.io_stats = IOStats()
        prefixes = DEFAULT_IGNORE_PREFIXES if ignore_prefixes is None else tuple(ignore_prefixes)
        self._discovery: Discovery = discover(self._fs, self._paths, prefixes, use_metadata_file)
        self._given_schema = _as_schema(schema)
        self._summary: Summary | None = None          # the _metadata, see metadata_file.py
        self._metadata_schema: Schema | None = None
        if use_metadata_file:
            self._load_summary()
        part = resolve_partitioning(partitioning)
        # pyarrow.parquet reads the columns of ``partitioning="hive"`` (its default) whose types it
        # infers as dictionaries (int32 indices); a Partitioning object or a schema gives plain ones
        self._dictionary_partitions = isinstance(partitioning, str) and partitioning == "hive"
        if part is not None and self._given_schema is not None and part.given is None:
            # schema= may name partition columns: take their types
            part = dataclasses.replace(part, given=None)
        #: ``_metadata``'s entries not used, with why (files gone or replaced), for ``explain``
        self.stale_metadata: dict[str, str] = {}
        # each listed file's row groups in _metadata (None: read from its own footer)
        picked = self._summary.match(self) if self._summary is not None else None
        # the fragments are made on first use (planning for .schema needs none of them)
        self._fragment_args = (part, picked)
        self._fragment_list: list[Fragment] | None = None
        self._fragment_lock = threading.Lock()
        n_files = len(self._discovery.files)
        if self._summary is not None:
            self.stale_metadata = dict(self._summary.stale)
            if not self._summary.used:
                # nothing listed is described by _metadata: neither its footers nor its schema
                self._summary.pf.close()
                self._summary = None
                self._metadata_schema = None
            elif self._summary.used < n_files:
                # some files are read from their own footers: the schema unifies theirs
                # with _metadata's (see _data_schema)
                self._metadata_schema = None
        if part is not None:
            part = part.infer(part.folder_values(self._discovery.folders))
            if self._given_schema is not None:
                given = {f.name: f for f in self._given_schema}
                part = dataclasses.replace(part, schema=Schema(
                    [given.get(f.name, f) for f in part.schema or []]))
        self._partitioning = part
        self._schema: Schema | None = None
        self._footer_schemas: Any = None       # schemas.FooterSchemas, made on first use
        self._data_names: set[str] | None = None    # the files' column names, once unified
        self._first_key_values: dict[bytes, bytes] | None = None   # see _known_key_values
        self._first_source = ""

    @property
    def _fragments(self) -> list[Fragment]:
        """A :class:`Fragment` per listed file, made on first use (one thread makes them)."""
        frags = self._fragment_list
        if frags is None:
            with self._fragment_lock:
                if self._fragment_list is None:
                    part, picked = self._fragment_args
                    self._fragment_list = _fragments(self._discovery, part, picked)
                frags = self._fragment_list
        return frags

    # -- metadata ---------------------------------------------------------------------------------
    def _load_summary(self) -> None:
        from parquet_core.dataset.metadata_file import load_summary

        self._summary, self._metadata_schema = load_summary(self)

    @property
    def filesystem(self) -> FileSystem:
        return self._fs

    @property
    def files(self) -> list[str]:
        """The data files in reading order: a folder's sorted, a list's as given (as the user
        would write them: URLs keep their scheme)."""
        return [self._fs.display(f.path) for f in self._fragments]

    @property
    def fragments(self) -> list[Fragment]:
        return list(self._fragments)

    @property
    def discovery(self) -> Discovery:
        """What listing the paths found: the data files, the root, the summary files there."""
        return self._discovery

    @property
    def summary(self) -> Summary | None:
        """The ``_metadata`` summary the dataset reads footers from (None: each file's own)."""
        return self._summary

    @property
    def partitioning(self) -> Partitioning | None:
        """The partitioning, with the partition columns' schema (inferred or given)."""
        return self._partitioning

    @property
    def partition_names(self) -> list[str]:
        p = self._partitioning
        return [] if p is None or p.schema is None else p.schema.names

    @property
    def schema(self) -> Schema:
        """Data columns (unified over every file, or ``schema=``, or ``_common_metadata``),
        then partition columns.  Without a summary file this reads the start of every
        footer once (its schema; see ``schemas.py``)."""
        if self._schema is None:
            self._schema = self._full_schema(self._data_schema())
        return self._schema

    def _data_schema(self, fragments: Sequence[Fragment] | None = None) -> Schema:
        """The files' schema: of *fragments* (default: every file)."""
        # the footers' INT96 columns as the files are read (coerce_int96_timestamp_unit)
        return coerce_int96_schema(self._stored_schema(fragments), self.options.coerce_int96_timestamp_unit)

    def _stored_schema(self, fragments: Sequence[Fragment] | None) -> Schema:
        parts = set(self.partition_names)
        if self._given_schema is not None:
            return Schema([f for f in self._given_schema if f.name not in parts])
        if self._metadata_schema is not None:
            return self._metadata_schema
        if fragments is None:
            fragments = self._fragments
        unifier = SchemaUnifier()
        if self._summary is not None:
            # the files _metadata describes (one schema), then the others' own footers
            assert self._discovery.metadata_path is not None   # where the summary was read
            unifier.add(self._summary.pf.schema_arrow, self._fs.display(self._discovery.metadata_path),
                        times=self._summary.used)
            fragments = [f for f in fragments if f.row_groups is None]
        # files sharing a schema (the same object: built once per distinct footer prefix) are
        # added once, in the order each schema first appears, with their count: the same
        # result and the same files named in an error as adding them one by one
        distinct: dict[int, list[Any]] = {}
        for frag, sch in zip(fragments, self._file_schemas(fragments)):
            seen = distinct.get(id(sch))
            if seen is None:
                distinct[id(sch)] = [sch, frag, 1]
            else:
                seen[2] += 1
        for sch, frag, n in distinct.values():
            unifier.add(sch, self._fs.display(frag.path), times=n)
        data = unifier.schema()
        self._data_names = set(data.names)
        return data

    def _full_schema(self, data: Schema) -> Schema:
        parts = self._partitioning.schema if self._partitioning is not None else None
        if parts is None:
            return data
        # A partition column the files also store (polars writes both): the files' values are
        # read, the folder values still prune; the two types must unify.
        from parquet_core.dataset.unify import wider_type

        by_name = {f.name: f for f in parts}
        fields = []
        for f in data:
            if f.name in by_name:
                wide = wider_type(f.type, by_name[f.name].type)
                if wide is None:
                    raise ParquetSchemaError(
                        f"column {f.name!r} is {f.type} in the files but {by_name[f.name].type} in the "
                        "partition folders")
                f = Field(f.name, wide, True, f.path, f.field_id)
            fields.append(f)
        return Schema(fields + [f for f in parts if f.name not in data.names])

    def _file_schemas(self, fragments: Sequence[Fragment]) -> list[Schema]:
        """Each file's schema, for planning (see :meth:`_file_schema`); local files in one
        loop (``FooterSchemas.local_schemas``), a store's concurrently."""
        if self.options.strict or self.options.decryption is not None or \
                not isinstance(self._fs, LocalFileSystem):
            return self._map(self._file_schema, fragments)
        return self._schema_reader().local_schemas(fragments)

    def _file_schema(self, frag: Fragment) -> Schema:
        """One file's schema, for planning: only the start of its footer decoded, the schema
        built once per distinct footer prefix (see ``schemas.py``)."""
        if self.options.strict or self.options.decryption is not None:
            with self.open_fragment(frag) as pf:
                return pf.schema_arrow
        return self._schema_reader().schema(frag)

    def _schema_reader(self) -> Any:
        """The dataset's ``schemas.FooterSchemas``, made on first use."""
        if self._footer_schemas is None:
            from parquet_core.dataset.schemas import FooterSchemas, general_schema

            self._footer_schemas = FooterSchemas(self._fs, self.io_stats, general_schema(self._fs, self.io_stats))
        return self._footer_schemas

    # -- I/O helpers ------------------------------------------------------------------------------
    def open_fragment(self, frag: Fragment) -> ParquetFile:
        """A data file of the dataset, opened from its own footer (errors name its path)."""
        return self.file_class.open_in(self._fs, frag.path, size=frag.size, stats=self.io_stats,
                                       options=self.options)

    def _map(self, fn: Callable[[Any], Any], fragments: Sequence[Any],
             progress: Progress | None = None) -> list[Any]:
        """*fn* over *fragments* in order: concurrently for a remote store (latency), else one by one."""
        def run(fr: Any) -> Any:
            out = fn(fr)
            if progress is not None:
                progress.advance()
            return out

        if isinstance(self._fs, LocalFileSystem) or len(fragments) < 2:
            return [run(f) for f in fragments]
        with ThreadPoolExecutor(8) as pool:
            return list(pool.map(run, fragments))

    def _known(self, frag: Fragment) -> Table:
        p = self._partitioning
        if p is None or p.schema is None:
            return Table(Schema([]), [], 1)
        arrays = p.arrays(frag.partition)
        return Table(p.schema, [arrays[f.name] for f in p.schema], 1)

    def _expression(self, filters: Any) -> Expression | None:
        read = from_filters(filters)
        if self._filter is None:
            return read
        return self._filter if read is None else And(self._filter, read)

    def _prune(self, expr: Expression | None) -> list[tuple[Fragment, Expression | bool]]:
        """The fragments a filter may match, each with the filter left for its data columns."""
        if expr is None:
            return [(f, True) for f in self._fragments]
        parts = set(self.partition_names)
        unknown = expr.columns() - parts
        if self._schema is not None or self._given_schema is not None or self._metadata_schema is not None:
            known = set(self.schema.names) if self._schema is not None else set(
                self._data_schema().names) | parts
            bad = {c.split(".")[0] for c in unknown} - known
            if bad and self._fragments:
                raise ValueError(f"filter column(s) {sorted(bad)} are not in the dataset "
                                 f"(columns: {sorted(known)})")
        nnf = negation_normal_form(expr)
        if not parts & expr.columns() or not self._fragments:
            return [(f, nnf) for f in self._fragments]
        # every leaf on partition columns decided for all files at once (one vectorised
        # evaluation per leaf over a table with a row per file), then combined per file
        table = self._partitioning.table([f.partition for f in self._fragments])  # type: ignore[union-attr]
        decided: dict[int, Any] = {}
        # a partition column files also store is filtered on the stored values, which are
        # checked against the folder's (so a folder that lies is refused, not skipped)
        stored = self._stored_partition_columns()
        for leaf in _leaves(nnf):
            cols = leaf.columns()
            if cols and cols <= parts and not cols & stored:
                decided[id(leaf)] = filter_mask(leaf, table)
        out: list[tuple[Fragment, Expression | bool]] = []
        for i, frag in enumerate(self._fragments):
            rest = _combine(nnf, decided, i)
            if rest is False:
                continue
            out.append((frag, rest))
        return out

    def _stored_partition_columns(self) -> set[str]:
        """The partition columns the files also store, as far as known without reading footers
        (``_metadata``'s schema, or the footers' when the schema was unified already)."""
        parts = set(self.partition_names)
        if not parts:
            return set()
        names: set[str] = set()
        if self._summary is not None:
            names.update(self._summary.pf.schema_arrow.names)
        if self._metadata_schema is not None:
            names.update(self._metadata_schema.names)
        if self._data_names is not None:
            names.update(self._data_names)
        return parts & names

    def _resolve_partitions(self, frag: Fragment, rest: Expression | bool,
                            file_names: Any) -> Expression | bool:
        """*rest* with its leaves on partition columns the file does not store decided by the
        file's folder values (those it stores are filtered on the stored values)."""
        if not isinstance(rest, Expression):
            return rest
        lacking = [c for c in self.partition_names if c not in file_names and c in rest.columns()]
        if not lacking:
            return rest
        known = self._known(frag)
        return partial_eval(rest, Table(Schema([known.schema.field(c) for c in lacking]),
                                        [known.column(c) for c in lacking], 1))

    # -- reading ----------------------------------------------------------------------------------
    @refuses_memory_errors("reading a dataset")
    def read(self, columns: Sequence[str] | None = None, filters: Any = None, *,
             progress: Any = None, use_threads: bool | None = None, use_pandas_metadata: bool = False) -> Table:
        """Read the dataset (or the columns named, partition columns included) into one Table.

        ``filters`` (pyarrow's DNF list or a :func:`~parquet_core.col` expression) may
        name partition and data columns: partition terms skip whole files before
        they are opened, the rest prunes row groups and pages in each file.
        ``use_threads`` (default True, as in pyarrow) decodes each file's column
        chunks on a thread pool; False decodes them one after another (same result);
        None takes :attr:`options`' ``use_threads``.  ``use_pandas_metadata`` (with
        ``columns``) also reads the pandas index columns, as pyarrow's.
        """
        if isinstance(filters, bool):     # pyarrow's read(columns, use_threads): positional
            filters, use_threads = None, filters
        if use_pandas_metadata and columns is not None and self._fragments:
            columns = self._with_index_columns(columns)
        use_threads = self.options.threads(use_threads)
        expr = self._expression(filters)
        if columns is not None and isinstance(columns, str):
            raise TypeError("columns must be a list of names, not a string")
        work = self._prune(expr)
        # the output schema: known up front, or unified over the files this read opens
        fixed = self._schema if self._schema is not None else None
        if fixed is None and (self._given_schema is not None or self._metadata_schema is not None
                              or self._summary is not None):
            fixed = self._full_schema(self._data_schema())
        if fixed is None and not work:
            fixed = self.schema     # a filter skipped every file: the columns are still the dataset's
        prog = Progress.make(self._progress if progress is None else progress, len(work), "reading")
        try:
            # files _metadata describes, read whole: in runs through it (see _read_summarised_runs);
            # the others one by one (concurrently for a store)
            whole = [fixed is not None and self._summary is not None and fr.row_groups is not None
                     and rest is True for fr, rest in work]
            singles = [item for item, w in zip(work, whole) if not w]
            # local files (their footers their own or _metadata's): small ones decoded together
            # (see _read_small_files)
            batched = self._read_small_files(work, columns, fixed, use_threads, prog) \
                if isinstance(self._fs, LocalFileSystem) and (fixed is not None or not any(whole)) else None
            if batched is None:
                results = self._map(lambda item: self._read_one(item[0], item[1], columns, fixed, use_threads),
                                    singles, prog)
                # each file's key/values (a file's read carries them; none when a filter emptied it)
                read_kv = [(fr, t.metadata, t.column_names) for (fr, _), (t, _) in zip(singles, results)
                           if t.metadata is not None]
            else:
                results = [(None, sch) for sch in batched[1]]
                read_kv = batched[2]
            kv = self._recorded_types(read_kv)
            if fixed is not None and batched is not None:
                return self._arrow_types(self._assemble_runs(batched[0], self._output_fields(fixed, columns)), kv)
            if fixed is not None:
                runs: list[tuple[Sequence[Fragment], Sequence[int], Table]] = []
                done = iter(results)
                pending: list[Fragment] = []
                for (fr, _), w in zip(work, whole):
                    if w:
                        pending.append(fr)
                        continue
                    if pending:
                        runs.extend(self._read_summarised_runs(pending, columns, use_threads, prog))
                        pending = []
                    table = next(done)[0]
                    runs.append(([fr], [table.num_rows], table))
                if pending:
                    runs.extend(self._read_summarised_runs(pending, columns, use_threads, prog))
                return self._arrow_types(self._assemble_runs(runs, self._output_fields(fixed, columns)), kv)
        finally:
            if prog is not None:
                prog.close()
        frags = [f for f, _ in work]
        unifier = SchemaUnifier()
        # neighbours of one schema (equal fields) added once with their count: the same result
        # and the same files named in an error as adding them one by one
        group: list[Any] = []
        for frag, (_, sch) in zip(frags, results):
            fields = list(sch)
            if group and fields == group[0]:
                group[2] += 1
                continue
            if group:
                unifier.add(group[0], self._fs.display(group[1].path), times=group[2])
            group = [fields, frag, 1]
        if group:
            unifier.add(group[0], self._fs.display(group[1].path), times=group[2])
        fixed = self._full_schema(unifier.schema() if results else Schema([]))
        out_fields = self._output_fields(fixed, columns)
        if batched is not None:
            return self._arrow_types(self._assemble_runs(batched[0], out_fields), kv)
        return self._arrow_types(self._assemble(frags, [t for t, _ in results], out_fields), kv)

    def _read_small_files(self, items: Sequence[tuple[Fragment, Expression | bool]], columns: Sequence[str] | None,
                          fixed: Schema | None, use_threads: bool, progress: Progress | None) -> Any:
        """Local files read in order, those of one row group in the light shape (see
        ``file/small_files.py``) decoded together in runs of files of one schema: a column's
        values of a run are expanded and gathered by one set of numpy calls instead of one per
        file.  A file planned from ``_metadata`` is read the same way through it (its row group
        there, its own footer not read).  Files with a filter left to apply, big files on
        threads, and files of any other shape are read one by one (:meth:`_read_one`); files
        planned from ``_metadata`` and read whole, once the light shape is given up, in runs
        (:meth:`_read_summarised_runs`); a filter the statistics show every row of a file
        matches is dropped for it.  Returns ``(runs, each file's schema, each file's
        (fragment, key/values, columns))``, as :meth:`read` needs them; None when the dataset
        is read otherwise (strict validation, decryption)."""
        from parquet_core.file.small_files import join_light_reads

        if self.options.strict or self.options.decryption is not None:
            return None
        runs: list[tuple[Sequence[Fragment], Sequence[int], Table]] = []
        schemas: list[Schema] = []
        read_kv: list[tuple[Fragment, Any, Sequence[str]]] = []
        batch: list[tuple[Fragment, Any]] = []
        whole: list[Fragment] = []       # planned from _metadata, read whole, not tried light
        held = 0
        misses = hits = 0
        summary = self._summary

        # each file's schema as read() unifies it (its fields): one per schema descriptor (files
        # of one schema share theirs) rather than the file's own, which holds its footer's
        # objects until the read ends
        unfootered: dict[int, tuple[Any, Schema]] = {}

        def schema_of(pf: ParquetFile) -> Schema:
            sch = pf.schema_arrow
            if type(sch) is not FileSchema:     # read types given: as the file gives it
                return sch
            desc = pf.metadata.schema
            got = unfootered.get(id(desc))
            if got is None or got[0] is not desc:
                got = unfootered[id(desc)] = (desc, Schema(sch.fields))
            return got[1]

        def add(frs: Sequence[Fragment], counts: Sequence[int], table: Table) -> None:
            runs.append((frs, counts, table))
            if table.metadata is not None:
                read_kv.extend((fr, table.metadata, table.column_names) for fr in frs)

        def flush() -> None:
            if whole:
                for run in self._read_summarised_runs(whole, columns, use_threads, progress):
                    add(*run)
                whole.clear()
            if not batch:
                return
            table = join_light_reads([light for _, light in batch])
            if table is None:   # a check made when joining failed: each file read on its own names it
                for fr, _ in batch:
                    add([fr], *self._read_one_counted(fr, columns, fixed))
            else:
                add([fr for fr, _ in batch], [light.num_rows for _, light in batch], table)
            batch.clear()

        for frag, rest in items:
            light = None
            tries = misses <= max(2, hits)
            if frag.row_groups is not None and summary is not None:
                groups = frag.row_groups
                pf = summary.pf
                big = use_threads and sum(pf.metadata.row_group(g).total_byte_size
                                          for g in groups) >= THREADS_MIN_FILE_BYTES
                schemas.append(schema_of(pf))
                if rest is True and fixed is not None and (big or len(groups) != 1 or not tries):
                    if batch:
                        flush()
                        held = 0
                    whole.append(frag)      # read with its neighbours (see _read_summarised_runs)
                    continue
                if big or len(groups) != 1:
                    table, _ = self._read_summarised(frag, rest, columns, fixed, use_threads)
                else:
                    got = self._read_summarised(frag, rest, columns, fixed, False, tries)
                    if isinstance(got, tuple):
                        table = got[0]
                        misses += 1
                    else:
                        light = got
            elif use_threads and frag.size >= THREADS_MIN_FILE_BYTES:
                table, schema = self._read_one(frag, rest, columns, fixed, use_threads)
                schemas.append(schema)
            else:
                with self.open_fragment(frag) as pf:
                    rest, wanted = self._file_columns(pf, frag, rest, columns, fixed)
                    schemas.append(schema_of(pf))
                    if rest is False:
                        table = Table(Schema([]), [], 0)
                    else:
                        if isinstance(rest, Expression):
                            prefetch_indexes(pf, rest)
                        # a file of another shape read as it is; after a few of them, no more
                        # tries (its pages would be read twice)
                        got = pf.light_read(wanted, rest if isinstance(rest, Expression) else None, tries)
                        if isinstance(got, Table):
                            table = got
                            misses += 1
                        else:
                            light = got
            if light is not None:
                hits += 1
                if whole or (batch and (held + light.nbytes > SMALL_FILES_RUN_BYTES or not batch[0][1].joins(light))):
                    flush()
                    held = 0
                if batch:
                    light.release()     # the run's first file lends the join its context
                batch.append((frag, light))
                held += light.nbytes
            else:
                flush()
                held = 0
                add([frag], [table.num_rows], table)
            if progress is not None:
                progress.advance()
        flush()
        return runs, schemas, read_kv

    def _read_one_counted(self, frag: Fragment, columns: Sequence[str] | None,
                          fixed: Schema | None) -> tuple[list[int], Table]:
        table, _ = self._read_one(frag, True, columns, fixed, False)
        return [table.num_rows], table

    def _known_key_values(self) -> tuple[dict[bytes, Any], str] | None:
        """The key/values whose ``ARROW:schema`` gives a read its Arrow types, when known
        without opening a file: ``_metadata``'s or ``_common_metadata``'s, or the first file's
        once read; ``{}`` with ``schema=`` (the given types are the read's).  None: take them
        from the first file the read opens (see ``recorded_types.py``)."""
        if self._first_key_values is not None:
            return self._first_key_values, self._first_source
        if self._given_schema is not None or not self._fragments:
            return {}, ""
        if self._summary is not None:
            return (dict(self._summary.pf.metadata.metadata or {}),
                    self._fs.display(self._discovery.metadata_path or "_metadata"))
        if self._metadata_schema is not None and self._discovery.common_metadata_path is not None:
            return (dict(getattr(self._metadata_schema, "metadata", None) or {}),
                    self._fs.display(self._discovery.common_metadata_path))
        return None

    def _remember_first(self, frag: Fragment, key_values: Any) -> None:
        """Keep the dataset's first file's key/values when a read opens it (pyarrow's dataset
        takes its schema from that file)."""
        if self._first_key_values is None and self._fragments and frag is self._fragments[0]:
            self._first_source = self._fs.display(frag.path)
            self._first_key_values = dict(key_values or {})

    def _recorded_types(self, read: Sequence[tuple[Fragment, Any, Sequence[str]]]) -> dict[bytes, Any]:
        """The key/values a read gives its table (:meth:`_known_key_values`, else those of the
        first file it read: the dataset's first one unless a filter skipped it), after checking
        that every file read, ``(fragment, key/values, columns read)``, records the same meanings
        for its columns (else ParquetSchemaError naming both files)."""
        known = self._known_key_values()
        if known is None:
            if not read:
                return {}
            known = dict(read[0][1] or {}), self._fs.display(read[0][0].path)
        kv, source = known
        if self._given_schema is None:
            meanings = recorded_meanings(kv)
            parts = set(self.partition_names)
            for frag, file_kv, columns in read:
                check_recorded(meanings, source, file_kv, [c for c in columns if c not in parts],
                               self._fs.display(frag.path))
        return kv

    def _arrow_types(self, table: Table, kv: Any) -> Table:
        """*table* (read) with the key/values *kv* that make ``to_arrow`` give the Arrow types the
        dataset's first file records (``ARROW:schema``: zones, durations, large and view types...),
        or, when it records none, those ``binary_type`` / ``list_type`` ask (see
        :mod:`parquet_core.file.read_types`)."""
        opts = self.options
        kv = arrow_key_values(table.schema, kv, opts.binary_type, opts.list_type)
        return Table(table.schema, table.columns, table.num_rows, metadata=kv or None)

    def _assemble(self, frags: Sequence[Fragment], tables: Sequence[Table], out: list[Field]) -> Table:
        """One table from the files' tables: widened, nulls for missing columns, partition values added."""
        return self._assemble_runs([([fr], [t.num_rows], t) for fr, t in zip(frags, tables)], out)

    def _assemble_runs(self, runs: Sequence[tuple[Sequence[Fragment], Sequence[int], Table]],
                       out: list[Field]) -> Table:
        """One table from runs of files, each run read as one table (its files' rows in order,
        *counts* rows each): widened, nulls for missing columns, partition values added per file."""
        p = self._partitioning
        typed = p is not None and p.schema is not None
        per_run = [[p.arrays(fr.partition) if typed else {} for fr in frs]  # type: ignore[union-attr]
                   for frs, _, _ in runs]
        fields = []
        for f in out:
            lacking = any(f.name not in t.column_names and any(f.name not in pv for pv in pvs)
                          for pvs, (_, _, t) in zip(per_run, runs))
            partition = bool(per_run) and f.name in per_run[0][0]
            fields.append(Field(f.name, f.type, f.nullable or lacking or partition, f.path, f.field_id))
        if typed:
            self._check_stored(runs, per_run)
        # files a filter emptied add nothing
        kept = [i for i, r in enumerate(runs) if r[2].num_rows]
        per_run = [per_run[i] for i in kept]
        runs = [runs[i] for i in kept]
        if not runs:
            return Table.concat([], Schema(fields))
        columns = []
        for f in fields:
            pieces = []
            for pvs, (_, counts, t) in zip(per_run, runs):
                if f.name in t.column_names:
                    pieces.append(conform(t.column(f.name), f, t.num_rows))
                    continue
                if len(pvs) > 1 and all(f.name in pv for pv in pvs):
                    pieces.append(self._repeated_values([pv[f.name] for pv in pvs], counts, f))
                    continue
                for pv, n in zip(pvs, counts):
                    pieces.append(conform(repeat(pv[f.name], n) if f.name in pv else None, f, n))
            columns.append(pieces[0] if len(pieces) == 1 else Array.concat(pieces))
        if typed:
            columns = [self._as_dictionary(f, c, runs) for f, c in zip(fields, columns)]
        return Table(Schema(fields), columns, sum(t.num_rows for _, _, t in runs))

    @staticmethod
    def _repeated_values(ones: Sequence[Array], counts: Sequence[int], f: Field) -> Array:
        """Each file's one-row partition value repeated for its *counts* rows, as *f*: the
        distinct value objects (cached per folder value) conformed once and taken once per
        row, rather than one repeat, conform and piece per file (a run holds hundreds)."""
        from parquet_core.table.select import take_array

        slot: dict[int, int] = {}
        distinct: list[Array] = []
        codes = np.empty(len(ones), dtype=np.int64)
        for i, one in enumerate(ones):
            k = slot.get(id(one))
            if k is None:
                k = slot[id(one)] = len(distinct)
                distinct.append(one)
            codes[i] = k
        values = Array.concat([conform(one, f, 1) for one in distinct]) if len(distinct) > 1 \
            else conform(distinct[0], f, 1)
        return take_array(values, np.repeat(codes, np.asarray(counts, dtype=np.int64)))

    def _as_dictionary(self, f: Field, column: Array,
                       runs: Sequence[tuple[Sequence[Fragment], Sequence[int], Table]]) -> Array:
        """*column* as pyarrow.parquet gives an inferred Hive partition column: dictionary-encoded
        over every value the dataset's folders hold (first seen first), whatever rows a read keeps."""
        p = self._partitioning
        assert p is not None and p.schema is not None
        if (not self._dictionary_partitions or p.inference != "pyarrow" or f.name not in p.schema.names
                or (p.given is not None and f.name in p.given.names)
                or (self._given_schema is not None and f.name in self._given_schema.names)
                or f.type != p.schema.field(f.name).type
                or any(f.name in t.column_names for _, _, t in runs)):
            return column
        from parquet_core.table.dictionary import DictionaryArray, DictionaryRun

        cache = self.__dict__.setdefault("_partition_dictionaries", {})
        if f.name not in cache:
            codes: dict[str | None, int] = {}
            for fr in self._fragments:
                raw = dict(fr.partition).get(f.name)
                if raw is not None:
                    codes.setdefault(raw, len(codes))
            typed = [p.arrays([(f.name, raw)])[f.name] for raw in codes]
            entries = Array.concat(typed) if typed else repeat(p.arrays([])[f.name], 0)
            cache[f.name] = codes, entries
        codes, entries = cache[f.name]
        indices = np.concatenate([np.repeat(np.array([codes.get(dict(fr.partition).get(f.name), 0) for fr in frs],
                                                     dtype=np.int32), np.asarray(counts, dtype=np.int64))
                                  for frs, counts, _ in runs]) if runs else np.zeros(0, np.int32)
        if len(indices) != len(column):
            return column
        return DictionaryArray(column.type, [DictionaryRun(entries.values, indices)], column.validity,
                               column.values, requested=True)

    def _check_stored(self, runs: Sequence[tuple[Sequence[Fragment], Sequence[int], Table]],
                      per_run: Sequence[Sequence[dict[str, Array]]]) -> None:
        """Refuse files storing a partition column with values other than their folder's."""
        parts = self._partitioning.schema if self._partitioning is not None else None
        assert parts is not None    # called for typed partitions only
        for (frs, counts, t), pvs in zip(runs, per_run):
            stored = [n for n in parts.names if n in t.column_names]
            if not stored or not t.num_rows:
                continue
            for name in stored:
                arr = t.column(name)
                field = Field(name, _common_type(arr.type, parts.field(name).type), True)
                lo = 0
                for fr, pv, n in zip(frs, pvs, counts):
                    if n:
                        check_stored_values(conform(arr.slice(lo, lo + n), field, n),
                                            conform(pv[name], field, 1), name, self._fs.display(fr.path))
                    lo += n

    def _verify_stored(self, pf: ParquetFile, frag: Fragment, groups: Sequence[int] | None,
                       file_names: Any) -> None:
        """Refuse the file if a partition column it also stores holds a value other than its
        folder's in any row (not only in the rows a filter keeps): the row groups whose
        statistics cannot rule that out have the column read and compared."""
        stored = [c for c in self.partition_names if c in file_names]
        if not stored:
            return
        from parquet_core.predicate import col

        values = self._partitioning.arrays(frag.partition)  # type: ignore[union-attr]
        path = self._fs.display(frag.path)
        for name in stored:
            value = values[name].to_pylist()[0]
            if value is None:
                differs = ~col(name).is_null()
            else:
                differs = (col(name) != value) | col(name).is_null()
            _, _, plans = pf.planner.plan(differs, None if groups is None else list(groups), measure=False)
            doubtful = [plan.index for plan in plans]
            if not doubtful:
                continue        # the statistics show every value equals the folder's
            arr = pf.read_row_groups(doubtful, [name]).column(name)
            field = Field(name, _common_type(arr.type, values[name].type), True)
            check_stored_values(conform(arr, field, len(arr)), conform(values[name], field, 1), name, path)

    def _stored_partitions(self, names: Collection[str], wanted: list[str]) -> list[str]:
        """*wanted* and the partition columns a file (its columns *names*) also stores: they are
        read to check them against the folder values (``_check_stored``)."""
        extra = [p for p in self.partition_names if p in names and p not in wanted]
        return wanted + extra if extra else wanted

    def _output_fields(self, full: Schema, columns: Sequence[str] | None) -> list[Field]:
        if columns is None:
            return list(full)
        names = full.names
        out = []
        for c in columns:
            if c not in names:
                raise ValueError(f"no column named {c!r} in the dataset; its columns are {names}")
            out.append(full.field(c))
        return out

    def _read_one(self, frag: Fragment, rest: Expression | bool, columns: Sequence[str] | None,
                  fixed: Schema | None, use_threads: bool = True) -> tuple[Table, Schema]:
        if frag.row_groups is not None and self._summary is not None:
            return self._read_summarised(frag, rest, columns, fixed, use_threads)
        use_threads = use_threads and frag.size >= THREADS_MIN_FILE_BYTES
        with self.open_fragment(frag) as pf:
            rest, wanted = self._file_columns(pf, frag, rest, columns, fixed)
            if rest is False:
                return Table(Schema([]), [], 0), pf.schema_arrow
            if isinstance(rest, Expression):
                prefetch_indexes(pf, rest)
                table = pf.read(wanted, filters=rest, use_threads=use_threads)
            else:
                table = pf.read(wanted, use_threads=use_threads)
            return table, pf.schema_arrow

    def _file_columns(self, pf: ParquetFile, frag: Fragment, rest: Expression | bool,
                      columns: Sequence[str] | None, fixed: Schema | None) -> tuple[Expression | bool, list[str]]:
        """An opened file checked against the read (unique names, stored partition values,
        the planned schema): the filter left for it (False: no row can match) and the
        columns to read from it."""
        parts = set(self.partition_names)
        path = self._fs.display(frag.path)
        check_unique_names(pf.schema_arrow, path)     # matched by name below
        file_fields = {f.name: f for f in pf.schema_arrow}
        rest = self._resolve_partitions(frag, rest, file_fields)
        self._verify_stored(pf, frag, None, file_fields)
        if fixed is not None:
            fixed_fields: dict[str, Field] = {}
            for f in fixed:
                fixed_fields.setdefault(f.name, f)     # the first of a name, as Schema.field
            for name, f in file_fields.items():
                target = fixed_fields.get(name)
                if target is None and name not in parts:
                    self._unplanned(name, path)
                elif target is not None and name not in parts and target.type != f.type:
                    check_against(target, f, path)
        if isinstance(rest, Expression):
            missing = {c for c in rest.columns() if c.split(".")[0] not in file_fields and c not in parts}
            if missing:
                rest = self._decide_missing(rest, missing, fixed)
        if rest is False:
            return False, []
        asked = columns if columns is not None else file_fields
        wanted = self._stored_partitions(file_fields, [c for c in asked if c in file_fields])
        self._remember_first(frag, pf.metadata.metadata)
        return rest, wanted

    def _unplanned(self, name: str, path: str) -> None:
        """A file holds a column the schema unified from the footers lacks (the file changed
        since planning, or a footer read differently in part and in whole): refuse, rather
        than drop the column.  ``schema=`` and summary files may leave columns out."""
        if self._given_schema is None and self._metadata_schema is None:
            raise ParquetSchemaError(
                f"column {name!r} of {path!r} is not in the dataset's schema, unified from the files' "
                "footers when the dataset was planned (was the file replaced since?)")

    def _summary_file(self) -> ParquetFile:
        """The ``_metadata`` file (only fragments planned from it are read through it)."""
        if self._summary is None:   # pragma: no cover - a planning bug
            raise RuntimeError("no _metadata summary to read fragments through")
        return self._summary.pf

    def _read_summarised(self, frag: Fragment, rest: Expression | bool, columns: Sequence[str] | None,
                         fixed: Schema | None, use_threads: bool = True, light: bool = False) -> Any:
        """Read a file's row groups through ``_metadata`` (its own footer is never read):
        ``(table, schema)``; with *light*, a ``LightRead`` instead when the file is of the
        light shape (see :meth:`ParquetFile.light_read_groups`).  Errors reading its chunks
        name the file (and where its footer came from), as a read of the file alone does."""
        pf = self._summary_file()
        file_fields = self._summary_names()
        rest = self._resolve_partitions(frag, rest, file_fields)
        self._verify_stored(pf, frag, frag.row_groups or [], file_fields)
        if rest is False:
            return Table(Schema([]), [], 0), pf.schema_arrow
        if columns is None:
            wanted = [f.name for f in pf.schema_arrow]
        else:
            wanted = self._stored_partitions(file_fields, [c for c in columns if c in file_fields])
        groups = frag.row_groups or []
        self._summary.verify(groups)   # type: ignore[union-attr]   # (_summary_file checked it)
        if use_threads:
            md = pf.metadata
            stored = sum(md.row_group(i).total_byte_size for i in groups)   # uncompressed: the decode work
            use_threads = stored >= THREADS_MIN_FILE_BYTES
        with self._naming_summarised(frag, groups):
            got = pf.light_read_groups(groups, wanted, rest if isinstance(rest, Expression) else None,
                                       light, use_threads)
        return got if not isinstance(got, Table) else (got, pf.schema_arrow)

    def _summary_names(self) -> set[str]:
        """The names of ``_metadata``'s columns (made once)."""
        names = self.__dict__.get("_summary_names_set")
        if names is None:
            names = self.__dict__["_summary_names_set"] = {f.name for f in self._summary_file().schema_arrow}
        return names

    @contextlib.contextmanager
    def _naming_summarised(self, frag: Fragment, groups: Sequence[int]) -> Iterator[None]:
        """Errors reading a file's chunks through ``_metadata`` name that file, as reading it
        alone does, and say where its footer came from (the row groups are ``_metadata``'s)."""
        try:
            yield
        except MemoryError as exc:
            err = out_of_memory(exc, "reading a file")
            note_file(err, self._fs.display(frag.path), "reading")
            raise err from exc
        except ParquetError as exc:
            note_file(exc, self._fs.display(frag.path), "reading")
            where = self._fs.display(self._discovery.metadata_path or "_metadata")
            rows = "row group" + ("s " if len(groups) != 1 else " ") + ", ".join(map(str, groups))
            add_context(exc, part=f"{where!r} (the file's footer), {rows}")
            raise

    def _read_summarised_runs(self, frags: Sequence[Fragment], columns: Sequence[str] | None,
                              use_threads: bool, progress: Progress | None
                              ) -> list[tuple[Sequence[Fragment], list[int], Table]]:
        """Files planned from ``_metadata`` and read whole: their row groups read together, in
        runs of files, each run one ``read_row_groups`` call on the summary (one decode call per
        column for the run rather than per file: for many small files the per-read costs were
        a third of the time).  Returns ``(files, rows of each, table)`` per run."""
        pf = self._summary_file()
        names = [f.name for f in pf.schema_arrow]
        wanted = names if columns is None else self._stored_partitions(
            names, [c for c in columns if c in set(names)])
        md = pf.metadata
        runs = []
        for lo in range(0, len(frags), SUMMARY_RUN_FILES):
            run = frags[lo:lo + SUMMARY_RUN_FILES]
            groups = [g for fr in run for g in (fr.row_groups or [])]
            self._summary.verify(groups)   # type: ignore[union-attr]   # (_summary_file checked it)
            sizes = [md.row_group(g).total_byte_size for g in groups]
            # threads decode one task per (column, row group): only for row groups worth one
            threads = use_threads and bool(groups) and sum(sizes) >= THREADS_MIN_FILE_BYTES * len(groups)
            try:
                table = pf.read_row_groups(groups, wanted, use_threads=threads)
            except ParquetError:
                # each file read on its own: the error names the file (and its row group)
                for fr in run:
                    self._read_summarised(fr, True, columns, None, False)
                raise
            counts = [sum(md.row_group(g).num_rows for g in (fr.row_groups or [])) for fr in run]
            runs.append((run, counts, table))
            if progress is not None:
                progress.advance(len(run))
        return runs

    def _decide_missing(self, rest: Expression, missing: set[str], fixed: Schema | None) -> Expression | bool:
        """Columns a file lacks are null in all its rows: decide the filter's leaves on them."""

        fields = []
        arrays = []
        literals = _literals(rest)
        for name in sorted(missing):
            if fixed is not None and name in fixed.names:
                typ = fixed.field(name).type
            else:
                typ = _literal_type(literals.get(name, []))
            f = Field(name, typ, True)
            fields.append(f)
            arrays.append(conform(None, f, 1))
        return partial_eval(rest, Table(Schema(fields), arrays, 1))

    def read_pandas(self, **kwargs: Any) -> Table:
        """:meth:`read` with ``use_pandas_metadata=True``, as pyarrow's."""
        return self.read(use_pandas_metadata=True, **kwargs)

    def _with_index_columns(self, columns: Sequence[str]) -> list[str]:
        from parquet_core.file.reader import with_pandas_index_columns

        # the pandas metadata of the first file (pyarrow reads it from the dataset's schema)
        with self.file_class.open_in(self._fs, self._fragments[0].path, options=self.options) as first:
            return with_pandas_index_columns(columns, first.metadata.metadata)

    @refuses_memory_errors("reading a dataset")
    def iter_batches(self, batch_size: int = 65536, columns: Sequence[str] | None = None,
                     filters: Any = None, *, progress: Any = None,
                     use_threads: bool | None = None) -> Iterator[Table]:
        """Yield tables of at most *batch_size* rows, file by file (within a file, batches run
        across row groups; ``use_threads`` as in :meth:`read`).

        Every batch has the dataset's :attr:`schema` (restricted to *columns*), so
        this opens every footer first unless ``schema=`` or a summary file gave it.
        """
        if batch_size <= 0:
            raise ValueError("batch_size must be positive")
        use_threads = self.options.threads(use_threads)
        expr = self._expression(filters)
        full = self.schema
        out = self._output_fields(full, columns)
        work = self._prune(expr)
        prog = Progress.make(self._progress if progress is None else progress, len(work), "scanning")
        try:
            first: list[Any] = []    # the first file read: (fragment, key/values, columns)
            for frag, rest in work:
                yield from self._file_batches(frag, rest, full, out, batch_size, use_threads, first)
                if prog is not None:
                    prog.advance()
        finally:
            if prog is not None:
                prog.close()

    def _footer(self, frag: Fragment) -> Any:
        """A context giving ``(ParquetFile, row groups)`` for *frag*: the ``_metadata`` footer and
        the file's row groups in it when it describes the file, else the file opened (None: all)."""
        if frag.row_groups is not None and self._summary is not None:
            return contextlib.nullcontext((self._summary.pf, list(frag.row_groups)))
        return _OpenedFile(self, frag)

    def _file_batches(self, frag: Fragment, rest: Expression | bool, full: Schema, out: list[Field],
                      batch_size: int, use_threads: bool, first: list[Any]) -> Iterator[Table]:
        """The batches of one file for :meth:`iter_batches` (*first*: the first file this scan
        read, whose key/values give the types when nothing else does; see :meth:`_recorded_types`)."""
        full_names = set(full.names)
        with self._footer(frag) as (pf, groups):
            path = self._fs.display(frag.path)
            file_fields = {f.name: f for f in pf.schema_arrow}
            rest = self._resolve_partitions(frag, rest, file_fields)
            self._verify_stored(pf, frag, groups, file_fields)
            for name, f in file_fields.items():
                if name not in full_names:
                    self._unplanned(name, path)
                elif name not in self.partition_names:
                    check_against(full.field(name), f, path)
            if isinstance(rest, Expression):
                missing = {c for c in rest.columns()
                           if c.split(".")[0] not in file_fields and c not in self.partition_names}
                if missing:
                    rest = self._decide_missing(rest, missing, full)
            if rest is False:
                return
            if groups is not None:
                md = pf.metadata
                big = sum(md.row_group(i).total_byte_size for i in groups) >= THREADS_MIN_FILE_BYTES
            else:
                big = frag.size >= THREADS_MIN_FILE_BYTES
            wanted = self._stored_partitions(file_fields, [f.name for f in out if f.name in file_fields])
            mine = [(frag, pf.metadata.metadata, wanted)]
            if groups is None:     # a file read from its own footer (not through _metadata)
                self._remember_first(frag, pf.metadata.metadata)
            kv = self._recorded_types(first + mine)
            if not first:
                first.extend(mine)
            for batch in pf.iter_batches(batch_size, columns=wanted, row_groups=groups,
                                         filters=rest if isinstance(rest, Expression) else None,
                                         use_threads=use_threads and big):
                if batch.num_rows:
                    yield self._arrow_types(self._assemble([frag], [batch], out), kv)

    def explain(self, filters: Any = None, columns: Sequence[str] | None = None) -> DatasetReport:
        """What a read with *filters* would do: files skipped by partition folders (never
        opened), row groups pruned in the others (each file's :class:`PruneReport`), the
        column bytes to read, and the bytes and requests planning fetched."""
        expr = self._expression(filters)
        before = (self.io_stats.requests, self.io_stats.bytes)
        from_summary = 0 if self._summary is None else sum(f.row_groups is not None for f in self._fragments)
        report = DatasetReport(expr, files=len(self._fragments),
                               planned_from="_metadata" if self._summary is not None else "footers",
                               footers_from_metadata=from_summary,
                               footers_read=len(self._fragments) - from_summary,
                               stale_metadata=dict(self.stale_metadata))
        work = self._prune(expr)
        kept = {id(f) for f, _ in work}
        report.pruned_by_partition = [self._fs.display(f.path) for f in self._fragments if id(f) not in kept]

        def plan(item: tuple[Fragment, Expression | bool]) -> tuple[str, PruneReport | None]:
            frag, rest = item
            with self._footer(frag) as (pf, groups):
                file_fields = {f.name for f in pf.schema_arrow}
                rest = self._resolve_partitions(frag, rest, file_fields)
                if isinstance(rest, Expression):
                    missing = {c for c in rest.columns()
                               if c.split(".")[0] not in file_fields and c not in self.partition_names}
                    if missing:
                        rest = self._decide_missing(rest, missing, self._schema)
                if rest is False:
                    return self._fs.display(frag.path), None
                wanted = None if columns is None else [c for c in columns if c in file_fields]
                return self._fs.display(frag.path), pf.planner.plan(
                    rest if isinstance(rest, Expression) else None, groups, wanted)[1]

        for path, rep in self._map(plan, work):
            report.files_opened += 1
            if rep is None:
                continue
            report.per_file[path] = rep
            report.row_groups += rep.row_groups
            report.row_groups_kept += len(rep.kept)
            report.bytes_to_read += rep.bytes_kept
        report.requests = self.io_stats.requests - before[0]
        report.bytes_fetched = self.io_stats.bytes - before[1]
        return report

    def __repr__(self) -> str:
        return f"<ParquetDataset {len(self._fragments)} files, partitions {self.partition_names}>"
