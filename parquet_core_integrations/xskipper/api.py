"""``Xskipper``: build, refresh, drop, describe and use the data-skipping index of one dataset.

::

    xs = Xskipper(None, "/data/events", "/md")          # Parquet: parquet_core only
    xs.index_builder().add_min_max_index("temp").add_value_list_index("city") \\
      .add_bloom_filter_index("vid").build()
    xs.required_files(pc.col("temp") > 30)               # the files a query must read
    xs.refresh_index()                                   # after files were added/changed/deleted

    Xskipper(spark, "/data/csv", "/md").index_builder().add_min_max_index("temp") \\
      .build(format="csv", options={"header": "true", "inferSchema": "true"})

Parquet datasets are indexed with parquet_core directly (footer statistics for
MinMax on numeric columns, the data otherwise).  Other formats (csv, json,
orc) go through Spark (a session must be given): the per-file aggregation
lives in :mod:`spark_adapter.core.skipping`, which registers itself here with
:func:`register_spark_indexer` when imported (``spark_adapter.register(spark)``
imports it); this package never imports the adapter, which imports it.  Only local datasets
are supported.  The metadata directory is ``<md_base>/<sha256(identifier)>``.
"""

from __future__ import annotations

import logging
import os
import shutil
from typing import Any, Callable

import parquet_core as pc
from parquet_core.errors import add_note
from parquet_core_integrations.xskipper.collect import IndexSpec, parquet_cells
from parquet_core_integrations.xskipper.dataset import (
    DataFile,
    data_columns,
    list_dataset,
    local_root,
    partition_schema,
    partition_value,
)
from parquet_core_integrations.xskipper.errors import XskipperError, XskipperIndexError
from parquet_core_integrations.xskipper.javaser import decode_bloom_cell, encode_bloom_cell
from parquet_core_integrations.xskipper.names import metadata_dir, table_identifier
from parquet_core_integrations.xskipper.skipping import SkipResult, check_filter_columns, skip_decisions
from parquet_core_integrations.xskipper.sparkjson import spark_type_of_pc
from parquet_core_integrations.xskipper.store import MetadataStore, VersionStatus
from parquet_core_integrations.xskipper.writer import IndexColumn, java_double, write_store

__all__ = ["IndexBuilder", "Xskipper", "list_indexes"]

log = logging.getLogger("parquet_core_integrations.xskipper")
Progress = Callable[[int, int], None]
_TYPES = {"minmax": {"byte", "short", "integer", "long", "float", "double", "string", "binary", "boolean", "date",
                     "timestamp"},
          "bloomfilter": {"string", "byte", "short", "integer", "long"}}
_TYPES["valuelist"] = _TYPES["minmax"]


class IndexBuilder:
    """Collects indexes in order, then :meth:`build` writes the store."""

    def __init__(self, owner: Xskipper) -> None:
        self._owner = owner
        self._specs: list[IndexSpec] = []

    def _add(self, spec: IndexSpec) -> IndexBuilder:
        if any((s.kind, s.col) == (spec.kind, spec.col) for s in self._specs):
            raise XskipperIndexError(f"duplicate {spec.kind} index on column {spec.col!r}")
        self._specs.append(spec)
        return self

    def add_min_max_index(self, col: str, key_metadata: str | None = None) -> IndexBuilder:
        return self._add(IndexSpec("minmax", col, None, key_metadata))

    def add_value_list_index(self, col: str, key_metadata: str | None = None) -> IndexBuilder:
        return self._add(IndexSpec("valuelist", col, None, key_metadata))

    def add_bloom_filter_index(self, col: str, fpp: float = 0.01, ndv: int = 100000,
                               key_metadata: str | None = None) -> IndexBuilder:
        if not 0.0 < fpp < 1.0 or ndv <= 0:
            raise ValueError(f"Bloom filter needs 0 < fpp < 1 and ndv > 0, got fpp={fpp}, ndv={ndv}")
        params = {"io.xskipper.index.bloom.ndv": str(int(ndv)), "io.xskipper.index.bloom.fpp": java_double(fpp)}
        return self._add(IndexSpec("bloomfilter", col, params, key_metadata))

    def build(self, format: str = "parquet", options: dict[str, str] | None = None,
              footer_key: str | None = None, plaintext_footer: bool = False) -> dict[str, Any]:
        """Index every file; fails if the dataset is already indexed."""
        if not self._specs:
            raise XskipperIndexError("no index was added to the builder")
        return self._owner._build(self._specs, format, options or {}, footer_key, plaintext_footer)


class Xskipper:
    """The index of one dataset (*dataset_path*, local) under the base directory *md_base*."""

    def __init__(self, spark: Any, dataset_path: str, md_base: str, progress: Progress | None = None,
                 md_location_type: str = "EXPLICIT_BASE_PATH_LOCATION", keys: Any = None) -> None:
        """*md_location_type* ``EXPLICIT_LOCATION`` takes *md_base* as the metadata directory itself;
        *keys* (:class:`~parquet_core_integrations.xskipper.pme.PmeKeys`) encrypt and decrypt encrypted stores.

        A relative *dataset_path* is made absolute first (xskipper would hash
        it as given, and then never match the absolute paths queries use).
        """
        self.spark = spark
        self.root = local_root(dataset_path)
        self.table_identifier = table_identifier(self.root)
        self.md_base = md_base
        if md_location_type == "EXPLICIT_BASE_PATH_LOCATION":
            self.md_path = metadata_dir(md_base, self.root)
        elif md_location_type == "EXPLICIT_LOCATION":
            self.md_path = md_base
        else:
            raise ValueError(f"md_location_type must be EXPLICIT_BASE_PATH_LOCATION or EXPLICIT_LOCATION, "
                             f"got {md_location_type!r} (Hive locations need a metastore)")
        self.progress = progress
        self.keys = keys

    # -- lifecycle ---------------------------------------------------------------------------------
    def index_builder(self) -> IndexBuilder:
        return IndexBuilder(self)

    def is_indexed(self) -> bool:
        return os.path.exists(self.md_path)

    def drop_index(self) -> None:
        if not self.is_indexed():
            raise XskipperIndexError(f"dataset {self.root} is not indexed (no {self.md_path})")
        shutil.rmtree(self.md_path)

    def store(self) -> MetadataStore:
        if not self.is_indexed():
            raise XskipperIndexError(f"dataset {self.root} is not indexed (no {self.md_path})")
        return MetadataStore(self.md_path, self.keys)

    def describe_index(self) -> dict[str, Any]:
        store = self.store()
        current = {f.fid for f in list_dataset(self.root)}
        stale = len(current - set(store.file_ids()))
        out = store.describe()
        out["up_to_date"] = stale == 0 and set(store.file_ids()) <= current
        out["new_or_modified_objects"] = stale
        return out

    def _build(self, specs: list[IndexSpec], fmt: str, options: dict[str, str], footer_key: str | None,
               plaintext_footer: bool) -> dict[str, Any]:
        if self.is_indexed():
            raise XskipperIndexError(f"Index Already Exists: {self.md_path}")
        files = list_dataset(self.root)
        parts = partition_schema(files)
        columns = self._resolve(specs, fmt, options, {p for p, _ in parts})
        rows = self._collect(files, specs, fmt, options, parts, columns)
        indexes = [IndexColumn(s.kind, [s.col], columns[s.col][1], s.params or None, s.key_metadata) for s in specs]
        write_store(self.md_path, self.table_identifier, parts, indexes, rows, footer_key, plaintext_footer,
                    keys=self.keys)
        return {"status": "SUCCESS", "new_entries_added": len(rows), "old_entries_removed": 0}

    def refresh_index(self, format: str = "parquet", options: dict[str, str] | None = None) -> dict[str, Any]:
        """Index new and changed files, drop deleted ones and duplicates, upgrade v1-v3 to v4."""
        store = self.store()
        if store.status in (VersionStatus.DEPRECATED_UNSUPPORTED, VersionStatus.TOO_NEW):
            raise XskipperIndexError(f"metadata version {store.version} cannot be refreshed: drop and re-index")
        files = list_dataset(self.root)
        parts = partition_schema(files)
        by_id = {f.fid: f for f in files}
        specs = [IndexSpec(i.name, i.cols[0], _current_params(i.params), i.key_metadata) for i in store.indexes]
        types = [_source_type(i.spark_type) for i in store.indexes]
        kept: dict[str, dict[str, Any]] = {}
        for row in store.rows:  # first row per id wins: duplicates go
            if row["obj_name"] in by_id and row["obj_name"] not in kept:
                kept[row["obj_name"]] = _upgrade_row(row, store, specs)
        removed = len(set(store.file_ids()) - set(kept))
        new = [f for f in files if f.fid not in kept]
        columns = self._resolve(specs, format, options or {}, {p for p, _ in parts}) if new else {}
        fresh = self._collect(new, specs, format, options or {}, parts, columns) if new else []
        rows = []
        for fid, row in kept.items():
            row.update(_virtual(by_id[fid], parts))
            rows.append(row)
        rows += fresh
        indexes = [IndexColumn(s.kind, [s.col], t, s.params or None, s.key_metadata) for s, t in zip(specs, types)]
        write_store(self.md_path, self.table_identifier, parts, indexes, rows, encryption=store.encryption or None,
                    keys=self.keys)
        return {"status": "SUCCESS", "new_entries_added": len(fresh), "old_entries_removed": removed}

    # -- skipping ----------------------------------------------------------------------------------
    def skipped_files(self, predicate: Any, sql_in: bool = True,
                      files: list[DataFile] | None = None) -> SkipResult:
        """Verdicts over the dataset's current files (new or changed files are never skipped).

        A predicate column the dataset does not have raises :class:`XskipperIndexError`; one
        it has that no index covers gives a ``UserWarning`` (its conditions skip nothing).
        """
        store = self.store()
        files = list_dataset(self.root) if files is None else files
        check_filter_columns(store, predicate, self.root, data_columns(files))
        res = skip_decisions(store, predicate, [f.fid for f in files], sql_in)
        log.info("xskipper: %d of %d files skipped for %s", len(res.skipped), res.total, self.root)
        return res

    def required_files(self, predicate: Any, sql_in: bool = True) -> list[str]:
        """Paths of the files a query with *predicate* must read."""
        files = list_dataset(self.root)
        skip = set(self.skipped_files(predicate, sql_in, files).skipped)
        return [f.path for f in files if f.fid not in skip]

    # -- helpers -----------------------------------------------------------------------------------
    def _resolve(self, specs: list[IndexSpec], fmt: str, options: dict[str, str],
                 partitions: set[str]) -> dict[str, tuple[str, str]]:
        """``{index column: (dataset column name, Spark type)}``, validated."""
        if fmt == "parquet":
            files = list_dataset(self.root)
            if not files:
                raise XskipperIndexError(f"dataset {self.root} has no data file")
            schema = _flat_schema(pc.read_schema(files[0].path).fields)
        else:
            spark = self._need_spark(fmt)
            schema = self._spark_module().dataset_schema(spark, self.root, fmt, options)
        lower = {k.lower(): k for k in schema}
        out = {}
        for s in specs:
            if s.col in {p.lower() for p in partitions}:
                raise XskipperIndexError(f"column {s.col!r} is a partition column and cannot be indexed")
            if s.col not in lower:
                raise XskipperIndexError(f"column {s.col!r} is not in the dataset (columns: {sorted(schema)})")
            typ = schema[lower[s.col]]
            if typ not in _TYPES[s.kind] and not (s.kind != "bloomfilter" and typ.startswith("decimal")):
                raise XskipperIndexError(f"a {s.kind} index cannot be built on column {s.col!r} of type {typ}")
            out[s.col] = (lower[s.col], typ)
            s.source_type = typ
        return out

    def _collect(self, files: list[DataFile], specs: list[IndexSpec], fmt: str, options: dict[str, str],
                 parts: list[tuple[str, str]], columns: dict[str, tuple[str, str]]) -> list[dict[str, Any]]:
        names = [IndexColumn(s.kind, [s.col], None).column for s in specs]
        rows: list[dict[str, Any]] = []
        if fmt == "parquet":
            cols = {k: v[0] for k, v in columns.items()}
            for done, f in enumerate(files, 1):
                try:
                    cells = parquet_cells(f.path, specs, cols)
                except pc.ParquetError as exc:
                    add_note(exc, f"while indexing {f.path}")
                    raise
                rows.append({"obj_name": f.fid, **_virtual(f, parts), **{names[i]: c for i, c in cells.items()}})
                self._report(done, len(files))
        else:
            spark = self._need_spark(fmt)
            by_path = self._spark_module().collect_cells(spark, self.root, files, specs, fmt, options,
                                                         {k: v[0] for k, v in columns.items()})
            for done, f in enumerate(files, 1):
                cells = by_path.get(f.path, {i: None for i in range(len(specs))})
                rows.append({"obj_name": f.fid, **_virtual(f, parts), **{names[i]: c for i, c in cells.items()}})
                self._report(done, len(files))
        return rows

    def _report(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(done, total)
        if done == total or done % 100 == 0:
            log.info("xskipper: indexed %d / %d files of %s", done, total, self.root)

    def _need_spark(self, fmt: str) -> Any:
        if self.spark is None:
            raise XskipperIndexError(f"indexing a {fmt} dataset needs a SparkSession (Xskipper(spark, ...))")
        return self.spark

    @staticmethod
    def _spark_module() -> Any:
        # the Spark side lives in the adapter (it imports pyspark), which registers it
        if not _SPARK_INDEXER:
            raise XskipperIndexError(
                "indexing a csv/json/orc dataset runs a Spark job from spark_adapter: call "
                "spark_adapter.register(spark) or import spark_adapter.core.skipping first")
        return _SPARK_INDEXER[0]


#: the Spark indexer (``dataset_schema``, ``collect_cells``), set by :func:`register_spark_indexer`
_SPARK_INDEXER: list[Any] = []


def register_spark_indexer(indexer: Any) -> None:
    """Use *indexer* (an object with ``dataset_schema`` and ``collect_cells``) for datasets
    Spark must read; ``spark_adapter.core.skipping`` registers itself when imported."""
    _SPARK_INDEXER[:] = [indexer]


def _flat_schema(fields: Any, prefix: str = "") -> dict[str, str]:
    """``{column or dotted struct leaf: Spark type}`` (lists and maps are not indexable)."""
    out: dict[str, str] = {}
    for f in fields:
        name = prefix + f.name
        if f.type.id is pc.TypeId.STRUCT:
            out[name] = "struct"
            out.update(_flat_schema(f.type.fields, name + "."))
        elif f.type.is_nested:
            out[name] = f.type.name
        else:
            out[name] = spark_type_of_pc(f.type, name)
    return out


def _current_params(params: dict[str, str]) -> dict[str, str]:
    out = {}
    for k, v in params.items():
        out[k.replace("spark.ibm.metaindex.", "io.xskipper.")] = v
    if "io.xskipper.index.bloom.fpp" in out or "io.xskipper.index.bloom.ndv" in out:  # ndv first, as stored
        return {"io.xskipper.index.bloom.ndv": out.get("io.xskipper.index.bloom.ndv", "100000"),
                "io.xskipper.index.bloom.fpp": out.get("io.xskipper.index.bloom.fpp", "0.01")}
    return out


def _source_type(t: Any) -> Any:
    if isinstance(t, dict) and t.get("type") == "struct":
        return t["fields"][0]["type"]
    if isinstance(t, dict) and t.get("type") == "array":
        return t["elementType"]
    if isinstance(t, dict) and t.get("type") == "udt":
        return "string"  # unused: a Bloom column stores binary whatever the source type
    raise XskipperError(f"cannot tell the source type of index type {t!r}")


def _upgrade_row(row: dict[str, Any], store: MetadataStore, specs: list[IndexSpec]) -> dict[str, Any]:
    """A stored row with its cells under v4 column names (legacy Bloom cells re-encoded)."""
    out: dict[str, Any] = {"obj_name": row["obj_name"]}
    for idx, spec in zip(store.indexes, specs):
        cell = row.get(idx.column)
        name = IndexColumn(spec.kind, [spec.col], None).column
        if spec.kind == "bloomfilter" and cell is not None and store.version <= 2:
            bf = decode_bloom_cell(cell)
            cell = None if bf is None else encode_bloom_cell(bf)
        out[name] = cell
    return out


def _virtual(f: DataFile, parts: list[tuple[str, str]]) -> dict[str, Any]:
    return {"virtual_" + p: partition_value(f.partition.get(p), t) for p, t in parts}


def list_indexes(md_base: str) -> list[dict[str, Any]]:
    """The indexed datasets under *md_base*: identifier, directory and indexes (invalid dirs skipped)."""
    out: list[dict[str, Any]] = []
    if not os.path.isdir(md_base):
        return out
    for name in sorted(os.listdir(md_base)):
        path = os.path.join(md_base, name)
        if not os.path.isdir(path):
            continue
        try:
            store = MetadataStore(path)
        except (pc.ParquetError, OSError):
            continue
        out.append({"dataset": store.table_identifier, "metadata_location": path, "version": store.version,
                    "indexes": [(i.name, i.cols) for i in store.indexes]})
    return out


Xskipper.list_indexes = staticmethod(list_indexes)  # type: ignore[attr-defined]
