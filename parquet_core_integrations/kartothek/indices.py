"""Partition-key indices (from labels) and secondary index files.

A secondary index file is a Parquet table of two columns: the indexed
column's distinct non-null values, and ``partition``, a list of the labels
of the partitions holding each value.  Partition-key indices are never
stored: each label's ``k=v`` components, typed by ``_common_metadata``,
give a one-row-per-partition table.  Both are queried with the same
expressions as the rows (:mod:`parquet_core_integrations.kartothek.predicates`).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Iterable, Mapping

import numpy as np

import parquet_core as pc
from parquet_core.predicate import filter_mask
from parquet_core_integrations.kartothek import naming
from parquet_core_integrations.kartothek.errors import KartothekError
from parquet_core_integrations.kartothek.schema import FLOAT_TYPES
from parquet_core_integrations.kartothek.store import Store

__all__ = ["SecondaryIndex", "partition_values", "typed_value", "load_index", "write_index"]


def typed_value(text: str, dt: pc.DataType, where: str) -> Any:
    """A partition value from its decoded label text, typed like *dt*.

    ``"False"`` is False (Kartothek's ``numpy.bool_("False")`` is True, bug B3).
    """
    try:
        tid = dt.id
        if dt.is_integer:
            return int(text)
        if tid in FLOAT_TYPES:
            return float(text)
        if tid is pc.TypeId.BOOL:
            if text not in ("True", "False"):
                raise ValueError("expected True or False")
            return text == "True"
        if tid is pc.TypeId.STRING:
            return text
        if tid is pc.TypeId.BINARY:
            return text.encode("utf-8")
        if tid is pc.TypeId.DATE:
            return _dt.date.fromisoformat(text)
        if tid is pc.TypeId.TIMESTAMP:
            value = _dt.datetime.fromisoformat(text)
            if dt.tz and value.tzinfo is None:
                value = value.replace(tzinfo=_dt.timezone.utc)
            return value
    except ValueError as exc:
        raise KartothekError(f"{where}: partition value {text!r} is not a {dt}: {exc}") from exc
    raise KartothekError(f"{where}: partition columns of type {dt} are not supported")


def partition_values(labels: list[str], keys: list[str], schema: pc.Schema, where: str,
                     declared: list[str] | None = None) -> pc.Table:
    """One row per label with its typed partition-key values (columns *keys*).

    *declared* (default *keys*) are all the partition keys the dataset declares, in
    order: they tell where a value holding an unescaped ``/`` ends (``naming.parse_label``).
    """
    fields = {f.name: f for f in schema}
    missing = [k for k in keys if k not in fields]
    if missing:
        raise KartothekError(f"{where}: partition column {missing[0]!r} has no type in _common_metadata")
    cols: dict[str, list[Any]] = {k: [] for k in keys}
    # one iteration per partition (not per row): labels are few
    for label in labels:
        pairs = dict(naming.parse_label(label, declared if declared is not None else keys))
        for k in keys:
            if k not in pairs:
                raise KartothekError(f"{where}: partition {label!r} has no value for key {k!r}")
            cols[k].append(typed_value(pairs[k], fields[k].type, f"{where}, partition {label!r}"))
    return pc.as_table(cols, pc.schema([pc.field(k, fields[k].type) for k in keys]))


class SecondaryIndex:
    """Distinct values of a column and the partitions holding each."""

    def __init__(self, column: str, values: pc.Table, labels: list[list[str]]) -> None:
        self.column = column
        self.values = values           # one column, named after the indexed column
        self.labels = labels

    @property
    def type(self) -> pc.DataType:
        return self.values.schema.field(0).type

    def matching(self, expr: pc.Expression) -> set[str]:
        """Labels of the partitions holding a value that satisfies *expr*."""
        mask = filter_mask(expr, self.values)
        out: set[str] = set()
        for i in np.flatnonzero(mask).tolist():   # one set union per matching value
            out.update(self.labels[i])
        return out

    def to_mapping(self) -> dict[Any, set[str]]:
        return {v: set(ls) for v, ls in zip(self.values.column(0).to_pylist(), self.labels)}


def load_index(store: Store, uuid: str, column: str, ref: Any,
               dtype: pc.DataType | None = None) -> SecondaryIndex:
    """Load an index given by its metadata entry (a file key, or a legacy embedded map).

    An embedded map's keys are the values' text; they are typed with *dtype*
    (the column's table type) when given, else kept as strings.
    """
    if isinstance(ref, dict):
        dtype = dtype or pc.string()
        where = f"dataset {uuid!r}, embedded index of {column!r}"
        keys = [typed_value(str(v), dtype, where) for v in ref]
        return SecondaryIndex(column, pc.as_table({column: keys}, pc.schema([pc.field(column, dtype)])),
                              [list(ls) for ls in ref.values()])
    if not store.exists(ref):
        raise KartothekError(f"dataset {uuid!r}: the index file of {column!r} ({ref}) is missing")
    try:
        table = pc.read_table(store.source(ref))
    except (OSError, pc.ParquetError) as exc:
        raise KartothekError(f"dataset {uuid!r}: cannot read the index of {column!r} ({ref}): {exc}") from exc
    if table.column_names != [column, "partition"] and set(table.column_names) != {column, "partition"}:
        raise KartothekError(f"{ref}: an index file of {column!r} must have columns "
                             f"[{column!r}, 'partition'], has {table.column_names}")
    labels = table.column("partition").to_pylist()
    values = pc.Table(pc.schema([table.schema.field(table.column_names.index(column))]),
                      [table.column(column)])
    return SecondaryIndex(column, values, [ls or [] for ls in labels])


def write_index(store: Store, uuid: str, column: str, dtype: pc.DataType,
                mapping: Mapping[Any, Iterable[str]], stamp: str) -> str:
    """Write an index file in Kartothek's layout; return its key."""
    key = naming.index_key(uuid, column, stamp)
    items = [(v, sorted(ls)) for v, ls in mapping.items() if ls]
    schema = pc.schema([pc.field(column, dtype), pc.field("partition", pc.list_(pc.string()))])
    table = pc.as_table({column: [v for v, _ in items], "partition": [ls for _, ls in items]}, schema)

    def write(target: Any) -> None:
        pc.write_table(table, target, row_group_size=10_000)

    store.write_with(key, write)
    return key
