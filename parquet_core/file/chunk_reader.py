"""The column-chunk layer: where a chunk's bytes are, and its pages.

::

    ChunkSources(source)                 the file, and the files ``file_path`` names beside it
      .for_chunk(chunk) -> source        opened once, kept until close()
      .prefetch(chunks) / .release()     remote sources fetch coalesced ranges
    ColumnChunkReader(chunk, sources, verify_crc, options)
      .pages()            whole chunk: one positional read, then page.reader.iter_pages
      .iter_pages_lazily()  page by page from the source (bounded read-ahead), for streaming
      .dictionary()       the dictionary page's values (physical), one read of that page
      .page_at(oi, i) / .pages_at(oi, keep)  data pages by offset-index location
      .headers()          every page header, bodies untouched (inspection)
      .notes()            a context adding "in column X, row group N" to errors

Everything that touches a chunk's bytes goes through one
:class:`ColumnChunkReader`: the byte range check, the chunk's crypto context
(``crypto``: :data:`~parquet_core.encryption.context.PLAINTEXT` or the chunk's
``ColumnDecryptor``, made here once), the page walk
(:func:`parquet_core.page.reader.walk_pages`, over the whole chunk or a
read-ahead window) and the error notes live here once.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterable, Iterator

from parquet_core.constants import Encoding
from parquet_core.encodings import decode_values
from parquet_core.encryption.context import ChunkDecryption, chunk_decryption
from parquet_core.errors import (
    ParquetError,
    ParquetFormatError,
    UnsupportedFeatureError,
    add_context,
    quoted,
)
from parquet_core.metadata.page_index import OffsetIndex
from parquet_core.metadata.statistics import decode_statistics
from parquet_core.metadata.wrappers import ColumnChunkMetadata
from parquet_core.page.limits import PageLimits
from parquet_core.page.model import DictionaryPage, Page
from parquet_core.page.reader import (
    PageHeaderInfo,
    decode_pages,
    iter_page_headers,
    iter_pages,
    read_page,
    walk_pages,
)

__all__ = ["ChunkSources", "ColumnChunkReader", "READ_AHEAD", "open_external"]

#: Bytes read at once by the lazy page walk (a page larger than this is read whole).
READ_AHEAD = 256 * 1024


class ChunkSources:
    """The file's source and the sibling files column chunks name in ``file_path``."""

    def __init__(self, source: Any, owned: bool) -> None:
        self.source = source
        self.owned = owned
        self._siblings: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._fetched_siblings = False      # release() has siblings to tell

    def for_chunk(self, chunk: ColumnChunkMetadata) -> Any:
        """Where a column chunk's bytes are: this file, or the file its ``file_path`` names
        (a ``_metadata`` summary file, or column data in an external file), resolved beside
        this file; opened once and kept until :meth:`close`."""
        rel = chunk.file_path
        if not rel:
            return self.source
        with self._lock:
            src = self._siblings.get(rel)
            if src is None:
                src = self._siblings[rel] = open_external(self.source, rel, chunk.row_group,
                                                          str(chunk.descriptor.dotted_path))
        return src

    def prefetch(self, chunks: Iterable[ColumnChunkMetadata]) -> None:
        """Tell remote sources which byte ranges a read needs (fetched coalesced, at once)."""
        if getattr(self.source, "prefetch", None) is None:
            return
        by_source: dict[int, tuple[Any, list[tuple[int, int]]]] = {}
        for chunk in chunks:
            src = self.for_chunk(chunk)
            by_source.setdefault(id(src), (src, []))[1].append(chunk.byte_range(src.size))
        for src, ranges in by_source.values():
            fetch = getattr(src, "prefetch", None)
            if fetch is not None:
                if src is not self.source:
                    self._fetched_siblings = True
                fetch(ranges)

    def release(self) -> None:
        """Let remote sources drop what they prefetched (the siblings only when
        :meth:`prefetch` fetched from one: a summary read file by file keeps hundreds open)."""
        release = getattr(self.source, "release", None)
        if release is not None:
            release()
        if not self._fetched_siblings:
            return
        self._fetched_siblings = False
        with self._lock:
            siblings = list(self._siblings.values())
        for src in siblings:
            release = getattr(src, "release", None)
            if release is not None:
                release()

    def close(self) -> None:
        for src in self._siblings.values():
            src.close()
        self._siblings.clear()
        if self.owned:
            self.source.close()


def open_external(source: Any, rel: str, row_group: int | None, column: str) -> Any:
    """Open the file a column chunk's ``file_path`` (*rel*) names, beside *source*'s file.

    Only a relative path below the file's folder is accepted, symbolic links
    resolved, and only a regular file is opened (never a FIFO or a device);
    see ``source.sibling``.

    Raises
    ------
    ParquetFormatError
        Naming the chunk (row group, column, ``file_path``) and the file, for
        a path that leaves the folder and for every ``OSError`` (missing,
        a folder, a FIFO, no permission ...).
    UnsupportedFeatureError
        When *source* is not a file with a location (bytes, a file object).
    """
    where = f"column chunk (row group {row_group}, column {quoted(column)}) file_path {quoted(rel)}"
    parts = rel.replace("\\", "/").split("/")
    if rel.startswith("/") or ":" in parts[0] or ".." in parts or not all(parts):
        raise ParquetFormatError(f"{where} is not a relative path below the file's folder")
    if "\x00" in rel:
        raise ParquetFormatError(f"{where} holds a NUL byte: not a file name")
    sibling = getattr(source, "sibling", None)
    if sibling is None:
        raise UnsupportedFeatureError(f"{where}: the chunk is stored in another file; open this file "
                                      "by its path to read it")
    here = getattr(source, "path", None)
    of = f" of {quoted(here)}" if isinstance(here, str) else ""
    try:
        return sibling(rel)
    except ParquetError as exc:
        raise ParquetFormatError(f"{where}{of}: {exc}") from exc
    except OSError as exc:
        if exc.strerror and exc.filename:
            reason = exc.strerror
        else:
            reason = quoted(str(exc) if type(exc) is OSError else f"{type(exc).__name__}: {exc}", 400, bare=True)
        target = f" ({quoted(exc.filename)})" if isinstance(exc.filename, str) else ""
        raise ParquetFormatError(f"{where}{of} cannot be opened{target}: {reason}") from exc


class ColumnChunkReader:
    """One column chunk of one row group: its bytes, pages, dictionary and headers.

    Parameters
    ----------
    chunk:
        The chunk's metadata (it carries the chunk's decryptor, if any).
    sources:
        Where to read (:class:`ChunkSources`).
    verify_crc:
        Check page CRCs when present.
    options:
        The ReaderOptions whose memory limits (``max_page_bytes``, ``max_decoded_bytes``)
        every page is read under (None: the defaults); see :mod:`parquet_core.page.limits`.
    """

    def __init__(self, chunk: ColumnChunkMetadata, sources: ChunkSources, verify_crc: bool = True,
                 options: Any = None) -> None:
        self.chunk = chunk
        self.descriptor = chunk.descriptor
        self.row_group = chunk.row_group
        self.source = sources.for_chunk(chunk)
        self.verify_crc = verify_crc
        #: The memory limits of this chunk's pages (the chunk's size, the column's value width).
        self.limits = PageLimits.of(options, self.descriptor, chunk.total_uncompressed_size)
        #: The crypto context every read of this chunk's modules goes through.
        self.crypto: ChunkDecryption = chunk_decryption(chunk)

    # -- where ------------------------------------------------------------
    @property
    def byte_range(self) -> tuple[int, int]:
        """``(start, length)`` of the chunk's pages, checked against the file size."""
        return self.chunk.byte_range(self.source.size)

    @property
    def has_dictionary_page(self) -> bool:
        return self.byte_range[0] != self.chunk.data_page_offset

    @contextlib.contextmanager
    def notes(self, how: str = "") -> Iterator[None]:
        """Add ``in column X, row group N`` to any ParquetError raised inside."""
        try:
            yield
        except ParquetError as exc:
            add_context(exc, column=self.descriptor.dotted_path, row_group=self.row_group, how=how)
            raise

    def check_rows(self, num_rows: int) -> None:
        """An unrepeated leaf has one value slot per row."""
        if self.descriptor.max_repetition_level == 0 and self.chunk.num_values != num_rows:
            raise ParquetFormatError(f"column chunk has {self.chunk.num_values} values for {num_rows} rows")

    # -- pages --------------------------------------------------------------
    def check_decoded(self) -> None:
        """The whole chunk is decoded at once: its declared value count against
        ``max_decoded_bytes`` (:meth:`pages` checks each page's as it comes)."""
        self.limits.check_count(self.chunk.num_values, "column chunk")

    def pages(self, shared: bool = False) -> Iterator[Page]:
        """Every page of the chunk, from one positional read of its bytes (*shared*: the
        caller holds them all until the chunk is decoded; see :func:`iter_pages`)."""
        start, length = self.byte_range
        buf = self.source.read_at(start, length)
        return iter_pages(buf, self.chunk.codec_id, self.chunk.num_values, verify_crc=self.verify_crc,
                          base_offset=start, crypto=self.crypto,
                          dictionary_first=start != self.chunk.data_page_offset, limits=self.limits,
                          shared=shared)

    def iter_pages_lazily(self) -> Iterator[Page]:
        """Every page of the chunk, read from the source as it is needed.

        At most :data:`READ_AHEAD` bytes (or one page, when larger) are read
        ahead of the page being decoded, so a consumer that stops early has
        read little.  The same page walk as :meth:`pages`, over a window.
        """
        start, length = self.byte_range
        chunk = self.chunk
        win = _Window(self.source, start, length)
        walk = walk_pages(win.get, length, crypto=self.crypto, base_offset=start,
                          dictionary_first=start != chunk.data_page_offset, probe=READ_AHEAD,
                          statistics=False, limits=self.limits)
        yield from decode_pages(walk, chunk.codec_id, chunk.num_values, verify_crc=self.verify_crc,
                                base_offset=start, crypto=self.crypto, limits=self.limits)

    def page_at(self, oi: OffsetIndex, i: int, num_rows: int) -> Page:
        """Data page *i* of the offset index, read with one positional read and checked
        against the index (a data page, holding the rows the index gives it)."""
        src, chunk = self.source, self.chunk
        loc = oi.page_locations[i]
        if loc.offset + loc.compressed_page_size > src.size:
            raise ParquetFormatError(f"offset index page {i} at {loc.offset} (+{loc.compressed_page_size} "
                                     f"bytes) is past the end of the file ({src.size} bytes)")
        page = read_page(src.read_at(loc.offset, loc.compressed_page_size), chunk.codec_id,
                         ordinal=i, verify_crc=self.verify_crc, base_offset=loc.offset,
                         crypto=self.crypto, limits=self.limits)
        if page is None or isinstance(page, DictionaryPage):
            raise ParquetFormatError(f"offset index page {i} at {loc.offset} is not a data page")
        first = int(oi.first_rows[i])
        end = int(oi.first_rows[i + 1]) if i + 1 < oi.num_pages else num_rows
        if page.num_values != end - first:
            raise ParquetFormatError(f"data page {i} at {loc.offset} holds {page.num_values} values; "
                                     f"the offset index gives it {end - first} rows")
        return page

    def pages_at(self, oi: OffsetIndex, keep: list[int], num_rows: int,
                 with_dictionary: bool = False) -> list[Page]:
        """The data pages *keep* of the offset index (:meth:`page_at`), after the chunk's
        dictionary page when one of them needs it (a chunk that fell back keeps its large
        dictionary unread)."""
        src, chunk = self.source, self.chunk
        # the kept pages are decoded together: their rows (one value slot each: the offset
        # index serves unrepeated leaves) against max_decoded_bytes as a whole, before any is
        # read, as a whole-chunk read checks the chunk's count (each page alone may pass)
        starts = oi.first_rows
        kept = sum((int(starts[i + 1]) if i + 1 < oi.num_pages else num_rows) - int(starts[i]) for i in keep)
        self.limits.check_count(kept, f"the {len(keep)} pages the offset index keeps")
        pages = [self.page_at(oi, i, num_rows) for i in keep]
        if with_dictionary or any(p.encoding in (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)
                                  for p in pages):
            start = chunk.byte_range(src.size)[0]
            first = oi.page_locations[0].offset
            if start < first <= src.size:
                page = read_page(src.read_at(start, first - start), chunk.codec_id, verify_crc=self.verify_crc,
                                 base_offset=start, crypto=self.crypto, chunk_start=True, limits=self.limits)
                if isinstance(page, DictionaryPage):
                    pages.insert(0, page)
        return pages

    def dictionary_page(self) -> DictionaryPage | None:
        """The chunk's dictionary page (one read of it), or None if it has none."""
        chunk = self.chunk
        start, length = self.byte_range
        first_data = chunk.data_page_offset
        if not start < first_data <= start + length:
            return None       # no dictionary page before the data pages
        buf = self.source.read_at(start, first_data - start)
        try:
            page = next(iter_pages(buf, chunk.codec_id, chunk.num_values, verify_crc=self.verify_crc,
                                   base_offset=start, crypto=self.crypto, dictionary_first=True,
                                   limits=self.limits), None)
        except ParquetError as exc:
            add_context(exc, column=self.descriptor.dotted_path, row_group=self.row_group, file_offset=start)
            raise
        return page if isinstance(page, DictionaryPage) else None

    def dictionary(self) -> Any | None:
        """The values of the chunk's dictionary page in physical form, or None."""
        page = self.dictionary_page()
        if page is None:
            return None
        d = self.descriptor
        try:
            return decode_values(Encoding.PLAIN, page.body, page.num_values, d.physical_type, d.type_length)
        except ParquetError as exc:
            add_context(exc, column=d.dotted_path, row_group=self.row_group, file_offset=self.byte_range[0])
            raise

    def headers(self, column_order: Any = None) -> list[PageHeaderInfo]:
        """Every page header, in file order; page bodies are not decoded (see
        :meth:`parquet_core.ParquetFile.page_headers`)."""
        chunk = self.chunk
        start, length = self.byte_range
        buf = self.source.read_at(start, length)

        def stats(h: Any) -> Any:
            dph = h.data_page_header or h.data_page_header_v2
            return None if dph is None else decode_statistics(dph.statistics, chunk.descriptor, column_order)

        try:
            return [PageHeaderInfo(h, n, start + pos, body, stats(h)) for h, n, pos, body in iter_page_headers(
                buf, chunk.num_values, crypto=self.crypto, dictionary_first=start != chunk.data_page_offset,
                base_offset=start)]
        except ParquetError as exc:
            add_context(exc, column=chunk.path_in_schema, row_group=self.row_group, file_offset=start)
            raise

    def __repr__(self) -> str:
        return f"<ColumnChunkReader {quoted(self.descriptor.dotted_path, bare=True)} row group {self.row_group}>"


class _Window:
    """A read-ahead window over one chunk's bytes (positions relative to the chunk)."""

    def __init__(self, source: Any, start: int, length: int) -> None:
        self.source, self.start, self.length = source, start, length
        self.at, self.buf = 0, memoryview(b"")

    def get(self, pos: int, size: int) -> memoryview:
        """Chunk bytes ``pos:pos + size`` (*size* checked against the chunk by the caller);
        a new window of at least :data:`READ_AHEAD` bytes is read when they are not in this one."""
        if not (self.at <= pos and pos + size <= self.at + len(self.buf)):
            want = min(max(size, READ_AHEAD), self.length - pos)
            self.at, self.buf = pos, memoryview(self.source.read_at(self.start + pos, want))
        return self.buf[pos - self.at: pos - self.at + size]
