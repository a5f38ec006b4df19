"""The rows of a table by partition: the distinct values of the partition columns, as folder
text (pyarrow's formatting), and the rows holding each (``write_to_dataset``, in memory or
streamed)."""

from __future__ import annotations

import datetime as dt
from typing import Any, Sequence

import numpy as np

from parquet_core.interop.stored_schema import key_values_of_columns
from parquet_core.schema.types import Schema
from parquet_core.table.arrays import Array, Table
from parquet_core.table.select import take_array

__all__ = ["partition_groups", "take_rows"]


def format_value(value: Any) -> str | None:
    """A partition value as folder text (pyarrow's formatting for the common types)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, float):
        return repr(value) if not value.is_integer() else str(value)
    return str(value)


def _codes(arr: Array, n: int) -> tuple[np.ndarray, int]:
    """A code per row, equal exactly where the folder texts are, and how many codes there are."""
    values = arr.values
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "iub":
        # integers (dates, timestamps, narrow decimals too) and booleans: distinct values have
        # distinct texts, so numpy groups the values themselves; nulls get a code of their own
        uniq, inverse = np.unique(values, return_inverse=True)
        codes = inverse.reshape(-1).astype(np.int64)
        if arr.validity is None:
            return codes, len(uniq)
        return np.where(arr.validity, codes, len(uniq)), len(uniq) + 1
    # One Python step per row to turn other values into folder text (floats: -0.0 and 0.0
    # are two folders; strings): partition columns have few distinct values.
    index: dict[str | None, int] = {}
    codes = np.fromiter((index.setdefault(format_value(v), len(index)) for v in arr.to_pylist()),
                        dtype=np.int64, count=n)
    return codes, len(index)


def partition_groups(table: Table, cols: Sequence[str]) -> list[tuple[tuple[str | None, ...], np.ndarray]]:
    """Rows of each distinct combination of partition values, in order of first appearance."""
    n = table.num_rows
    codes = np.zeros(n, dtype=np.int64)
    for name in cols:
        arr = table.column(name)
        if type(arr) is not Array:
            raise TypeError(f"cannot partition by {name!r}: a {arr.type} column")
        col_codes, count = _codes(arr, n)
        codes = codes * max(count, 1) + col_codes
    if n == 0:
        return []
    keys, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rows_sorted = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[rows_sorted], np.arange(len(keys) + 1))
    out = []
    for g in order:
        rows = rows_sorted[bounds[g]:bounds[g + 1]]
        r0 = int(rows[0])
        # the values of the group, read back from its first row
        values = tuple(format_value(table.column(name).slice(r0, r0 + 1).to_pylist()[0]) for name in cols)
        out.append((values, rows))
    return out


def take_rows(table: Table, keep: list[str], rows: np.ndarray | None) -> Table:
    """The columns *keep* of *rows* (all when None), with the table's key/values for them
    (``pandas``, and ``ARROW:schema`` of the kept fields: zones, durations... as pyarrow's
    dataset writer keeps them)."""
    fields = [table.schema.field(n) for n in keep]
    cols = [table.column(n) if rows is None else take_array(table.column(n), rows) for n in keep]
    metadata = key_values_of_columns(table.metadata, table.schema.names, keep)
    return Table(Schema(fields), cols, table.num_rows if rows is None else int(rows.size), metadata=metadata)
