"""``pc.ParquetDataset`` and ``pc.read_table`` / ``read_pandas`` / ``read_metadata`` /
``read_schema``: the dataset layer's, opening their files as ``pc.ParquetFile``."""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from parquet_core.dataset import api, dataset
from parquet_core.entry.file import ParquetFile

__all__ = ["ParquetDataset", "read_table", "read_pandas", "read_metadata", "read_schema"]


class ParquetDataset(dataset.ParquetDataset):
    # every file of the dataset is a pc.ParquetFile (it brings the validator); set here only
    file_class = ParquetFile


ParquetDataset.__doc__ = dataset.ParquetDataset.__doc__
ParquetDataset.__module__ = "parquet_core"

_F = TypeVar("_F", bound=Callable[..., Any])


def _with_dataset_class(function: _F) -> _F:
    """*function* of :mod:`parquet_core.dataset.api` with ``dataset_class`` defaulting to
    :class:`ParquetDataset` (its signature and documentation stay the original's)."""
    @functools.wraps(function)
    def entry(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("dataset_class") is None:
            kwargs["dataset_class"] = ParquetDataset
        return function(*args, **kwargs)

    entry.__module__ = "parquet_core"
    return entry  # type: ignore[return-value]


read_table = _with_dataset_class(api.read_table)
read_pandas = _with_dataset_class(api.read_pandas)
read_metadata = _with_dataset_class(api.read_metadata)
read_schema = _with_dataset_class(api.read_schema)
