"""Kartothek datasets (metadata version 4) on parquet_core: read, write, update, index, GC.

See ``parquet_core_integrations/kartothek/README.md``.
"""

from parquet_core_integrations.kartothek.errors import (
    ConcurrentWriteError,
    DatasetExistsError,
    DatasetNotFoundError,
    DatasetSchemaError,
    KartothekError,
    PredicateError,
)
from parquet_core_integrations.kartothek.maintenance import build_indices, delete_dataset, garbage_collect
from parquet_core_integrations.kartothek.metadata import DatasetMetadata, load_metadata
from parquet_core_integrations.kartothek.read import iter_partitions, plan_read, read_dataset
from parquet_core_integrations.kartothek.store import FsspecStore, LocalStore, Store, open_store
from parquet_core_integrations.kartothek.write import (
    commit_dataset,
    stage_partitions,
    update_dataset,
    write_dataset,
)

__all__ = [
    "read_dataset", "iter_partitions", "plan_read", "write_dataset", "update_dataset", "build_indices",
    "garbage_collect", "delete_dataset", "stage_partitions", "commit_dataset", "load_metadata", "DatasetMetadata",
    "Store", "LocalStore", "FsspecStore", "open_store",
    "KartothekError", "DatasetNotFoundError", "DatasetExistsError", "ConcurrentWriteError",
    "PredicateError", "DatasetSchemaError",
]
