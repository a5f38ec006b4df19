"""The few parquet_core internals this package needs beyond the facade.

Everything else goes through ``import parquet_core as pc``.  These three
are table operations the facade does not re-export yet (building a table
from any input with casting, row selection, and evaluating a predicate on
an in-memory table); keeping them in one module makes the dependency
visible and easy to replace once the facade exports them.
"""

from __future__ import annotations

from parquet_core.predicate.evaluate import filter_mask
from parquet_core.table.ingest import as_array, as_table
from parquet_core.table.select import filter_table, take

__all__ = ["as_array", "as_table", "filter_mask", "filter_table", "take"]
