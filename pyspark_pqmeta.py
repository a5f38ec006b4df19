"""PySpark auto-discovery shim for ``format("pqmeta")`` (see ``pyspark_pqcore``: keep it tiny)."""

from spark_adapter.pqmeta.datasource import PqmetaDataSource as DefaultSource

__all__ = ["DefaultSource"]
