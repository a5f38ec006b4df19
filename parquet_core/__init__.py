"""parquet_core: a from-scratch, numpy-vectorised Parquet engine.

The public API is shaped like ``pyarrow.parquet``::

    import parquet_core as pc
    table = pc.read_table("data.parquet", columns=["a", "b"])
    pf = pc.ParquetFile("data.parquet")
    for batch in pf.iter_batches(batch_size=10_000):
        ...

    pc.write_table({"id": [1, 2, 3], "name": ["a", None, "c"]}, "out.parquet",
                   compression="zstd")

    pc.write_to_dataset(table, "ds", partition_cols=["year"])    # ds/year=2024/<uuid>-0.parquet
    pc.read_table("ds", filters=[("year", ">=", 2023)])          # a folder, glob, list or s3:// URL

    schema = pc.schema([pc.field("ts", pc.timestamp("us", utc=True)),
                        pc.field("price", pc.decimal(12, 2), nullable=False)])
    with pc.ParquetWriter("big.parquet", schema, row_group_size=100_000) as writer:
        for batch in batches:
            writer.write_table(batch)

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
from parquet_core.encryption.keytools import (
    CryptoFactory, DecryptionConfiguration, EncryptionConfiguration, InMemoryKms, KmsClient,
    KmsConnectionConfig, LocalWrapKmsClient,
)
from parquet_core.encryption.properties import FileDecryptionProperties, FileEncryptionProperties
from parquet_core.file.reader import ParquetFile
from parquet_core.dataset import ParquetDataset, Partitioning, write_to_dataset
from parquet_core.dataset.api import read_metadata, read_schema, read_table
from parquet_core.dataset.metadata_file import write_metadata
from parquet_core.file.file_refs import resolve_file_ref
from parquet_core.validation import CheckReport, Finding, check
from parquet_core.file.writer import ParquetWriter, write_table
from parquet_core.metadata.statistics import Statistics
from parquet_core.metadata.wrappers import ColumnChunkMetadata, FileMetadata, RowGroupMetadata
from parquet_core.options import ReaderOptions, SortingColumn
from parquet_core.predicate import Expression, col
from parquet_core.schema.build import (
    binary, bool_, bson, date, date32, decimal, decimal128, decimal256, enum, field,
    fixed_size_binary, float16, geography, geometry, float32, float64, int8, int16, int32, int64, int96, interval,
    json_, null, schema, string, time, time32, time64, timestamp, uint8, uint16, uint32,
    uint64, utf8, uuid,
)
from parquet_core.schema.build_nested import list_, map_, struct
from parquet_core.schema.file_ref import file_ref
from parquet_core.schema.nanos import NanoDatetime, NanoTime, NanoTimedelta
from parquet_core.schema.pyvalues import Interval
from parquet_core.schema.temporal import RawTemporal
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.table.arrays import Array, Table
from parquet_core import variant

__version__ = "0.1.0"

__all__ = [
    "Array", "CodecUnavailableError", "ColumnChunkMetadata", "DataType", "Field",
    "FileMetadata", "Interval", "NanoDatetime", "NanoTime", "NanoTimedelta", "ParquetEncryptionError", "ParquetError", "ParquetFile",
    "ParquetFormatError", "ParquetSchemaError", "RawTemporal", "ReaderOptions",
    "RowGroupMetadata", "Schema", "Statistics", "Table", "UnsupportedFeatureError",
    "read_metadata", "read_schema", "read_table", "__version__",
    "check", "CheckReport", "Finding",
    "ParquetWriter", "write_table", "SortingColumn", "Expression", "col",
    # datasets: folders, Hive partitions, globs, lists, object stores
    "ParquetDataset", "Partitioning", "write_to_dataset", "write_metadata",
    "FileEncryptionProperties", "FileDecryptionProperties",
    # key management tools
    "CryptoFactory", "DecryptionConfiguration", "EncryptionConfiguration", "InMemoryKms",
    "KmsClient", "KmsConnectionConfig", "LocalWrapKmsClient",
    # schema building
    "binary", "bool_", "bson", "date", "date32", "decimal", "decimal128", "decimal256", "enum",
    "field", "fixed_size_binary", "float16", "geography", "geometry", "float32", "float64", "int8", "int16", "int32",
    "int64", "int96", "interval", "json_", "null", "schema", "string", "time", "time32",
    "time64", "timestamp", "uint8", "uint16", "uint32", "uint64", "utf8", "uuid",
    "list_", "map_", "struct", "file_ref", "resolve_file_ref", "variant",
]
