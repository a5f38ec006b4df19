"""``format("pqmeta")``: the metadata of every Parquet file under a path, as a DataFrame.

::

    spark.read.format("pqmeta").option("level", "column").load("/data/table")
    spark.read.format("pqmeta").option("level", "bloom").option("probe", "alice").load(path)

Levels (``.option("level", ...)``, default ``file``): ``file``, ``schema``,
``rowgroup``, ``column``, ``page``, ``index``, ``bloom``; their columns are
documented in docs/guide/spark.md and in :mod:`spark_adapter.pqmeta.rows`.  Footers, page headers, indexes and filters are read, data
pages are not decoded.  Files are listed like ``format("pqcore")`` does
(recursive, ``_``/``.`` entries skipped, globs), and only Parquet-named files
found in folders are kept unless ``pathGlobFilter`` says otherwise
(:func:`meta_files`).  Many files share a task (:func:`pack_files`), and each
file is read with positional reads of its footer (and, at the page, index
and bloom levels, of the parts they show), never mapped or read whole.
"""

from __future__ import annotations

from typing import Any, Iterator

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from parquet_core.errors import add_note
from spark_adapter.core.readable_errors import readable
from spark_adapter.pqmeta.options import (
    META_NAME,
    MetaOptions,
    meta_options,
)

__all__ = ["META_NAME", "PqmetaDataSource"]


class PqmetaDataSource(DataSource):
    """Parquet metadata as rows, one level at a time."""

    @classmethod
    def name(cls) -> str:
        return META_NAME

    @readable
    def schema(self) -> str:
        from spark_adapter.pqmeta.rows import level_schema

        return level_schema(meta_options(self.options).level)

    @readable
    def reader(self, schema: Any) -> PqmetaReader:
        return PqmetaReader(meta_options(self.options), schema)


PARQUET_SUFFIXES = (".parquet", ".parq", ".pq")
_FOOTER_LEVELS = {"file", "schema", "rowgroup", "column"}


def is_parquet_name(name: str) -> bool:
    """The default choice of files met in folders: ``*.parquet``, ``*.parq``, ``*.pq``."""
    return name.lower().endswith(PARQUET_SUFFIXES)


def meta_files(options: Any) -> list[tuple[str, int]]:
    """``(path, size)`` of the files a pqmeta ``load(...)`` reads.

    Listed as ``format("pqcore")`` lists them (recursive; names starting with ``_`` or
    ``.``, such as ``_SUCCESS`` and ``.crc`` files, left out; globs), then: with a
    ``pathGlobFilter`` option every file whose name matches it, else the files found in
    folders only if named like Parquet (:func:`is_parquet_name`; paths given one by one
    are always kept), so CSV and other litter in a lake gives no error rows.
    """
    import os

    from spark_adapter.core.files import list_files_and_bases

    opts = meta_options(options)
    paths = list(opts.paths)
    if not paths:
        raise ValueError("pqmeta: no path given; use load(path) or load([paths])")
    glob_filter = opts.path_glob_filter
    files, _ = list_files_and_bases(paths, glob_filter, opts.base_path)
    if glob_filter is None:
        given = {os.path.abspath(p) for p in paths}
        files = [f for f in files if f in given or is_parquet_name(os.path.basename(f))]
    return [(f, os.path.getsize(f)) for f in files]


def pack_files(files: list[tuple[str, int]], per_task: int, bytes_per_task: int | None,
               min_tasks: int) -> list[list[str]]:
    """Consecutive files into tasks of at most *per_task* files (and *bytes_per_task* file
    bytes, when given), and at least ``min(min_tasks, len(files))`` tasks."""
    if not files:
        return []
    per_task = max(1, min(per_task, -(-len(files) // max(1, min(min_tasks, len(files))))))
    tasks: list[list[str]] = []
    run: list[str] = []
    size = 0
    for path, n in files:
        if run and (len(run) >= per_task or (bytes_per_task is not None and size + n > bytes_per_task)):
            tasks.append(run)
            run, size = [], 0
        run.append(path)
        size += n
    tasks.append(run)
    return tasks


class _Files(InputPartition):
    def __init__(self, paths: list[str]) -> None:
        self.paths = paths


class PqmetaReader(DataSourceReader):
    """Options: ``level``, ``mode``, ``probe``, the encryption options, ``pathGlobFilter``,
    ``basePath``; task sizing: ``filesPerTask`` (default 256), ``bytesPerTask`` (file
    bytes per task at the ``page``, ``index`` and ``bloom`` levels, which read more than
    footers; default 128 MiB), ``minPartitions`` (default: the driver's CPU count)."""

    def __init__(self, options: MetaOptions | dict[str, str], schema: Any) -> None:
        self.options = meta_options(options)   # an unknown level or option fails here, on the driver
        self.level = self.options.level
        self.schema = schema
        self.files_per_task = self.options.files_per_task
        self.bytes_per_task = self.options.bytes_per_task

    @readable
    def partitions(self) -> list[InputPartition]:
        import os

        files = meta_files(self.options)
        heavy = self.level not in _FOOTER_LEVELS
        tasks = pack_files(files, self.files_per_task, self.bytes_per_task if heavy else None,
                           self.options.min_partitions or os.cpu_count() or 1)
        return [_Files(t) for t in tasks]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        if not isinstance(partition, _Files):
            return iter(())
        return self._read(partition.paths)

    def _read(self, paths: list[str]) -> Iterator[Any]:
        import pyarrow as pa

        from spark_adapter.core.types import target_arrow_schema
        from spark_adapter.pqmeta.rows import level_rows

        target = target_arrow_schema(self.schema)
        rows: list[dict[str, Any]] = []
        for path in paths:
            try:
                rows.extend(level_rows(self.level, path, self.options))
            except Exception as exc:
                add_note(exc, f"pqmeta: while reading the metadata of {path}")
                raise
            if len(rows) >= 16384:
                yield from pa.Table.from_pylist(rows, schema=target).to_batches(max_chunksize=65536)
                rows = []
        if rows:
            yield from pa.Table.from_pylist(rows, schema=target).to_batches(max_chunksize=65536)
