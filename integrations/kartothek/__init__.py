"""Kartothek datasets (metadata version 4) on parquet_core: read, write, update, index, GC.

See ``integrations/kartothek/README.md``.
"""

from integrations.kartothek.errors import (
    ConcurrentWriteError, DatasetExistsError, DatasetNotFoundError, DatasetSchemaError, KartothekError,
    PredicateError,
)
from integrations.kartothek.metadata import DatasetMetadata, load_metadata
from integrations.kartothek.read import iter_partitions, plan_read, read_dataset
from integrations.kartothek.store import FsspecStore, LocalStore, Store, open_store

__all__ = [
    "read_dataset", "iter_partitions", "plan_read", "load_metadata", "DatasetMetadata",
    "Store", "LocalStore", "FsspecStore", "open_store",
    "KartothekError", "DatasetNotFoundError", "DatasetExistsError", "ConcurrentWriteError",
    "PredicateError", "DatasetSchemaError",
]
