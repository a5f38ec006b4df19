"""Formats of the systems parquet-core serves, built on parquet_core's public API.

Each subpackage is pure Python (no pyspark needed): ``parquet_core_integrations.kartothek``
for Kartothek datasets and ``parquet_core_integrations.xskipper`` for xskipper-style
data-skipping metadata stores. Their Spark data sources live in ``spark_adapter``.

They import only ``parquet_core`` (the facade), ``parquet_core.errors`` and the public
subpackage ``parquet_core.predicate``; an import-linter contract in pyproject.toml
enforces it.  The package was called ``integrations`` before it was installed under
this unambiguous name (same folder contents, renamed with it).
"""
