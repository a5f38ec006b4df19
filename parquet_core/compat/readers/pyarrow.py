"""pyarrow.parquet (Arrow C++): ``pq.read_table``; encrypted files are n/a (keys only through a KMS)."""

from __future__ import annotations

from typing import Any

from parquet_core.compat.canonical import from_arrow
from parquet_core.compat.readers import NotApplicable


def version() -> str:
    import pyarrow
    return pyarrow.__version__


def read(path: str, keys: dict[str, Any] | None) -> dict[str, list]:
    import pyarrow.parquet as pq
    if keys:
        raise NotApplicable("pyarrow takes keys only through a KMS client (CryptoFactory)")
    return from_arrow(pq.read_table(path))
