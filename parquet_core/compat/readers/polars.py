"""polars.read_parquet; encrypted files through ParquetDecryptionProperties (explicit keys)."""

from __future__ import annotations

import os
from typing import Any

from parquet_core.compat.canonical import from_arrow


def version() -> str:
    import polars
    return polars.__version__


def read(path: str, keys: dict[str, Any] | None) -> dict[str, list]:
    import polars as pl
    target = os.path.join(path, "*.parquet") if os.path.isdir(path) else path
    kwargs: dict[str, Any] = {}
    if keys and hasattr(pl, "ParquetDecryptionProperties"):
        kwargs["decryption"] = pl.ParquetDecryptionProperties(
            footer_key=bytes.fromhex(keys["footer_key"]),
            column_keys={k: bytes.fromhex(v) for k, v in keys.get("column_keys", {}).items()} or None,
            aad_prefix=bytes.fromhex(keys["aad_prefix"]) if keys.get("aad_prefix") else None)
    # an older polars has no key API: it is handed the encrypted file as is, and its own
    # answer (an error, or what it makes of the bytes) is the measurement
    return from_arrow(pl.read_parquet(target, **kwargs).to_arrow())
