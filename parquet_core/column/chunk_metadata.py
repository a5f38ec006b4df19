"""Gather a column chunk's metadata as its pages are placed: offsets, sizes, encodings, indexes.

The third step of :func:`parquet_core.column.writer.write_column_chunk`.
:class:`ChunkMetadataBuilder` owns everything that is accumulated over
the chunk's pages: the byte offset of each page (from the chunk's first
byte), the encodings and page-encoding counts, the chunk statistics and
geospatial statistics (fed page by page by the
:class:`~parquet_core.column.page_builder.PageBuilder`), the level
histograms and unencoded byte counts of ``SizeStatistics``, and the page
index entries.  :meth:`ChunkMetadataBuilder.finish` turns them into the
``ColumnMetaData`` and a :class:`ChunkResult`.

Offsets are absolute: the builder starts at ``chunk_offset``.  A chunk
built at offset 0 (as threads do, before the chunks before it are sized)
is moved into place with :meth:`ChunkResult.rebase`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from parquet_core.column.page_builder import BuiltPage
from parquet_core.constants import Encoding, PageType, PhysicalType
from parquet_core.metadata.geospatial import GeospatialStatsBuilder
from parquet_core.metadata.page_index import PageIndexBuilder
from parquet_core.metadata.stats_builder import StatisticsBuilder
from parquet_core.options import ColumnOptions, WriterOptions
from parquet_core.page.writer import WrittenPage
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.types import GEO_IDS
from parquet_core.thrift import pt

__all__ = ["ChunkMetadataBuilder", "ChunkResult"]


@dataclass
class ChunkResult:
    """A written column chunk: its bytes, metadata and page-index entries."""

    pages: list[bytes]
    meta: Any                      # pt.ColumnMetaData (offsets absolute)
    column_index: Any | None       # pt.ColumnIndex or None
    offset_index: Any              # pt.OffsetIndex
    bloom_filter: bytes | None = None  # header + bitset (encrypted: two modules), placed by file/

    def rebase(self, shift: int) -> None:
        """Move the chunk *shift* bytes later in the file (page offsets in metadata and index)."""
        if not shift:
            return
        meta = self.meta
        meta.data_page_offset += shift
        if meta.dictionary_page_offset is not None:
            meta.dictionary_page_offset += shift
        for loc in self.offset_index.page_locations:
            loc.offset += shift


class ChunkMetadataBuilder:
    """Accumulates one chunk's metadata, page by page."""

    def __init__(self, desc: ColumnDescriptor, opts: ColumnOptions, wopts: WriterOptions,
                 chunk_offset: int, emit: Callable[[bytes], Any] | None = None) -> None:
        self.desc, self.opts, self.wopts = desc, opts, wopts
        self.chunk_offset = self.offset = chunk_offset
        #: pages kept for the caller, unless *emit* takes each as it is placed (written
        #: straight to the file at ``chunk_offset``: a chunk's pages are then never all held)
        self.pages: list[bytes] = []
        self.emit = emit
        self.encodings: list[int] = []
        self.enc_stats: dict[tuple[int, int], int] = {}
        self.dict_offset: int | None = None
        self.first_data_offset: int | None = None
        self.total_uncompressed = 0
        order = wopts.column_order(desc)
        #: chunk statistics, fed by the page builder
        self.stats = StatisticsBuilder(desc, truncate_length=opts.statistics_truncate_length,
                                       column_order=order) if opts.write_statistics else None
        self.geo_kind = desc.data_type.name if desc.data_type.id in GEO_IDS \
            else None
        self.geo = GeospatialStatsBuilder(geography=self.geo_kind == "geography",
                                          algorithm=desc.data_type.algorithm) \
            if self.geo_kind is not None and opts.write_statistics else None
        self.index = PageIndexBuilder(desc, truncate_length=opts.column_index_truncate_length,
                                      with_bounds=opts.write_statistics, column_order=order)
        max_def, max_rep = desc.max_definition_level, desc.max_repetition_level
        self.def_hist = np.zeros(max_def + 1, dtype=np.int64) if max_def > 0 else None
        self.rep_hist = np.zeros(max_rep + 1, dtype=np.int64) if max_rep > 0 else None
        self.unencoded_total = 0

    def _place(self, page: WrittenPage, page_type: int, encoding: int) -> int:
        start = self.offset
        if self.emit is not None:
            self.emit(page.data)
        else:
            self.pages.append(page.data)
        self.offset += page.compressed_size
        self.total_uncompressed += page.uncompressed_size
        key = (page_type, encoding)
        self.enc_stats[key] = self.enc_stats.get(key, 0) + 1
        if encoding not in self.encodings:
            self.encodings.append(encoding)
        return start

    def add_dictionary_page(self, page: WrittenPage) -> None:
        self.dict_offset = self._place(page, PageType.DICTIONARY_PAGE, Encoding.PLAIN)

    def add_data_page(self, built: BuiltPage) -> None:
        start = self._place(built.page, built.page_type, built.encoding)
        if self.first_data_offset is None:
            self.first_data_offset = start
        dh, rh = built.def_histogram, built.rep_histogram
        if dh is not None and self.def_hist is not None:
            self.def_hist += dh
        if rh is not None and self.rep_hist is not None:
            self.rep_hist += rh
        if built.unencoded_bytes is not None:
            self.unencoded_total += built.unencoded_bytes
        span = built.span
        self.index.add_page(offset=start, compressed_size=built.page.compressed_size,
                            first_row=span.r0, null_count=built.null_count,
                            num_values=span.num_values, bounds=built.bounds, def_histogram=dh,
                            rep_histogram=rh, unencoded_bytes=built.unencoded_bytes,
                            nan_count=built.nan_count)

    def column_metadata(self, num_values: int) -> Any:
        """The chunk's ``ColumnMetaData`` (*num_values*: level slots, nulls included)."""
        desc, opts = self.desc, self.opts
        encodings = list(self.encodings)
        levels = desc.max_definition_level > 0 or desc.max_repetition_level > 0
        if levels and Encoding.RLE not in encodings:
            encodings.append(Encoding.RLE)
        first_data = self.first_data_offset if self.first_data_offset is not None else self.offset
        meta = pt.ColumnMetaData(
            type=desc.physical_type, encodings=sorted(set(encodings)), path_in_schema=list(desc.path),
            codec=opts.compression, num_values=num_values,
            total_uncompressed_size=self.total_uncompressed,
            total_compressed_size=self.offset - self.chunk_offset,
            data_page_offset=first_data, dictionary_page_offset=self.dict_offset,
            statistics=self.stats.chunk_statistics() if self.stats is not None else None,
            encoding_stats=[pt.PageEncodingStats(page_type=p, encoding=e, count=c)
                            for (p, e), c in self.enc_stats.items()])
        if self.geo is not None:
            meta.geospatial_statistics = self.geo.result().to_thrift()
        if self.wopts.write_size_statistics:
            is_byte_array = desc.physical_type == PhysicalType.BYTE_ARRAY
            meta.size_statistics = pt.SizeStatistics(
                unencoded_byte_array_data_bytes=self.unencoded_total if is_byte_array else None,
                definition_level_histogram=None if self.def_hist is None else self.def_hist.tolist(),
                repetition_level_histogram=None if self.rep_hist is None else self.rep_hist.tolist())
        if opts.key_value_metadata:
            meta.key_value_metadata = [pt.KeyValue(key=k, value=v)
                                       for k, v in opts.key_value_metadata.items()]
        return meta

    def finish(self, num_values: int, bloom_filter: bytes | None = None) -> ChunkResult:
        """The chunk as written: pages, metadata, page index entries, Bloom filter."""
        return ChunkResult(pages=self.pages, meta=self.column_metadata(num_values),
                           column_index=self.index.column_index(),
                           offset_index=self.index.offset_index(),
                           bloom_filter=bloom_filter)
