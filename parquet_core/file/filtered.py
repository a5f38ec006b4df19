"""Filtered reads: the planner's row groups and candidate rows, then exact row filtering.

::

    read_plans(ctx, plans, selected, expr)
      per kept row group, every row a candidate:
                           scan.read_fields (every row), the filter's columns -> predicate.filter_mask
      per kept row group with candidate rows (page index):
                           the filter's columns by scan.read_rows at the candidate rows (page by
                           page through the offset index) -> predicate.filter_mask -> matching rows;
                           the other output fields by scan.read_rows at the matching rows only
      -> one table (parts concatenated)
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from parquet_core.errors import UnsupportedFeatureError
from parquet_core.file.columns import Selected
from parquet_core.file.pushdown import RowGroupPlan
from parquet_core.file.scan import ReadContext, read_fields, read_rows
from parquet_core.file.variant_paths import split_variant_path, variant_field_array
from parquet_core.predicate import filter_mask
from parquet_core.schema.types import Field, Schema
from parquet_core.table.arrays import Array, Table
from parquet_core.table.assemble import empty_column
from parquet_core.table.dictionary import DictionaryArray
from parquet_core.table.nested import StructArray
from parquet_core.table.select import filter_table

__all__ = ["read_plans"]


def read_plans(ctx: ReadContext, plans: Sequence[RowGroupPlan], selected: Sequence[Selected], expr: Any,
               use_threads: bool) -> Table:
    """The rows of the planned row groups that match *expr* (all of them when None)."""
    fields = [f for f, _ in selected]
    needed = set(ctx.columns.leaves_of(selected))
    if expr is not None:
        needed |= set(ctx.columns.needed_leaves(expr.columns()))
    whole = [p.index for p in plans if p.rows is None]
    if whole:
        ctx.sources.prefetch(ctx.metadata.row_group(rg).column(i) for rg in whole for i in sorted(needed))
    try:
        parts = [_read_plan(ctx, plan, selected, fields, expr, use_threads) for plan in plans]
    finally:
        ctx.sources.release()
    if not parts:
        return Table(Schema(fields), [empty_column(f) for f in fields], 0)
    return parts[0] if len(parts) == 1 else Table.concat(parts, Schema(fields))


def _read_plan(ctx: ReadContext, plan: RowGroupPlan, selected: Sequence[Selected], fields: list[Field],
               expr: Any, use_threads: bool) -> Table:
    if plan.every_row:
        expr = None     # the statistics show every row matches: nothing to filter
    if expr is not None and plan.rows is not None:
        return _read_matching(ctx, plan.index, plan.rows, selected, fields, expr)
    rg = plan.index
    rows = None if plan.rows is None else np.flatnonzero(plan.rows)
    n = ctx.metadata.row_group(rg).num_rows if rows is None else int(rows.size)
    if rows is None:
        cols = read_fields(ctx, selected, [rg], use_threads) if selected else []
    else:
        cols = [read_rows(ctx, rg, f, s, plan.rows, rows) for f, s in selected]
    part = Table(Schema(fields), cols, n)
    if expr is not None:
        probe = _filter_columns(ctx, expr.columns(), rg, plan.rows, rows, part, expr)
        part = filter_table(part, filter_mask(expr, probe))
    return part


def _read_matching(ctx: ReadContext, rg: int, mask: npt.NDArray[np.bool_], selected: Sequence[Selected],
                   fields: list[Field], expr: Any) -> Table:
    """The rows of one row group matching *expr*, among the candidate rows *mask*: the
    filter's columns are read at the candidate rows and checked first, then the other
    output fields only at the matching rows (fewer pages, smaller gathers).

    Output fields the filter names, and fields read with their dictionaries (whose
    dictionary may depend on the pages read), are read at the candidate rows and
    filtered, as before.
    """
    rows = np.flatnonzero(mask)
    names = expr.columns()
    early = [i for i, (f, _) in enumerate(selected) if f.name in names or f.name in ctx.kept_dictionaries]
    pre_fields = [fields[i] for i in early]
    pre = Table(Schema(pre_fields), [read_rows(ctx, rg, *selected[i], mask, rows) for i in early], int(rows.size))
    keep = filter_mask(expr, _filter_columns(ctx, names, rg, mask, rows, pre, expr))
    pre = filter_table(pre, keep)
    hits = rows[keep]
    hit_mask = mask
    if len(early) < len(selected):
        hit_mask = np.zeros(mask.size, dtype=np.bool_)
        hit_mask[hits] = True
    cols: list[Array] = []
    done = iter(pre.columns)
    for i, (f, shape) in enumerate(selected):
        if early and early[0] == i:
            early.pop(0)
            cols.append(next(done))
        else:
            cols.append(read_rows(ctx, rg, f, shape, hit_mask, hits))
    return Table(Schema(fields), cols, int(hits.size))


def _filter_columns(ctx: ReadContext, names: set[str], rg: int, mask: Any, rows: Any,
                    table: Table, expr: Any = None) -> Table:
    """A table holding each column a filter names, by that name, at the rows of *table*.

    Dotted names reach leaves inside structs; a null struct makes its
    fields null.  Leaves below a list or map cannot be filtered on (one
    value per row is needed).
    """
    columns = ctx.columns
    fields, arrays = [], []
    for name in sorted(names):
        variant = split_variant_path(columns.shapes, name)
        if name in table.column_names:
            arr = table.column(name)
        elif variant is not None:
            (top, shape), = columns.select([variant[0]])
            arr = variant_field_array(columns, read_rows(ctx, rg, top, shape, mask, rows), name, expr)
        else:
            path = name.split(".")
            (top, shape), = columns.select([name])      # the top-level field pruned to that leaf
            arr = read_rows(ctx, rg, top, shape, mask, rows)
            for part in path[1:]:
                if not isinstance(arr, StructArray):
                    raise UnsupportedFeatureError(
                        f"filter column {name!r}: only leaves reached through structs can be filtered on")
                parent = arr.validity
                arr = arr.field(part)
                if parent is not None:
                    validity = parent if arr.validity is None else arr.validity & parent
                    arr = Array(arr.type, arr.values, validity)
        if isinstance(arr, DictionaryArray):
            arr = arr.dense()
        if type(arr) is not Array:
            raise UnsupportedFeatureError(f"filter column {name!r} is a {arr.type.name}, not a value column")
        fields.append(Field(name, arr.type))
        arrays.append(arr)
    return Table(Schema(fields), arrays, table.num_rows)
