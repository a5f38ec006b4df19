"""pyarrow.parquet.write_table with the option each feature needs."""

from __future__ import annotations

from typing import Any

from parquet_core.compat.readers import NotApplicable
from parquet_core.compat.writers import CODECS, TYPE_GROUPS


def version() -> str:
    import pyarrow
    return pyarrow.__version__


_ENCODINGS = {"DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT", "RLE"}


def options_for(feature: str) -> dict[str, Any]:
    group = feature.split(".", 1)[0]
    if group in TYPE_GROUPS:
        return {"compression": "none", "use_dictionary": False}
    if feature in CODECS and CODECS[feature] != "lzo":
        return {"compression": CODECS[feature]}
    if group == "encoding":
        enc = feature.split(".")[1]
        if enc == "RLE_DICTIONARY":
            return {"use_dictionary": True}
        if enc in _ENCODINGS:
            return {"use_dictionary": False, "column_encoding": enc}
    simple: dict[str, dict[str, Any]] = {"page.v2": {"data_page_version": "2.0", "compression": "none"},
              "page.v2_compressed": {"data_page_version": "2.0", "compression": "snappy"},
              "page.v1_compressed": {"compression": "gzip"},
              "page.many": {"data_page_size": 512}, "page.row_groups": {"row_group_size": 500},
              "index.page_index": {"write_page_index": True}, "crc.page": {"write_page_checksum": True},
              "stats.minmax": {"write_statistics": True}, "stats.size_statistics": {},
              "sorting_columns": {}, "metadata.kv": {}, "dictionary.fallback": {"dictionary_pagesize_limit": 4096},
              "bloom.filter": {"bloom_filter_options": True}}
    if feature in simple:
        return simple[feature]
    raise NotApplicable(f"no pyarrow option produces {feature}")


def write(table: Any, path: str, feature: str) -> None:
    import pyarrow.parquet as pq
    opts = dict(options_for(feature))
    if feature == "sorting_columns":
        opts["sorting_columns"] = [pq.SortingColumn(0)]
    if feature == "metadata.kv":
        table = table.replace_schema_metadata({"origin": "pqc compat"})
    if feature == "bloom.filter":
        opts["bloom_filter_options"] = {name: {} for name in table.column_names}
    pq.write_table(table, path, **opts)
