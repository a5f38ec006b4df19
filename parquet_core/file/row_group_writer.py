"""``RowGroupWriter``: one row group's column chunks into the sink, and its metadata.

::

    RowGroupWriter.write(leaves, num_rows)      leaves: (descriptor, data thunk) per leaf
      encryption.chunk(path, ordinal, column)   each chunk's encryptor (PLAINTEXT_FILE: pass through)
      column.writer.write_column_chunk          in column order, or in a thread pool (below)
      sink.write(pages)                         chunk after chunk
      sink.write(bloom filters)                 right after the row group
    -> WrittenRowGroup(row_group, indexes, crypts)

The thread pool encodes a bounded window of chunks ahead of the one being
written, each at offset 0, and moves each into place
(:meth:`~parquet_core.column.writer.ChunkResult.rebase`) when its turn comes,
so the bytes are those of the sequential path.  Encrypted chunks are encoded
sequentially (their cipher contexts are not made for threads).

The row group's page indexes and its chunks' footer form are written by
:mod:`parquet_core.file.footer_writer` at the end of the file.
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from parquet_core.column.writer import ChunkResult, write_column_chunk
from parquet_core.encryption.context import ChunkEncryption, FileEncryption
from parquet_core.errors import ParquetError, add_context
from parquet_core.file.sink import Sink
from parquet_core.options import WriterOptions
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.table.write_leaves import LeafData
from parquet_core.thrift import pt

__all__ = ["RowGroupWriter", "WrittenRowGroup"]


@dataclass(frozen=True, slots=True)
class WrittenRowGroup:
    """A row group in the file: its metadata, each chunk's (column index, offset index)
    and each chunk's encryption (used again for its page indexes and footer entry)."""

    row_group: pt.RowGroup
    indexes: list[tuple[pt.ColumnIndex | None, pt.OffsetIndex]]
    crypts: list[ChunkEncryption]


class RowGroupWriter:
    """Writes row groups one after the other into *sink* (``ordinal`` counts them)."""

    def __init__(self, sink: Sink, options: WriterOptions, encryption: FileEncryption) -> None:
        self._sink = sink
        self._options = options
        self._encryption = encryption
        self._sorting = [pt.SortingColumn(column_idx=s.column_index, descending=s.descending,
                                          nulls_first=s.nulls_first) for s in options.sorting_columns]
        self._pool: ThreadPoolExecutor | None = None    # made on the first threaded row group
        self._pool_workers = 0
        self.ordinal = 0

    def write(self, leaves: Sequence[tuple[ColumnDescriptor, LeafData]], num_rows: int) -> WrittenRowGroup:
        """Encode and write one row group's chunks, then its Bloom filters."""
        ordinal = self.ordinal
        sink = self._sink
        start = sink.offset
        crypts: list[ChunkEncryption] = []
        for col, (desc, _) in enumerate(leaves):
            try:
                crypts.append(self._encryption.chunk(desc.dotted_path, ordinal, col))
            except ParquetError as exc:
                add_context(exc, column=desc.dotted_path, row_group=ordinal)
                raise
        chunks: list[pt.ColumnChunk] = []
        indexes: list[tuple[pt.ColumnIndex | None, pt.OffsetIndex]] = []
        blooms: list[bytes | None] = []
        total_uncompressed = 0
        for result in self._encoded_chunks(leaves, crypts, ordinal):
            for page in result.pages:
                sink.write(page)
            meta = result.meta
            total_uncompressed += meta.total_uncompressed_size
            chunk_start = meta.dictionary_page_offset if meta.dictionary_page_offset is not None \
                else meta.data_page_offset
            chunks.append(pt.ColumnChunk(file_offset=chunk_start, meta_data=meta))
            indexes.append((result.column_index, result.offset_index))
            blooms.append(result.bloom_filter)
        row_group = pt.RowGroup(
            columns=chunks, total_byte_size=total_uncompressed, num_rows=num_rows,
            sorting_columns=self._sorting or None, file_offset=start,
            total_compressed_size=sink.offset - start, ordinal=ordinal)
        # Bloom filters go right after their row group (the spec allows any place;
        # memory then holds one row group's filters, never the whole file's)
        for chunk, bloom in zip(chunks, blooms):
            if bloom is not None:
                chunk.meta_data.bloom_filter_offset = sink.write(bloom)
                chunk.meta_data.bloom_filter_length = len(bloom)
        self.ordinal += 1
        return WrittenRowGroup(row_group, indexes, crypts)

    def _encode_chunk(self, desc: ColumnDescriptor, make: LeafData, crypt: ChunkEncryption, ordinal: int,
                      offset: int, emit: Callable[[bytes], Any] | None = None) -> ChunkResult:
        """One leaf's chunk of a row group, its first byte at *offset* (pages handed to
        *emit* as they are made, if given)."""
        try:
            return write_column_chunk(make(), desc, self._options.column(desc.dotted_path),
                                      self._options, offset, crypt, emit)
        except ParquetError as exc:
            add_context(exc, column=desc.dotted_path, row_group=ordinal)
            raise

    def _encoded_chunks(self, leaves: Sequence[tuple[ColumnDescriptor, LeafData]],
                        crypts: list[ChunkEncryption], ordinal: int) -> Iterator[ChunkResult]:
        """Yield the row group's chunks in column order, each placed at the sink's offset
        (the first error in column order is raised; chunks not yet started are cancelled)."""
        pool = self._thread_pool(len(leaves), crypts)
        if pool is None:
            # one thread: each page goes to the file as soon as it is encoded
            for (desc, make), crypt in zip(leaves, crypts):
                yield self._encode_chunk(desc, make, crypt, ordinal, self._sink.offset, self._sink.write)
            return
        tasks = iter(zip(leaves, crypts))
        window: deque[Future[ChunkResult]] = deque()

        def submit_next() -> None:
            for (desc, make), crypt in tasks:
                window.append(pool.submit(self._encode_chunk, desc, make, crypt, ordinal, 0))
                return

        try:
            for _ in range(2 * self._pool_workers):
                submit_next()
            while window:
                result = window.popleft().result()
                submit_next()
                result.rebase(self._sink.offset)
                yield result
        finally:
            for future in window:
                future.cancel()

    def _thread_pool(self, leaves: int, crypts: list[ChunkEncryption]) -> ThreadPoolExecutor | None:
        """The pool that encodes chunks, or None for the sequential path."""
        if not self._options.use_threads or leaves < 2 or any(c.encrypted for c in crypts):
            return None
        workers = min(leaves, os.cpu_count() or 1)
        if workers < 2:
            return None
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pqc-write")
            self._pool_workers = workers
        return self._pool

    def close(self) -> None:
        """Stop the thread pool (waits for the chunks being encoded)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
