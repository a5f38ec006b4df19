"""Conversions to and from other libraries (pyarrow, pandas).

A layer of the engine, directly above :mod:`parquet_core.table` (the arrays it
converts) and below the file and dataset layers (the writer takes pyarrow and
pandas input through :func:`parquet_core.interop.ingest.as_table`; ARROW:schema
is written and restored by :mod:`~parquet_core.interop.stored_schema`).  It is
the only package allowed to import pyarrow and pandas, and does so only when a
conversion first needs them: :mod:`~parquet_core.interop.ingest` and
:mod:`~parquet_core.interop.stored_schema` import neither.

The data classes' pyarrow-shaped methods (``Table.to_arrow``,
``Table.to_pandas``, ``Table.from_pydict``, ``Schema.to_arrow``) delegate here
through a function-level import: the one sanctioned upward edge, listed in the
layers contract of ``pyproject.toml``.
"""
