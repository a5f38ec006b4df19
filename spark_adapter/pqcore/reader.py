"""The read side: Spark tasks over files and row groups, Arrow record batches cast to Spark's layout.

Runs in Python workers.  ``partitions()`` runs once per DataFrame in a planning
worker on the driver (it lists the files and, with a filter option or a file
to split, reads footers: see :mod:`spark_adapter.pqcore.scan`); ``read()`` runs once
per partition in executor workers, on an unpickled copy of the reader.  So the
reader and its partitions hold only plain values (paths, row group numbers,
the Spark schema, options); files are opened again inside ``read()``.

Spark validates the first batch against ``to_arrow_schema(schema,
timezone="UTC")`` exactly (names, order, types, nullability), so every batch
is rebuilt on that schema with :func:`conform_batch`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from spark_adapter.core.crypto_options import open_parquet
from spark_adapter.core.files import list_files_and_bases
from spark_adapter.core.pushdown import OnlyWhenCalled
from spark_adapter.core.readable_errors import readable

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

__all__ = ["DEFAULT_BATCH_SIZE", "PqcoreScanPartition", "PqcoreReader", "conform_batch", "list_table"]

from parquet_core.errors import add_note
from spark_adapter.core.batches import conform_batch  # noqa: E402  (re-exported)
from spark_adapter.pqcore.options import DEFAULT_BATCH_SIZE, ReadOptions, read_options  # noqa: E402

# rows of a batch without fields (count() through an empty schema).  Such a batch holds no
# buffers, but pyspark (4.3, ArrowBatchTransformer.wrap_struct) re-wraps it as
# pa.array([{}] * num_rows): a Python list of one pointer per row, so the batch stays bounded
_MAX_EMPTY_BATCH = 1 << 20
# a row group this small (rows, and uncompressed bytes of the columns read) is decoded whole
# and sliced into batches; a bigger one streams page by page (iter_batches), so a task's
# memory stays bounded by these (plus what dictionary strings expand to)
_WHOLE_GROUP_ROWS = 1 << 20
_WHOLE_GROUP_BYTES = 64 << 20


def list_table(options: ReadOptions | Any) -> tuple[list[str], list[list[tuple[str, str | None]]], list[Any]]:
    """``(files, per-file [(column, raw folder value)], partition StructFields)`` of a ``load(...)``."""
    from pyspark.sql.types import StructField

    from spark_adapter.core.partitioning import infer_partition_types, parse_partition_dirs

    opts = read_options(options)
    paths = list(opts.paths)
    if not paths:
        # Spark 4.1-4.3 pass a catalog table's options (its path) to schema() at CREATE TABLE
        # but not to later scans: refuse rather than read nothing
        raise ValueError("pqcore: no path given (Spark passes no options when it scans a catalog table "
                         "of a Python data source; use spark.read.format('pqcore').load(path), or "
                         "CREATE TEMPORARY VIEW ... USING pqcore OPTIONS (path '...'))")
    files, bases = list_files_and_bases(paths, opts.path_glob_filter, opts.base_path)
    specs = parse_partition_dirs(files, bases)
    fields = [StructField(name, typ, nullable=True)
              for name, typ in infer_partition_types(specs, opts.partition_type_inference)]
    return files, specs, fields


class PqcoreScanPartition(InputPartition):
    """One Spark task: pieces of files (path, row groups or None for all, raw folder values)."""

    def __init__(self, index: int, pieces: list[tuple[str, list[int] | None, dict[str, str | None]]],
                 filter_types: StructType | None = None, use_threads: bool = True) -> None:
        super().__init__(index)
        self.index = index
        self.pieces = pieces
        self.filter_types = filter_types   # the schema plus partition columns it leaves out
        # decode a file's columns on threads only when Spark leaves cores idle (fewer tasks
        # than cores): with a task per core the threads only add switching (measured)
        self.use_threads = use_threads


class PqcoreReader(DataSourceReader):
    """Reads the files of one ``load(...)`` with parquet_core.

    Options (case-insensitive, as Spark passes them): ``path`` / ``paths``,
    ``pathGlobFilter``, ``basePath``, ``partitionColumnTypeInference``,
    ``timeZone`` (of timestamp partition values and filter literals, default
    Spark's session zone as tasks see it: :func:`session_time_zone`), ``batchSize`` (rows per Arrow batch, default 65536), ``filter`` (a
    SQL-like predicate, :mod:`spark_adapter.core.sql_filter`) and ``filters`` (a
    JSON DNF, :mod:`spark_adapter.core.filters`), applied exactly with parquet_core's
    pruning; ``maxPartitionBytes``, ``openCostInBytes``, ``minPartitions``
    (task sizing, :mod:`spark_adapter.pqcore.scan`); ``skipping.md_base`` (an
    xskipper metadata base directory: files its index rules out for the
    filter are not read, :mod:`spark_adapter.core.skipping`); encryption options
    ``parquet.encryption.*`` (:mod:`spark_adapter.core.crypto_options`).

    ``pushFilters`` (see :mod:`spark_adapter.core.pushdown`) runs only when
    ``spark.sql.python.filterPushdown.enabled`` is on; it hands every filter
    back, so Spark filters the rows itself, and prunes with them only under
    ``prunePushedFilters=true``, at read time, in the one SQL execution that
    first runs the reader (Spark 4.1-4.3 reuse a pushed reader for other
    queries).  Its pruning never touches ``partitions()``: Spark reuses those too.
    """

    def __init__(self, options: ReadOptions | dict[str, str], schema: StructType) -> None:
        from spark_adapter.pqcore.scan import ScanFilter

        self.options = read_options(options)
        # The session zone cannot be seen where Spark plans a Python source (the planning
        # worker gets no SQL conf); tasks see it (see session_time_zone).  Until then the
        # zone is the option's, or None: unknown.
        self.zone_option: str | None = self.options.time_zone
        self.time_zone = self.zone_option or "UTC"
        self.batch_size = self.options.batch_size
        self.schema = schema
        self.filter = ScanFilter(self.options.filter_texts(), self.time_zone)
        self.prune_pushed = self.options.prune_pushed_filters
        self.pushed: Any = None          # a PushedPruning, set by pushFilters

    # Spark refuses every read of a reader whose ``pushFilters`` is not its own
    # default while the pushdown conf is off (it checks the bound method's
    # ``__func__``); pqcore's works either way, so this descriptor reports the
    # default's function there and still runs ``_push_filters`` when Spark calls it.
    pushFilters = OnlyWhenCalled()  # noqa: N815 (Spark's name)

    def _push_filters(self, filters: Any) -> Any:
        from spark_adapter.core.pushdown import PushedPruning, pushed_tree
        from spark_adapter.pqcore.scan import field_type

        filters = list(filters)
        if self.prune_pushed:
            # Spark hands typed values (aware datetimes for timestamps): the zone only
            # matters for a few naive values, so the option's or UTC
            tree = pushed_tree(filters, lambda column: field_type(self.schema, column), self.time_zone)
            try:
                self.pushed = None if tree is None else PushedPruning(tree)
            except OSError:   # no folder for the execution record: Spark's filtering alone
                self.pushed = None
        return filters   # every filter back: Spark re-checks each row, whatever we prune

    @readable
    def partitions(self) -> list[InputPartition]:
        # Must be a list.  An empty list is replaced by Spark with
        # [InputPartition(None)], which read() ignores.
        import os

        from spark_adapter.pqcore.scan import ScanFilter, pack, plan_pieces, zone_dependent

        files, specs, fields = list_table(self.options)
        types = StructType(list(self.schema.fields) + [f for f in fields if f.name.lower() not in
                                                         {n.lower() for n in self.schema.fieldNames()}])
        plan_filter = self.filter
        if self.zone_option is None and zone_dependent(self.filter.tree, types):
            # the session zone is unknown here: prune nothing on the driver; each task
            # prunes its row groups and filters its rows in the zone it sees
            plan_filter = ScanFilter({})
        md_base = self.options.skipping_md_base
        if md_base and plan_filter:
            files, specs = self._skip_by_index(files, specs, types, md_base)
        max_bytes = self.options.max_partition_bytes
        pieces = plan_pieces(files, specs, plan_filter, types,
                             lambda raw: typed_partition_values(raw, types, self.time_zone), max_bytes,
                             self.options.open_cost_in_bytes, self.options.encryption)
        cores = os.cpu_count() or 1
        tasks = pack(pieces, self.options.min_partitions or cores, max_bytes)
        keep_types = types if self.filter and len(types.fields) > len(self.schema.fields) else None
        threads = len(tasks) < cores
        return [PqcoreScanPartition(i, [(p.path, p.row_groups, p.partition_values) for p in task], keep_types,
                                    threads)
                for i, task in enumerate(tasks)]

    def _skip_by_index(self, files: list[str], specs: list[Any], types: StructType,
                       md_base: str) -> tuple[list[str], list[Any]]:
        """The files an xskipper index under *md_base* cannot rule out for the filter."""
        from types import SimpleNamespace

        from spark_adapter.core.skipping import prune_partitions
        from spark_adapter.core.sql_filter import to_expression

        def type_of(column: str) -> Any:
            typ: Any = types
            for part in column.split("."):
                fields = {f.name.lower(): f.dataType for f in getattr(typ, "fields", [])}
                if part.lower() not in fields:
                    raise KeyError(column)
                typ = fields[part.lower()]
            return typ

        tree = self.filter.tree
        if tree is None:            # (called with a filter only)
            return files, specs
        try:
            expr = to_expression(tree, lambda c: c, type_of, self.time_zone)
        except KeyError:   # a filter column the table lacks: let the scan report it
            return files, specs
        pieces = [SimpleNamespace(path=f, spec=s) for f, s in zip(files, specs)]
        kept = prune_partitions(pieces, list(self.options.paths), md_base, expr)
        return [p.path for p in kept], [p.spec for p in kept]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not isinstance(partition, PqcoreScanPartition):
            return iter(())
        import copy

        zone = self.zone_option or session_time_zone()
        scan_filter = copy.copy(self.filter)
        scan_filter.time_zone = zone
        if self.pushed is not None and self.pushed.allowed():
            scan_filter = scan_filter.and_tree(self.pushed.tree)
        return self._read_pieces(partition.pieces, partition.filter_types, scan_filter, zone,
                                 getattr(partition, "use_threads", True))

    def _read_pieces(self, pieces: list[tuple[str, list[int] | None, dict[str, str | None]]],
                     filter_types: StructType | None, scan_filter: Any,
                     zone: str = "UTC", use_threads: bool = True) -> Iterator[pa.RecordBatch]:
        for path, row_groups, values in pieces:
            yield from read_file_batches(path, self.schema, self.batch_size, values, zone,
                                         scan_filter, row_groups, filter_types,
                                         self.options.encryption, use_threads)


def session_time_zone() -> str:
    """Spark's ``spark.sql.session.timeZone`` as a Spark task sees it.

    Spark copies the session's explicitly set SQL confs into the local properties of the
    jobs it runs, so a task reads it from its ``TaskContext``; when it was never set, the
    session zone is the JVM's default zone, which for a local JVM is the machine's zone:
    ``TZ``, else ``/etc/localtime``, else UTC.
    """
    try:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        zone = ctx.getLocalProperty("spark.sql.session.timeZone") if ctx is not None else None
    except Exception:   # outside a Spark task
        zone = None
    return zone or local_time_zone()


def local_time_zone() -> str:
    """The IANA name of this machine's zone (``TZ``, ``/etc/localtime``), else ``UTC``."""
    import os
    from zoneinfo import ZoneInfo

    candidates = [os.environ.get("TZ", "").lstrip(":")]
    try:
        link = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in link:
            candidates.append(link.split("zoneinfo/", 1)[1])
    except OSError:
        pass
    for name in candidates:
        if name:
            try:
                ZoneInfo(name)
                return name
            except Exception:   # not a zone name ZoneInfo knows
                continue
    return "UTC"


def _resolve_columns(file_names: list[str], wanted: list[str]) -> list[str | None]:
    """File column for each wanted Spark column: exact name, else a unique
    case-insensitive match (Spark's default ``spark.sql.caseSensitive=false``),
    else ``None`` (the column is missing from this file and reads as nulls).
    A name the file gives several columns raises ``ParquetSchemaError``."""
    from spark_adapter.pqcore.scan import ambiguous_column

    exact: dict[str, list[int]] = {}
    lower: dict[str, list[str]] = {}
    for i, n in enumerate(file_names):
        exact.setdefault(n, []).append(i)
        lower.setdefault(n.lower(), []).append(n)
    out: list[str | None] = []
    for w in wanted:
        if w in exact:
            if len(exact[w]) > 1:     # columns are matched by name: a repeated one picks none
                raise ambiguous_column(w, exact[w])
            out.append(w)
            continue
        cands = lower.get(w.lower(), [])
        if len(cands) > 1:
            raise ValueError(f"column {w!r} matches several columns of the file: {cands}")
        out.append(cands[0] if cands else None)
    return out


def read_file_batches(path: str, schema: StructType, batch_size: int,
                      partition_values: dict[str, str | None] | None = None, time_zone: str = "UTC",
                      scan_filter: Any = None, row_groups: list[int] | None = None,
                      filter_types: StructType | None = None,
                      options: dict[str, str] | None = None,
                      use_threads: bool = True) -> Iterator[pa.RecordBatch]:
    """Yield the rows of *path* (its *row_groups*, default all) as record batches laid out
    exactly as Spark wants for *schema*, keeping the rows *scan_filter* (a
    :class:`~spark_adapter.pqcore.scan.ScanFilter`) matches.

    Fields named like a key of *partition_values* (case-insensitively) are
    filled with that folder value, parsed as the field's type.  *filter_types*
    types the filter's columns (default *schema*); *options* may hold
    ``parquet.encryption.*`` keys (:mod:`spark_adapter.core.crypto_options`); *use_threads*
    decodes the file's columns on parquet_core's thread pool.
    """
    try:
        yield from _read_file_batches(path, schema, batch_size, partition_values or {}, time_zone,
                                      scan_filter, row_groups, filter_types or schema, options, use_threads)
    except Exception as exc:  # name the file in Spark's PythonException
        add_note(exc, f"pqcore: while reading {path}")
        raise


def typed_partition_values(raw: dict[str, str | None], types: StructType, time_zone: str) -> dict[str, Any]:
    """Folder values parsed as the types *types* gives their columns (else kept as text)."""
    from spark_adapter.core.partitioning import partition_value
    from spark_adapter.pqcore.scan import field_type

    out = {}
    for k, v in raw.items():
        typ = field_type(types, k)
        out[k] = v if typ is None else partition_value(v, typ, time_zone, k)
    return out


def _partition_constants(schema: StructType, partition_values: dict[str, str | None],
                         time_zone: str) -> dict[str, Any]:
    """``{field name: Python value}`` for the schema fields that are partition columns."""
    from spark_adapter.core.partitioning import partition_value

    lower = {k.lower(): v for k, v in partition_values.items()}
    return {f.name: partition_value(lower[f.name.lower()], f.dataType, time_zone, f.name)
            for f in schema.fields if f.name.lower() in lower}


def _read_file_batches(path: str, schema: StructType, batch_size: int,
                       partition_values: dict[str, str | None],
                       time_zone: str, scan_filter: Any, row_groups: list[int] | None,
                       filter_types: StructType, options: dict[str, str] | None = None,
                       use_threads: bool = True) -> Iterator[pa.RecordBatch]:
    from spark_adapter.core.types import target_arrow_schema

    target = target_arrow_schema(schema)
    constants = _partition_constants(schema, partition_values, time_zone)
    file_fields = [f for f in schema.fieldNames() if f not in constants]
    # INT96 comes as nanoseconds and is floored to Spark's microseconds in conform_batch:
    # coerce_int96_timestamp_unit follows pyarrow, which refuses (where Spark reads) the
    # wrapped encodings Spark itself wrote (the corpus's int96_from_spark.parquet)
    with open_parquet(path, options) as pf:
        resolved = dict(zip(file_fields, _resolve_columns(pf.schema_arrow.names, file_fields)))
        source_cols = [resolved.get(f) for f in schema.fieldNames()]
        present = [c for c in source_cols if c is not None]
        selection = _selection(schema, resolved, pf.schema_arrow)
        groups = list(range(pf.num_row_groups)) if row_groups is None else list(row_groups)
        pred = None
        if scan_filter:
            typed = typed_partition_values(partition_values, filter_types, time_zone)
            pred = scan_filter.for_file(pf.schema_arrow, filter_types, typed)
            if pred.pushed is False:
                return
        if pred is not None and (pred.pushed is not True or pred.post is not None):
            # count() and friends read no column, but must still count matching rows only
            cols = list(dict.fromkeys(selection + (pred.columns() if pred.post is not None else [])))
            if not cols:
                cols = sorted(pred.pushed.columns())
            pushed = None if pred.pushed is True else pred.pushed
            for table in pf.iter_batches(batch_size=batch_size, columns=cols, row_groups=groups, filters=pushed,
                                         use_threads=use_threads):
                if table.num_rows == 0:
                    continue
                at = table.to_arrow()
                if pred.post is not None:
                    at = at.filter(pred.post_mask(lambda name, t=at: _arrow_column(t, name)))
                    if at.num_rows == 0:
                        continue
                got = {name: at.column(name) for name in present}
                yield conform_batch(got, source_cols, target, at.num_rows, constants)
            return
        if not present:
            # No column of the schema is in this file (or an empty schema, e.g.
            # count()): still one row per file row, counted from the footer.  Without
            # any field a batch is only a row count: fewer, longer batches
            step = batch_size if len(target) else max(batch_size, _MAX_EMPTY_BATCH)
            for rg in groups:
                n = pf.metadata.row_group(rg).num_rows
                for start in range(0, n, step):
                    m = min(step, n - start)
                    yield conform_batch({}, source_cols, target, m, constants)
            return
        heads = {c.split(".", 1)[0] for c in selection}
        for rg in groups:
            meta = pf.metadata.row_group(rg)
            size = sum(meta.column(i).total_uncompressed_size for i in range(meta.num_columns)
                       if meta.column(i).path_in_schema.split(".", 1)[0] in heads)
            if meta.num_rows <= _WHOLE_GROUP_ROWS and size <= _WHOLE_GROUP_BYTES:
                # decoded into one output per column and cut into zero-copy slices: about a
                # third less CPU than assembling each batch from page pieces (measured)
                at = pf.read_row_group(rg, columns=selection, use_threads=use_threads).to_arrow()
                if at.num_rows == 0:
                    continue
                whole = conform_batch({name: at.column(name) for name in present}, source_cols, target,
                                      at.num_rows, constants)
                for start in range(0, whole.num_rows, batch_size):
                    yield whole.slice(start, batch_size)
                continue
            for table in pf.iter_batches(batch_size=batch_size, columns=selection, row_groups=[rg],
                                         use_threads=use_threads):
                if table.num_rows == 0:
                    continue
                at = table.to_arrow()
                by_name = {name: at.column(name) for name in present}
                yield conform_batch(by_name, source_cols, target, table.num_rows, constants)


def _selection(schema: StructType, resolved: dict[str, str | None], file_schema: Any) -> list[str]:
    """The columns (or struct leaves, dotted) to read for the schema's fields present in the file."""
    from spark_adapter.core.schema_options import leaf_selection

    types = {f.name: f.type for f in file_schema}
    out: list[str] = []
    for f in schema.fields:
        src = resolved.get(f.name)
        if src is not None:
            out.extend(leaf_selection(src, f.dataType, types.get(src)))
    return list(dict.fromkeys(out))


def _arrow_column(table: pa.Table, dotted: str) -> pa.Array:
    """A column of *table*, or a field inside a struct column for a dotted name."""
    import pyarrow.compute as pac

    head, _, rest = dotted.partition(".")
    arr = table.column(head).combine_chunks()
    for part in rest.split(".") if rest else ():
        arr = pac.struct_field(arr, part)
    return arr
