"""The read side: one Spark task per file, Arrow record batches cast to Spark's layout.

Runs in Python workers.  ``partitions()`` runs once per DataFrame in a planning
worker on the driver; ``read()`` runs once per partition in executor workers,
on an unpickled copy of the reader.  So the reader and its partitions hold
only plain values (paths, the Spark schema, options); files are opened inside
``read()``.  pyarrow and the engine are imported there too.

Spark validates the first batch against ``to_arrow_schema(schema,
timezone="UTC")`` exactly (names, order, types, nullability), so every batch
is rebuilt on that schema with :func:`conform_batch`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from spark_adapter.files import list_files_and_bases, paths_from_options

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

__all__ = ["DEFAULT_BATCH_SIZE", "PqcoreFilePartition", "PqcoreReader", "conform_batch", "list_table"]

DEFAULT_BATCH_SIZE = 65536


def list_table(options: Any) -> tuple[list[str], list[list[tuple[str, str]]], list[Any]]:
    """``(files, per-file [(column, raw folder value)], partition StructFields)`` of a ``load(...)``."""
    from pyspark.sql.types import StructField

    from spark_adapter.partitioning import infer_partition_types, parse_partition_dirs

    files, bases = list_files_and_bases(paths_from_options(options), options.get("pathglobfilter"),
                                        options.get("basepath"))
    specs = parse_partition_dirs(files, bases)
    infer = str(options.get("partitioncolumntypeinference", "true")).strip().lower()
    if infer not in ("true", "false"):
        raise ValueError(f"pqcore: option partitionColumnTypeInference must be true or false, got {infer!r}")
    fields = [StructField(name, typ, nullable=True)
              for name, typ in infer_partition_types(specs, infer == "true")]
    return files, specs, fields


class PqcoreFilePartition(InputPartition):
    """One whole Parquet file (a Spark task) and its partition folder values (raw, escaped)."""

    def __init__(self, path: str, index: int = 0, partition_values: dict[str, str] | None = None) -> None:
        super().__init__(path)
        self.path = path
        self.index = index
        self.partition_values = dict(partition_values or {})


class PqcoreReader(DataSourceReader):
    """Reads the files of one ``load(...)`` with parquet_core.

    Options (case-insensitive, as Spark passes them): ``path`` / ``paths``,
    ``pathGlobFilter``, ``basePath``, ``partitionColumnTypeInference``,
    ``timeZone`` (of timestamp partition values, default UTC), ``batchSize``
    (rows per Arrow batch, default 65536), ``filters`` (a JSON DNF pushed into
    parquet_core's pruning; see :mod:`spark_adapter.filters`), ``skipping.md_base``
    (an xskipper metadata base directory: files its index rules out for the
    ``filters`` are not read; see :mod:`spark_adapter.skipping`).
    """

    def __init__(self, options: dict[str, str], schema: StructType) -> None:
        self.options = {k: v for k, v in options.items()}
        self.time_zone = options.get("timezone", "UTC")
        self.batch_size = int(options.get("batchsize", DEFAULT_BATCH_SIZE))
        if self.batch_size <= 0:
            raise ValueError(f"batchSize must be positive, got {self.batch_size}")
        self.schema = schema
        from spark_adapter.filters import parse_filters

        self.filters = parse_filters(options.get("filters"))

    # Deliberately no pushFilters: see the spec (disabled by default in Spark,
    # and a stale-filter bug in 4.1-4.3).

    def partitions(self) -> list[InputPartition]:
        # Must be a list.  An empty list is replaced by Spark with
        # [InputPartition(None)], which read() ignores.
        files, specs, _ = list_table(self.options)
        parts = [PqcoreFilePartition(f, i, dict(spec)) for i, (f, spec) in enumerate(zip(files, specs))]
        if self.filters is None:
            return parts
        parts = self._prune_by_folders(parts)
        md_base = self.options.get("skipping.md_base")
        if md_base:
            from spark_adapter.skipping import prune_partitions

            parts = prune_partitions(parts, paths_from_options(self.options), md_base, self.filters)
        return parts

    def _prune_by_folders(self, parts: list[PqcoreFilePartition]) -> list[PqcoreFilePartition]:
        from spark_adapter.filters import file_matches, split_partition_terms
        from spark_adapter.partitioning import partition_value

        names = {k for p in parts for k in p.partition_values}
        on_folders, _ = split_partition_terms(self.filters, names)
        if not on_folders:
            return parts
        types = {f.name.lower(): f.dataType for f in self.schema.fields}
        kept = []
        for p in parts:
            values = {k: (partition_value(v, types[k.lower()], self.time_zone) if k.lower() in types else v)
                      for k, v in p.partition_values.items()}
            if file_matches(on_folders, values):
                kept.append(p)
        return kept

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not isinstance(partition, PqcoreFilePartition):
            return iter(())
        return read_file_batches(partition.path, self.schema, self.batch_size,
                                 partition.partition_values, self.time_zone, self.filters)


def _resolve_columns(file_names: list[str], wanted: list[str]) -> list[str | None]:
    """File column for each wanted Spark column: exact name, else a unique
    case-insensitive match (Spark's default ``spark.sql.caseSensitive=false``),
    else ``None`` (the column is missing from this file and reads as nulls)."""
    exact = set(file_names)
    lower: dict[str, list[str]] = {}
    for n in file_names:
        lower.setdefault(n.lower(), []).append(n)
    out: list[str | None] = []
    for w in wanted:
        if w in exact:
            out.append(w)
            continue
        cands = lower.get(w.lower(), [])
        if len(cands) > 1:
            raise ValueError(f"column {w!r} matches several columns of the file: {cands}")
        out.append(cands[0] if cands else None)
    return out


def read_file_batches(path: str, schema: StructType, batch_size: int,
                      partition_values: dict[str, str] | None = None,
                      time_zone: str = "UTC", filters: list | None = None) -> Iterator[pa.RecordBatch]:
    """Yield the rows of *path* as record batches laid out exactly as Spark wants for *schema*.

    Fields named like a key of *partition_values* (case-insensitively) are
    filled with that folder value, parsed as the field's type.
    """
    try:
        yield from _read_file_batches(path, schema, batch_size, partition_values or {}, time_zone, filters)
    except Exception as exc:  # name the file in Spark's PythonException
        exc.add_note(f"pqcore: while reading {path}")
        raise


def _partition_constants(schema: StructType, partition_values: dict[str, str],
                         time_zone: str) -> dict[str, Any]:
    """``{field name: Python value}`` for the schema fields that are partition columns."""
    from spark_adapter.partitioning import partition_value

    lower = {k.lower(): v for k, v in partition_values.items()}
    return {f.name: partition_value(lower[f.name.lower()], f.dataType, time_zone)
            for f in schema.fields if f.name.lower() in lower}


def _read_file_batches(path: str, schema: StructType, batch_size: int, partition_values: dict[str, str],
                       time_zone: str, filters: list | None = None) -> Iterator[pa.RecordBatch]:
    import parquet_core as pc
    from spark_adapter.types import target_arrow_schema

    target = target_arrow_schema(schema)
    constants = _partition_constants(schema, partition_values, time_zone)
    file_fields = [f for f in schema.fieldNames() if f not in constants]
    with pc.ParquetFile(path) as pf:
        resolved = dict(zip(file_fields, _resolve_columns(pf.schema.names, file_fields)))
        source_cols = [resolved.get(f) for f in schema.fieldNames()]
        present = [c for c in source_cols if c is not None]
        file_filters = None
        if filters is not None:
            from spark_adapter.filters import coerce_filters, split_partition_terms

            _, rest = split_partition_terms(filters, set(partition_values))
            if rest:
                names = {t[0] for group in (rest if isinstance(rest[0][0], list) else [rest]) for t in group}
                ordered = sorted(names)
                lookup = dict(zip(ordered, _resolve_columns(pf.schema.names, ordered)))
                missing = [n for n, r in lookup.items() if r is None]
                if missing:
                    raise ValueError(f"pqcore: option 'filters' names column(s) {missing} not in the file")
                types = {f.name: f.type for f in pf.schema}
                file_filters = coerce_filters(rest, types, lookup)  # type: ignore[arg-type]
        if file_filters is not None:
            # count() and friends read no column, but must still count matching rows only
            cols = present or sorted({t[0] for g in (file_filters if isinstance(file_filters[0], list)
                                                      else [file_filters]) for t in g})
            for table in pf.iter_batches(batch_size=batch_size, columns=cols, filters=file_filters):
                if table.num_rows == 0:
                    continue
                at = table.to_arrow()
                got = {name: at.column(i) for i, name in enumerate(cols)}
                yield conform_batch(got if present else {}, source_cols, target, table.num_rows, constants)
            return
        if not present:
            # No column of the schema is in this file (or an empty schema, e.g.
            # count()): still one row per file row.
            for rg in range(pf.num_row_groups):
                n = pf.metadata.row_group(rg).num_rows
                for start in range(0, n, batch_size):
                    m = min(batch_size, n - start)
                    yield conform_batch({}, source_cols, target, m, constants)
            return
        for table in pf.iter_batches(batch_size=batch_size, columns=present):
            if table.num_rows == 0:
                continue
            at = table.to_arrow()
            cols = {name: at.column(i) for i, name in enumerate(present)}
            yield conform_batch(cols, source_cols, target, table.num_rows, constants)


def conform_batch(columns: dict[str, Any], source_cols: list[str | None],
                  target: pa.Schema, num_rows: int,
                  constants: dict[str, Any] | None = None) -> pa.RecordBatch:
    """Build a record batch on *target* from engine Arrow columns.

    ``source_cols[i]`` names the column of *columns* that feeds ``target[i]``
    (``None``: missing from the file, all nulls); a field named in
    *constants* repeats that value (a partition column).
    """
    import pyarrow as pa

    arrays = []
    for field, src in zip(target, source_cols):
        if constants and field.name in constants:
            arr = pa.repeat(pa.scalar(constants[field.name], type=field.type), num_rows)
        elif src is None:
            arr = pa.nulls(num_rows, type=field.type)
        else:
            arr = to_spark_arrow(columns[src], field.type, field.name)
        if not field.nullable and arr.null_count:
            raise ValueError(
                f"column {field.name!r} is declared NOT NULL but the file holds "
                f"{arr.null_count} null(s)")
        arrays.append(arr)
    return pa.RecordBatch.from_arrays(arrays, schema=target)


def _floor_to_micros(arr: pa.Array, factor: int, tz: str | None) -> pa.Array:
    """Nanosecond timestamps to microseconds rounding toward -inf (as Spark's
    INT96 conversion does); Arrow's own unsafe cast truncates toward zero."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pac

    ints = pac.fill_null(arr.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    mask = arr.is_null().to_numpy(zero_copy_only=False) if arr.null_count else None
    return pa.array(np.floor_divide(ints, factor), type=pa.timestamp("us", tz=tz), mask=mask)


def to_spark_arrow(col: Any, typ: pa.DataType, name: str = "?") -> pa.Array:
    """Cast one engine column (Array or ChunkedArray) to the Arrow type Spark expects."""
    import pyarrow as pa

    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    if isinstance(col, pa.ExtensionArray):  # e.g. arrow.uuid -> its fixed-size storage
        col = col.storage
    if col.type.equals(typ):
        return col
    try:
        if pa.types.is_timestamp(typ) and pa.types.is_timestamp(col.type) and col.type.unit == "ns":
            return _floor_to_micros(col, 1000, typ.tz)
        if pa.types.is_null(col.type):
            return pa.nulls(len(col), type=typ)
        return col.cast(typ)  # safe cast: overflow or lossy conversions raise
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise TypeError(
            f"pqcore: cannot read column {name!r} of type {col.type} as {typ}: {exc}") from exc
