"""Per-file index cells computed from data: MinMax, ValueList and Bloom filter.

Parquet files are read with parquet_core.  MinMax on an integer or floating
column uses the footer statistics when every row group has them (what
xskipper's Parquet fast path does); everything else reads the column.  Cells
follow xskipper: nulls are ignored; MinMax of a column without a non-null
value is ``{min: None, max: None}``, ValueList ``[]``, Bloom filter an empty
filter; a file without rows gets ``None`` (SQL NULL) cells.

Ordering matches the JVM's: strings by UTF-16 code units, doubles with NaN
largest, binary as unsigned bytes.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any, Sequence

import numpy as np

import parquet_core as pc
from parquet_core_integrations.xskipper.errors import XskipperIndexError
from parquet_core_integrations.xskipper.javaser import encode_bloom_cell
from parquet_core_integrations.xskipper.jvm_order import jvm_set_order
from parquet_core_integrations.xskipper.sketch import SparkBloomFilter

__all__ = ["IndexSpec", "cells_from_values", "parquet_cells"]

_NUMERIC = frozenset([pc.TypeId.INT8, pc.TypeId.INT16, pc.TypeId.INT32, pc.TypeId.INT64, pc.TypeId.UINT8,
                      pc.TypeId.UINT16, pc.TypeId.UINT32, pc.TypeId.FLOAT32, pc.TypeId.FLOAT64])


class IndexSpec:
    """An index to build: ``kind`` (minmax / valuelist / bloomfilter), column, params, key label."""

    def __init__(self, kind: str, col: str, params: dict[str, str] | None = None,
                 key_metadata: str | None = None, source_type: str | None = None) -> None:
        self.kind, self.col, self.params, self.key_metadata = kind, col.lower(), dict(params or {}), key_metadata
        self.source_type = source_type  # Spark type of the column, once resolved

    @property
    def fpp(self) -> float:
        return float(self.params.get("io.xskipper.index.bloom.fpp", 0.01))

    @property
    def ndv(self) -> int:
        return int(self.params.get("io.xskipper.index.bloom.ndv", 100000))

    def __repr__(self) -> str:
        return f"IndexSpec({self.kind!r}, {self.col!r}, {self.params!r}, {self.key_metadata!r})"


def _java_key(v: Any) -> Any:
    if isinstance(v, str):
        return v.encode("utf-16-be")  # Java String.compareTo order
    if isinstance(v, float) and math.isnan(v):
        return (1, 0.0)  # Double.compareTo: NaN above everything
    if isinstance(v, float):
        return (0, v)
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return v


def _naive(v: Any) -> Any:
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return v


def cells_from_values(spec: IndexSpec, values: Sequence[Any] | None) -> Any:
    """The cell of one index from a file's column values in row order (``None`` values
    are nulls; *values* ``None`` means the file has no rows)."""
    if values is None:
        return None
    present = [_naive(v) for v in values if v is not None]
    if spec.kind == "minmax":
        if not present:
            return {"min": None, "max": None}
        return {"min": min(present, key=_java_key), "max": max(present, key=_java_key)}
    if spec.kind == "valuelist":
        return jvm_set_order(present, spec.source_type)
    if spec.kind == "bloomfilter":
        bf = SparkBloomFilter.create(spec.ndv, spec.fpp)
        if present and isinstance(present[0], str):
            bf.put_strings(present)
        elif present and isinstance(present[0], (bytes, bytearray)):
            bf.put_binary(present)
        elif present:
            bf.put_longs(np.asarray(present, dtype=np.int64))
        return encode_bloom_cell(bf)
    raise XskipperIndexError(f"unknown index type {spec.kind!r}")


def _stats_minmax(pf: Any, col: str) -> dict[str, Any] | None:
    """MinMax from footer statistics, or None when some row group lacks usable ones."""
    lo = hi = None
    for rg in range(pf.metadata.num_row_groups):
        group = pf.metadata.row_group(rg)
        chunk = next((group.column(i) for i in range(group.num_columns)
                      if group.column(i).path_in_schema == col), None)
        if chunk is None or chunk.statistics is None:
            return None
        st = chunk.statistics
        if st.has_min_max:
            lo = st.min if lo is None else min(lo, st.min)
            hi = st.max if hi is None else max(hi, st.max)
        elif st.null_count is None or st.null_count != chunk.num_values:
            return None  # values present but no bounds recorded
    if isinstance(lo, (int, float, np.generic)):
        lo, hi = (x.item() if isinstance(x, np.generic) else x for x in (lo, hi))
    return {"min": lo, "max": hi}


def _leaf_names(fields: Any, prefix: str = "") -> list[str]:
    """Top-level columns and dotted struct leaves of a file."""
    out = []
    for f in fields:
        out.append(prefix + f.name)
        if f.type.id is pc.TypeId.STRUCT:
            out += _leaf_names(f.type.fields, prefix + f.name + ".")
    return out


def _column_values(table: Any, col: str) -> list[Any]:
    if "." in col:
        top, *path = col.split(".")
        values = []
        for v in table.column(top).to_pylist():  # struct rows are dicts: walk each to the leaf
            for key in path:
                v = v.get(key) if isinstance(v, dict) else None
            values.append(v)
        return values
    arr = table.column(col)
    if arr.type.id in _NUMERIC and arr.values is not None:
        vals = np.asarray(arr.values)
        out: list[Any] = vals.tolist()
        if arr.validity is not None:
            out = [v if ok else None for v, ok in zip(out, arr.validity.tolist())]
        return out
    return arr.to_pylist()


def parquet_cells(path: str, specs: Sequence[IndexSpec], columns: dict[str, str]) -> dict[int, Any]:
    """``{spec position: cell}`` for one Parquet data file.

    *columns* maps lower-case index columns to the dataset's column names (matched
    case-insensitively in the file; a column the file lacks is all null).
    """
    out: dict[int, Any] = {}
    with pc.ParquetFile(path) as pf:
        if pf.metadata.num_rows == 0:
            return {i: None for i in range(len(specs))}
        present = {n.lower(): n for n in _leaf_names(pf.schema_arrow.fields)}
        need: list[int] = []
        for i, spec in enumerate(specs):
            name = present.get(columns[spec.col].lower())
            if name is None:  # not in this file: all null, as when Spark forces the dataset schema
                out[i] = cells_from_values(spec, [None])
                continue
            if "." in name:
                need.append(i)
                continue
            field = pf.schema_arrow.field(name)
            if spec.kind == "minmax" and field is not None and field.type.id in _NUMERIC:
                cell = _stats_minmax(pf, name)
                if cell is not None:
                    out[i] = cell
                    continue
            need.append(i)
        if need:
            names = sorted({present[columns[specs[i].col].lower()] for i in need})
            table = pf.read(columns=names)  # a dotted name reads its top-level struct, pruned
            values = {n: _column_values(table, n) for n in names}
            for i in need:
                out[i] = cells_from_values(specs[i], values[present[columns[specs[i].col].lower()]])
    return out
