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

This module only re-exports; the layers live in the subpackages (see docs/architecture.md).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# The error classes are tiny and every layer raises them: imported eagerly.
from parquet_core.errors import (
    CodecUnavailableError,
    DatasetWriteConflictError,
    ParquetChecksumError,
    ParquetEncryptionError,
    ParquetError,
    ParquetFormatError,
    ParquetResourceError,
    ParquetSchemaError,
    UnsupportedFeatureError,
)

# The type constructors are light (no numpy) and must be bound here: the name
# ``schema`` is also the subpackage ``parquet_core.schema``, which the import
# system would otherwise bind on ``parquet_core`` when a layer first loads it.
from parquet_core.schema.build import (
    binary,
    bool_,
    bson,
    date,
    date32,
    decimal,
    decimal128,
    decimal256,
    enum,
    field,
    fixed_size_binary,
    float16,
    float32,
    float64,
    geography,
    geometry,
    int8,
    int16,
    int32,
    int64,
    int96,
    interval,
    json_,
    null,
    schema,
    string,
    time,
    time32,
    time64,
    timestamp,
    uint8,
    uint16,
    uint32,
    uint64,
    utf8,
    uuid,
)
from parquet_core.schema.build_nested import list_, map_, struct

# Everything else is imported on first use (PEP 562): ``import parquet_core``
# costs about 20 ms, and a process that only lists files or reads a
# footer (a Spark planner, a Python worker, ``pqc schema``) never loads the
# writer, the validator or the dataset layer.  ``name -> module`` below is the
# whole public surface; ``tests/test_public_api.py`` imports every entry.
_LAZY_MODULES: dict[str, tuple[str, ...]] = {
    "parquet_core.constants": ('ConvertedType', 'PhysicalType', 'Repetition',),
    "parquet_core.encryption.keytools": ('CryptoFactory', 'DecryptionConfiguration', 'EncryptionConfiguration', 'KmsClient', 'KmsConnectionConfig', 'LocalWrapKmsClient',),
    "parquet_core.encryption.properties": ('FileDecryptionProperties', 'FileEncryptionProperties',),
    # ParquetFile, ParquetDataset and the read functions with the validator behind strict=True
    # handed in (see parquet_core/entry): the file and dataset layers hold none of their own
    "parquet_core.entry.file": ('ParquetFile',),
    "parquet_core.entry.dataset": ('ParquetDataset', 'read_metadata', 'read_pandas', 'read_schema', 'read_table',),
    "parquet_core.dataset": ('Partitioning', 'write_to_dataset',),
    "parquet_core.dataset.discovery": ('is_hidden', 'list_data_files',),
    "parquet_core.dataset.partitioning": ('infer_partition_type', 'parse_hive_folder', 'parse_partition_value',),
    "parquet_core.dataset.metadata_file": ('write_metadata',),
    "parquet_core.file.file_refs": ('resolve_file_ref',),
    "parquet_core.interop.ingest": ('as_table',),
    "parquet_core.validation": ('CheckReport', 'Finding', 'check',),
    "parquet_core.file.writer": ('ParquetWriter', 'write_table',),
    "parquet_core.metadata.statistics": ('Statistics',),
    "parquet_core.metadata.wrappers": ('ColumnChunkMetadata', 'FileMetadata', 'RowGroupMetadata',),
    "parquet_core.options": ('ReaderOptions', 'SortingColumn',),
    "parquet_core.predicate": ('Expression', 'col',),
    "parquet_core.schema.file_ref": ('file_ref',),
    "parquet_core.schema.nanos": ('NanoDatetime', 'NanoTime', 'NanoTimedelta',),
    "parquet_core.schema.pyvalues": ('Interval',),
    "parquet_core.schema.temporal": ('RawTemporal',),
    "parquet_core.schema.types": ('DataType', 'Field', 'Schema', 'TypeId',),
    "parquet_core.table.arrays": ('Array', 'Table',),
}
_LAZY: dict[str, str] = {name: mod for mod, names in _LAZY_MODULES.items() for name in names}


def __getattr__(name: str) -> Any:
    if name == "variant":
        value: Any = import_module("parquet_core.variant")
    else:
        mod = _LAZY.get(name)
        if mod is None:
            raise AttributeError(f"module 'parquet_core' has no attribute {name!r}")
        value = getattr(import_module(mod), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


# Static analysers, IDEs and the API reference see the real names.  ParquetFile,
# ParquetDataset and read_* are, at run time, parquet_core.entry's: the same classes and
# functions with the validator handed in (subclasses adding nothing to the interface).
if TYPE_CHECKING:
    from parquet_core import variant  # noqa: F401
    from parquet_core.constants import ConvertedType, PhysicalType, Repetition  # noqa: F401
    from parquet_core.dataset import ParquetDataset, Partitioning, write_to_dataset  # noqa: F401
    from parquet_core.dataset.api import read_metadata, read_pandas, read_schema, read_table  # noqa: F401
    from parquet_core.dataset.discovery import is_hidden, list_data_files  # noqa: F401
    from parquet_core.dataset.metadata_file import write_metadata  # noqa: F401
    from parquet_core.dataset.partitioning import (  # noqa: F401
        infer_partition_type,
        parse_hive_folder,
        parse_partition_value,
    )
    from parquet_core.encryption.keytools import (  # noqa: F401
        CryptoFactory,
        DecryptionConfiguration,
        EncryptionConfiguration,
        KmsClient,
        KmsConnectionConfig,
        LocalWrapKmsClient,
    )
    from parquet_core.encryption.properties import FileDecryptionProperties, FileEncryptionProperties  # noqa: F401
    from parquet_core.file.file_refs import resolve_file_ref  # noqa: F401
    from parquet_core.file.reader import ParquetFile  # noqa: F401
    from parquet_core.file.writer import ParquetWriter, write_table  # noqa: F401
    from parquet_core.interop.ingest import as_table  # noqa: F401
    from parquet_core.metadata.statistics import Statistics  # noqa: F401
    from parquet_core.metadata.wrappers import ColumnChunkMetadata, FileMetadata, RowGroupMetadata  # noqa: F401
    from parquet_core.options import ReaderOptions, SortingColumn  # noqa: F401
    from parquet_core.predicate import Expression, col  # noqa: F401
    from parquet_core.schema.file_ref import file_ref  # noqa: F401
    from parquet_core.schema.nanos import NanoDatetime, NanoTime, NanoTimedelta  # noqa: F401
    from parquet_core.schema.pyvalues import Interval  # noqa: F401
    from parquet_core.schema.temporal import RawTemporal  # noqa: F401
    from parquet_core.schema.types import DataType, Field, Schema, TypeId  # noqa: F401
    from parquet_core.table.arrays import Array, Table  # noqa: F401
    from parquet_core.validation import CheckReport, Finding, check  # noqa: F401

__version__ = "0.1.0"

__all__ = [
    "Array", "CodecUnavailableError", "ColumnChunkMetadata", "DataType", "Field",
    "FileMetadata", "Interval", "NanoDatetime", "NanoTime", "NanoTimedelta", "ParquetEncryptionError", "ParquetChecksumError", "DatasetWriteConflictError", "ParquetError", "ParquetFile",
    "ParquetFormatError", "ParquetResourceError", "ParquetSchemaError", "RawTemporal", "ReaderOptions",
    "RowGroupMetadata", "Schema", "Statistics", "Table", "TypeId", "UnsupportedFeatureError",
    "read_metadata", "read_pandas", "read_schema", "read_table", "__version__",
    "check", "CheckReport", "Finding",
    "ParquetWriter", "write_table", "SortingColumn", "Expression", "col",
    # datasets: folders, Hive partitions, globs, lists, object stores
    "ParquetDataset", "Partitioning", "write_to_dataset", "write_metadata",
    # one listing and Hive folder parser for Python and Spark (spark_adapter uses them)
    "is_hidden", "list_data_files", "infer_partition_type", "parse_hive_folder", "parse_partition_value",
    "FileEncryptionProperties", "FileDecryptionProperties",
    # key management tools
    "CryptoFactory", "DecryptionConfiguration", "EncryptionConfiguration",
    "KmsClient", "KmsConnectionConfig", "LocalWrapKmsClient",
    # schema building
    "binary", "bool_", "bson", "date", "date32", "decimal", "decimal128", "decimal256", "enum",
    "field", "fixed_size_binary", "float16", "geography", "geometry", "float32", "float64", "int8", "int16", "int32",
    "int64", "int96", "interval", "json_", "null", "schema", "string", "time", "time32",
    "time64", "timestamp", "uint8", "uint16", "uint32", "uint64", "utf8", "uuid",
    "list_", "map_", "struct", "file_ref", "resolve_file_ref", "variant",
    # any input (mapping of columns, pandas, pyarrow) as a Table, cast to a schema
    "as_table",
    # the spec's enums the schema and metadata speak of (``pqmeta`` names them)
    "ConvertedType", "PhysicalType", "Repetition",
]
