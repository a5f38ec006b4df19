"""PySpark auto-discovery shim for ``format("kartothek")`` (see ``pyspark_pqcore``).

Kept tiny and import-light: PySpark imports every ``pyspark_*`` module on its
workers' path during data-source lookup, and a failing import there disables
the discovery of every Python data source.
"""

from spark_adapter.kartothek.datasource import KartothekDataSource as DefaultSource

__all__ = ["DefaultSource"]
