"""The file's pruning aids, read lazily and kept: page indexes, Bloom filters, dictionaries.

A filtered read asks for the same index while planning and while reading,
so each is read at most once per :class:`FileIndexes` (one positional read
each).  Leaves are given by index; the caller resolves names.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable

from parquet_core.column.data import ColumnData
from parquet_core.file.chunk_reader import ChunkSources, ColumnChunkReader
from parquet_core.file.page_index_reader import read_column_index, read_offset_index
from parquet_core.metadata.page_index import ColumnIndex, OffsetIndex
from parquet_core.metadata.wrappers import ColumnChunkMetadata, FileMetadata
from parquet_core.table.arrays import Array
from parquet_core.table.convert import to_array

if TYPE_CHECKING:   # Bloom filters are read (and their hashing loaded) when a filter asks
    from parquet_core.file.bloom_filter_reader import ColumnBloomFilter

__all__ = ["FileIndexes"]


class FileIndexes:
    """Lazy, cached column indexes, offset indexes, Bloom filters and dictionary pages.

    Parameters
    ----------
    metadata:
        The file's metadata.
    sources:
        Where the chunks' bytes are.
    verify_crc:
        Check the CRC of dictionary pages read for pruning.
    options:
        The ReaderOptions whose memory limits chunks are read under (None: the defaults).
    """

    def __init__(self, metadata: FileMetadata, sources: ChunkSources, verify_crc: bool = True,
                 options: Any = None) -> None:
        self.metadata = metadata
        self.sources = sources
        self.verify_crc = verify_crc
        self.options = options
        self._cache: dict[tuple[Any, ...], Any] = {}
        self._chunks: dict[tuple[int, int], ColumnChunkMetadata] = {}
        self._lock = threading.Lock()

    def chunk(self, row_group: int, leaf: int) -> ColumnChunkMetadata:
        """The chunk's metadata, made once per chunk (a filtered read asks for it several
        times per column: index lookups, the reader, the planner's statistics)."""
        key = (row_group, leaf)
        chunk = self._chunks.get(key)
        if chunk is None:
            chunk = self._chunks.setdefault(key, self.metadata.row_group(row_group).column(leaf))
        return chunk

    def reader(self, row_group: int, leaf: int) -> ColumnChunkReader:
        """The :class:`ColumnChunkReader` of one chunk."""
        return ColumnChunkReader(self.chunk(row_group, leaf), self.sources, self.verify_crc, self.options)

    def _cached(self, key: tuple[Any, ...], read: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        value = read()
        with self._lock:
            return self._cache.setdefault(key, value)

    def column_index(self, row_group: int, leaf: int) -> ColumnIndex | None:
        """The chunk's ColumnIndex (per-page bounds), or None when the writer stored none."""
        chunk = self.chunk(row_group, leaf)
        raw = chunk.raw
        key = ("column", row_group, leaf, raw.column_index_offset, raw.column_index_length)
        return self._cached(key, lambda: read_column_index(self.sources.for_chunk(chunk), chunk))

    def offset_index(self, row_group: int, leaf: int) -> OffsetIndex | None:
        """The chunk's OffsetIndex (data page locations and first rows), or None."""
        chunk = self.chunk(row_group, leaf)
        raw = chunk.raw
        key = ("offset", row_group, leaf, raw.offset_index_offset, raw.offset_index_length)
        return self._cached(key, lambda: read_offset_index(self.sources.for_chunk(chunk), chunk,
                                                           self.metadata.row_group(row_group).num_rows))

    def bloom_filter(self, row_group: int, leaf: int) -> ColumnBloomFilter | None:
        """The chunk's Bloom filter, or None when it has none."""
        chunk = self.chunk(row_group, leaf)

        def read() -> ColumnBloomFilter | None:
            from parquet_core.file.bloom_filter_reader import ColumnBloomFilter, read_bloom_filter

            bloom = read_bloom_filter(self.sources.for_chunk(chunk), chunk)
            return None if bloom is None else ColumnBloomFilter(bloom, chunk.descriptor)
        return self._cached(("bloom", row_group, leaf), read)

    def dictionary(self, row_group: int, leaf: int) -> Array | None:
        """The values of the chunk's dictionary page as an array (one read of that page),
        or None when the chunk has none."""
        def read() -> Array | None:
            reader = self.reader(row_group, leaf)
            values = reader.dictionary()
            if values is None:
                return None
            return to_array(ColumnData(values, None, None, len(values)), reader.descriptor)
        return self._cached(("dictionary", row_group, leaf), read)
