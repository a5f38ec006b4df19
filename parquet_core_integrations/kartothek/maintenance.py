"""Indices built after the fact, garbage collection, and deleting a dataset."""

from __future__ import annotations

from typing import Any

import parquet_core as pc
from parquet_core_integrations.kartothek import naming
from parquet_core_integrations.kartothek.errors import DatasetNotFoundError, KartothekError
from parquet_core_integrations.kartothek.indices import write_index
from parquet_core_integrations.kartothek.metadata import DatasetMetadata, dataset_exists, load_metadata
from parquet_core_integrations.kartothek.schema import load_schema
from parquet_core_integrations.kartothek.store import open_store
from parquet_core_integrations.kartothek.write import _index_type, distinct_values, expected_state

__all__ = ["build_indices", "garbage_collect", "delete_dataset"]


def build_indices(store: Any, dataset_uuid: str, columns: list[str], table: str | None = None,
                  base: DatasetMetadata | None = None) -> DatasetMetadata:
    """(Re)build secondary indices of *columns* by reading every partition, then commit.

    The metadata keeps its format (Kartothek always rewrites it as JSON, B12).
    """
    st = open_store(store)
    md = base or load_metadata(st, dataset_uuid)
    tables = md.tables(st)
    stamp = naming.utc_isoformat()
    indices = dict(md.indices)
    for col in columns:
        tname = table or next((t for t in tables if col in load_schema(st, dataset_uuid, t)), None)
        if tname is None:
            raise KartothekError(f"dataset {dataset_uuid!r}: no table has column {col!r} to index")
        schema = load_schema(st, dataset_uuid, tname).schema
        dtype = _index_type(schema, col, md.partition_keys)
        mapping: dict[Any, set[str]] = {}
        for label, files in md.partitions.items():
            if tname not in files:
                continue
            pf = pc.ParquetFile(st.source(files[tname]))
            if col not in pf.schema_arrow.names:
                continue              # a column missing from a file is all null there
            arr = pf.read(columns=[col]).column(0)
            if arr.type != dtype:
                arr = pc.as_table({col: arr}, pc.schema([pc.field(col, dtype)])).column(0)
            for v in distinct_values(arr):   # per distinct value (np.unique), not per row
                mapping.setdefault(v, set()).add(label)
        indices[col] = write_index(st, dataset_uuid, col, dtype, mapping, stamp)
    new = DatasetMetadata(dataset_uuid, md.partitions, md.partition_keys, indices, md.metadata,
                          md.explicit, md.format)
    data = new.dump()
    st.commit(new.key, data, expected_state(dataset_uuid, md, new.key), dataset_uuid)
    new.raw = data
    return new


def garbage_collect(store: Any, dataset_uuid: str) -> list[str]:
    """Delete the dataset's files that its metadata does not reference; return their keys.

    Index files not referenced and, for explicit datasets, data files under
    each table not referenced (``_common_metadata`` stays).  Files of a write
    still in progress are unreferenced too: do not collect while writing.
    """
    st = open_store(store)
    md = load_metadata(st, dataset_uuid)
    referenced = {ref for ref in md.indices.values() if isinstance(ref, str)}
    for files in md.partitions.values():
        referenced.update(files.values())
    prefixes = [f"{dataset_uuid}/indices/"]
    if md.explicit:
        prefixes += [f"{dataset_uuid}/{t}/" for t in md.tables(st)]
    removed = []
    for prefix in prefixes:
        for key in st.keys(prefix):
            if key in referenced or key.endswith("/_common_metadata"):
                continue
            st.delete(key)
            removed.append(key)
    return removed


def delete_dataset(store: Any, dataset_uuid: str) -> None:
    """Delete a dataset: its metadata file(s) first, so readers never see a partial dataset.

    Both metadata formats are removed (Kartothek leaves a msgpack file behind,
    B5), then every key under ``<uuid>/``; other datasets, even with a uuid
    sharing this prefix, are untouched.
    """
    st = open_store(store)
    naming.check_uuid(dataset_uuid)
    if not dataset_exists(st, dataset_uuid):
        raise DatasetNotFoundError(f"dataset {dataset_uuid!r} does not exist in {st!r}")
    try:
        md = load_metadata(st, dataset_uuid)
        # legacy index keys (<uuid>.<column>.by-dataset-index.parquet) live outside <uuid>/
        outside = [ref for ref in md.indices.values()
                   if isinstance(ref, str) and not ref.startswith(dataset_uuid + "/")]
    except KartothekError:
        outside = []          # unreadable metadata: still delete the dataset
    for fmt in naming.METADATA_SUFFIXES:
        st.delete(naming.metadata_key(dataset_uuid, fmt))
    for key in outside + st.keys(dataset_uuid + "/"):
        st.delete(key)
