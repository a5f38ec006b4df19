"""PySpark auto-discovery shim for ``format("pqcore")``.

PySpark (>= 4.0) imports every top-level module named ``pyspark_*`` on its
Python workers' path, once per JVM, and registers ``DefaultSource`` under
``DefaultSource.name()``.  Keep this module tiny, import-light and free of
side effects: it is imported during that lookup, and a failing import there
disables the discovery of every Python data source.
"""

# the package's public name, not the module path: an editable install copies this file once,
# and the name survives a reorganisation of spark_adapter/ that the copy would not
from spark_adapter import PqcoreDataSource as DefaultSource

__all__ = ["DefaultSource"]
