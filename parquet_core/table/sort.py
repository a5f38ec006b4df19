"""Order the rows of a table by its columns, as pyarrow's ``Table.sort_by``.

Keys are applied from the last to the first, each with a stable sort, so
ties on one key keep the order the later keys gave.  Within a key, nulls go
last and floating-point NaN just before them, in both directions (Arrow's
``null_placement="at_end"``, its default).  Values are compared as the Python
values ``to_pylist`` gives, so every orderable type sorts the same way its
Python values do; a column whose values do not order (structs, lists of
mixed types) raises :class:`TypeError` naming it.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from parquet_core.table.arrays import Table

__all__ = ["sort_indices", "sort_keys"]

_ORDERS = ("ascending", "descending")


def sort_keys(sorting: Any, names: Sequence[str]) -> list[tuple[str, bool]]:
    """``[(column, descending)]`` from pyarrow's ``sorting`` argument: a column name
    (ascending) or a list of ``(name, "ascending" | "descending")``."""
    if isinstance(sorting, str):
        sorting = [(sorting, "ascending")]
    keys = []
    for item in sorting:
        if isinstance(item, str):
            item = (item, "ascending")
        if not isinstance(item, (tuple, list)) or len(item) != 2 or item[1] not in _ORDERS:
            raise ValueError(f"sort_by: each key is (column name, 'ascending' | 'descending'), got {item!r}")
        if item[0] not in names:
            raise KeyError(f"sort_by: no column named {item[0]!r}; the columns are {list(names)}")
        keys.append((item[0], item[1] == "descending"))
    return keys


def _is_nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def sort_indices(table: Table, sorting: Any) -> np.ndarray:
    """Row indices of *table* in the order *sorting* asks for (see the module)."""
    order = list(range(table.num_rows))
    for name, descending in reversed(sort_keys(sorting, table.column_names)):
        values = table.column(name).to_pylist()
        present = [i for i in order if values[i] is not None and not _is_nan(values[i])]
        nans = [i for i in order if _is_nan(values[i])]
        nulls = [i for i in order if values[i] is None]
        try:
            present.sort(key=values.__getitem__, reverse=descending)   # stable both ways
        except TypeError as exc:
            raise TypeError(f"sort_by: the values of column {name!r} do not order ({exc})") from None
        order = present + nans + nulls
    return np.asarray(order, dtype=np.int64)
