"""``format("pqmeta")``: the metadata of every Parquet file under a path, as a DataFrame.

::

    spark.read.format("pqmeta").option("level", "column").load("/data/table")
    spark.read.format("pqmeta").option("level", "bloom").option("probe", "alice").load(path)

Levels (``.option("level", ...)``, default ``file``): ``file``, ``schema``,
``rowgroup``, ``column``, ``page``, ``index``, ``bloom``; their columns are
documented in the README and in :mod:`spark_adapter.meta_rows`.  One Spark
task per file; footers, page headers, indexes and filters are read, data
pages are not decoded.  Files are listed like ``format("pqcore")`` does
(recursive, ``_``/``.`` entries skipped, globs).
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


class _File(InputPartition):
    def __init__(self, path: str) -> None:
        self.path = path


class PqmetaReader(DataSourceReader):
    def __init__(self, options: dict[str, str], schema: Any) -> None:
        from spark_adapter.meta_rows import level_schema

        self.options = options
        self.level = options.get("level", "file").lower()
        level_schema(self.level)      # an unknown level fails here, on the driver
        self.schema = schema

    def partitions(self) -> list[InputPartition]:
        from spark_adapter.reader import list_table

        files, _, _ = list_table(self.options)
        return [_File(f) for f in files]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        if not isinstance(partition, _File):
            return iter(())
        import pyarrow as pa

        from spark_adapter.meta_rows import level_rows
        from spark_adapter.types import target_arrow_schema

        try:
            rows = level_rows(self.level, partition.path, self.options)
        except Exception as exc:
            exc.add_note(f"pqmeta: while reading the metadata of {partition.path}")
            raise
        target = target_arrow_schema(self.schema)
        table = pa.Table.from_pylist(rows, schema=target) if rows else target.empty_table()
        return iter(table.to_batches(max_chunksize=65536))
