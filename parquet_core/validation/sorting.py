"""Sorting rules: ``RowGroup.sorting_columns`` name real leaves, and the rows are sorted so.

Spec: parquet.thrift ``SortingColumn`` / ``RowGroup.sorting_columns``.  Each
sorting column's values become ranks (``np.unique``) in the column's sort
order; nulls rank first or last; descending negates; rows are then compared
lexicographically with a few whole-array operations per sorting column.
"""

from __future__ import annotations

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import quoted
from parquet_core.metadata.statistics import SortOrder, sort_order
from parquet_core.validation.context import Checker, ChunkState
from parquet_core.validation.rules import ERROR, rule

__all__ = ["check_sorting_metadata", "check_sorting", "SORT_ORDER"]

SORT_INDEX = rule("sorting.column-index", ERROR, "parquet.thrift SortingColumn", "sorting_columns name existing leaves without repetition")
SORT_ORDER = rule("sorting.order", ERROR, "parquet.thrift RowGroup.sorting_columns", "the rows of a row group are sorted as sorting_columns claims")


def check_sorting_metadata(ck: Checker) -> None:
    """sorting_columns name leaves that exist and are not repeated."""
    n = len(ck.schema)
    for g, rg in enumerate(ck.raw.row_groups or []):
        for sc in rg.sorting_columns or []:
            if sc.column_idx is None or not 0 <= sc.column_idx < n:
                ck.report(SORT_INDEX, f"sorting column index {sc.column_idx}; the schema has {n} leaves", row_group=g)
            elif ck.schema.column(sc.column_idx).max_repetition_level > 0:
                ck.report(SORT_INDEX, f"sorting column {ck.schema.column(sc.column_idx).dotted_path} is repeated",
                          row_group=g, column=ck.schema.column(sc.column_idx).dotted_path)


def _sort_keys(ch: ChunkState, rows: int, nulls_first: bool, descending: bool) -> np.ndarray | None:
    desc = ch.desc
    vals = ch.values
    if sort_order(desc) == SortOrder.UNKNOWN:
        return None
    if isinstance(vals, ByteArrays):
        stored: list[bytes] = vals.to_pylist()
        items: list[bytes] | list[int] = stored
        if sort_order(desc) == SortOrder.SIGNED:
            items = [int.from_bytes(b, "big", signed=True) for b in stored]
        uniq, ranks = np.unique(np.array(items, dtype=object), return_inverse=True)
    else:
        arr = np.asarray(vals)
        if arr.ndim == 2:
            signed = sort_order(desc) == SortOrder.SIGNED
            fixed: list[int] | list[bytes] = ([int.from_bytes(bytes(r), "big", signed=True) for r in arr]
                                              if signed else [bytes(r) for r in arr])
            arr = np.array(fixed, dtype=object)
        elif sort_order(desc) == SortOrder.UNSIGNED and arr.dtype.kind == "i":
            arr = arr.view(arr.dtype.str.replace("i", "u"))
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            return None   # NaN has no place in the order
        uniq, ranks = np.unique(arr, return_inverse=True)
    ranks = ranks.astype(np.int64).ravel()
    if descending:
        ranks = -ranks
    key = np.full(rows, -(1 << 40) if nulls_first else (1 << 40), dtype=np.int64)
    mask = np.ones(rows, bool) if ch.def_levels is None else ch.def_levels == desc.max_definition_level
    if int(mask.sum()) != len(ranks):
        return None
    key[mask] = ranks
    return key


def check_sorting(ck: Checker, g: int) -> None:
    """The decoded rows of row group *g* are in the order its sorting_columns claim."""
    rg = ck.raw.row_groups[g]
    if not rg.sorting_columns:
        return
    rows = rg.num_rows
    keys = []
    for sc in rg.sorting_columns:
        idx = sc.column_idx
        if idx is None or not 0 <= idx < len(ck.chunks[g]):
            return
        ch = ck.chunks[g][idx]
        if ch is None or not ch.decoded or ch.desc.max_repetition_level > 0:
            return
        key = _sort_keys(ch, rows, bool(sc.nulls_first), bool(sc.descending))
        if key is None:
            return
        keys.append((key, ch))
    undecided = np.ones(max(rows - 1, 0), bool)
    for key, ch in keys:
        d = np.diff(key)
        bad = np.flatnonzero(undecided & (d < 0))
        if bad.size:
            ck.report(SORT_ORDER, f"rows {int(bad[0])} and {int(bad[0]) + 1} are out of the order sorting_columns "
                      f"claims (column {quoted(ch.path, bare=True)})", row_group=g, column=ch.path)
            return
        undecided &= d == 0
