"""PySpark adapter for parquet_core: the Python data source ``format("pqcore")``.

Two ways to make ``spark.read.format("pqcore")`` work:

* ``spark_adapter.register(spark)``: explicit, for one SparkSession (call it
  again after ``spark.stop()`` or in ``spark.newSession()``);
* automatic: PySpark >= 4.0 imports every top-level ``pyspark_*`` module its
  Python workers can see, once per JVM, and registers their ``DefaultSource``
  for all sessions.  This package ships ``pyspark_pqcore`` for that (installed
  with the project, or found through ``PYTHONPATH`` set before the JVM starts).

Importing this package is cheap: pyspark is imported when
``PqcoreDataSource`` is first used, pyarrow and the engine only when data is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from spark_adapter.datasource import PqcoreDataSource

__all__ = ["SHORT_NAME", "PqcoreDataSource", "read", "register"]

SHORT_NAME = "pqcore"


def register(spark: Any) -> Any:
    """Register ``format("pqcore")`` (:class:`PqcoreDataSource`), ``format("pqmeta")`` and
    ``format("kartothek")`` in *spark*.

    Returns *spark*, so ``spark = register(SparkSession.builder...getOrCreate())`` works.
    """
    from spark_adapter.datasource import PqcoreDataSource
    from spark_adapter.kartothek_source import KartothekDataSource
    from spark_adapter.meta import PqmetaDataSource

    spark.dataSource.register(PqcoreDataSource)
    spark.dataSource.register(PqmetaDataSource)
    spark.dataSource.register(KartothekDataSource)
    return spark


def read(spark: Any, path: Any, query: Any = None, **options: Any) -> Any:
    """``query(spark.read.format("pqcore")...load(path))`` reading only the columns, and
    skipping the files and row groups, that *query* needs: Spark tells a Python source
    neither (see :mod:`spark_adapter.narrow`)."""
    from spark_adapter.narrow import read as _read

    return _read(spark, path, query, **options)


def __getattr__(name: str) -> Any:  # PEP 562: lazy export of the pyspark-dependent class
    if name == "PqcoreDataSource":
        from spark_adapter.datasource import PqcoreDataSource

        return PqcoreDataSource
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
