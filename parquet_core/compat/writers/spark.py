"""Spark's built-in writer (parquet-java): one part file in a folder, session time zone UTC."""

from __future__ import annotations

from typing import Any

from parquet_core.compat.readers import NotApplicable
from parquet_core.compat.writers import CODECS, TYPE_GROUPS

MEMORY_LIMIT = None
STARTUP_SECONDS = 300
MIN_TIMEOUT = 120

_CODECS = {"snappy", "gzip", "zstd", "lz4_raw", "lz4"}


def version() -> str:
    from parquet_core.compat.readers.spark import version as v
    return v()


def write(table: Any, path: str, feature: str) -> None:
    from parquet_core.compat.readers.spark import _spark
    group = feature.split(".", 1)[0]
    opts: dict[str, str] = {"compression": "none"}
    if feature in CODECS:
        if CODECS[feature] not in _CODECS:
            raise NotApplicable(f"Spark has no {feature} codec on its class path")
        opts["compression"] = CODECS[feature]
    elif feature in ("page.v2", "page.v2_compressed"):
        opts["parquet.writer.version"] = "v2"
        if feature == "page.v2_compressed":
            opts["compression"] = "snappy"
    elif feature == "bloom.filter":
        opts["parquet.bloom.filter.enabled"] = "true"
    elif group not in TYPE_GROUPS and not feature.startswith("encoding.RLE_DICTIONARY"):
        raise NotApplicable(f"no Spark writer option produces {feature}")
    df = _spark().createDataFrame(table)
    writer = df.coalesce(1).write.mode("overwrite")
    for k, v in opts.items():
        writer = writer.option(k, v)
    writer.parquet(path)
