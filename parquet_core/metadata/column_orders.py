"""The footer's ``ColumnOrder`` members by name, without the statistics decoders.

Opening a file reads every column's order; decoding a min/max needs numpy and the
value types.  The names live here so that reading a footer (a Spark schema or
planning worker, ``pqc schema``) does not load :mod:`parquet_core.metadata.statistics`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TYPE_ORDER", "IEEE_754_TOTAL_ORDER", "INT96_TIMESTAMP_ORDER", "UNKNOWN_ORDER", "column_order_name"]

#: ``ColumnOrder`` members, by their IDL names; UNKNOWN_ORDER is a member this reader lacks.
TYPE_ORDER = "TYPE_ORDER"
IEEE_754_TOTAL_ORDER = "IEEE_754_TOTAL_ORDER"
INT96_TIMESTAMP_ORDER = "INT96_TIMESTAMP_ORDER"
UNKNOWN_ORDER = "UNKNOWN"


def column_order_name(order: Any) -> str:
    """The member a ``pt.ColumnOrder`` union sets (UNKNOWN_ORDER when none this reader knows)."""
    for name in (TYPE_ORDER, IEEE_754_TOTAL_ORDER, INT96_TIMESTAMP_ORDER):
        if getattr(order, name, None) is not None:
            return name
    return UNKNOWN_ORDER
