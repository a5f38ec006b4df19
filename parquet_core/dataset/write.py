"""``write_to_dataset``: a table written as a folder of Parquet files, Hive-partitioned.

Layout (pyarrow's)::

    root/key1=v1/key2=v2/<basename>      basename_template, default "<uuid hex>-{i}.parquet"

``{i}`` counts the files written into one folder by one call (0, 1, ...,
more than one only with ``max_rows_per_file``).  Partition columns are not
stored in the files; their values are the folder names, URL-encoded as
pyarrow encodes them, null as ``__HIVE_DEFAULT_PARTITION__``.

Safety:

* every file is written atomically (local: a temporary file renamed into
  place; a store: one PUT of the whole object, see ``file/filesystem.py``);
* if anything fails, the files this call already wrote are deleted, so a
  failed call leaves no new file behind (a file it *replaced*, possible only
  with a ``basename_template`` that names existing files under
  ``"overwrite_or_ignore"``, cannot be brought back);
* ``existing_data_behavior="delete_matching"`` deletes the old files of the
  partitions written only after every new file is complete, so a failure
  never loses the old data;
* ``"error"`` (the default) refuses to write into a folder that holds files.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any, Sequence

import numpy as np

from parquet_core.dataset.partitioning import partition_segment
from parquet_core.dataset.progress import Progress
from parquet_core.file.filesystem import FileSystem, LocalFileSystem, resolve_filesystem
from parquet_core.errors import UnsupportedFeatureError
from parquet_core.file.writer import _as_schema, write_table
from parquet_core.options import writer_arguments
from parquet_core.schema.types import Schema
from parquet_core.table.arrays import Array, Table
from parquet_core.interop.ingest import as_table
from parquet_core.table.select import take_array

__all__ = ["write_to_dataset", "EXISTING_DATA_BEHAVIORS"]

EXISTING_DATA_BEHAVIORS = ("error", "overwrite_or_ignore", "delete_matching")


def _format(value: Any) -> str | None:
    """A partition value as folder text (pyarrow's formatting for the common types)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, float):
        return repr(value) if not value.is_integer() else str(value)
    return str(value)


def _groups(table: Table, cols: Sequence[str]) -> list[tuple[tuple[str | None, ...], np.ndarray]]:
    """Rows of each distinct combination of partition values, in order of first appearance."""
    n = table.num_rows
    codes = np.zeros(n, dtype=np.int64)
    for name in cols:
        arr = table.column(name)
        if type(arr) is not Array:
            raise TypeError(f"cannot partition by {name!r}: a {arr.type} column")
        # One Python step per row to turn values into folder text: partition columns have
        # few distinct values and this runs once per write, not per page.
        index: dict[str | None, int] = {}
        col_codes = np.fromiter((index.setdefault(_format(v), len(index)) for v in arr.to_pylist()),
                                dtype=np.int64, count=n)
        codes = codes * max(len(index), 1) + col_codes
    if n == 0:
        return []
    keys, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rows_sorted = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[rows_sorted], np.arange(len(keys) + 1))
    out = []
    for g in order:
        rows = rows_sorted[bounds[g]:bounds[g + 1]]
        r0 = int(rows[0])
        # the values of the group, read back from its first row
        values = tuple(_format(table.column(name).slice(r0, r0 + 1).to_pylist()[0]) for name in cols)
        out.append((values, rows))
    return out


def _take(table: Table, keep: list[str], rows: np.ndarray | None) -> Table:
    fields = [table.schema.field(n) for n in keep]
    cols = [table.column(n) if rows is None else take_array(table.column(n), rows) for n in keep]
    return Table(Schema(fields), cols, table.num_rows if rows is None else int(rows.size))


def write_to_dataset(table: Any, root_path: Any, partition_cols: Sequence[str] | None = None,
                     filesystem: Any = None, basename_template: str | None = None,
                     existing_data_behavior: str = "error", max_rows_per_file: int | None = None, *,
                     storage_options: dict[str, Any] | None = None, progress: Any = None,
                     metadata_collector: list[Any] | None = None, **write_options: Any) -> list[str]:
    """Write *table* under *root_path*, one folder per partition (pyarrow's layout and escaping).

    Parameters
    ----------
    table:
        A :class:`~parquet_core.Table`, a mapping of columns, a pandas DataFrame or a pyarrow Table.
    root_path:
        A local folder, a URL (``s3://bucket/t``, with ``storage_options``) or a path in *filesystem*.
    partition_cols:
        Columns whose values become ``key=value`` folders (in this order); they are not stored
        in the files.
    basename_template:
        File name with ``{i}`` (a counter per folder); default ``"<uuid4 hex>-{i}.parquet"``.
    existing_data_behavior:
        ``"error"`` (refuse a folder holding files; the default), ``"overwrite_or_ignore"``
        (write beside the old files, replacing same-named ones) or ``"delete_matching"``
        (replace the old files of every partition written, after the new ones are complete).
    max_rows_per_file:
        Split a partition into files of at most this many rows.
    progress:
        ``True`` (tqdm bar) or a callable ``(done, total)`` per file written.
    metadata_collector:
        A list that receives each written file's :class:`~parquet_core.FileMetadata`, with its
        column chunks' ``file_path`` set relative to *root_path* (for :func:`write_metadata`).
    write_options:
        Options of :func:`~parquet_core.write_table` (``compression=``, ``row_group_size=``...).

    Returns
    -------
    list of str
        The files written (pyarrow returns None).
    """
    partition_cols, schema, visitor = _pyarrow_arguments(partition_cols, write_options)
    if existing_data_behavior is None:      # pyarrow's default, which means this
        existing_data_behavior = "overwrite_or_ignore"
    template = _check_options(existing_data_behavior, max_rows_per_file, basename_template, write_options)
    fs, (root,) = resolve_filesystem([root_path], filesystem, storage_options)
    data = as_table(table, None if schema is None else _as_schema(schema))
    cols, keep = _split_columns(data, partition_cols)
    existing = _existing_files(fs, root, existing_data_behavior)
    folders, jobs = _plan_files(fs, root, data, cols, keep, template, max_rows_per_file)
    written = _write_files(fs, jobs, progress, write_options)
    if existing_data_behavior == "delete_matching" and existing:
        _delete_replaced(fs, existing, written, folders)
    if metadata_collector is not None:
        _collect(fs, root, written, metadata_collector)
    if visitor is not None:
        _visit(fs, root, written, visitor)
    return [fs.display(p) for p in written]


def _pyarrow_arguments(partition_cols: Sequence[str] | None, write_options: dict[str, Any]
                       ) -> tuple[Sequence[str] | None, Any, Any]:
    """pyarrow's ``schema``, ``partitioning``, ``file_visitor`` and ``use_threads`` taken out of
    *write_options*: ``(partition_cols, schema, file_visitor)`` (see options/pyarrow.py)."""
    schema = write_options.pop("schema", None)
    visitor = write_options.pop("file_visitor", None)
    if write_options.get("use_threads", False) is None:
        write_options.pop("use_threads")
    partitioning = write_options.pop("partitioning", None)
    flavor = write_options.pop("partitioning_flavor", "hive")
    if flavor not in ("hive", None) or (flavor is None and partitioning is not None):
        raise UnsupportedFeatureError(f"write_to_dataset: partitioning_flavor={flavor!r} is not "
                                      f"supported; partitions are written as Hive folders (key=value)")
    if partitioning is not None:
        if partition_cols:
            raise TypeError("write_to_dataset: give partition_cols or partitioning, not both")
        if isinstance(partitioning, str) or not all(isinstance(c, str) for c in partitioning):
            raise UnsupportedFeatureError(
                f"write_to_dataset: partitioning={partitioning!r} is not supported; pass the list of "
                f"column names (written as Hive folders, as partition_cols)")
        partition_cols = list(partitioning)
    if visitor is not None and not callable(visitor):
        raise TypeError(f"file_visitor must be callable, not {type(visitor).__name__}")
    return partition_cols, schema, visitor


def _visit(fs: FileSystem, root: str, written: list[str], visitor: Any) -> None:
    """Call pyarrow's ``file_visitor`` with a WrittenFile-like object per file written."""
    from types import SimpleNamespace

    from parquet_core.dataset.metadata_file import metadata_with_file_path

    for path in written:
        source = fs.open_source(path)
        try:
            size = source.size
        finally:
            source.close()
        visitor(SimpleNamespace(path=fs.display(path), size=size,
                                metadata=metadata_with_file_path(fs, root, path)))


def _check_options(behavior: str, max_rows_per_file: int | None, basename_template: str | None,
                   write_options: dict[str, Any]) -> str:
    """Refuse bad arguments before anything is touched; the file name template to use."""
    if behavior not in EXISTING_DATA_BEHAVIORS:
        raise ValueError(f"existing_data_behavior must be one of {EXISTING_DATA_BEHAVIORS}, "
                         f"not {behavior!r}")
    if max_rows_per_file is not None and (not isinstance(max_rows_per_file, int) or max_rows_per_file <= 0):
        raise ValueError("max_rows_per_file must be a positive integer")
    template = basename_template if basename_template is not None else uuid.uuid4().hex + "-{i}.parquet"
    if "{i}" not in template:
        raise ValueError("basename_template must contain '{i}'")
    for bad in ("filesystem", "storage_options", "where"):
        if bad in write_options:
            raise TypeError(f"unexpected keyword {bad!r}")
    writer_arguments(write_options)   # unknown option names refused before any folder is made
    return template


def _split_columns(data: Table, partition_cols: Sequence[str] | None) -> tuple[list[str], list[str]]:
    """``(partition columns, columns stored in the files)``, checked against the table."""
    cols = list(partition_cols or [])
    names = data.column_names
    for c in cols:
        if c not in names:
            raise ValueError(f"partition column {c!r} is not in the table (columns: {names})")
    if len(set(cols)) != len(cols):
        raise ValueError(f"partition_cols names a column twice: {cols}")
    keep = [n for n in names if n not in cols]
    if not keep:
        raise ValueError("every column is a partition column: nothing left to store in the files")
    return cols, keep


def _existing_files(fs: FileSystem, root: str, behavior: str) -> list[tuple[str, int]]:
    """The files already below *root* (``(path, size)``); "error" refuses any."""
    kind = fs.kind(root)
    if kind == "file":
        raise FileExistsError(f"{fs.display(root)!r} is a file, not a folder")
    existing = fs.find(root) if kind == "directory" else []
    if behavior == "error" and existing:
        raise FileExistsError(
            f"{fs.display(root)!r} already holds {len(existing)} file(s) (e.g. {fs.display(existing[0][0])!r}); "
            "pass existing_data_behavior='overwrite_or_ignore' or 'delete_matching'")
    return existing


def _plan_files(fs: FileSystem, root: str, data: Table, cols: list[str], keep: list[str], template: str,
                max_rows_per_file: int | None) -> tuple[set[str], list[tuple[str, Table]]]:
    """Every file to write, before any is written: the partition folders, and ``(path, rows
    of the stored columns)`` per file (a partition split by *max_rows_per_file*)."""
    plan: list[tuple[str, np.ndarray | None]] = []
    if cols:
        for values, rows in _groups(data, cols):
            folder = fs.join(root, *(partition_segment(c, v) for c, v in zip(cols, values)))
            plan.append((folder, rows))
    else:
        plan.append((root, None))
    jobs: list[tuple[str, Table]] = []
    for folder, rows in plan:
        part = _take(data, keep, rows)
        step = max_rows_per_file or max(part.num_rows, 1)
        for i, start in enumerate(range(0, max(part.num_rows, 1), step)):
            piece = part if max_rows_per_file is None else part.slice_rows(start, min(start + step, part.num_rows))
            jobs.append((fs.join(folder, template.format(i=i)), piece))
    return {folder for folder, _ in plan}, jobs


def _write_files(fs: FileSystem, jobs: list[tuple[str, Table]], progress: Any,
                 write_options: dict[str, Any]) -> list[str]:
    """Write every planned file (each atomically, see ``write_table``); on any failure the
    files already written are deleted and the error raised.  Returns the paths written."""
    written: list[str] = []
    prog = Progress.make(progress, len(jobs), "writing")
    target = None if isinstance(fs, LocalFileSystem) else fs
    try:
        made: set[str] = set()
        for path, piece in jobs:
            folder = _parent(fs, path)
            if folder not in made:
                fs.makedirs(folder)
                made.add(folder)
            write_table(piece, path, filesystem=target, **write_options)
            written.append(path)
            if prog is not None:
                prog.advance()
    except BaseException:
        for path in written:
            try:
                fs.rm(path)
            except Exception:  # noqa: BLE001 - best effort; the original error is what matters
                pass
        raise
    finally:
        if prog is not None:
            prog.close()
    return written


def _delete_replaced(fs: FileSystem, existing: list[tuple[str, int]], written: list[str],
                     folders: set[str]) -> None:
    """``"delete_matching"``: the old files of the partition folders written (the new files are
    all complete by now, so a failure before this never loses the old data)."""
    new = set(written)
    for old, _ in existing:
        if old not in new and any(_inside(fs, old, f) for f in folders):
            fs.rm(old)


def _parent(fs: FileSystem, path: str) -> str:
    import os
    import posixpath

    return os.path.dirname(path) if isinstance(fs, LocalFileSystem) else posixpath.dirname(path)


def _inside(fs: FileSystem, path: str, folder: str) -> bool:
    sep = fs.sep
    return path.startswith(folder.rstrip(sep) + sep)


def _collect(fs: FileSystem, root: str, written: list[str], out: list[Any]) -> None:
    from parquet_core.dataset.metadata_file import metadata_with_file_path

    for path in written:
        out.append(metadata_with_file_path(fs, root, path))


