"""fastparquet.write from the table as a pandas DataFrame."""

from __future__ import annotations

from typing import Any

from parquet_core.compat.readers import NotApplicable
from parquet_core.compat.writers import CODECS, TYPE_GROUPS

_CODECS = {"snappy", "gzip", "zstd", "brotli", "lz4_raw"}


def version() -> str:
    import fastparquet
    return fastparquet.__version__


def write(table: Any, path: str, feature: str) -> None:
    import fastparquet
    group = feature.split(".", 1)[0]
    kwargs: dict[str, Any] = {}
    if feature in CODECS:
        if CODECS[feature] not in _CODECS:
            raise NotApplicable(f"fastparquet writes no {feature}")
        kwargs["compression"] = CODECS[feature].upper()
    elif feature == "page.row_groups":
        kwargs["row_group_offsets"] = 500
    elif feature.startswith("encoding.RLE_DICTIONARY"):
        kwargs["object_encoding"] = "infer"
    elif group not in TYPE_GROUPS:
        raise NotApplicable(f"no fastparquet option produces {feature}")
    fastparquet.write(path, _frame(table), **kwargs)


def _frame(table: Any) -> Any:
    """The table as pandas with nullable integer columns (not float64 with NaN for nulls)."""
    import pandas as pd
    import pyarrow as pa
    nullable = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
                pa.int64(): pd.Int64Dtype(), pa.uint8(): pd.UInt8Dtype(), pa.uint16(): pd.UInt16Dtype(),
                pa.uint32(): pd.UInt32Dtype(), pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype()}
    return table.to_pandas(types_mapper=nullable.get)
