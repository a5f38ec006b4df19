"""``PqcoreDataSource``: the PySpark (>= 4.0) Python data source ``format("pqcore")``.

::

    import spark_adapter
    spark_adapter.register(spark)            # or the pyspark_pqcore auto-discovery shim
    spark.read.format("pqcore").load("/data/file.parquet")
    spark.read.format("pqcore").load("/data/dir")            # recursive, like Spark
    spark.read.format("pqcore").load(["/a.parquet", "/b.parquet"])
    spark.read.format("pqcore").schema("id long, name string").load(...)   # projection
    df.write.format("pqcore").mode("overwrite").option("partitionBy", "k") \
        .option("compression", "zstd").save("/data/out")

Spark builds the instance as ``cls(options=...)`` in a Python worker on the
driver, calls ``schema()`` there (unless the user gave a schema), pickles the
instance, and later calls ``reader(schema=...)`` in a planning worker.  The
instance therefore keeps only its options.  pyarrow and the engine are
imported inside the methods, so importing this module (which the
``pyspark_pqcore`` auto-discovery shim does in every lookup) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql.datasource import DataSource

from spark_adapter.core.readable_errors import readable
from spark_adapter.pqcore.options import SHORT_NAME, read_options, write_options

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql.types import StructType

    from spark_adapter.pqcore.reader import PqcoreReader
    from spark_adapter.pqcore.writer import PqcoreWriter

__all__ = ["SHORT_NAME", "PqcoreDataSource"]


class PqcoreDataSource(DataSource):
    """Read and write Parquet files with parquet_core (batch reads and writes of flat files)."""

    @classmethod
    def name(cls) -> str:
        return SHORT_NAME

    @readable
    def schema(self) -> StructType:
        """The Spark schema of the first file (in listing order; of all files merged with
        ``mergeSchema``), all fields nullable, followed by the partition columns of
        ``key=value`` folders; cut down to the ``columns`` option (see ``schema_options``)."""
        from spark_adapter.pqcore.reader import list_table
        from spark_adapter.pqcore.scan import ScanFilter

        opts = read_options(self.options)   # a bad or unknown option fails at load()
        ScanFilter(opts.filter_texts())     # so does a bad filter, before any job
        paths = list(opts.paths)
        if not paths:
            raise ValueError("pqcore: no path given; use load(path) or load([paths])")
        files, _, partition_fields = list_table(opts)
        if not files:
            raise FileNotFoundError(
                f"[UNABLE_TO_INFER_SCHEMA] Unable to infer schema for pqcore: no data files "
                f"under {paths}. It must be specified manually.")
        first = files[0]
        data = _file_schema(first, opts.encryption)
        if opts.merge_schema:
            from spark_adapter.core.schema_options import merge_schemas

            data = merge_schemas([(first, data)] + [(f, _file_schema(f, opts.encryption)) for f in files[1:]])
        clash = {f.name.lower() for f in data.fields} & {f.name.lower() for f in partition_fields}
        if clash:
            raise ValueError(f"pqcore: partition column(s) {sorted(clash)} also stored in the files "
                             f"(first file {first}); not supported")
        for f in partition_fields:
            data.add(f)
        if opts.columns is not None:
            from spark_adapter.core.schema_options import project

            data = project(data, opts.columns)
        return data

    @readable
    def reader(self, schema: StructType) -> PqcoreReader:
        # Spark calls reader(schema=...): the parameter name matters.
        from spark_adapter.pqcore.reader import PqcoreReader

        return PqcoreReader(read_options(self.options), schema)

    @readable
    def writer(self, schema: StructType, overwrite: bool) -> PqcoreWriter:
        """``df.write.format("pqcore").mode("append"|"overwrite").save(path)`` (see ``writer.py``)."""
        from spark_adapter.pqcore.writer import PqcoreWriter

        return PqcoreWriter(write_options(self.options), schema, overwrite)


def _file_schema(path: str, options: dict | None = None) -> StructType:
    """The Spark schema of one file's footer (errors name the file)."""
    # ParquetFile, not pc.read_schema: the latter lives in parquet_core.dataset.api, whose
    # import loads the whole dataset layer into Spark's schema worker for one footer
    from parquet_core.errors import ParquetError
    from spark_adapter.core.crypto_options import open_parquet
    from spark_adapter.core.types import to_spark_schema

    try:
        with open_parquet(path, options) as pf:
            parquet_schema = pf.schema_arrow
    except ParquetError as exc:
        from parquet_core.errors import add_note  # lazy: the pyspark_* shims stay import-light
        add_note(exc, f"while reading the schema of {path} with pqcore")
        raise
    _refuse_repeated_names(parquet_schema.names, path)
    try:
        return to_spark_schema(parquet_schema)
    except TypeError as exc:
        from parquet_core.errors import add_note  # lazy: the pyspark_* shims stay import-light
        add_note(exc, f"in the schema of {path}")
        raise


def _refuse_repeated_names(names: list[str], path: str) -> None:
    """The source matches a file's columns by name: a name given to several columns would
    pick one of them for the other, so a schema holding one is refused."""
    from parquet_core.errors import ParquetSchemaError

    for name in dict.fromkeys(n for n in names if names.count(n) > 1):
        raise ParquetSchemaError(
            f"pqcore: column name {name!r} is ambiguous in {path}: {names.count(name)} columns have it, "
            f"at positions {', '.join(str(i) for i, n in enumerate(names) if n == name)}; pqcore matches "
            "columns by name, so give a schema (.schema(...)) naming only columns whose names are unique")
