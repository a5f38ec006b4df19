"""``write_to_dataset``: a table written as a folder of Parquet files, Hive-partitioned.

Layout (pyarrow's)::

    root/key1=v1/key2=v2/<basename>      basename_template, default "<uuid hex>-{i}.parquet"

``{i}`` counts the files written into one folder by one call (0, 1, ...,
more than one only with ``max_rows_per_file``).  Partition columns are not
stored in the files; their values are the folder names, URL-encoded as
pyarrow encodes them, null as ``__HIVE_DEFAULT_PARTITION__``.

Safety (the protocol is in ``transaction.py``, what readers do in ``commit_markers.py``):

* a call commits whole or leaves nothing visible: new files are written under
  hidden names (``.pqcore.<txn>.<name>.pqcore-staged``, skipped by pyarrow, Spark
  and us, and by ``*.parquet`` globs) and renamed to their names only after all
  of them are complete and a commit record is written; a failure before that
  removes them, a killed writer's hidden files are removed by the next write;
* ``existing_data_behavior="delete_matching"`` deletes the old files of a
  partition only after its new files are in place; our readers list a
  partition a write is committing as its old or its new version, never both;
* writers lock the partition folders they commit into (``_pqcore.lock``), so
  concurrent ``delete_matching`` writers of a partition follow one another (one
  complete version wins); ``"error"`` (the default) also locks the root and
  refuses a folder holding any file, so of two writers into an empty folder
  the second fails (:class:`~parquet_core.errors.DatasetWriteConflictError`);
* a ``_metadata`` at the root is rewritten with the new row groups and without
  the replaced files' (``metadata_update.py``), renamed into place with the data.
"""

from __future__ import annotations

import uuid
from typing import Any, Sequence

import numpy as np

from parquet_core.dataset.commit_markers import (
    LOCK_NAME,
    METADATA_LOCK_NAME,
    RECORD_PREFIX,
    is_internal,
    is_marker,
)
from parquet_core.dataset.metadata_update import (
    check_common_metadata,
    footer_with_file_path,
    updated_metadata,
)
from parquet_core.dataset.partition_rows import partition_groups, take_rows
from parquet_core.dataset.partitioning import partition_segment
from parquet_core.dataset.progress import Progress
from parquet_core.dataset.transaction import Transaction, clean_up, put
from parquet_core.dataset.write_stream import write_stream_files
from parquet_core.errors import DatasetWriteConflictError, UnsupportedFeatureError
from parquet_core.file.filesystem import FileSystem, LocalFileSystem, resolve_filesystem
from parquet_core.file.writer import as_writer_schema, write_table
from parquet_core.interop.ingest import as_table, input_stream
from parquet_core.options import writer_arguments
from parquet_core.table.arrays import Table
from parquet_core.table.ingest import foreign_module

__all__ = ["write_to_dataset", "EXISTING_DATA_BEHAVIORS"]

EXISTING_DATA_BEHAVIORS = ("error", "overwrite_or_ignore", "delete_matching")


def write_to_dataset(table: Any, root_path: Any, partition_cols: Sequence[str] | None = None,
                     filesystem: Any = None, basename_template: str | None = None,
                     existing_data_behavior: str = "error", max_rows_per_file: int | None = None, *,
                     max_open_files: int | None = None, min_rows_per_group: int | None = None,
                     max_rows_per_group: int | None = None, max_partitions: int | None = None,
                     storage_options: dict[str, Any] | None = None, progress: Any = None,
                     metadata_collector: list[Any] | None = None, **write_options: Any) -> list[str]:
    """Write *table* under *root_path*, one folder per partition (pyarrow's layout and escaping).

    Parameters
    ----------
    table:
        A :class:`~parquet_core.Table`, a mapping of columns, a pandas DataFrame, a pyarrow Table,
        or a stream: any other object with ``__arrow_c_stream__`` (a pyarrow RecordBatchReader, a
        polars DataFrame, a duckdb relation), consumed batch by batch, each batch's rows going
        to their partition's open file (which gathers up to ``row_group_size`` rows per row
        group, then writes them), so that the whole stream is never held in memory.
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
    max_open_files:
        pyarrow's: at most this many files open at once; when a partition needs one more,
        the open file holding the most rows is completed (as pyarrow's writer does) and a
        later batch of its partition starts a new file.
    min_rows_per_group, max_rows_per_group:
        pyarrow's: a file's rows are written once at least ``min_rows_per_group`` (default 0)
        are pending, in row groups of at most ``max_rows_per_group`` (default 1 Mi rows).
        Without them (and without ``max_open_files``) rows are gathered into
        ``row_group_size`` row groups.  With any of the three, the input is written as
        pyarrow's dataset writer writes it, batch by batch: a stream's batches, a pyarrow
        Table's chunks, any other table whole, each cut into batches of at most 32 768 rows
        as pyarrow cuts them; so the files and row groups are pyarrow's.
    max_partitions:
        pyarrow's: a batch (as above) whose rows fall into more partitions than this is
        refused (:class:`~parquet_core.errors.ParquetSchemaError`, nothing is committed).
        pyarrow's default is 1024; ours is no limit.  pyarrow's ``preserve_order`` and
        ``create_dir`` are accepted too: files always get the rows in input order, and
        folders are made where the file system has them.
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
    groups = _check_grouping(max_open_files, min_rows_per_group, max_rows_per_group, max_rows_per_file,
                             write_options)
    if max_partitions is not None and (isinstance(max_partitions, bool) or not isinstance(max_partitions, int)
                                       or max_partitions < 1):
        raise ValueError(f"max_partitions must be an integer >= 1, not {max_partitions!r}")
    as_pyarrow = groups is not None or max_open_files is not None or max_partitions is not None
    fs, (root,) = resolve_filesystem([root_path], filesystem, storage_options)
    given = None if schema is None else as_writer_schema(schema)
    # a stream (RecordBatchReader, polars, duckdb...) is written batch by batch (write_stream.py)
    stream = input_stream(table, given)
    data = as_table(table, given) if stream is None else None
    stream_schema = None if stream is None else as_writer_schema(stream[0])
    names = data.schema.names if data is not None else stream_schema.names if stream_schema is not None else []
    cols, keep = _split_columns(names, partition_cols)
    _check_root(fs, root, existing_data_behavior)
    txn = Transaction(fs, root)
    try:
        try:
            if stream is None and as_pyarrow:
                # pyarrow's dataset-writer options mean what they mean for a stream of the
                # table's batches (its chunks, for a pyarrow Table): written as one
                assert data is not None
                folders, written = write_stream_files(fs, txn, root, iter(_batches(table, data)), data.schema,
                                                      cols, keep, template, max_rows_per_file,
                                                      write_options, progress, max_open_files, groups,
                                                      max_partitions)
            elif stream is None:
                assert data is not None
                folders, jobs = _plan_files(fs, root, data, cols, keep, template, max_rows_per_file)
                _write_files(fs, txn, jobs, progress, write_options)
                written = [path for path, _ in jobs]
            else:
                assert stream_schema is not None
                folders, written = write_stream_files(fs, txn, root, stream[1], stream_schema, cols, keep,
                                                      template, max_rows_per_file, write_options, progress,
                                                      max_open_files, groups, max_partitions)
            # no rows to partition: no file, nothing to commit (pyarrow writes nothing either)
            footers = _commit(fs, root, txn, existing_data_behavior, folders,
                              need_footers=metadata_collector is not None) if written else []
        except BaseException:
            if not txn.committed:
                txn.rollback()
            raise
    finally:
        txn.close()
    if metadata_collector is not None:
        metadata_collector.extend(footers)
    if visitor is not None:
        _visit(fs, root, written, visitor)
    return [fs.display(path) for path in written]


def _pyarrow_arguments(partition_cols: Sequence[str] | None, write_options: dict[str, Any]
                       ) -> tuple[Sequence[str] | None, Any, Any]:
    """pyarrow's ``schema``, ``partitioning``, ``file_visitor`` and ``use_threads`` taken out of
    *write_options*: ``(partition_cols, schema, file_visitor)`` (see options/pyarrow.py)."""
    schema = write_options.pop("schema", None)
    visitor = write_options.pop("file_visitor", None)
    if write_options.get("use_threads", False) is None:
        write_options.pop("use_threads")
    for name in ("preserve_order", "create_dir"):      # pyarrow's: what we do anyway (see above)
        if name in write_options and not isinstance(write_options.pop(name), bool):
            raise TypeError(f"write_to_dataset: {name} must be True or False")
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


def _batches(given: Any, data: Table) -> list[Table]:
    """*data* (converted from *given*) as the batches pyarrow's dataset writer would get from
    *given*: a pyarrow Table's chunks (batch by batch), else the table whole (pyarrow makes a
    DataFrame or a dict one chunk).  Slices of *data*: nothing is converted twice."""
    to_batches = getattr(given, "to_batches", None)
    if foreign_module(given) != "pyarrow" or to_batches is None:
        return [data]
    out, start = [], 0
    for batch in to_batches():
        out.append(data.slice_rows(start, start + batch.num_rows))
        start += batch.num_rows
    if start != data.num_rows:           # not expected: the table whole, rather than a guess
        return [data]
    return out


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


def _split_columns(names: list[str], partition_cols: Sequence[str] | None) -> tuple[list[str], list[str]]:
    """``(partition columns, columns stored in the files)``, checked against the table's *names*."""
    cols = list(partition_cols or [])
    for c in cols:
        if c not in names:
            raise ValueError(f"partition column {c!r} is not in the table (columns: {names})")
    if len(set(cols)) != len(cols):
        raise ValueError(f"partition_cols names a column twice: {cols}")
    keep = [n for n in names if n not in cols]
    if not keep:
        raise ValueError("every column is a partition column: nothing left to store in the files")
    return cols, keep


def _check_root(fs: FileSystem, root: str, behavior: str) -> None:
    """Refuse at once, before any file is written, a root that is a file, or that holds
    files under "error" (checked again under its lock before the commit)."""
    kind = fs.kind(root)
    if kind == "file":
        raise FileExistsError(f"{fs.display(root)!r} is a file, not a folder")
    if behavior == "error" and kind == "directory":
        _refuse_nonempty(fs, root, fs.find(root))


def _refuse_nonempty(fs: FileSystem, root: str, listing: list[tuple[str, int]]) -> None:
    """"error": refuse a root holding any file but writers' bookkeeping (files another writer
    is staging, stale files a dead one left); a commit in progress counts as data."""
    others = [p for p, _ in listing if _counts(_basename(fs, p))]
    if others:
        raise DatasetWriteConflictError(
            f"{fs.display(root)!r} already holds {len(others)} file(s) (e.g. {fs.display(others[0])!r}); "
            "pass existing_data_behavior='overwrite_or_ignore' or 'delete_matching'")


def _counts(name: str) -> bool:
    return not is_internal(name) or is_marker(name) or name.startswith(RECORD_PREFIX)


def _check_grouping(max_open_files: int | None, min_rows: int | None, max_rows: int | None,
                    max_rows_per_file: int | None, write_options: dict[str, Any]) -> tuple[int, int] | None:
    """pyarrow's ``max_open_files``, ``min_rows_per_group`` and ``max_rows_per_group`` checked
    (pyarrow's rules); the ``(min, max)`` rows per group to stream with, None when neither is
    given.  A table written whole gets ``row_group_size=max_rows_per_group``."""
    for name, value, least in (("max_open_files", max_open_files, 1), ("min_rows_per_group", min_rows, 0),
                               ("max_rows_per_group", max_rows, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
            raise ValueError(f"{name} must be an integer >= {least}, not {value!r}")
    if min_rows is None and max_rows is None:
        return None
    low, high = min_rows or 0, max_rows if max_rows is not None else 1 << 20
    if low > high:
        raise ValueError("min_rows_per_group must be less than or equal to max_rows_per_group")
    if max_rows_per_file is not None and high > max_rows_per_file:
        raise ValueError("max_rows_per_group must be less than or equal to max_rows_per_file")
    if max_rows is not None:
        if write_options.get("row_group_size", max_rows) != max_rows:
            raise TypeError("write_to_dataset: give row_group_size or max_rows_per_group, not both")
        write_options["row_group_size"] = max_rows
    return low, high


def _plan_files(fs: FileSystem, root: str, data: Table, cols: list[str], keep: list[str], template: str,
                max_rows_per_file: int | None) -> tuple[set[str], list[tuple[str, Table]]]:
    """Every file to write, before any is written: the partition folders, and ``(path, rows
    of the stored columns)`` per file (a partition split by *max_rows_per_file*)."""
    plan: list[tuple[str, np.ndarray | None]] = []
    if cols:
        for values, rows in partition_groups(data, cols):
            folder = fs.join(root, *(partition_segment(c, v) for c, v in zip(cols, values)))
            plan.append((folder, rows))
    else:
        plan.append((root, None))
    jobs: list[tuple[str, Table]] = []
    for folder, picked in plan:
        part = take_rows(data, keep, picked)
        step = max_rows_per_file or max(part.num_rows, 1)
        for i, start in enumerate(range(0, max(part.num_rows, 1), step)):
            piece = part if max_rows_per_file is None else part.slice_rows(start, min(start + step, part.num_rows))
            jobs.append((fs.join(folder, template.format(i=i)), piece))
    return {folder for folder, _ in plan}, jobs


def _write_files(fs: FileSystem, txn: Transaction, jobs: list[tuple[str, Table]], progress: Any,
                 write_options: dict[str, Any]) -> None:
    """Write every planned file, complete, under its hidden staged name (see ``write_table``)."""
    prog = Progress.make(progress, len(jobs), "writing")
    target = None if isinstance(fs, LocalFileSystem) else fs
    try:
        made: set[str] = set()
        for path, piece in jobs:
            folder = _parent(fs, path)
            if folder not in made:
                fs.makedirs(folder)
                made.add(folder)
            staged = txn.add(folder, _basename(fs, path))
            write_table(piece, staged, filesystem=target, **write_options)
            if prog is not None:
                prog.advance()
    finally:
        if prog is not None:
            prog.close()


def _commit(fs: FileSystem, root: str, txn: Transaction, behavior: str, folders: set[str],
            need_footers: bool) -> list[Any]:
    """Lock, decide what the new files replace, commit, make them visible.  Returns the new
    files' footers (``file_path`` set) when a collector asks for them."""
    locks = {fs.join(f, LOCK_NAME) for f in folders}
    if behavior == "error":
        locks.add(fs.join(root, LOCK_NAME))
    for path in sorted(locks):
        txn.lock(path)
    meta, common = fs.join(root, "_metadata"), fs.join(root, "_common_metadata")
    has_meta, has_common = fs.kind(meta) == "file", fs.kind(common) == "file"
    if has_meta or has_common:
        txn.lock(fs.join(root, METADATA_LOCK_NAME))
    listing = fs.find(root)
    if clean_up(fs, listing, txn):
        listing = fs.find(root)
    if behavior == "error":
        _refuse_nonempty(fs, root, listing)
    replaced = _replaced(fs, root, txn, behavior, folders, listing, {meta, common})
    footers: list[Any] = []
    if need_footers or has_meta or has_common:
        for folder, names in txn.adds.items():
            prefix = _relative(fs, root, folder)
            for n in names:
                rel = f"{prefix}/{n}" if prefix else n
                footers.append(footer_with_file_path(fs, txn.staged(folder, n), rel))
    if has_common:
        check_common_metadata(fs, common, footers)
    if has_meta:
        put(fs, txn.staged(root, "_metadata"), updated_metadata(fs, meta, replaced, footers))
        txn.summary.append("_metadata")
    txn.commit()
    txn.roll_forward()
    return footers


def _replaced(fs: FileSystem, root: str, txn: Transaction, behavior: str, folders: set[str],
              listing: list[tuple[str, int]], summary_files: set[str]) -> set[str]:
    """Note in *txn* the files each folder's new files replace ("delete_matching": all of them,
    bookkeeping of writers and the root's summary files aside); returns the ``file_path`` values
    (relative to *root*) whose row groups leave ``_metadata`` (also same-named files
    "overwrite_or_ignore" replaces)."""
    by_rel = {_relative(fs, root, f): f for f in folders}      # folder below root -> folder
    below: dict[str, list[str]] = {f: [] for f in folders}     # folder -> its files, relative
    for p, _ in listing:
        if p in summary_files:
            continue
        parts = _relative(fs, root, p).split("/")
        if any(is_internal(part) for part in parts):
            continue
        # the partition folder holding p: the root, or one of p's folders below it
        for i in range(len(parts)):
            folder = by_rel.get("/".join(parts[:i]))
            if folder is not None:
                below[folder].append("/".join(parts[i:]))
                break
    out: set[str] = set()
    for folder, rels in below.items():
        if behavior == "delete_matching":
            txn.removes[folder] = sorted(rels)
            gone = rels
        else:
            names = set(txn.adds.get(folder, []))
            gone = [r for r in rels if r in names]
        prefix = _relative(fs, root, folder)
        out.update(f"{prefix}/{r}" if prefix else r for r in gone)
    return out


def _parent(fs: FileSystem, path: str) -> str:
    import os
    import posixpath

    return os.path.dirname(path) if isinstance(fs, LocalFileSystem) else posixpath.dirname(path)


def _basename(fs: FileSystem, path: str) -> str:
    import os
    import posixpath

    return os.path.basename(path) if isinstance(fs, LocalFileSystem) else posixpath.basename(path)


def _relative(fs: FileSystem, folder: str, path: str) -> str:
    """*path* below *folder*, "/"-separated ("" for the folder itself)."""
    sep = fs.sep
    f = folder.rstrip(sep)
    if path.rstrip(sep) == f:
        return ""
    rest = path[len(f) + 1:]
    return rest.replace(sep, "/") if sep != "/" else rest
