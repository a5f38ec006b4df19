"""The data files of a dataset directory and their Hive-style partition values (local file systems).

Files and folders starting with ``_`` or ``.`` are ignored, like Spark does,
and so are empty files (xskipper never indexes them).  ``key=value`` folders
give partition columns, typed as Spark infers them (integer, long, double,
date, timestamp, else string; ``__HIVE_DEFAULT_PARTITION__`` is null).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import parquet_core as pc
from parquet_core_integrations.xskipper.errors import XskipperIndexError
from parquet_core_integrations.xskipper.names import file_id, uri_path

__all__ = ["DataFile", "data_columns", "list_dataset", "local_root"]

_NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"


@dataclass
class DataFile:
    path: str
    fid: str
    size: int
    partition: dict[str, str] = field(default_factory=dict)  # raw, unescaped folder values


def local_root(dataset_path: str) -> str:
    """The local directory of *dataset_path* (a plain path or a ``file:`` URI), absolute."""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*://", dataset_path) and not dataset_path.startswith("file:"):
        raise XskipperIndexError(f"only local datasets are supported here, not {dataset_path!r}")
    path = uri_path(dataset_path) if dataset_path.startswith("file:") else dataset_path
    return os.path.abspath(path)


def list_dataset(root: str) -> list[DataFile]:
    """Every non-hidden, non-empty file under *root*, sorted, with its partition folder values."""
    if not os.path.isdir(root):
        if os.path.isfile(root):
            st = os.stat(root)
            return [DataFile(root, file_id(root, st.st_mtime_ns // 1_000_000), st.st_size)] if st.st_size else []
        raise XskipperIndexError(f"dataset {root} does not exist")
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(("_", ".")))
        rel = os.path.relpath(dirpath, root)
        part: dict[str, str] = {}
        for seg in ([] if rel == "." else rel.split(os.sep)):
            key, sep, value = seg.partition("=")
            if sep and key:
                part[unquote(key)] = unquote(value)
        for name in sorted(filenames):
            if name.startswith(("_", ".")):
                continue
            path = os.path.join(dirpath, name)
            st = os.stat(path)
            if st.st_size == 0:
                continue
            out.append(DataFile(path, file_id(path, st.st_mtime_ns // 1_000_000), st.st_size, dict(part)))
    return out


def data_columns(files: list[DataFile]) -> set[str] | None:
    """The dataset's top-level column names in lower case, partition folders included, read
    from the footer of its first file; None when that file is not Parquet (CSV, JSON, ORC:
    their columns are known only to Spark)."""
    if not files:
        return None
    try:
        names = pc.read_schema(files[0].path).names
    except (pc.ParquetError, OSError):
        return None
    return {n.lower() for n in names} | {k.lower() for f in files for k in f.partition}


def _infer_one(raw: str) -> str:
    if re.fullmatch(r"[+-]?\d+", raw):
        return "integer" if -2**31 <= int(raw) < 2**31 else "long"
    try:
        float(raw)
        return "double"
    except ValueError:
        pass
    try:
        dt.date.fromisoformat(raw)
        return "date"
    except ValueError:
        pass
    try:
        dt.datetime.fromisoformat(raw)
        return "timestamp"
    except ValueError:
        return "string"


def partition_schema(files: list[DataFile]) -> list[tuple[str, str]]:
    """``[(column, Spark type)]`` in folder order; mixed or unparsable values are strings."""
    names: list[str] = []
    for f in files:
        for k in f.partition:
            if k not in names:
                names.append(k)
    out = []
    order = ["integer", "long", "double"]
    for name in names:
        kinds = {_infer_one(f.partition[name]) for f in files
                 if f.partition.get(name) not in (None, _NULL_PARTITION)}
        if not kinds:
            kind = "string"
        elif len(kinds) == 1:
            kind = kinds.pop()
        elif kinds <= set(order):
            kind = max(kinds, key=order.index)
        else:
            kind = "string"
        out.append((name, kind))
    return out


def partition_value(raw: str | None, spark_type: str) -> Any:
    """A folder value as a Python value of *spark_type*."""
    if raw is None or raw == _NULL_PARTITION:
        return None
    if spark_type in ("integer", "long"):
        return int(raw)
    if spark_type == "double":
        return float(raw)
    if spark_type == "date":
        return dt.date.fromisoformat(raw)
    if spark_type == "timestamp":
        v = dt.datetime.fromisoformat(raw)
        return v.replace(tzinfo=dt.timezone.utc) if v.tzinfo is None else v
    return raw
