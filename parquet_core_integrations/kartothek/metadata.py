"""The dataset metadata file (version 4): load, validate, discover implicit partitions, dump.

The metadata file is the commit point and the only source of truth for
which data and index files belong to a dataset.  It is JSON
(``<uuid>.by-dataset-metadata.json``) or a msgpack map compressed as one
zstd frame (``<uuid>.by-dataset-metadata.msgpack.zstd``); readers try JSON
first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import msgpack
import zstandard

from parquet_core_integrations.kartothek import naming
from parquet_core_integrations.kartothek.errors import DatasetNotFoundError, KartothekError
from parquet_core_integrations.kartothek.store import Store

__all__ = ["DatasetMetadata", "load_metadata", "dataset_exists"]

VERSION = 4
MAX_METADATA_BYTES = 1 << 30


@dataclass
class DatasetMetadata:
    """One committed state of a dataset."""

    uuid: str
    partitions: dict[str, dict[str, str]]          # label -> {table: data file key}
    partition_keys: list[str]
    indices: dict[str, Any] = field(default_factory=dict)   # column -> index file key | embedded dict
    metadata: dict[str, Any] = field(default_factory=dict)
    explicit: bool = True                          # False: partitions were found by listing
    format: str = "json"
    raw: bytes | None = None                       # the bytes read, to detect concurrent commits

    @property
    def key(self) -> str:
        return naming.metadata_key(self.uuid, self.format)

    def tables(self, store: Store | None = None) -> list[str]:
        """Table names: the union over all partitions (or the ``_common_metadata`` files when empty)."""
        names: dict[str, None] = {}
        for files in self.partitions.values():
            names.update(dict.fromkeys(files))
        if not names and store is not None:
            for key in store.keys(self.uuid + "/"):
                parts = key.split("/")
                if len(parts) == 3 and parts[2] == "_common_metadata":
                    names[parts[1]] = None
        return list(names)

    def to_dict(self) -> dict[str, Any]:
        """The metadata map in the key order Kartothek writes."""
        out: dict[str, Any] = {"dataset_metadata_version": VERSION, "dataset_uuid": self.uuid}
        if self.indices:
            out["indices"] = dict(self.indices)
        out["metadata"] = self.metadata
        if self.explicit:
            out["partitions"] = {label: {"files": dict(files)} for label, files in self.partitions.items()}
        out["partition_keys"] = list(self.partition_keys)
        return out

    def dump(self, fmt: str | None = None) -> bytes:
        fmt = fmt or self.format
        data = self.to_dict()
        if fmt == "json":
            return json.dumps(data, ensure_ascii=True).encode("utf-8")
        if fmt == "msgpack":
            packed = msgpack.packb(data, use_bin_type=True)
            return zstandard.ZstdCompressor(write_content_size=True).compress(packed)
        raise KartothekError(f"metadata_format must be 'json' or 'msgpack', got {fmt!r}")


def dataset_exists(store: Store, uuid: str) -> bool:
    return any(store.exists(naming.metadata_key(uuid, f)) for f in naming.METADATA_SUFFIXES)


def load_metadata(store: Store, uuid: str) -> DatasetMetadata:
    """Read and validate the metadata file of *uuid* (JSON first, then msgpack.zstd)."""
    naming.check_uuid(uuid)
    for fmt in ("json", "msgpack"):
        key = naming.metadata_key(uuid, fmt)
        if store.exists(key):
            raw = store.get(key)
            return _parse(store, uuid, key, fmt, raw, _decode(key, fmt, raw))
    raise DatasetNotFoundError(f"dataset {uuid!r} does not exist in {store!r}: neither "
                               f"{naming.metadata_key(uuid, 'json')} nor {naming.metadata_key(uuid, 'msgpack')}")


def _decode(key: str, fmt: str, raw: bytes) -> Any:
    try:
        if fmt == "json":
            return json.loads(raw.decode("utf-8"))
        return msgpack.unpackb(_decompress(key, raw), raw=False, strict_map_key=False)
    except (ValueError, UnicodeDecodeError, zstandard.ZstdError, msgpack.UnpackException) as exc:
        raise KartothekError(f"{key}: not valid {fmt} metadata: {exc}") from exc


def _decompress(key: str, raw: bytes) -> bytes:
    """Decompress in chunks up to a bound, so a corrupt frame header cannot make us allocate
    whatever size it claims."""
    out = bytearray()
    with zstandard.ZstdDecompressor().stream_reader(raw) as reader:
        while True:
            chunk = reader.read(1 << 20)
            if not chunk:
                return bytes(out)
            out += chunk
            if len(out) > MAX_METADATA_BYTES:
                raise KartothekError(f"{key}: metadata larger than {MAX_METADATA_BYTES} bytes decompressed")


def _parse(store: Store, uuid: str, key: str, fmt: str, raw: bytes, data: Any) -> DatasetMetadata:
    if not isinstance(data, dict):
        raise KartothekError(f"{key}: metadata must be a map, got {type(data).__name__}")
    version = data.get("dataset_metadata_version")
    if version != VERSION:
        raise KartothekError(f"{key}: dataset_metadata_version {version!r} is not supported (only 4)")
    if data.get("dataset_uuid") != uuid:
        raise KartothekError(f"{key}: names dataset {data.get('dataset_uuid')!r}, expected {uuid!r}")
    meta = data.get("metadata") or {}
    indices = data.get("indices") or {}
    if not isinstance(meta, dict) or not isinstance(indices, dict):
        raise KartothekError(f"{key}: 'metadata' and 'indices' must be maps")
    for col, ref in indices.items():
        if not isinstance(ref, (str, dict)):
            raise KartothekError(f"{key}: index of column {col!r} must be a key or a map, got {ref!r}")
    keys = data.get("partition_keys")
    if keys is not None and not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
        raise KartothekError(f"{key}: partition_keys must be a list of strings")
    if "partitions" in data:
        partitions = _explicit_partitions(key, data["partitions"])
        explicit = True
    else:
        partitions = _discover(store, uuid)
        explicit = False
    if keys is None:
        first = next(iter(partitions), "")
        keys = [k for k, _ in naming.parse_label(first)]
    return DatasetMetadata(uuid, partitions, keys, indices, meta, explicit, fmt, raw)


def _explicit_partitions(key: str, parts: Any) -> dict[str, dict[str, str]]:
    if not isinstance(parts, dict):
        raise KartothekError(f"{key}: 'partitions' must be a map")
    out = {}
    for label, entry in parts.items():
        files = entry.get("files") if isinstance(entry, dict) else None
        if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
            raise KartothekError(f"{key}: partition {label!r} must be {{'files': {{table: key}}}}, got {entry!r}")
        out[label] = dict(files)
    return out


def _discover(store: Store, uuid: str) -> dict[str, dict[str, str]]:
    """Partitions of an implicit dataset, from ``<uuid>/<table>/k=v/.../<name>.parquet`` keys.

    Index files (``<uuid>/indices/``) and ``_common_metadata`` are not data,
    unlike in Kartothek's listing (its bug B11).
    """
    partitions: dict[str, dict[str, str]] = {}
    depth = None
    for key in store.keys(uuid + "/"):
        parts = key.split("/")
        if len(parts) < 3 or not key.endswith(".parquet") or parts[1] == "indices":
            continue
        table, pairs, name = parts[1], parts[2:-1], parts[-1][: -len(".parquet")]
        if depth is None:
            depth = len(pairs)
        elif depth != len(pairs):
            raise KartothekError(f"dataset {uuid!r}: files at different partition depths ({key})")
        label = "/".join([*(_requote(p, key) for p in pairs), name])
        partitions.setdefault(label, {})[table] = key
    return partitions


def _requote(pair: str, key: str) -> str:
    kv = pair.split("=")
    if len(kv) != 2:
        raise KartothekError(f"{key}: directory {pair!r} is not key=value")
    return "=".join(naming.quote(naming.unquote(p)) for p in kv)
