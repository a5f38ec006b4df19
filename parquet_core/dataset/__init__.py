"""Datasets: many Parquet files (folders, Hive partitions, globs, lists, object stores) as one table.

* :mod:`~parquet_core.dataset.discovery` - which files a path means; litter skipped;
* :mod:`~parquet_core.dataset.partitioning` - ``key=value`` folders <-> typed columns;
* :mod:`~parquet_core.dataset.unify` - one schema over many files;
* :mod:`~parquet_core.dataset.schemas` - each file's schema from the start of its footer (planning);
* :mod:`~parquet_core.dataset.dataset` - :class:`ParquetDataset` (planning, pruning, reading);
* :mod:`~parquet_core.dataset.metadata_file` - ``_metadata`` / ``_common_metadata``;
* :mod:`~parquet_core.dataset.staleness` - which ``_metadata`` entries still describe the listed files;
* :mod:`~parquet_core.dataset.write` - :func:`write_to_dataset`, committed through
  :mod:`~parquet_core.dataset.transaction` (staged files, locks, commit record), which
  readers honour through :mod:`~parquet_core.dataset.commit_markers`;
  :mod:`~parquet_core.dataset.metadata_update` keeps ``_metadata`` in step;
* :mod:`~parquet_core.dataset.api` - ``read_table`` / ``read_metadata`` / ``read_schema`` for
  any source (the facade's versions).

This package sits above ``file/`` (it opens files with :class:`~parquet_core.ParquetFile`)
and below the facade and the CLI.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Loaded on first use (PEP 562), so that listing files with
# ``parquet_core.dataset.discovery`` (a Spark planner does) loads neither the
# reader nor the writer.
_LAZY = {"ParquetDataset": "dataset", "Fragment": "dataset", "DatasetReport": "dataset",
         "Partitioning": "partitioning", "write_to_dataset": "write"}


def __getattr__(name: str) -> Any:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'parquet_core.dataset' has no attribute {name!r}")
    value = getattr(import_module(f"parquet_core.dataset.{mod}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from parquet_core.dataset.dataset import DatasetReport, Fragment, ParquetDataset  # noqa: F401
    from parquet_core.dataset.partitioning import Partitioning  # noqa: F401
    from parquet_core.dataset.write import write_to_dataset  # noqa: F401

__all__ = ["ParquetDataset", "Partitioning", "Fragment", "DatasetReport", "write_to_dataset"]
