"""What the three Spark data sources share.

* types (parquet_core types -> Spark types and the Arrow layout Spark expects),
  batches (engine Arrow columns -> Spark's record batches);
* filters: sql_filter (the ``filter`` option), filters (the ``filters`` JSON DNF),
  literals, arrow_filter (what is checked on the rows read), pushdown (``pushFilters``);
* files (what a ``load(...)`` means) and partitioning (``key=value`` folders, typed
  as Spark types them), both over ``parquet_core``'s one listing and folder parser;
* option_values (the typed-option machinery every source's ``options.py`` uses),
  crypto_options, schema_options, write_options;
* skipping (xskipper indexes from Spark).

Nothing here imports a source package (``pqcore``, ``pqmeta``, ``kartothek``);
an import-linter contract in ``pyproject.toml`` says so.
"""
