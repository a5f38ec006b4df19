"""Datasets: many Parquet files (folders, Hive partitions, globs, lists, object stores) as one table.

* :mod:`~parquet_core.dataset.discovery` - which files a path means; litter skipped;
* :mod:`~parquet_core.dataset.partitioning` - ``key=value`` folders <-> typed columns;
* :mod:`~parquet_core.dataset.unify` - one schema over many files;
* :mod:`~parquet_core.dataset.dataset` - :class:`ParquetDataset` (planning, pruning, reading);
* :mod:`~parquet_core.dataset.metadata_file` - ``_metadata`` / ``_common_metadata``;
* :mod:`~parquet_core.dataset.write` - :func:`write_to_dataset`;
* :mod:`~parquet_core.dataset.api` - ``read_table`` / ``read_metadata`` / ``read_schema`` for
  any source (the facade's versions).

This package sits above ``file/`` (it opens files with :class:`~parquet_core.ParquetFile`)
and below the facade and the CLI.
"""

from __future__ import annotations

from parquet_core.dataset.dataset import DatasetReport, Fragment, ParquetDataset
from parquet_core.dataset.partitioning import Partitioning
from parquet_core.dataset.write import write_to_dataset

__all__ = ["ParquetDataset", "Partitioning", "Fragment", "DatasetReport", "write_to_dataset"]
