"""PySpark adapter for parquet_core: the Python data source ``format("pqcore")``.

Two ways to make ``spark.read.format("pqcore")`` work:

* ``spark_adapter.register(spark)``: explicit, for one SparkSession (call it
  again after ``spark.stop()`` or in ``spark.newSession()``);
* automatic: PySpark >= 4.0 imports every top-level ``pyspark_*`` module its
  Python workers can see, once per JVM, and registers their ``DefaultSource``
  for all sessions.  This package ships ``pyspark_pqcore`` for that (installed
  with the project, or found through ``PYTHONPATH`` set before the JVM starts).

Layout: ``core/`` (what the sources share: types, batches, filters, files and
partition folders, option values, crypto/schema/write options, xskipper
skipping) below three source packages that import none of each other:
``pqcore/``, ``pqmeta/`` and ``kartothek/``, each with its ``datasource`` and
its one option parser (``options.py``).  Only ``parquet_core``'s facade and
``parquet_core.errors`` are imported from the engine (import-linter contracts
in ``pyproject.toml``).

Importing this package is cheap: pyspark is imported when
``PqcoreDataSource`` is first used, pyarrow and the engine only when data is read.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from spark_adapter.core.skipping import required_files, skipping_report  # noqa: F401
    from spark_adapter.kartothek.datasource import KartothekDataSource  # noqa: F401
    from spark_adapter.pqcore.datasource import PqcoreDataSource
    from spark_adapter.pqmeta.datasource import PqmetaDataSource  # noqa: F401
    from spark_adapter.shipping import build_zip, ship  # noqa: F401

__all__ = ["SHORT_NAME", "KartothekDataSource", "PqcoreDataSource", "PqmetaDataSource", "build_zip", "read",
           "register", "required_files", "ship", "skipping_report"]

# name -> module, imported on first use (PEP 562): the data sources import pyspark
_LAZY = {
    "PqcoreDataSource": "spark_adapter.pqcore.datasource",
    "PqmetaDataSource": "spark_adapter.pqmeta.datasource",
    "KartothekDataSource": "spark_adapter.kartothek.datasource",
    "required_files": "spark_adapter.core.skipping",
    "skipping_report": "spark_adapter.core.skipping",
    "ship": "spark_adapter.shipping",          # the project's code zipped for executors without it
    "build_zip": "spark_adapter.shipping",
}

SHORT_NAME = "pqcore"


def register(spark: Any) -> Any:
    """Register ``format("pqcore")`` (:class:`PqcoreDataSource`), ``format("pqmeta")`` and
    ``format("kartothek")`` in *spark*.

    Also registers xskipper's Spark indexer (``Xskipper(spark, ...)`` over csv/json/orc).
    Returns *spark*, so ``spark = register(SparkSession.builder...getOrCreate())`` works.
    """
    from spark_adapter.kartothek.datasource import KartothekDataSource
    from spark_adapter.pqcore.datasource import PqcoreDataSource
    from spark_adapter.pqmeta.datasource import PqmetaDataSource

    spark.dataSource.register(PqcoreDataSource)
    spark.dataSource.register(PqmetaDataSource)
    spark.dataSource.register(KartothekDataSource)
    import_module("spark_adapter.core.skipping")   # registers xskipper's Spark indexer
    return spark


def read(spark: Any, path: Any, query: Any = None, **options: Any) -> Any:
    """``query(spark.read.format("pqcore")...load(path))`` reading only the columns, and
    skipping the files and row groups, that *query* needs: Spark tells a Python source
    neither (see :mod:`spark_adapter.pqcore.narrow`)."""
    from spark_adapter.pqcore.narrow import read as _read

    return _read(spark, path, query, **options)


def __getattr__(name: str) -> Any:  # PEP 562: lazy exports of the pyspark-dependent names
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
