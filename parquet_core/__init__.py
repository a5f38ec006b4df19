"""parquet_core: a from-scratch, numpy-vectorised Parquet engine.

The public API is shaped like ``pyarrow.parquet``::

    import parquet_core as pc
    table = pc.read_table("data.parquet", columns=["a", "b"])
    pf = pc.ParquetFile("data.parquet")
    for batch in pf.iter_batches(batch_size=10_000):
        ...

This module only re-exports; the layers live in the subpackages (see README).
"""

from __future__ import annotations

from parquet_core.errors import (
    CodecUnavailableError,
    ParquetEncryptionError,
    ParquetError,
    ParquetFormatError,
    ParquetSchemaError,
    UnsupportedFeatureError,
)
from parquet_core.file.reader import ParquetFile, read_metadata, read_schema, read_table
from parquet_core.metadata.statistics import Statistics
from parquet_core.metadata.wrappers import ColumnChunkMetadata, FileMetadata, RowGroupMetadata
from parquet_core.options import ReaderOptions
from parquet_core.schema.pyvalues import Interval
from parquet_core.schema.temporal import RawTemporal
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.table.arrays import Array, Table

__version__ = "0.1.0"

__all__ = [
    "Array", "CodecUnavailableError", "ColumnChunkMetadata", "DataType", "Field",
    "FileMetadata", "Interval", "ParquetEncryptionError", "ParquetError", "ParquetFile",
    "ParquetFormatError", "ParquetSchemaError", "RawTemporal", "ReaderOptions",
    "RowGroupMetadata", "Schema", "Statistics", "Table", "UnsupportedFeatureError",
    "read_metadata", "read_schema", "read_table", "__version__",
]
