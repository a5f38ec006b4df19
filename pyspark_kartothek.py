"""PySpark auto-discovery shim for ``format("kartothek")`` (see ``pyspark_pqcore``).

Kept tiny and import-light: PySpark imports every ``pyspark_*`` module on its
workers' path during data-source lookup, and a failing import there disables
the discovery of every Python data source.
"""

from spark_adapter import KartothekDataSource as DefaultSource  # public name (see pyspark_pqcore)

__all__ = ["DefaultSource"]
