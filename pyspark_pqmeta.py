"""PySpark auto-discovery shim for ``format("pqmeta")`` (see ``pyspark_pqcore``: keep it tiny)."""

from spark_adapter import PqmetaDataSource as DefaultSource  # public name (see pyspark_pqcore)

__all__ = ["DefaultSource"]
