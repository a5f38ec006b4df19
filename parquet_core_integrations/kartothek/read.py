"""Reading a dataset: plan (metadata, index and partition-key pruning), then read each file.

Pruning order: secondary index files, then partition keys, then (inside
parquet_core) row-group statistics, then exact row filtering.  Fixes over
Kartothek: a literal that can select nulls (``== None``, ``!= v``, ``in``
with None) is never pruned by an index, since indices hold no nulls (bug
B1); an index only prunes the conjunction that names its column, so an OR
branch on other columns keeps every partition (bug B2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
import numpy.typing as npt

import parquet_core as pc
from parquet_core.errors import add_note
from parquet_core.predicate import filter_mask
from parquet_core_integrations.kartothek.errors import KartothekError, PredicateError
from parquet_core_integrations.kartothek.indices import SecondaryIndex, load_index, partition_values
from parquet_core_integrations.kartothek.metadata import DatasetMetadata, load_metadata
from parquet_core_integrations.kartothek.predicates import (
    conjunction_expression,
    literal_expression,
    may_match_null,
    parse_predicates,
)
from parquet_core_integrations.kartothek.schema import TableSchema, load_schema
from parquet_core_integrations.kartothek.store import Store, open_store

__all__ = ["PartitionRead", "ReadPlan", "plan_read", "read_partition", "read_file", "iter_partitions", "read_dataset"]


@dataclass
class PartitionRead:
    """One data file to read: its label, key, typed partition values and row filter."""

    label: str
    key: str
    values: dict[str, Any]
    filters: pc.Expression | None     # None: every row of the file


@dataclass
class ReadPlan:
    store: Store
    metadata: DatasetMetadata
    table: str
    schema: TableSchema
    columns: list[str]                # output columns, in order
    partitions: list[PartitionRead]


def plan_read(store: Any, dataset_uuid: str, table: str = "table", columns: list[str] | None = None,
              predicates: Any = None) -> ReadPlan:
    """The partitions (data files) to read and each one's row filter."""
    st = open_store(store)
    md = load_metadata(st, dataset_uuid)
    schema = load_schema(st, dataset_uuid, table)
    names = schema.names
    if columns is None:
        columns = list(names)
    else:
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise KartothekError(f"dataset {dataset_uuid!r}, table {table!r} has no column {unknown[0]!r} "
                                 f"(columns: {names})")
        columns = list(columns)
    labels = [label for label, files in md.partitions.items() if table in files]
    keys = [k for k in md.partition_keys if k in names]
    where = f"dataset {dataset_uuid!r}"
    pv = partition_values(labels, keys, schema.schema, where, md.partition_keys) if keys else None
    preds = parse_predicates(predicates)
    types = {f.name: f.type for f in schema.schema}
    selected: list[tuple[int, pc.Expression | None]]
    if preds is None:
        selected = [(i, None) for i in range(len(labels))]
    else:
        selected = _prune(st, md, labels, keys, pv, preds, types)
    parts = []
    key_values = pv.to_pydict() if pv is not None else {}
    for i, expr in selected:
        label = labels[i]
        parts.append(PartitionRead(label, md.partitions[label][table],
                                   {k: key_values[k][i] for k in keys}, expr))
    return ReadPlan(st, md, table, schema, columns, parts)


def _prune(st: Store, md: DatasetMetadata, labels: list[str], keys: list[str], pv: pc.Table | None,
           preds: list[list[tuple[str, str, Any]]], types: dict[str, pc.DataType]
           ) -> list[tuple[int, pc.Expression | None]]:
    """Per label, the OR of the content parts of the conjunctions it may satisfy."""
    label_arr = np.array(labels, dtype=object)
    cache: dict[str, SecondaryIndex] = {}
    masks: list[npt.NDArray[np.bool_]] = []
    contents: list[pc.Expression | None] = []
    for conj in preds:
        mask = np.ones(len(labels), dtype=bool)
        key_lits = [lit for lit in conj if lit[0] in keys]
        content = [lit for lit in conj if lit[0] not in keys]
        try:
            key_expr = conjunction_expression(key_lits, types) if pv is not None else None
            if key_expr is not None and pv is not None:     # (None: no literal on a partition key)
                mask &= filter_mask(key_expr, pv)
            for lit in content:
                col = lit[0]
                if col not in md.indices or may_match_null(lit):
                    continue
                if col not in cache:
                    cache[col] = load_index(st, md.uuid, col, md.indices[col], types.get(col))
                index = cache[col]
                hits = index.matching(literal_expression(lit, index.type))
                mask &= np.isin(label_arr, list(hits)) if hits else False
            expr = conjunction_expression(content, types)
        except PredicateError:
            raise
        except (ValueError, TypeError, pc.ParquetError) as exc:
            raise PredicateError(f"predicates {conj!r}: {exc}") from exc
        masks.append(mask)
        contents.append(expr)
    out: list[tuple[int, pc.Expression | None]] = []
    for i in range(len(labels)):
        active = [contents[j] for j in range(len(preds)) if masks[j][i]]
        if not active:
            continue
        present = [e for e in active if e is not None]
        if len(present) < len(active):      # a conjunction without content literals keeps every row
            out.append((i, None))
        else:
            either = present[0]
            for e in present[1:]:
                either = either | e
            out.append((i, either))
    return out


def read_partition(plan: ReadPlan, part: PartitionRead) -> pc.Table:
    """Read one partition's file: its filtered rows, the plan's columns, typed like ``_common_metadata``."""
    return read_file(plan.store, part, plan.columns, plan.schema.schema, plan.metadata.uuid)


def read_file(store: Store, part: PartitionRead, columns: list[str], schema: pc.Schema,
              dataset_uuid: str = "?") -> pc.Table:
    """The rows of *part*'s data file that pass its filter, as *columns* typed by *schema*.

    Partition columns come from ``part.values``; a column the file lacks is all null.
    """
    fields_by_name = {f.name: f for f in schema}
    if not store.exists(part.key):
        raise KartothekError(f"dataset {dataset_uuid!r}: data file {part.key} of partition "
                             f"{part.label!r} is missing")
    try:
        pf = pc.ParquetFile(store.source(part.key))
        file_cols = set(pf.schema_arrow.names)
        wanted = [c for c in columns if c in file_cols and c not in part.values]
        data = pf.read(columns=wanted, filters=part.filters)
    except pc.ParquetError as exc:
        add_note(exc, f"kartothek: data file {part.key} of partition {part.label!r} "
                     f"of dataset {dataset_uuid!r}")
        raise
    except (ValueError, TypeError) as exc:
        raise PredicateError(f"{part.key}: {exc}") from exc
    n = data.num_rows
    arrays, fields = [], []
    for name in columns:
        field = fields_by_name[name]
        if name in part.values:
            one = pc.as_table({name: [part.values[name]]}, pc.schema([field])).column(0)
            arr = pc.Table(pc.schema([field]), [one]).take(np.zeros(n, dtype=np.int64)).column(0)
        elif name in data.column_names:
            arr = data.column(name)
            if arr.type != field.type:
                try:
                    arr = pc.as_table({name: arr}, pc.schema([field])).column(0)
                except pc.ParquetError as exc:
                    raise KartothekError(f"{part.key}: column {name!r} of type {arr.type} does not fit "
                                         f"the table type {field.type}: {exc}") from exc
        else:                  # a column this file lacks (written as all-null elsewhere): nulls
            arr = pc.as_table({name: [None] * n}, pc.schema([field])).column(0)
        arrays.append(arr)
        fields.append(field)
    return pc.Table(pc.schema(fields), arrays, n)


def iter_partitions(store: Any, dataset_uuid: str, table: str = "table", columns: list[str] | None = None,
                    predicates: Any = None) -> Iterator[tuple[str, pc.Table]]:
    """Yield ``(label, table)`` for every partition the predicates may select."""
    plan = plan_read(store, dataset_uuid, table, columns, predicates)
    for part in plan.partitions:
        yield part.label, read_partition(plan, part)


def read_dataset(store: Any, dataset_uuid: str, table: str = "table", columns: list[str] | None = None,
                 predicates: Any = None) -> pc.Table:
    """Read a table of a Kartothek dataset into one :class:`parquet_core.Table`.

    Columns come in ``_common_metadata`` order (or as given), with the
    ``_common_metadata`` types; partition columns are rebuilt from the
    labels; ``__index_level_N__`` columns are dropped.  ``.to_pandas()``
    gives a DataFrame.
    """
    plan = plan_read(store, dataset_uuid, table, columns, predicates)
    tables = [read_partition(plan, part) for part in plan.partitions]
    tables = [t for t in tables if t.num_rows] or tables[:1]
    if not tables:
        fields = [plan.schema.field(c) for c in plan.columns]
        return pc.as_table({f.name: [] for f in fields}, pc.schema(fields))
    return pc.Table.concat(tables)
