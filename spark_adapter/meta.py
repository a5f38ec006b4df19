"""``format("pqmeta")``: the metadata of every Parquet file under a path, as a DataFrame.

::

    spark.read.format("pqmeta").option("level", "column").load("/data/table")
    spark.read.format("pqmeta").option("level", "bloom").option("probe", "alice").load(path)

Levels (``.option("level", ...)``, default ``file``): ``file``, ``schema``,
``rowgroup``, ``column``, ``page``, ``index``, ``bloom``; their columns are
documented in the README and in :mod:`spark_adapter.meta_rows`.  Footers, page headers, indexes and filters are read, data
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

__all__ = ["META_NAME", "PqmetaDataSource"]

META_NAME = "pqmeta"


class PqmetaDataSource(DataSource):
    """Parquet metadata as rows, one level at a time."""

    @classmethod
    def name(cls) -> str:
        return META_NAME

    def schema(self) -> str:
        from spark_adapter.meta_rows import level_schema

        return level_schema(self.options.get("level", "file").lower())

    def reader(self, schema: Any) -> "PqmetaReader":
        return PqmetaReader(dict(self.options), schema)


PARQUET_SUFFIXES = (".parquet", ".parq", ".pq")
DEFAULT_FILES_PER_TASK = 256
DEFAULT_BYTES_PER_TASK = 128 * 1024 * 1024
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

    from spark_adapter.files import list_files_and_bases, paths_from_options

    paths = paths_from_options(options)
    if not paths:
        raise ValueError("pqmeta: no path given; use load(path) or load([paths])")
    glob_filter = options.get("pathglobfilter")
    files, _ = list_files_and_bases(paths, glob_filter, options.get("basepath"))
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

    def __init__(self, options: dict[str, str], schema: Any) -> None:
        from spark_adapter.meta_rows import level_schema
        from spark_adapter.reader import _positive

        self.options = options
        self.level = options.get("level", "file").lower()
        level_schema(self.level)      # an unknown level fails here, on the driver
        self.schema = schema
        self.files_per_task = _positive(options, "filespertask", DEFAULT_FILES_PER_TASK)
        self.bytes_per_task = _positive(options, "bytespertask", DEFAULT_BYTES_PER_TASK)

    def partitions(self) -> list[InputPartition]:
        import os

        from spark_adapter.reader import _positive

        files = meta_files(self.options)
        heavy = self.level not in _FOOTER_LEVELS
        tasks = pack_files(files, self.files_per_task, self.bytes_per_task if heavy else None,
                           _positive(self.options, "minpartitions", os.cpu_count() or 1))
        return [_Files(t) for t in tasks]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        if not isinstance(partition, _Files):
            return iter(())
        return self._read(partition.paths)

    def _read(self, paths: list[str]) -> Iterator[Any]:
        import pyarrow as pa

        from spark_adapter.meta_rows import level_rows
        from spark_adapter.types import target_arrow_schema

        target = target_arrow_schema(self.schema)
        rows: list[dict[str, Any]] = []
        for path in paths:
            try:
                rows.extend(level_rows(self.level, path, self.options))
            except Exception as exc:
                exc.add_note(f"pqmeta: while reading the metadata of {path}")
                raise
            if len(rows) >= 16384:
                yield from pa.Table.from_pylist(rows, schema=target).to_batches(max_chunksize=65536)
                rows = []
        if rows:
            yield from pa.Table.from_pylist(rows, schema=target).to_batches(max_chunksize=65536)
