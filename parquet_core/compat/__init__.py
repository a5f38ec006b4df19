"""``pqc compat``: which readers read which Parquet format features, measured.

* :mod:`~parquet_core.compat.features`: the catalogue (one small file per feature,
  written by parquet_core, with the values a reader must return);
* :mod:`~parquet_core.compat.readers`: one module per reader (pc, pyarrow, duckdb,
  polars, fastparquet, Spark), each run in its own process (:mod:`~parquet_core.compat.child`);
* :mod:`~parquet_core.compat.runner`: processes, timeouts, memory limits, verdicts;
* :mod:`~parquet_core.compat.writers`: the reverse direction (other libraries write);
* :mod:`~parquet_core.compat.report`: terminal, Markdown, JSON and HTML outputs;
* :mod:`~parquet_core.compat.table`: the shipped table behind ``pqc check --target``.

This package sits above ``validation`` and below ``cli`` (docs/compat.md).
"""
