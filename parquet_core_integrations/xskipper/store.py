"""Reading an xskipper metadata directory (format versions 0 to 4).

The directory is a plain Spark Parquet dataset: every file not starting with
``_`` or ``.`` is read, each must carry the same Spark schema JSON.  The
format version is ``obj_name``'s metadata ``version`` (absent: 0); index
columns are found by their ``index`` metadata (``name``, ``cols``,
``params`` as ``"k:v"`` strings (v0-v2) or a map (v3+), ``key_metadata``),
never by their names; v4 adds ``virtual_<partition column>`` columns.

Cells are kept as read: MinMax ``{"min", "max"}`` dicts, ValueList lists,
Bloom filter cells as bytes, decoded on first use.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import parquet_core as pc
from parquet_core.errors import add_note
from parquet_core_integrations.xskipper.errors import XskipperFormatError
from parquet_core_integrations.xskipper.javaser import decode_bloom_cell
from parquet_core_integrations.xskipper.names import CURRENT_VERSION
from parquet_core_integrations.xskipper.sketch import SparkBloomFilter
from parquet_core_integrations.xskipper.sparkjson import ROW_METADATA_KEY, parse_schema

__all__ = ["BLOOM_FPP_KEYS", "BLOOM_NDV_KEYS", "IndexMeta", "MetadataStore", "VersionStatus",
           "list_metadata_files", "version_status"]

BLOOM_FPP_KEYS = ("io.xskipper.index.bloom.fpp", "spark.ibm.metaindex.index.bloom.fpp")
BLOOM_NDV_KEYS = ("io.xskipper.index.bloom.ndv", "spark.ibm.metaindex.index.bloom.ndv")
VIRTUAL_PREFIX = "virtual_"


class VersionStatus(Enum):
    CURRENT = "current"
    DEPRECATED_SUPPORTED = "deprecated_supported"      # usable for skipping; refresh upgrades
    DEPRECATED_UNSUPPORTED = "deprecated_unsupported"  # v0: no skipping, drop and re-index
    TOO_NEW = "too_new"


def version_status(version: int) -> VersionStatus:
    """The intended status of a format version (xskipper's own check calls 5+ deprecated)."""
    if version == CURRENT_VERSION:
        return VersionStatus.CURRENT
    if 1 <= version < CURRENT_VERSION:
        return VersionStatus.DEPRECATED_SUPPORTED
    if version > CURRENT_VERSION:
        return VersionStatus.TOO_NEW
    return VersionStatus.DEPRECATED_UNSUPPORTED


@dataclass
class IndexMeta:
    """One index: its type name, lower-cased source columns, params, key label, metadata column."""

    name: str
    cols: list[str]
    params: dict[str, str] = field(default_factory=dict)
    key_metadata: str | None = None
    column: str = ""
    spark_type: Any = None

    @property
    def bloom_fpp(self) -> float:
        return float(next((self.params[k] for k in BLOOM_FPP_KEYS if k in self.params), 0.01))

    @property
    def bloom_ndv(self) -> int:
        return int(next((self.params[k] for k in BLOOM_NDV_KEYS if k in self.params), 100000))


def _params(raw: Any, where: str) -> dict[str, str]:
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return {str(k): str(v) for k, v in raw.items()}
    if isinstance(raw, list):
        out = {}
        for item in raw:
            k, sep, v = str(item).partition(":")
            if not sep:
                raise XskipperFormatError(f"index param {item!r} of {where} has no ':'")
            out[k] = v
        return out
    raise XskipperFormatError(f"index params of {where} are neither a list nor a map: {raw!r}")


def list_metadata_files(md_dir: str) -> list[str]:
    """The files Spark would read in *md_dir* (not starting with ``_`` or ``.``), sorted."""
    if not os.path.isdir(md_dir):
        raise XskipperFormatError(f"metadata directory {md_dir} does not exist")
    return sorted(os.path.join(md_dir, n) for n in os.listdir(md_dir)
                  if not n.startswith(("_", ".")) and os.path.isfile(os.path.join(md_dir, n)))


class MetadataStore:
    """The content of one metadata directory: schema, indexes and one row per indexed file."""

    def __init__(self, md_dir: str, keys: Any = None) -> None:
        """*keys* (:class:`~parquet_core_integrations.xskipper.pme.PmeKeys`) decrypt an encrypted store."""
        self.md_dir = md_dir
        self.keys = keys
        files = list_metadata_files(md_dir)
        if not files:
            raise XskipperFormatError(f"metadata directory {md_dir} is corrupted: it holds no metadata file")
        self.files = files
        self.schema_json: str = ""
        self.fields: list[dict[str, Any]] = []
        self.index_rows: list[dict[str, Any]] = []  # rows without the Bloom cells not loaded yet
        self._row_counts: list[int] = []
        for path in files:
            try:
                self._read_file(path)
            except pc.ParquetError as exc:
                add_note(exc, f"in xskipper metadata file {path}")
                raise
        # Bloom cells are ~120 KB each: read per column, only when a query uses it
        self._unloaded = {i.column for i in self.indexes if i.name == "bloomfilter"}
        self._bloom_cache: dict[tuple[int, str], SparkBloomFilter | None] = {}

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Every row with every cell (loads the Bloom cells)."""
        for column in sorted(self._unloaded):
            self._load(column)
        return self.index_rows

    def _open(self, path: str) -> Any:
        extra = self.keys.read_options(path) if self.keys is not None else {}
        return pc.ParquetFile(path, **extra)

    def _load(self, column: str) -> None:
        if column not in self._unloaded:
            return
        start = 0
        for path, n in zip(self.files, self._row_counts):
            with self._open(path) as pf:
                values = pf.read(columns=[column]).column(column).to_pylist()
            for row, v in zip(self.index_rows[start:start + n], values):
                row[column] = v
            start += n
        self._unloaded.discard(column)

    def _read_file(self, path: str) -> None:
        with self._open(path) as pf:
            kv = pf.metadata.metadata or {}
            raw = kv.get(ROW_METADATA_KEY.encode())
            if raw is None:
                raise XskipperFormatError(
                    f"metadata file {path} is corrupted: no '{ROW_METADATA_KEY}' key-value entry")
            text = raw.decode("utf-8")
            if not self.schema_json:
                self.schema_json = text
                self.fields = parse_schema(text)
                self._parse_fields(path)
            elif parse_schema(text) != self.fields:
                raise XskipperFormatError(f"metadata file {path} has a different Spark schema than {self.files[0]}")
            names = set(pf.schema_arrow.names)
            missing = [f["name"] for f in self.fields if f["name"] not in names]
            if missing:
                raise XskipperFormatError(f"metadata file {path} lacks the columns {missing} its schema declares")
            blooms = {i.column for i in self.indexes if i.name == "bloomfilter"}
            table = pf.read(columns=[f["name"] for f in self.fields if f["name"] not in blooms])
        rows = table.to_pylist()
        self._row_counts.append(len(rows))
        self.index_rows.extend(rows)

    def _parse_fields(self, path: str) -> None:
        by_name = {f["name"]: f for f in self.fields}
        if "obj_name" not in by_name:
            raise XskipperFormatError(f"metadata file {path} is corrupted: no obj_name column")
        master = by_name["obj_name"].get("metadata", {})
        version = master.get("version", 0)
        if not isinstance(version, int):
            raise XskipperFormatError(f"obj_name metadata version {version!r} is not an integer")
        self.version: int = version
        self.encryption: dict[str, str] = dict(master.get("encryption") or {})
        self.indexes: list[IndexMeta] = []
        self.partition_columns: list[tuple[str, Any]] = []
        table_ids = {master.get("tableIdentifier")}
        for f in self.fields:
            meta = f.get("metadata", {})
            idx = meta.get("index")
            if isinstance(idx, dict):
                name, cols = idx.get("name"), idx.get("cols")
                if not isinstance(name, str) or not isinstance(cols, list) or not cols:
                    raise XskipperFormatError(f"index metadata of column {f['name']!r} lacks name or cols")
                self.indexes.append(IndexMeta(name.lower(), [str(c).lower() for c in cols],
                                              _params(idx.get("params"), f["name"]), idx.get("key_metadata"),
                                              f["name"], f["type"]))
                table_ids.add(meta.get("tableIdentifier"))  # v0 kept it per index
            elif f["name"].startswith(VIRTUAL_PREFIX) and version >= 4:
                self.partition_columns.append((f["name"][len(VIRTUAL_PREFIX):], f["type"]))
        table_ids.discard(None)
        if len(table_ids) != 1:
            raise XskipperFormatError(f"metadata file {path} is corrupted: table identifiers {sorted(table_ids)}")
        self.table_identifier: str = table_ids.pop()

    @property
    def status(self) -> VersionStatus:
        return version_status(self.version)

    def file_ids(self) -> list[str]:
        """``obj_name`` of every row (duplicates kept)."""
        return [r["obj_name"] for r in self.index_rows]

    def bloom(self, row: int, column: str) -> SparkBloomFilter | None:
        """The decoded Bloom filter of a row's cell (``None`` for a null cell or null filter)."""
        key = (row, column)
        if key not in self._bloom_cache:
            self._load(column)
            cell = self.index_rows[row].get(column)
            self._bloom_cache[key] = None if cell is None else decode_bloom_cell(cell)
        return self._bloom_cache[key]

    def describe(self) -> dict[str, Any]:
        return {"metadata_location": self.md_dir, "table_identifier": self.table_identifier,
                "version": self.version, "status": self.status.value, "objects_indexed": len(set(self.file_ids())),
                "partition_columns": [p for p, _ in self.partition_columns],
                "indexes": [{"name": i.name, "cols": i.cols, "params": i.params, "key_metadata": i.key_metadata,
                             "column": i.column} for i in self.indexes],
                "encryption": self.encryption}
