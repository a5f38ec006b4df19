"""``format("kartothek")``: read and write Kartothek datasets from Spark.

::

    spark.read.format("kartothek").option("dataset_uuid", "sales").option("table", "table") \\
        .option("predicates", '[[["P", "==", 2], ["C", ">", 3]]]').load("/data/store")
    df.write.format("kartothek").mode("append").option("dataset_uuid", "sales") \\
        .option("partition_on", "P,L").option("secondary_indices", "C").save("/data/store")

Reading never lists directories: the driver plans with
:func:`parquet_core_integrations.kartothek.plan_read` (the metadata file's partitions,
pruned by secondary indices and partition keys), one Spark task per data
file; each task reads its file with row-group pruning and exact row
filtering, adds the typed partition columns, and hands Spark Arrow batches
cast to the Spark schema (:func:`spark_adapter.core.batches.conform_batch`).

Writing: each task stages data files under new labels
(:func:`parquet_core_integrations.kartothek.stage_partitions`, invisible until the
commit) and returns what it wrote; ``commit()`` on the driver writes
``_common_metadata``, the merged index files and, last, the metadata file
(refusing if another writer committed since planning); ``abort()`` deletes
the staged files.  ``append`` adds to an existing dataset (or creates it),
``overwrite`` replaces its partitions (old files stay until
``garbage_collect``).
"""

from __future__ import annotations

import uuid as _uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.types import StructType

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

__all__ = ["KARTOTHEK_NAME", "KartothekDataSource", "KartothekReader", "KartothekWriter"]

from spark_adapter.core.commit_messages import own_messages
from spark_adapter.core.readable_errors import readable
from spark_adapter.kartothek.options import (  # noqa: E402
    KARTOTHEK_NAME,
    KartothekReadOptions,
    KartothekWriteOptions,
    read_options,
    write_options,
)


class KartothekDataSource(DataSource):
    """A Kartothek dataset (metadata version 4) in a store directory or fsspec URL."""

    @classmethod
    def name(cls) -> str:
        return KARTOTHEK_NAME

    @readable
    def schema(self) -> StructType:
        """The table's ``_common_metadata`` schema (partition columns included), all nullable."""
        from parquet_core_integrations.kartothek.schema import load_schema
        from parquet_core_integrations.kartothek.store import open_store
        from spark_adapter.core.types import to_spark_schema

        opts = read_options(self.options)
        return to_spark_schema(load_schema(open_store(opts.path), opts.dataset_uuid, opts.table).schema)

    @readable
    def reader(self, schema: StructType) -> KartothekReader:
        return KartothekReader(read_options(self.options), schema)

    @readable
    def writer(self, schema: StructType, overwrite: bool) -> KartothekWriter:
        return KartothekWriter(write_options(self.options), schema, overwrite)


class KartothekPartition(InputPartition):
    """One data file: the planned read (label, key, partition values, row filter)."""

    def __init__(self, part: Any) -> None:
        super().__init__(part.key)
        self.part = part


class KartothekReader(DataSourceReader):
    def __init__(self, options: KartothekReadOptions | Any, schema: StructType) -> None:
        opts = read_options(options)
        self.path, self.uuid = opts.path, opts.dataset_uuid
        self.table = opts.table
        self.predicates = opts.predicates
        self.batch_size = opts.batch_size
        self.schema = schema
        self.table_schema: Any = None

    @readable
    def partitions(self) -> list[InputPartition]:
        from parquet_core_integrations.kartothek.read import plan_read

        plan = plan_read(self.path, self.uuid, self.table, self.schema.fieldNames(), self.predicates)
        self.table_schema = plan.schema.schema
        return [KartothekPartition(p) for p in plan.partitions]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not isinstance(partition, KartothekPartition):
            return iter(())      # Spark's placeholder when every file was pruned
        return self._read(partition.part)

    def _read(self, part: Any) -> Iterator[pa.RecordBatch]:
        from parquet_core_integrations.kartothek.read import read_file
        from parquet_core_integrations.kartothek.schema import load_schema
        from parquet_core_integrations.kartothek.store import open_store
        from spark_adapter.core.batches import conform_batch
        from spark_adapter.core.types import target_arrow_schema

        store = open_store(self.path)
        schema = self.table_schema or load_schema(store, self.uuid, self.table).schema
        names = self.schema.fieldNames()
        try:
            table = read_file(store, part, names, schema, self.uuid)
        except Exception as exc:
            from parquet_core.errors import add_note  # lazy: the pyspark_* shims stay import-light
            add_note(exc, f"kartothek: while reading {part.key} of dataset {self.uuid!r}")
            raise
        target = target_arrow_schema(self.schema)
        for piece in table.iter_slices(self.batch_size):
            at = piece.to_arrow()
            cols = {n: at.column(i) for i, n in enumerate(names)}
            yield conform_batch(cols, names, target, piece.num_rows)


@dataclass
class KartothekCommitMessage(WriterCommitMessage):
    """What one task staged (:class:`parquet_core_integrations.kartothek.write.Staged` objects)."""

    staged: list = field(default_factory=list)


def _ours(messages: list[WriterCommitMessage | None]) -> list[KartothekCommitMessage]:
    """The tasks' messages (None: a task that sent none); another writer's is refused."""
    return own_messages(messages, KartothekCommitMessage, "kartothek")


class KartothekWriter(DataSourceArrowWriter):
    """Tasks stage data files; the driver commits indices and metadata (see the module docstring)."""

    def __init__(self, options: KartothekWriteOptions | Any, schema: StructType, overwrite: bool) -> None:
        from parquet_core_integrations.kartothek import naming
        from parquet_core_integrations.kartothek.metadata import dataset_exists, load_metadata
        from parquet_core_integrations.kartothek.schema import load_schema
        from parquet_core_integrations.kartothek.store import open_store
        opts = write_options(options)
        self.path, self.uuid = opts.path, opts.dataset_uuid
        naming.check_uuid(self.uuid)
        self.table = opts.table
        self.overwrite = bool(overwrite)
        self.schema = schema
        self.partition_on = list(opts.partition_on)
        self.secondary_indices = list(opts.secondary_indices)
        self.metadata_format = opts.metadata_format
        self.metadata = opts.metadata
        self.rows_per_file = opts.rows_per_file
        self.engine_options = dict(opts.engine)
        store = open_store(self.path)
        self.base = load_metadata(store, self.uuid) if dataset_exists(store, self.uuid) else None
        self.table_schema = None
        if self.base is not None and not self.overwrite:
            if self.partition_on and self.partition_on != self.base.partition_keys:
                raise ValueError(f"kartothek: dataset {self.uuid!r} is partitioned on "
                                 f"{self.base.partition_keys}, not {self.partition_on}")
            extra = set(self.secondary_indices) - set(self.base.indices)
            if extra:
                raise ValueError(f"kartothek: dataset {self.uuid!r} has no index on {sorted(extra)}")
            self.partition_on = list(self.base.partition_keys)
            self.secondary_indices = list(self.base.indices)
            if store.exists(naming.common_metadata_key(self.uuid, self.table)):
                self.table_schema = load_schema(store, self.uuid, self.table).schema

    def _stage(self, batches: list[Any]) -> Any:
        import pyarrow as pa

        from parquet_core_integrations.kartothek.write import stage_partitions

        data = pa.Table.from_batches(batches)
        return stage_partitions(self.path, self.uuid, data, self.table, self.partition_on,
                                self.secondary_indices, schema=self.table_schema,
                                base_label=_uuid.uuid4().hex, **self.engine_options)

    def write(self, iterator: Iterator[pa.RecordBatch]) -> KartothekCommitMessage:
        staged: list[Any] = []
        buf: list[Any] = []
        rows = 0
        try:
            for batch in iterator:
                buf.append(batch)
                rows += batch.num_rows
                if rows >= self.rows_per_file:
                    staged.append(self._stage(buf))
                    buf, rows = [], 0
            if rows:
                staged.append(self._stage(buf))
        except BaseException:
            from parquet_core_integrations.kartothek.write import delete_staged

            delete_staged(self.path, staged)
            raise
        return KartothekCommitMessage(staged)

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        from parquet_core_integrations.kartothek.metadata import DatasetMetadata
        from parquet_core_integrations.kartothek.schema import write_schema
        from parquet_core_integrations.kartothek.store import open_store
        from parquet_core_integrations.kartothek.write import (
            commit_dataset,
            delete_staged,
            merge_schemas,
            stage_partitions,
        )
        from spark_adapter.core.types import target_arrow_schema

        staged = [s for m in _ours(messages) for s in m.staged]
        base = self.base
        fmt = self.metadata_format or (base.format if base is not None else "json")
        try:
            if not staged:     # no rows: still record the schema
                empty = target_arrow_schema(self.schema).empty_table()
                staged = [stage_partitions(self.path, self.uuid, empty, self.table, self.partition_on,
                                           self.secondary_indices, schema=self.table_schema)]
            if self.overwrite and base is not None:    # the new schema replaces the old one
                write_schema(open_store(self.path), self.uuid, self.table, merge_schemas(staged, self.uuid))
                base = DatasetMetadata(self.uuid, {}, list(self.partition_on), {}, {}, True, base.format,
                                       base.raw)
            commit_dataset(self.path, self.uuid, staged, base=base, partition_on=self.partition_on,
                           secondary_indices=self.secondary_indices, metadata=self.metadata,
                           metadata_format=fmt)
        except BaseException:
            delete_staged(self.path, staged)
            raise

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        from parquet_core_integrations.kartothek.write import delete_staged

        delete_staged(self.path, [s for m in _ours(messages) for s in m.staged])
