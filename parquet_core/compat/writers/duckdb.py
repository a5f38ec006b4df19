"""duckdb's COPY ... TO (FORMAT parquet) from the Arrow table."""

from __future__ import annotations

from typing import Any

from parquet_core.compat.readers import NotApplicable
from parquet_core.compat.writers import CODECS, TYPE_GROUPS

_CODECS = {"snappy", "gzip", "zstd", "brotli", "lz4_raw", "lz4"}


def version() -> str:
    import duckdb
    return duckdb.__version__


def write(table: Any, path: str, feature: str) -> None:
    import duckdb
    group = feature.split(".", 1)[0]
    opts = ["FORMAT parquet"]
    if feature in CODECS and CODECS[feature] in _CODECS:
        opts.append(f"COMPRESSION {CODECS[feature]}")
    elif feature == "page.v2" or feature == "page.v2_compressed":
        opts.append("PARQUET_VERSION v2")
    elif feature == "bloom.filter" or feature.startswith("encoding.RLE_DICTIONARY"):
        pass          # duckdb writes both by default
    elif group not in TYPE_GROUPS:
        raise NotApplicable(f"no duckdb COPY option produces {feature}")
    con = duckdb.connect()
    try:
        con.register("src", table)
        con.execute(f"COPY (SELECT * FROM src) TO '{path}' ({', '.join(opts)})")
    finally:
        con.close()
