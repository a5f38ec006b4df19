"""xskipper data skipping in Spark: the pqcore option, a file-list helper, and Spark-side indexing.

* ``spark.read.format("pqcore").option("skipping.md_base", base).option("filters", dnf).load(path)``
  reads only the files the index of *path* (``<base>/<sha256(identifier)>``)
  cannot rule out for the ``filters``; files not in the index (new or changed)
  are always read.  An index folder that is not there is an error (a misspelt
  base would otherwise turn skipping off unnoticed), and so is a filter column
  the table does not have; one that no index covers is named in the count line.  The filters keep their pyarrow meaning, so ``not in`` never
  skips (it keeps null rows).  The count is logged on the planning worker; call
  :func:`skipping_report` on the driver for the same numbers.
* :func:`required_files` gives the filtered file list for any format:
  ``spark.read.csv(required_files(path, base, pc.col("temp") > 30))``.
* :func:`dataset_schema` / :func:`collect_cells` build CSV, JSON and ORC indexes for
  :class:`parquet_core_integrations.xskipper.Xskipper` in one Spark job: rows grouped by
  ``input_file_name()``, min / max / distinct values (first-seen order) per indexed column (timestamps
  as microseconds so no time zone is applied).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sys
from typing import Any, Sequence
from urllib.parse import unquote

from parquet_core_integrations.xskipper.collect import IndexSpec, cells_from_values
from parquet_core_integrations.xskipper.dataset import data_columns, list_dataset, local_root
from parquet_core_integrations.xskipper.errors import XskipperIndexError
from parquet_core_integrations.xskipper.names import metadata_dir
from parquet_core_integrations.xskipper.skipping import (
    check_filter_columns,
    skip_decisions,
    uncovered_columns,
)
from parquet_core_integrations.xskipper.store import MetadataStore

__all__ = ["collect_cells", "dataset_schema", "prune_partitions", "required_files", "skipping_report"]

log = logging.getLogger("spark_adapter.core.skipping")
OPTION = "skipping.md_base"


def _store_for(root: str, md_base: str) -> MetadataStore:
    """The index of the dataset at *root* under *md_base*; an error, never "no index", when
    the metadata folder is not there (a misspelt base must not turn skipping off unnoticed)."""
    md = metadata_dir(md_base, local_root(root))
    if not os.path.isdir(md):
        if not os.path.isdir(md_base):
            raise XskipperIndexError(f"xskipper metadata base {md_base} does not exist (option {OPTION})")
        raise XskipperIndexError(f"dataset {local_root(root)} has no xskipper index under {md_base} "
                                 f"(no {md}): build it with Xskipper(spark, path, md_base).index_builder()")
    return MetadataStore(md)


def skipping_report(dataset_path: str, md_base: str, predicate: Any, sql_in: bool = True) -> dict[str, int]:
    """``{"total", "skipped", "read", "not_indexed"}`` over the dataset's current files.

    Raises :class:`XskipperIndexError` when the index is not there or the predicate names a
    column the dataset does not have; warns about columns no index covers.
    """
    files = list_dataset(local_root(dataset_path))
    if predicate is None:
        return {"total": len(files), "skipped": 0, "read": len(files), "not_indexed": len(files)}
    store = _store_for(dataset_path, md_base)
    check_filter_columns(store, predicate, local_root(dataset_path), data_columns(files))
    res = skip_decisions(store, predicate, [f.fid for f in files], sql_in)
    return {"total": res.total, "skipped": len(res.skipped), "read": res.total - len(res.skipped),
            "not_indexed": len(res.not_indexed)}


def required_files(dataset_path: str, md_base: str, predicate: Any, sql_in: bool = True) -> list[str]:
    """The dataset's files a query with *predicate* must read (every file for no predicate).

    Raises :class:`XskipperIndexError` when the index is not there or the predicate names a
    column the dataset does not have; warns about columns no index covers.
    """
    files = list_dataset(local_root(dataset_path))
    if predicate is None:
        return [f.path for f in files]
    store = _store_for(dataset_path, md_base)
    check_filter_columns(store, predicate, local_root(dataset_path), data_columns(files))
    skip = set(skip_decisions(store, predicate, [f.fid for f in files], sql_in).skipped)
    return [f.path for f in files if f.fid not in skip]


def prune_partitions(parts: list[Any], roots: Sequence[str], md_base: str, filters: Any) -> list[Any]:
    """The pqcore reader's partitions whose files the index cannot rule out (pyarrow semantics)."""
    if filters is None:
        return parts
    from parquet_core_integrations.xskipper.names import file_id

    skip: set[str] = set()
    uncovered: set[str] = set()
    for root in roots:
        if not os.path.isdir(local_root(root)):
            continue
        md = metadata_dir(md_base, local_root(root))
        if not os.path.isdir(md):
            _store_for(root, md_base)   # raises: the index named by the option is not there
        try:
            store = MetadataStore(md)
        except Exception as exc:  # as xskipper: a store that cannot be used skips nothing
            print(f"pqcore: xskipper index of {root} not used: {exc}", file=sys.stderr)
            continue
        # (a filter column the table lacks is refused by the caller, as the scan refuses it)
        uncovered.update(uncovered_columns(store, filters))
        under = [p.path for p in parts if os.path.abspath(p.path).startswith(local_root(root) + os.sep)]
        ids = {file_id(os.path.abspath(p)): p for p in under}
        res = skip_decisions(store, filters, list(ids), sql_in=False)
        skip.update(ids[f] for f in res.skipped)
    kept = [p for p in parts if p.path not in skip]
    # reported where Spark keeps the Python workers' output (executor/driver stderr)
    note = (f"; no index covers {', '.join(map(repr, sorted(uncovered)))}: conditions on it skip no file"
            if uncovered else "")
    print(f"pqcore: xskipper index skipped {len(parts) - len(kept)} of {len(parts)} files{note}", file=sys.stderr)
    return kept


# -- building indexes through Spark -------------------------------------------------------------------
def _reader(spark: Any, fmt: str, options: dict[str, str]) -> Any:
    return spark.read.format(fmt).options(**options)


def dataset_schema(spark: Any, root: str, fmt: str, options: dict[str, str]) -> dict[str, str]:
    """``{column: Spark type name}`` of the dataset as Spark reads it (partition columns included)."""
    schema = _reader(spark, fmt, options).load(root).schema
    out = {}
    for f in schema.fields:
        typ = json.loads(f.dataType.json())  # "integer", "decimal(10,2)", or an object for complex types
        out[f.name] = typ if isinstance(typ, str) else typ.get("type", "struct")
    return out


def collect_cells(spark: Any, root: str, files: Sequence[Any], specs: Sequence[IndexSpec], fmt: str,
                  options: dict[str, str], columns: dict[str, str]) -> dict[str, dict[int, Any]]:
    """``{file path: {spec position: cell}}`` for the *files* of the dataset, in one job."""
    from pyspark.sql import functions as F

    df = _reader(spark, fmt, options).load([f.path for f in files]) if files else None
    if df is None:
        return {}
    types = {f.name: f.dataType.typeName() for f in df.schema.fields}
    aggs = []
    for i, spec in enumerate(specs):
        name = columns[spec.col]
        col = F.col(f"`{name}`")
        if types.get(name) == "timestamp":
            col = F.unix_micros(col)
        if spec.kind == "minmax":
            aggs += [F.min(col).alias(f"lo{i}"), F.max(col).alias(f"hi{i}"), F.count(col).alias(f"n{i}")]
        else:  # distinct values in row order: xskipper's ValueList order depends on it
            aggs.append(F.array_distinct(F.collect_list(col)).alias(f"set{i}"))
    grouped = df.withColumn("_xsk_file", F.input_file_name()).groupBy("_xsk_file").agg(*aggs).collect()
    out: dict[str, dict[int, Any]] = {}
    for row in grouped:
        path = os.path.abspath(unquote(row["_xsk_file"].split(":", 1)[1] if row["_xsk_file"].startswith("file:")
                                       else row["_xsk_file"]))
        path = "/" + path.lstrip("/")
        cells: dict[int, Any] = {}
        for i, spec in enumerate(specs):
            ts = types.get(columns[spec.col]) == "timestamp"
            conv = _from_micros if ts else (lambda v: v)
            if spec.kind == "minmax":
                cells[i] = ({"min": None, "max": None} if row[f"n{i}"] == 0
                            else {"min": conv(row[f"lo{i}"]), "max": conv(row[f"hi{i}"])})
            else:
                cells[i] = cells_from_values(spec, [conv(v) for v in row[f"set{i}"]])
        out[path] = cells
    return out


def _from_micros(v: Any) -> Any:
    if v is None:
        return None
    return dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=int(v))


def _register() -> None:
    # xskipper's Spark indexing calls back into this module: it registers itself there
    # (integrations.xskipper never imports the adapter, so no import cycle exists)
    import sys

    from parquet_core_integrations.xskipper.api import register_spark_indexer

    register_spark_indexer(sys.modules[__name__])


_register()
