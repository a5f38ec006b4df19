"""PySpark auto-discovery shim for ``format("pqcore")``.

PySpark (>= 4.0) imports every top-level module named ``pyspark_*`` on its
Python workers' path, once per JVM, and registers ``DefaultSource`` under
``DefaultSource.name()``.  Keep this module tiny, import-light and free of
side effects: it is imported during that lookup, and a failing import there
disables the discovery of every Python data source.
"""

from spark_adapter.pqcore.datasource import PqcoreDataSource as DefaultSource

__all__ = ["DefaultSource"]
