"""``read_table`` / ``read_metadata`` / ``read_schema`` for any source: a file, a folder, a glob, a list.

One file (a path, URL, bytes or file object) is read by
:class:`~parquet_core.ParquetFile` directly; anything else (a folder, a glob,
a list, or ``schema=`` to impose) by :class:`~parquet_core.ParquetDataset`.

Which classes: *dataset_class* (a :class:`ParquetDataset` class, None: this layer's own)
and its ``file_class`` for one file.  The functions ``parquet_core`` exports hand in
``pc.ParquetDataset`` (see :mod:`parquet_core.entry`), whose files bring the validator
behind ``strict=True``; this layer has no validator of its own and holds no state.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from parquet_core.dataset.dataset import ParquetDataset
from parquet_core.file.filesystem import resolve_filesystem
from parquet_core.file.reader import ParquetFile
from parquet_core.file.source import buffer_bytes
from parquet_core.metadata.wrappers import FileMetadata
from parquet_core.options.reader import ReaderOptions, reader_options
from parquet_core.schema.types import Schema
from parquet_core.table.arrays import Table

__all__ = ["read_table", "read_pandas", "read_metadata", "read_schema"]


def _single_file(source: Any, filesystem: Any, storage_options: Any) -> tuple[Any, str | None] | None:
    """``(source to open, display path)`` when *source* is one file, else None (a dataset)."""
    if isinstance(source, (bytes, bytearray, memoryview)) or (
            hasattr(source, "read") and not isinstance(source, (str, os.PathLike))):
        if filesystem is not None or storage_options:
            raise TypeError("filesystem= and storage_options= need a path")
        return source, None
    if isinstance(source, (list, tuple)):
        return None
    if not isinstance(source, (str, os.PathLike)) and buffer_bytes(source) is not None:
        if filesystem is not None or storage_options:   # a pyarrow Buffer, an mmap...
            raise TypeError("filesystem= and storage_options= need a path")
        return source, None
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"cannot read Parquet from a {type(source).__name__}; pass a path, a URL, a list "
                        "of paths, bytes or a binary file object")
    fs, (path,) = resolve_filesystem([source], filesystem, storage_options)
    if fs.kind(path) != "file":
        return None            # a folder, a glob, or nothing there (the dataset says which)
    return fs.open_source(path), fs.display(path)


def _source_or_where(source: Any, where: Any) -> Any:
    """The file to read: our *source* or pyarrow's keyword ``where`` (one of them)."""
    if (source is None) == (where is None):
        raise TypeError("give the file to read once: as the first argument or as where=")
    return where if source is None else source


def _open_file(single: tuple[Any, str | None], options: ReaderOptions,
               dataset_class: type[ParquetDataset]) -> ParquetFile:
    """The one file :func:`_single_file` found, opened with *dataset_class*'s ``file_class``
    (a source it opened is owned)."""
    src, shown = single
    if shown is None:
        return dataset_class.file_class(src, options=options)
    return dataset_class.file_class.from_source(src, shown, options=options)


def read_table(source: Any, columns: Sequence[str] | None = None, *, filters: Any = None,
               filesystem: Any = None, storage_options: dict[str, Any] | None = None,
               partitioning: Any = "hive", schema: Any = None, ignore_prefixes: Sequence[str] | None = None,
               page_checksum_verification: bool | None = None, decryption: Any = None,
               read_dictionary: Sequence[str] | None = None, strict: bool | None = None,
               progress: Any = None, use_threads: bool | None = None,
               decryption_properties: Any = None, max_page_bytes: int | None = None,
               max_decoded_bytes: int | None = None, options: ReaderOptions | None = None,
               use_pandas_metadata: bool = False, dataset_class: type[ParquetDataset] | None = None,
               **pyarrow_options: Any) -> Table:
    """Read a Parquet file, a folder (recursively, Hive partitions as columns), a glob or a list.

    Parameters
    ----------
    source:
        A path, URL (``s3://``, ``gs://``, ``memory://``...), a path in *filesystem*, a
        list of them, bytes, or a binary file object.
    columns:
        Column names (partition columns included); default all.
    filters:
        pyarrow's DNF list or a :func:`~parquet_core.col` expression, on data and
        partition columns: partition terms skip folders before any file is opened.
    filesystem, storage_options, partitioning, schema, ignore_prefixes, progress:
        As for :class:`~parquet_core.ParquetDataset`.
    page_checksum_verification, decryption, read_dictionary, strict, max_page_bytes, max_decoded_bytes, options:
        As for :class:`~parquet_core.ParquetFile` (for every file of a dataset);
        ``decryption_properties`` is pyarrow's name of ``decryption``.
    use_threads:
        Decode column chunks on a thread pool (default True, as in pyarrow);
        False decodes them one after another.  The result is the same.
    use_pandas_metadata:
        With *columns*, also read the pandas index columns the ``pandas`` metadata
        names (as pyarrow).
    dataset_class:
        The :class:`~parquet_core.ParquetDataset` class (a subclass of it) a dataset is
        opened with; its ``file_class`` opens one file.  ``pc.read_table`` defaults to
        ``pc.ParquetDataset`` (whose files run ``pc.check`` for ``strict=True``); None here
        is the dataset layer's own class, which has no validator.
    **pyarrow_options:
        pyarrow's reader tuning (``memory_map``, ``pre_buffer``, ``buffer_size``,
        ``thrift_*_limit``...): checked and accepted, see docs/pyarrow-parameters.md.
    """
    # the options are checked once, here; the files opened below share the object
    opts = reader_options(options, page_checksum_verification=page_checksum_verification,
                          decryption=decryption, decryption_properties=decryption_properties,
                          read_dictionary=read_dictionary, strict=strict, use_threads=use_threads,
                          max_page_bytes=max_page_bytes, max_decoded_bytes=max_decoded_bytes,
                          **pyarrow_options)
    dataset_class = dataset_class or ParquetDataset
    single = None if schema is not None else _single_file(source, filesystem, storage_options)
    if single is not None:
        with _open_file(single, opts, dataset_class) as pf:
            return pf.read(columns, filters=filters, use_pandas_metadata=use_pandas_metadata)
    ds = dataset_class(source, filesystem=filesystem, partitioning=partitioning, schema=schema,
                        storage_options=storage_options, ignore_prefixes=ignore_prefixes, options=opts)
    return ds.read(columns, filters=filters, progress=progress, use_pandas_metadata=use_pandas_metadata)


def read_pandas(source: Any, columns: Sequence[str] | None = None, **kwargs: Any) -> Table:
    """:func:`read_table` with ``use_pandas_metadata=True``, as pyarrow's ``read_pandas``
    (a Table: call ``to_pandas()`` on it for a DataFrame)."""
    return read_table(source, columns, use_pandas_metadata=True, **kwargs)


def read_metadata(source: Any = None, *, filesystem: Any = None, storage_options: dict[str, Any] | None = None,
                  decryption: Any = None, decryption_properties: Any = None,
                  options: ReaderOptions | None = None, where: Any = None,
                  dataset_class: type[ParquetDataset] | None = None, **pyarrow_options: Any) -> FileMetadata:
    """The footer of a file; for a folder, its ``_metadata`` file or, without one, every footer
    merged (row groups in file order, each column chunk's ``file_path`` naming its file).
    ``where`` is pyarrow's name of *source*; pyarrow's ``memory_map`` is accepted;
    *dataset_class* as for :func:`read_table`."""
    source = _source_or_where(source, where)
    opts = reader_options(options, decryption=decryption, decryption_properties=decryption_properties,
                          **pyarrow_options)
    dataset_class = dataset_class or ParquetDataset
    single = _single_file(source, filesystem, storage_options)
    if single is not None:
        with _open_file(single, opts, dataset_class) as pf:
            return pf.metadata
    from parquet_core.dataset.metadata_file import dataset_metadata

    ds = dataset_class(source, filesystem=filesystem, storage_options=storage_options, options=opts)
    return dataset_metadata(ds)


def read_schema(source: Any = None, *, filesystem: Any = None, storage_options: dict[str, Any] | None = None,
                decryption: Any = None, partitioning: Any = "hive", decryption_properties: Any = None,
                options: ReaderOptions | None = None, where: Any = None,
                dataset_class: type[ParquetDataset] | None = None, **pyarrow_options: Any) -> Schema:
    """The schema of a file, or of a dataset (unified over its files, partition columns last).
    ``where`` is pyarrow's name of *source*; pyarrow's ``memory_map`` is accepted;
    *dataset_class* as for :func:`read_table`."""
    source = _source_or_where(source, where)
    opts = reader_options(options, decryption=decryption, decryption_properties=decryption_properties,
                          **pyarrow_options)
    dataset_class = dataset_class or ParquetDataset
    single = _single_file(source, filesystem, storage_options)
    if single is not None:
        with _open_file(single, opts, dataset_class) as pf:
            return pf.schema_arrow
    return dataset_class(source, filesystem=filesystem, storage_options=storage_options,
                          options=opts, partitioning=partitioning).schema
