"""polars.DataFrame.write_parquet from the Arrow table."""

from __future__ import annotations

from typing import Any

from parquet_core.compat.readers import NotApplicable
from parquet_core.compat.writers import CODECS, TYPE_GROUPS

_CODECS = {"snappy", "gzip", "zstd", "brotli", "lz4"}


def version() -> str:
    import polars
    return polars.__version__


def write(table: Any, path: str, feature: str) -> None:
    import polars as pl
    group = feature.split(".", 1)[0]
    kwargs: dict[str, Any] = {"compression": "uncompressed"}
    if feature in CODECS:
        name = CODECS[feature]
        if feature == "codec.LZ4_RAW":
            name = "lz4"           # polars' "lz4" is LZ4_RAW
        elif name not in _CODECS or feature == "codec.LZ4_HADOOP":
            raise NotApplicable(f"polars has no {feature}")
        kwargs["compression"] = name
    elif feature in ("stats.minmax",):
        kwargs["statistics"] = True
    elif feature == "page.row_groups":
        kwargs["row_group_size"] = 500
    elif group not in TYPE_GROUPS:
        raise NotApplicable(f"no polars option produces {feature}")
    frame = pl.from_arrow(table)
    if not isinstance(frame, pl.DataFrame):     # an Arrow array gives a Series: the runner passes tables
        raise TypeError(f"polars writer needs an Arrow table, got {type(table).__name__}")
    frame.write_parquet(path, **kwargs)
