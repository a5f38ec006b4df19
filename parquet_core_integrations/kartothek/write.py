"""Writing: data files first, then index files, then the metadata file (the commit).

Two phases, so that Spark tasks can stage files and the driver commits:
:func:`stage_partitions` writes one chunk's data files (new labels, not yet
visible) and returns what the commit needs; :func:`commit_dataset` merges
staged chunks into the dataset: schema check, ``_common_metadata``, new
index files, then the metadata file, refusing if another writer committed
since the metadata was read (Kartothek silently loses one commit, #281).
"""

from __future__ import annotations

import contextlib
import uuid as _uuid
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

import numpy as np

import parquet_core as pc
from parquet_core.predicate import filter_mask
from parquet_core_integrations.kartothek import naming
from parquet_core_integrations.kartothek.errors import (
    DatasetExistsError,
    DatasetSchemaError,
    KartothekError,
    PredicateError,
)
from parquet_core_integrations.kartothek.indices import load_index, partition_values, write_index
from parquet_core_integrations.kartothek.metadata import DatasetMetadata, dataset_exists, load_metadata
from parquet_core_integrations.kartothek.predicates import literal_expression
from parquet_core_integrations.kartothek.schema import (
    FLOAT_TYPES,
    check_compatible,
    is_index_column,
    load_schema,
    normalized_schema,
    pandas_metadata,
    write_schema,
)
from parquet_core_integrations.kartothek.store import Store, open_store

__all__ = ["expected_state", "Staged", "stage_partitions", "commit_dataset", "delete_staged", "merge_schemas", "write_dataset", "update_dataset",
           "distinct_values", "to_table"]


#: types whose values a partition label can spell and read back
_PARTITION_TYPES = frozenset([pc.TypeId.BOOL, pc.TypeId.INT64, pc.TypeId.UINT64, pc.TypeId.FLOAT64,
                              pc.TypeId.STRING, pc.TypeId.BINARY, pc.TypeId.DATE, pc.TypeId.TIMESTAMP])


@dataclass
class Staged:
    """Data files written for one commit, not yet referenced by the metadata."""

    table: str
    schema: pc.Schema                                    # normalized, partition columns first
    partitions: dict[str, str] = field(default_factory=dict)          # label -> data file key
    index_values: dict[str, dict[Any, set[str]]] = field(default_factory=dict)


def to_table(data: Any) -> pc.Table:
    """A pc.Table from a pandas DataFrame, pyarrow Table, mapping of columns or pc.Table."""
    table = pc.as_table(data)
    keep = [i for i, f in enumerate(table.schema) if not is_index_column(f.name)]
    return pc.Table(pc.schema([table.schema.field(i) for i in keep]), [table.columns[i] for i in keep],
                    table.num_rows)


def distinct_values(arr: pc.Array) -> list[Any]:
    """The distinct non-null, non-NaN values of *arr* as Python values."""
    values = arr.values
    if isinstance(values, np.ndarray) and values.ndim == 1 and arr.type.id is not pc.TypeId.LIST:
        valid = np.ones(len(arr), bool) if arr.validity is None else arr.validity.copy()
        if values.dtype.kind == "f":
            valid &= ~np.isnan(values)
        idx = np.flatnonzero(valid)
        _, first = np.unique(values[idx], return_index=True)
        picked = pc.Table(pc.schema([pc.field("v", arr.type)]), [arr]).take(idx[first])
        return picked.column(0).to_pylist()
    # Byte arrays (text, binary): one Python hash per row. The index needs the values as
    # Python objects anyway and the engine's public API has no distinct over byte arrays;
    # the cost is part of benchmarks/kartothek_bench.py's write figure.
    return list(dict.fromkeys(v for v in arr.to_pylist() if v is not None))


def _split(table: pc.Table, keys: list[str], where: str) -> list[tuple[list[tuple[str, Any]], pc.Table]]:
    """Rows grouped by their partition-key values (one group per distinct tuple)."""
    if not keys:
        return [([], table)]
    codes, uniques = [], []
    for k in keys:
        col = table.column(k)
        if col.null_count or (col.type.id in FLOAT_TYPES and np.isnan(col.values).any()):
            raise KartothekError(f"{where}: partition column {k!r} holds nulls; partition values cannot be null")
        if isinstance(col.values, np.ndarray) and col.values.ndim == 1:
            u, inv = np.unique(col.values, return_inverse=True)
            first = np.unique(inv, return_index=True)[1]
            uniques.append(pc.Table(pc.schema([pc.field(k, col.type)]), [col]).take(first).column(0).to_pylist())
        else:   # text: Python values (one per row) ranked by numpy
            u, inv = np.unique(np.array(col.to_pylist(), dtype=object), return_inverse=True)
            uniques.append(list(u))
        codes.append(inv.reshape(-1))
    combo, group = _combine(codes, [len(u) for u in uniques])
    # group ids are small: a stable sort of uint16 is numpy's radix sort
    order = np.argsort(group.astype(np.uint16) if len(combo) < 1 << 16 else group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(len(combo) + 1))
    out = []
    for g, row in enumerate(combo):
        pairs = [(k, uniques[j][row[j]]) for j, k in enumerate(keys)]
        out.append((pairs, table.take(order[bounds[g]:bounds[g + 1]])))
    return out


def _combine(codes: list[np.ndarray], sizes: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct code tuples (one row each) and each row's tuple number.

    The codes are packed into one int64 (mixed radix) when that cannot
    overflow, so that one 1-D ``np.unique`` does the work; otherwise rows are
    compared as tuples (``np.unique(axis=0)``, a much slower sort).
    """
    if float(np.prod([float(s) for s in sizes])) < 2.0 ** 62:
        key = np.zeros(len(codes[0]), dtype=np.int64)
        for c, size in zip(codes, sizes):
            key = key * size + c
        distinct, group = np.unique(key, return_inverse=True)
        combo = np.empty((len(distinct), len(codes)), dtype=np.int64)
        rest = distinct
        for j in range(len(codes) - 1, -1, -1):
            rest, combo[:, j] = np.divmod(rest, sizes[j])
        return combo, group.reshape(-1)
    combo, group = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)
    return combo, group.reshape(-1)


def _data_schema(table: pc.Table, drop: list[str]) -> tuple[pc.Schema, list[pc.Array]]:
    keep = [i for i, f in enumerate(table.schema) if f.name not in drop]
    return pc.schema([table.schema.field(i) for i in keep]), [table.columns[i] for i in keep]


def stage_partitions(store: Any, dataset_uuid: str, data: Any, table: str = "table",
                     partition_on: list[str] | None = None, secondary_indices: list[str] | None = None,
                     schema: pc.Schema | None = None, base_label: str | None = None,
                     **write_options: Any) -> Staged:
    """Write one chunk of data as data files under new labels; nothing becomes visible."""
    st = open_store(store)
    naming.check_uuid(dataset_uuid)
    keys = list(partition_on or [])
    tab = to_table(data)
    where = f"dataset {dataset_uuid!r}, table {table!r}"
    missing = [k for k in keys + list(secondary_indices or []) if k not in tab.column_names]
    if missing:
        raise DatasetSchemaError(f"{where}: column {missing[0]!r} is not in the data ({tab.column_names})")
    norm = normalized_schema(tab.schema, keys)
    for k in keys:
        kind = norm.field(norm.names.index(k)).type
        if kind.id not in _PARTITION_TYPES:
            raise KartothekError(f"{where}: cannot partition on {k!r} of type {kind}; partition columns "
                                 f"must be one of {sorted(t.value for t in _PARTITION_TYPES)}")
    if schema is not None:
        norm = check_compatible(schema, norm, where)
    try:
        tab = pc.as_table(tab, norm)
    except pc.ParquetError as exc:
        raise DatasetSchemaError(f"{where}: {exc}") from exc
    if keys and len(norm) == len(keys):
        raise KartothekError(f"{where}: no data left to save outside the partition columns {keys}")
    base = base_label or _uuid.uuid4().hex
    options = {"compression": "snappy", **write_options}
    staged = Staged(table, norm, {}, {c: {} for c in secondary_indices or []})
    if tab.num_rows == 0 and keys:
        return staged
    for pairs, part in _split(tab, keys, where):
        label = naming.partition_label(pairs, base)
        key = naming.data_key(dataset_uuid, table, label)
        fschema, arrays = _data_schema(part, keys)
        data_table = pc.Table(fschema, arrays, part.num_rows)
        meta = {"pandas": pandas_metadata(fschema, part.num_rows)}

        def write(target: Any, t: pc.Table = data_table, m: dict[str, str] = meta) -> None:
            pc.write_table(t, target, key_value_metadata=m, **options)

        st.write_with(key, write)
        staged.partitions[label] = key
        for col in staged.index_values:
            # per distinct value of the partition, not per row: the index is a
            # {value: partitions} mapping, built from np.unique's output
            for v in distinct_values(part.column(col)):
                staged.index_values[col].setdefault(v, set()).add(label)
    return staged


def _index_type(schema: pc.Schema, col: str, keys: list[str]) -> pc.DataType:
    if col in keys:
        raise KartothekError(f"cannot create a secondary index on partition column {col!r}")
    if col == "partition":
        raise KartothekError("a column named 'partition' cannot be indexed (the index files use that name)")
    if col not in schema.names:
        raise KartothekError(f"cannot index {col!r}: no such column ({schema.names})")
    dt = schema.field(schema.names.index(col)).type
    if dt.is_nested or dt.id is pc.TypeId.NULL:
        raise KartothekError(f"cannot index {col!r} of type {dt}: nested and null columns cannot be indexed")
    return dt


def commit_dataset(store: Any, dataset_uuid: str, staged: Iterable[Staged], *, base: DatasetMetadata | None,
                   partition_on: list[str] | None = None, secondary_indices: Iterable[str] = (),
                   remove: Iterable[str] = (), metadata: dict[str, Any] | None = None,
                   metadata_format: str | None = None) -> DatasetMetadata:
    """Make staged partitions visible (and *remove* labels): schema, indices, then metadata.

    *base* is the metadata the change was computed from (``None`` creates the
    dataset); the commit is refused if the stored metadata is no longer *base*.
    """
    st = open_store(store)
    staged = list(staged)
    stamp = naming.utc_isoformat()
    keys = list(base.partition_keys if base is not None else partition_on or [])
    partitions = {} if base is None else {lbl: dict(f) for lbl, f in base.partitions.items()}
    removed = set(remove)
    for label in removed:
        partitions.pop(label, None)
    # schema per table: stored one (if any) merged with every staged chunk's
    tables = {s.table for s in staged}
    schemas: dict[str, pc.Schema] = {}
    for t in tables:
        stored = None
        if base is not None and st.exists(naming.common_metadata_key(dataset_uuid, t)):
            stored = load_schema(st, dataset_uuid, t).schema
        merged = stored
        for s in (s for s in staged if s.table == t):
            merged = s.schema if merged is None else check_compatible(merged, s.schema,
                                                                       f"dataset {dataset_uuid!r}, table {t!r}")
        if merged is not None and merged != stored:
            schemas[t] = merged
    for s in staged:
        for label, key in s.partitions.items():
            entry = partitions.setdefault(label, {})
            if s.table in entry:
                raise KartothekError(f"dataset {dataset_uuid!r}: label {label!r} is written twice; "
                                     "the metadata was not written")
            entry[s.table] = key
    for t, schema in schemas.items():
        write_schema(st, dataset_uuid, t, schema)
    # indices: every one the dataset has, plus new ones (create only)
    index_cols = list(dict.fromkeys([*(base.indices if base is not None else []), *secondary_indices]))
    indices = dict(base.indices) if base is not None else {}
    touched = bool(staged) or bool(removed)
    written: list[str] = []
    try:
        for col in index_cols:
            if not touched and col in indices:
                continue
            table_schema = _schema_for(st, dataset_uuid, schemas, col)
            dtype = _index_type(table_schema, col, keys)
            mapping: dict[Any, set[str]] = {}
            if base is not None and col in base.indices:
                mapping = load_index(st, dataset_uuid, col, base.indices[col], dtype).to_mapping()
                for labels in mapping.values():
                    labels -= removed
            for s in staged:
                for value, labels in s.index_values.get(col, {}).items():
                    mapping.setdefault(value, set()).update(labels)
            indices[col] = write_index(st, dataset_uuid, col, dtype, mapping, stamp)
            written.append(indices[col])
        user = dict(base.metadata) if base is not None else {}
        user.setdefault("creation_time", stamp)      # kept from the first commit
        user.update(metadata or {})
        fmt = metadata_format or (base.format if base is not None else "json")
        md = DatasetMetadata(dataset_uuid, partitions, keys, indices, user, True, fmt)
        data = md.dump()
        st.commit(md.key, data, expected_state(dataset_uuid, base, md.key), dataset_uuid)
    except BaseException:
        for key in written:          # index files of a refused commit: nobody references them
            st.delete(key)
        raise
    md.raw = data
    if base is not None and base.format != fmt:
        st.delete(base.key)          # the old format's file would otherwise shadow or linger
    return md


def expected_state(uuid: str, base: DatasetMetadata | None, key: str) -> dict[str, bytes | None]:
    """What the metadata files must hold for the commit to go ahead (see ``Store.commit``)."""
    if base is None:
        return {naming.metadata_key(uuid, f): None for f in naming.METADATA_SUFFIXES}
    expected: dict[str, bytes | None] = {base.key: base.raw}
    if key != base.key:
        expected[key] = None
    return expected


def _schema_for(st: Store, uuid: str, new: dict[str, pc.Schema], col: str) -> pc.Schema:
    for schema in new.values():
        if col in schema.names:
            return schema
    for key in st.keys(uuid + "/"):
        parts = key.split("/")
        if len(parts) == 3 and parts[2] == "_common_metadata":
            schema = load_schema(st, uuid, parts[1]).schema
            if col in schema.names:
                return schema
    raise KartothekError(f"dataset {uuid!r}: no table has column {col!r} to index")


def _chunks(data: Any) -> list[Any]:
    if data is None:
        return []
    if isinstance(data, (list, tuple)):
        return list(data)
    return [data]


def write_dataset(data: Any, store: Any, dataset_uuid: str | None = None, table: str = "table",
                  partition_on: list[str] | None = None, secondary_indices: list[str] | None = None,
                  metadata: dict[str, Any] | None = None, metadata_format: str = "json",
                  overwrite: bool = False, **write_options: Any) -> DatasetMetadata:
    """Create a dataset from one chunk or a list of chunks (each gets its own base label).

    A chunk is a pandas DataFrame, pyarrow Table, mapping of columns or
    pc.Table; *write_options* go to ``pc.write_table`` (e.g. ``compression``).
    """
    st = open_store(store)
    dataset_uuid = naming.check_uuid(dataset_uuid or _uuid.uuid4().hex)
    if metadata_format not in naming.METADATA_SUFFIXES:
        raise KartothekError(f"metadata_format must be 'json' or 'msgpack', got {metadata_format!r}")
    base = None
    if dataset_exists(st, dataset_uuid):
        if not overwrite:
            raise DatasetExistsError(f"dataset {dataset_uuid!r} already exists in {st!r}")
        base = load_metadata(st, dataset_uuid)
        base = DatasetMetadata(dataset_uuid, {}, list(partition_on or []), {}, {}, True, base.format, base.raw)
    staged: list[Staged] = []
    with _cleanup_on_error(st, staged):
        for chunk in _chunks(data):
            staged.append(stage_partitions(st, dataset_uuid, chunk, table, partition_on, secondary_indices,
                                           **write_options))
    if not staged:
        raise KartothekError("write_dataset needs at least one chunk of data")
    with _cleanup_on_error(st, staged):
        if base is not None:           # overwrite: the new schema replaces the old one
            write_schema(st, dataset_uuid, table, merge_schemas(staged, dataset_uuid))
        return commit_dataset(st, dataset_uuid, staged, base=base, partition_on=partition_on,
                              secondary_indices=secondary_indices or [], metadata=metadata,
                              metadata_format=metadata_format)


@contextlib.contextmanager
def _cleanup_on_error(st: Store, staged: list[Staged]) -> Iterator[None]:
    """Delete the staged data files when the commit fails (they would only be garbage)."""
    try:
        yield
    except BaseException:
        delete_staged(st, staged)
        raise


def delete_staged(store: Any, staged: Iterable[Staged]) -> None:
    """Delete the data files of staged (uncommitted) partitions."""
    st = open_store(store)
    for s in staged:
        for key in s.partitions.values():
            st.delete(key)


def merge_schemas(staged: list[Staged], uuid: str) -> pc.Schema:
    """The table schema all staged chunks fit (null columns filled from the others)."""
    schema = staged[0].schema
    for s in staged[1:]:
        schema = check_compatible(schema, s.schema, f"dataset {uuid!r}")
    return schema


def update_dataset(data: Any, store: Any, dataset_uuid: str, table: str | None = None,
                   partition_on: list[str] | None = None, delete_scope: list[dict[str, Any]] | None = None,
                   secondary_indices: list[str] | None = None, metadata: dict[str, Any] | None = None,
                   metadata_format: str | None = None, base: DatasetMetadata | None = None,
                   **write_options: Any) -> DatasetMetadata:
    """Append chunks and/or remove the partitions *delete_scope* selects, in one commit.

    *delete_scope* is a list of ``{column: value}`` maps; each selects the
    partitions whose partition keys or secondary indices equal all its
    values.  A column without an index is refused (Kartothek ignores it and
    deletes every partition, #198).  *base* (default: read now) is the
    metadata the update is based on; if the stored metadata changed since,
    :class:`ConcurrentWriteError` is raised and nothing becomes visible.
    """
    st = open_store(store)
    base = base or load_metadata(st, dataset_uuid)
    tables = base.tables(st)
    table = table or (tables[0] if len(tables) == 1 else "table")
    if partition_on is not None and list(partition_on) != base.partition_keys:
        raise KartothekError(f"dataset {dataset_uuid!r} is partitioned on {base.partition_keys}, "
                             f"not {list(partition_on)}")
    extra = set(secondary_indices or []) - set(base.indices)
    if extra:
        raise KartothekError(f"dataset {dataset_uuid!r} has no index on {sorted(extra)}; "
                             "add indices with build_indices")
    schema = None
    if st.exists(naming.common_metadata_key(dataset_uuid, table)):
        schema = load_schema(st, dataset_uuid, table).schema
    remove = _delete_scope(st, base, table, delete_scope or [])
    index_cols = [c for c in base.indices if schema is None or c in schema.names]
    staged: list[Staged] = []
    with _cleanup_on_error(st, staged):
        for chunk in _chunks(data):
            staged.append(stage_partitions(st, dataset_uuid, chunk, table, base.partition_keys, index_cols,
                                           schema=schema, **write_options))
        return commit_dataset(st, dataset_uuid, staged, base=base, remove=remove, metadata=metadata,
                              metadata_format=metadata_format)


def _delete_scope(st: Store, md: DatasetMetadata, table: str, scope: list[dict[str, Any]]) -> set[str]:
    labels = list(md.partitions)
    if not scope:
        return set()
    schema = load_schema(st, md.uuid, table).schema
    types = {f.name: f.type for f in schema}
    pv = partition_values(labels, md.partition_keys, schema, f"dataset {md.uuid!r}") \
        if md.partition_keys else None
    out: set[str] = set()
    for cond in scope:
        if not isinstance(cond, dict) or not cond:
            raise KartothekError(f"each delete_scope entry must be a non-empty {{column: value}} map, got {cond!r}")
        hit = set(labels)
        for col, value in cond.items():
            if col not in md.partition_keys and col not in md.indices:
                raise KartothekError(f"delete_scope {cond!r}: column {col!r} is neither a partition key nor "
                                     f"a secondary index of dataset {md.uuid!r}; refusing to guess "
                                     "(Kartothek would delete every partition)")
            if value is None:
                raise KartothekError(f"delete_scope {cond!r}: null values are not indexed")
            try:
                if pv is not None and col in md.partition_keys:    # (pv is None without partition keys)
                    mask = filter_mask(literal_expression((col, "==", value), types[col]), pv)
                    hit &= {lbl for lbl, m in zip(labels, mask.tolist()) if m}
                else:
                    index = load_index(st, md.uuid, col, md.indices[col], types.get(col))
                    hit &= index.matching(literal_expression((col, "==", value), index.type))
            except (ValueError, TypeError) as exc:
                raise PredicateError(f"delete_scope {cond!r}: {exc}") from exc
        out |= hit
    return out
