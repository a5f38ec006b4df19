"""``format("pqfloor")``: pqcore with the decoding taken out, to measure what Spark itself costs.

A Python data source pays costs no reader can remove: Spark starts Python
workers for planning and tasks, the worker sends every Arrow batch over a
socket, and the JVM turns every value into a row (Spark 4.3 offers Python
sources no columnar read and no column pruning).  This source plans exactly
as ``pqcore`` does (same options, schema, partitions) but keeps the record
batches each task produced in its Python worker (workers are reused between
tasks) and hands the same batches back on the next run of the same partition,
so from the second run on a task does no Parquet work at all.  Its time is the
floor for any Python data source on that query; ``spark_bench --floor`` prints
it beside pqcore.  Benchmark only: it holds every batch it has read in memory.
"""

from __future__ import annotations

from typing import Any

from spark_adapter.pqcore.datasource import PqcoreDataSource
from spark_adapter.pqcore.reader import PqcoreReader

__all__ = ["FloorDataSource"]

_CACHE: dict[Any, list[Any]] = {}


class FloorReader(PqcoreReader):
    def read(self, partition: Any) -> Any:
        # what a task reads: its pieces, the schema, the options and any pushed filters
        key = (repr(getattr(partition, "pieces", None)), self.schema.json(), repr(self.options),
               repr(getattr(self.pushed, "tree", None)))
        got = _CACHE.get(key)
        if got is None:
            got = _CACHE[key] = list(super().read(partition))
        return iter(got)


class FloorDataSource(PqcoreDataSource):
    @classmethod
    def name(cls) -> str:
        return "pqfloor"

    def reader(self, schema: Any) -> FloorReader:
        return FloorReader(self.options, schema)
