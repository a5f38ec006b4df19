"""Errors of the Kartothek integration (all are :class:`parquet_core.ParquetError`)."""

from __future__ import annotations

from parquet_core import ParquetError

__all__ = ["KartothekError", "DatasetNotFoundError", "DatasetExistsError", "ConcurrentWriteError",
           "PredicateError", "DatasetSchemaError"]


class KartothekError(ParquetError):
    """A Kartothek dataset is malformed, or an operation on it is not allowed."""


class DatasetNotFoundError(KartothekError, LookupError):
    """Neither metadata file of the dataset exists."""


class DatasetExistsError(KartothekError):
    """A dataset with this uuid already exists (pass ``overwrite=True`` to replace it)."""


class ConcurrentWriteError(KartothekError):
    """The metadata file changed since it was read: another writer committed first."""


class PredicateError(KartothekError, ValueError):
    """A predicate is not in Kartothek's DNF form, or a literal does not fit its column."""


class DatasetSchemaError(KartothekError):
    """Data does not fit the dataset's table schema (``_common_metadata``)."""
