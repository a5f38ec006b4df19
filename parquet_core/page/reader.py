"""Walk the pages of one column chunk: header, decryption, CRC, decompression.

:func:`walk_pages` goes over a chunk's stored pages: it reads each header
through the chunk's crypto context (a
:class:`~parquet_core.encryption.context.ChunkDecryption`: parsed in place for
a plaintext chunk, decrypted first for an encrypted one) and cuts out the
stored body.  Two more loops repeat its steps for speed on plaintext chunks in
memory, with the same checks in the same order: :func:`_walk_plain` (the walk
itself) and :func:`_plain_pages` (the walk and :func:`decode_pages` fused, for
:func:`iter_pages`).  Everything else is built on these::

    iter_pages(chunk bytes)        walk_pages -> decode_pages (the value count check)
    read_page(one page's bytes)    the first page of walk_pages, decoded
    iter_page_headers(chunk bytes) walk_pages, bodies untouched (inspection)
    few_plain_pages(chunk bytes)   _plain_pages as a list, for chunks of at most two pages
                                   (the light read of small files); None for any other
    file.chunk_reader              walk_pages over a read-ahead window (lazy walk)

:func:`decode_pages` decrypts each body, checks its CRC and decompresses it
into :mod:`parquet_core.page.model` pages whose bodies are plaintext.  Page
types this reader does not use (INDEX_PAGE, or a type id from a future spec)
are skipped using their ``compressed_page_size``.

The page CRC (``PageHeader.crc``) is the standard CRC-32 (zlib's, the
polynomial of gzip) over the page's bytes *as stored*, i.e. after
compression; for v2 pages that includes the uncompressed levels.
"""

from __future__ import annotations

import io
import threading
import zlib
from typing import Any, Callable, Iterable, Iterator, NamedTuple

try:  # the C decoder of the thrift package (see _HeaderParser)
    from thrift.protocol import fastbinary as _fastbinary  # noqa: F401
    from thrift.protocol.TCompactProtocol import TCompactProtocolAccelerated
    from thrift.transport.TTransport import TMemoryBuffer
except ImportError:  # pragma: no cover
    _FAST_HEADERS = False
else:
    _FAST_HEADERS = True

from parquet_core.compression import get_codec
from parquet_core.constants import CompressionCodec, PageType
from parquet_core.encryption.context import PLAINTEXT, ChunkDecryption
from parquet_core.errors import (
    ParquetChecksumError,
    ParquetError,
    ParquetFormatError,
    add_page_context,
)
from parquet_core.metadata.thrift_dict import enum_name, thrift_to_dict
from parquet_core.page.limits import DEFAULT_LIMITS, PageLimits
from parquet_core.page.model import DataPageV1, DataPageV2, DictionaryPage, Page
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse

__all__ = ["ChunkBytes", "PageHeaderInfo", "RawPage", "decode_pages", "iter_page_headers",
           "iter_pages", "read_page", "walk_pages"]

#: A page claiming a larger size than this (past a thrift i32) is treated as corrupt;
#: smaller ones are held to :class:`~parquet_core.page.limits.PageLimits`.
MAX_PAGE_SIZE = 1 << 31


_REQUIRED = {
    "data_page_header": ("num_values", "encoding", "definition_level_encoding",
                         "repetition_level_encoding"),
    "data_page_header_v2": ("num_values", "num_nulls", "num_rows", "encoding",
                            "definition_levels_byte_length", "repetition_levels_byte_length"),
    "dictionary_page_header": ("num_values", "encoding"),
}


def _check_required_fields(header: Any) -> None:
    """Check the required fields of a page header and its sub-header.

    A direct check of the few fields used here; the generic recursive
    validator costs more than parsing the header itself.  Written out for the
    common sub-headers, since it runs once per page.
    """
    if header.type is None or header.uncompressed_page_size is None or header.compressed_page_size is None:
        raise ParquetFormatError("page header lacks a required field (type or sizes)")
    sub = header.data_page_header
    if sub is not None and (sub.num_values is None or sub.encoding is None
                            or sub.definition_level_encoding is None
                            or sub.repetition_level_encoding is None):
        _missing_field(header)
    sub = header.data_page_header_v2
    if sub is not None and (sub.num_values is None or sub.num_nulls is None or sub.num_rows is None
                            or sub.encoding is None or sub.definition_levels_byte_length is None
                            or sub.repetition_levels_byte_length is None):
        _missing_field(header)
    sub = header.dictionary_page_header
    if sub is not None and (sub.num_values is None or sub.encoding is None):
        _missing_field(header)


def _missing_field(header: Any) -> None:
    """Raise the error naming the first required sub-header field that is missing."""
    for name, fields in _REQUIRED.items():
        sub = getattr(header, name)
        if sub is not None:
            for f in fields:
                if getattr(sub, f) is None:
                    raise ParquetFormatError(f"page header: {name}.{f} is required but missing")


#: Page headers are parsed from a window of this many bytes first (copying
#: a small window is cheaper than copying the rest of the chunk); a header
#: that does not fit (large statistics) is parsed again from the whole rest.
_HEADER_WINDOW = 512


def _parse_header(buf: memoryview, pos: int) -> tuple[Any, int]:
    """The PageHeader at *pos* and its length."""
    if len(buf) - pos > _HEADER_WINDOW:
        try:
            return parse(buf, pt.PageHeader, offset=pos, limit=_HEADER_WINDOW)
        except ParquetFormatError:
            pass   # larger than the window, or malformed: the full parse decides
    return parse(buf, pt.PageHeader, offset=pos)


class _HeaderParser:
    """Parses the page headers of one chunk with one thrift protocol object.

    :func:`parse` builds a transport and a protocol per call (about half of
    its 3.5 us); the page walk parses one header per page, so it reuses
    them: each header is decoded by the same C decoder from a fresh
    ``_HEADER_WINDOW``-byte window with the same length limits as
    ``parse(..., limit=_HEADER_WINDOW)``, giving the same struct.  Anything
    else (one larger than the window, any
    decoding error, no C decoder) goes through :func:`_parse_header`, which
    decides and reports.  A header nearer the chunk's end than the window is decoded from
    the bytes left (a successful decode read only those).
    """

    __slots__ = ("trans", "proto", "spec")

    def __init__(self, statistics: bool = True) -> None:
        self.trans: Any = None
        self.proto: Any = None
        self.spec = _FULL_SPEC if statistics else _NO_STATS_SPEC
        if _FAST_HEADERS:
            trans = TMemoryBuffer()
            if isinstance(getattr(trans, "_buffer", None), io.BytesIO):
                self.trans = trans
                self.proto = TCompactProtocolAccelerated(
                    trans, string_length_limit=_HEADER_WINDOW, container_length_limit=_HEADER_WINDOW,
                    fallback=False)

    def __call__(self, buf: memoryview, pos: int) -> tuple[Any, int]:
        trans = self.trans
        if trans is None or pos >= len(buf):
            return _parse_header(buf, pos)
        # a header near the chunk's end (the last page of a small chunk, half the pages of a
        # folder of small files) is decoded from the shorter window left: a decode that
        # succeeds there read only bytes of the window, so the full parse gives the same
        # struct; one that fails is decided by the full parse
        window = io.BytesIO(buf[pos:pos + _HEADER_WINDOW].tobytes())
        trans._buffer = window
        header = pt.PageHeader()
        try:
            # what header.read(proto) does, without its per-call checks
            _fastbinary.decode_compact(header, self.proto, self.spec)
        except Exception:  # noqa: BLE001 - the general parse raises the proper error
            return _parse_header(buf, pos)
        return header, window.tell()


_PARSERS = threading.local()


def _header_parser(statistics: bool) -> _HeaderParser:
    """This thread's :class:`_HeaderParser` (one with and one without statistics), made once:
    building its transport and protocol costs a few microseconds per chunk.  A parser is
    never re-entered: each call swaps in its window and decodes it before returning."""
    name = "full" if statistics else "lean"
    parser = getattr(_PARSERS, name, None)
    if parser is None:
        parser = _HeaderParser(statistics)
        setattr(_PARSERS, name, parser)
    return parser


def _spec_without_statistics() -> list[Any]:
    """The decoder spec of a PageHeader whose data page headers' statistics are skipped.

    Readers never look at a page's statistics (inspection does: it keeps the
    full spec); skipping them spares building a Statistics struct and its
    byte strings per page.  The skipped field is still walked (and must be
    well formed) by the C decoder.
    """
    fields = list(pt.PageHeader.thrift_spec)
    for i, f in enumerate(fields):
        if f is None or f[1] != 12 or not isinstance(f[3], list):
            continue
        cls, sub = f[3]
        if cls not in (pt.DataPageHeader, pt.DataPageHeaderV2):
            continue
        sub = tuple(None if s is not None and s[2] == "statistics" else s for s in sub)
        fields[i] = (f[0], f[1], f[2], [cls, sub], f[4])
    return [pt.PageHeader, tuple(fields)]


_FULL_SPEC = [pt.PageHeader, pt.PageHeader.thrift_spec]
_NO_STATS_SPEC = _spec_without_statistics()


def _check_sizes(header: Any, pos: int, hlen: int, avail: int, limits: PageLimits = DEFAULT_LIMITS) -> None:
    csize = header.compressed_page_size
    usize = header.uncompressed_page_size
    if csize is None or csize < 0 or usize is None or usize < 0:
        raise ParquetFormatError(f"page header with invalid sizes ({csize}, {usize})")
    if usize > MAX_PAGE_SIZE:
        raise ParquetFormatError(f"page claims {usize} uncompressed bytes")
    if pos + hlen + csize > avail:
        raise ParquetFormatError(
            f"page of {csize} bytes at chunk offset {pos + hlen} runs past the column "
            f"chunk's end ({avail} bytes)")
    limits.check_page(csize, usize)


def _verify_crc(header: Any, stored: memoryview) -> None:
    if header.crc is None:
        return
    actual = zlib.crc32(stored) & 0xFFFFFFFF
    if actual != header.crc & 0xFFFFFFFF:
        raise ParquetChecksumError(
            f"page CRC mismatch: header says {header.crc & 0xFFFFFFFF:#010x}, "
            f"bytes give {actual:#010x}")


def _decompress(codec: Any, data: memoryview, usize: int, is_plain: bool, left: int = -1,
                kind: int = 0) -> bytes | memoryview:
    """A page body decompressed; *left* >= 0 (a data page of a chunk read whole, with that
    many stored bytes after it) lets a codec that can put the chunk's data pages side by
    side in one block (``decompress_page``; *kind*: the page's encoding) do so."""
    if is_plain:
        if len(data) != usize:
            raise ParquetFormatError(
                f"uncompressed page body is {len(data)} bytes, header says {usize}")
        return data
    if left >= 0:
        into_block = getattr(codec, "decompress_page", None)
        if into_block is not None:
            return into_block(data, usize, left, kind)
    return codec.decompress(data, usize)


def _v2_page(header: Any, stored: memoryview, codec: Any, plain: bool, ordinal: int,
             offset: int, left: int = -1) -> DataPageV2:
    h = header.data_page_header_v2
    rl = h.repetition_levels_byte_length or 0
    dl = h.definition_levels_byte_length or 0
    if rl < 0 or dl < 0 or rl + dl > len(stored):
        raise ParquetFormatError(
            f"v2 page level lengths ({rl} + {dl}) exceed the page ({len(stored)} bytes)")
    compressed = h.is_compressed is None or bool(h.is_compressed)
    usize = header.uncompressed_page_size - rl - dl
    if usize < 0:
        raise ParquetFormatError("v2 page: uncompressed size smaller than its levels")
    body = stored[rl + dl:]
    if compressed and not plain:
        values = _decompress(codec, body, usize, False, left, h.encoding) if usize or len(body) else b""
    else:
        values = _decompress(codec, body, usize, True)
    return DataPageV2(num_values=h.num_values, num_nulls=h.num_nulls or 0, num_rows=h.num_rows,
                      encoding=h.encoding, repetition_levels=stored[:rl],
                      definition_levels=stored[rl:rl + dl], values=values,
                      ordinal=ordinal, offset=offset)


#: Page types this reader decodes; any other (INDEX_PAGE, a later spec's) is skipped.
_KNOWN_PAGES = (PageType.DICTIONARY_PAGE, PageType.DATA_PAGE, PageType.DATA_PAGE_V2)
_DATA_PAGES = (PageType.DATA_PAGE, PageType.DATA_PAGE_V2)

#: ``read(pos, size)``: the chunk's bytes ``[pos, pos + size)`` as a memoryview (the caller
#: checks that they lie inside the chunk): a slice of bytes in memory, or a read-ahead window.
ChunkBytes = Callable[[int, int], memoryview]

#: One stored page as :func:`walk_pages` finds it:
#: ``(PageHeader, header length, offset in the chunk, stored body, data page ordinal,
#: authenticated as a dictionary page? (None: plaintext))``.
RawPage = tuple[Any, int, int, memoryview, int, bool | None]


def _as_bytes(chunk: bytes | memoryview) -> memoryview:
    buf = memoryview(chunk)
    if buf.itemsize != 1 or buf.ndim != 1:
        buf = buf.cast("B")
    return buf


def walk_pages(chunk: memoryview | ChunkBytes, length: int, *, crypto: ChunkDecryption = PLAINTEXT,
               base_offset: int = 0, first_ordinal: int = 0, dictionary_first: bool | None = None,
               probe: int | None = None, statistics: bool = True,
               limits: PageLimits = DEFAULT_LIMITS) -> Iterator[RawPage]:
    """The loop over a column chunk's stored pages (every page walk goes through it or
    through one of its plaintext copies, :func:`_walk_plain` and :func:`_plain_pages`).

    Each page's header is read through *crypto* (parsed in place for a plaintext
    chunk; decrypted, then parsed, for an encrypted one), its sizes are checked
    against the chunk's *length*, and its stored body is cut out, neither
    decrypted nor decompressed (:func:`decode_pages` does that).

    Parameters
    ----------
    chunk, length:
        The chunk's bytes: all *length* of them (bytes or a memoryview), or a
        :data:`ChunkBytes` reader (a read-ahead window over the file).
    crypto:
        The chunk's :class:`~parquet_core.encryption.context.ChunkDecryption`.
    base_offset:
        File offset of the chunk's first byte, used in error notes.
    first_ordinal:
        Data page ordinal of the first page (a page read by its offset index entry).
    dictionary_first:
        For the first page: the metadata's hint that it is a dictionary page (an
        encrypted header's AAD depends on it); None when it must be a data page.
    probe:
        With a reader: read a header from at most this many bytes first, and from
        the rest of the chunk only when it does not fit; None: the rest at once.
    statistics:
        Decode the statistics of data page headers (False: skipped, left None;
        readers of values never use them).
    limits:
        The :class:`~parquet_core.page.limits.PageLimits` each header's sizes are
        checked against (before its body is read).
    """
    headers = _header_parser(statistics)
    read_header = crypto.read_header
    # bytes in memory are sliced here; a reader is asked for each header and body
    buf = _as_bytes(chunk) if isinstance(chunk, (bytes, bytearray, memoryview)) else None
    read: Any = None if buf is not None else chunk   # ChunkBytes: (offset, size) -> bytes
    if buf is not None and crypto is PLAINTEXT:
        yield from _walk_plain(buf, length, headers, base_offset, first_ordinal, limits)
        return
    pos, ordinal = 0, first_ordinal
    while pos < length:
        at_start = dictionary_first if pos == 0 else None
        try:
            if buf is not None:
                header, hlen, is_dict = read_header(buf, pos, ordinal, at_start, headers)
            else:
                left = length - pos
                try:
                    header, hlen, is_dict = read_header(
                        read(pos, left if probe is None or probe >= left else probe), 0, ordinal, at_start,
                        headers)
                except ParquetError:
                    if probe is None or probe >= left:
                        raise
                    # a header longer than the probe window (huge statistics): from the rest of the chunk
                    header, hlen, is_dict = read_header(read(pos, left), 0, ordinal, at_start, headers)
            _check_sizes(header, pos, hlen, length, limits)
        except ParquetError as exc:
            add_page_context(exc, ordinal, base_offset + pos)
            raise
        start = pos + hlen
        pos = start + header.compressed_page_size
        yield (header, hlen, start - hlen, buf[start:pos] if buf is not None else read(start, pos - start),
               ordinal, is_dict)
        if header.type in _DATA_PAGES:
            ordinal += 1


def _walk_plain(buf: memoryview, length: int, headers: _HeaderParser, base_offset: int,
                ordinal: int, limits: PageLimits) -> Iterator[RawPage]:
    """:func:`walk_pages` over a plaintext chunk in memory: the same steps and checks,
    written out in one loop (it runs once per page)."""
    pos = 0
    data_pages = _DATA_PAGES
    while pos < length:
        try:
            header, hlen = headers(buf, pos)
            _check_sizes(header, pos, hlen, length, limits)
        except ParquetError as exc:
            add_page_context(exc, ordinal, base_offset + pos)
            raise
        start = pos + hlen
        pos = start + header.compressed_page_size
        yield header, hlen, start - hlen, buf[start:pos], ordinal, None
        if header.type in data_pages:
            ordinal += 1


def decode_pages(raw_pages: Iterable[RawPage], codec_id: int, num_values: int | None, *, verify_crc: bool = True,
                 base_offset: int = 0, crypto: ChunkDecryption = PLAINTEXT,
                 limits: PageLimits = DEFAULT_LIMITS) -> Iterator[Page]:
    """The dictionary and data pages of a :func:`walk_pages` walk, until they hold the
    chunk's *num_values* values (levels, nulls included): bodies decrypted, CRCs checked,
    decompressed (each data page's value count checked against *limits* first).  ``num_values=None``: every page given, no count to reach (one page
    read by its offset index entry).

    The walk is pulled only while values are missing, so padding after the last page is
    never parsed.  Each body goes through *crypto* first (decrypting authenticates it),
    then its CRC, which covers the page as stored (encrypted bytes, as parquet-java and
    parquet-cpp write it), is checked, so that an altered GCM page reports as such.

    Raises
    ------
    ParquetFormatError
        A data page holds more values than the chunk has left, or the pages end before
        the chunk's values do.
    """
    codec = get_codec(codec_id).page_decompressor()
    plain = codec_id == CompressionCodec.UNCOMPRESSED
    page_body = None if crypto is PLAINTEXT else crypto.page_body   # plaintext: bodies as stored
    expected = num_values
    if num_values is None:
        num_values = 1 << 62
    seen = counted = 0
    walk = iter(raw_pages)
    while seen < num_values:
        raw = next(walk, None)
        if raw is None:
            break
        header, hlen, pos, stored, ordinal, is_dict = raw
        try:
            _check_required_fields(header)
            if header.type not in _KNOWN_PAGES:
                if verify_crc:
                    _verify_crc(header, stored)
                continue   # INDEX_PAGE or a page type from a later spec: skip it
            body = stored if page_body is None else page_body(stored, is_dict, ordinal)
            if verify_crc and header.crc is not None:
                _verify_crc(header, stored)
            page = _make_page(header, body, codec, plain, ordinal, base_offset + pos, limits)
        except ParquetError as exc:
            add_page_context(exc, ordinal, base_offset + pos)
            raise
        if type(page) is not DictionaryPage:
            if page.num_values > num_values - seen:
                raise _overfull(page, num_values, seen, counted, base_offset + pos + hlen + len(stored))
            seen += page.num_values
            counted += 1
        yield page
    if expected is not None and seen < expected:
        raise ParquetFormatError(
            f"column chunk ends after {seen} values; its metadata promises {expected}")


def iter_pages(chunk: bytes | memoryview, codec_id: int, num_values: int, *,
               verify_crc: bool = True, base_offset: int = 0, crypto: ChunkDecryption = PLAINTEXT,
               dictionary_first: bool = False, limits: PageLimits = DEFAULT_LIMITS,
               shared: bool = False) -> Iterator[Page]:
    """Yield the dictionary and data pages of one column chunk held in memory.

    Parameters
    ----------
    chunk:
        The chunk's bytes, from its first page to its end.
    codec_id:
        ``ColumnMetaData.codec``.
    num_values:
        ``ColumnMetaData.num_values``: iteration stops once this many values
        (levels, nulls included) have been seen, so trailing padding is ignored.
    verify_crc:
        Check ``PageHeader.crc`` when present.
    base_offset:
        File offset of ``chunk[0]``, used in error notes.
    crypto:
        The chunk's :class:`~parquet_core.encryption.context.ChunkDecryption`
        (:data:`~parquet_core.encryption.context.PLAINTEXT` for a plaintext chunk).
    dictionary_first:
        The metadata says the chunk starts with a dictionary page (an encrypted
        chunk needs it to authenticate its first header).
    limits:
        The :class:`~parquet_core.page.limits.PageLimits` of the chunk.
    shared:
        The caller holds every page until the whole chunk is decoded: a plaintext
        chunk's data pages may then be decompressed side by side into one block
        (:meth:`~parquet_core.compression.codecs._SnappyPages.decompress_page`),
        which a page-by-page consumer must not ask for (a page it drops would stay
        held by the block).

    Raises
    ------
    ParquetFormatError
        On a malformed header, an impossible size or a CRC mismatch; the
        exception carries a note with the page ordinal and file offset.
    """
    buf = _as_bytes(chunk)
    if crypto is PLAINTEXT and num_values is not None:
        yield from _plain_pages(buf, codec_id, num_values, verify_crc, base_offset, limits, shared)
        return
    yield from decode_pages(walk_pages(buf, len(buf), crypto=crypto, base_offset=base_offset,
                                       dictionary_first=dictionary_first, statistics=False, limits=limits),
                            codec_id, num_values, verify_crc=verify_crc, base_offset=base_offset,
                            crypto=crypto, limits=limits)


def _overfull(page: Page, num_values: int, seen: int, counted: int, offset: int) -> ParquetFormatError:
    """The error for a data page declaring more values than its chunk has left."""
    err = ParquetFormatError(f"page holds {page.num_values} values but the column chunk has only "
                             f"{num_values - seen} left of {num_values}")
    add_page_context(err, counted, offset)
    return err


def _plain_pages(buf: memoryview, codec_id: int, num_values: int, verify_crc: bool,
                 base_offset: int, limits: PageLimits, shared: bool = False) -> Iterator[Page]:
    """:func:`iter_pages` of a plaintext chunk: :func:`walk_pages` and :func:`decode_pages`
    written out as one loop (one generator per page instead of two, no raw page
    tuples), with the same checks in the same order and the same error notes.
    Small-page files pay this loop once per page.  *shared*: the data pages may be
    decompressed side by side into blocks shared by the chunk's pages (the caller
    holds every page until the chunk is decoded, so nothing is held longer)."""
    headers = _header_parser(False)
    codec = get_codec(codec_id).page_decompressor()
    plain = codec_id == CompressionCodec.UNCOMPRESSED
    length = len(buf)
    pos = ordinal = seen = counted = 0
    known, data_pages = _KNOWN_PAGES, _DATA_PAGES
    while seen < num_values and pos < length:
        try:
            header, hlen = headers(buf, pos)
            _check_sizes(header, pos, hlen, length, limits)
        except ParquetError as exc:
            add_page_context(exc, ordinal, base_offset + pos)
            raise
        start = pos + hlen
        end = start + header.compressed_page_size
        stored = buf[start:end]
        try:
            _check_required_fields(header)
            if header.type not in known:
                if verify_crc:
                    _verify_crc(header, stored)
                pos = end
                continue   # INDEX_PAGE or a page type from a later spec: skip it
            if verify_crc and header.crc is not None:
                _verify_crc(header, stored)
            page = _make_page(header, stored, codec, plain, ordinal, base_offset + pos, limits,
                              length - end if shared else -1)
        except ParquetError as exc:
            add_page_context(exc, ordinal, base_offset + pos)
            raise
        if type(page) is not DictionaryPage:
            if page.num_values > num_values - seen:
                raise _overfull(page, num_values, seen, counted, base_offset + end)
            seen += page.num_values
            counted += 1
        pos = end
        if header.type in data_pages:
            ordinal += 1
        yield page
    if seen < num_values:
        raise ParquetFormatError(
            f"column chunk ends after {seen} values; its metadata promises {num_values}")


def few_plain_pages(buf: memoryview, codec: Any, plain: bool, num_values: int, verify_crc: bool,
                    base_offset: int, limits: PageLimits, most: int = 2) -> list[Page] | None:
    """The pages :func:`iter_pages` gives for a plaintext chunk that holds at most *most*
    pages, as a list, with the same checks in the same order (errors carry no page note:
    the caller reads a failing chunk again through :func:`iter_pages`, which names it);
    None for a chunk of more pages or one holding a page type the walk skips (INDEX_PAGE,
    later types): the caller reads it through :func:`iter_pages`.

    *codec* is ``get_codec(codec_id).page_decompressor()`` (*plain*: the codec is
    UNCOMPRESSED), made once by the caller for all the chunks of a file.  For the
    light read of small files, whose chunks are a dictionary page and one data page:
    a list instead of a generator and its ``islice``, and no per-chunk codec lookup."""
    headers = _header_parser(False)
    length = len(buf)
    pos = seen = ordinal = 0
    out: list[Page] = []
    while seen < num_values and pos < length:
        if len(out) == most:
            return None
        header, hlen = headers(buf, pos)
        _check_sizes(header, pos, hlen, length, limits)
        end = pos + hlen + header.compressed_page_size
        stored = buf[pos + hlen:end]
        _check_required_fields(header)
        ptype = header.type
        if ptype not in _KNOWN_PAGES:
            return None
        if verify_crc and header.crc is not None:
            _verify_crc(header, stored)
        page: Page
        if ptype == PageType.DATA_PAGE:
            # _make_page's v1 branch written out (the page of every chunk of small files)
            h = header.data_page_header
            if h is None or h.num_values is None or h.num_values < 0:
                raise ParquetFormatError("data page without a valid header")
            limits.check_count(h.num_values)
            usize = header.uncompressed_page_size
            if plain:
                if len(stored) != usize:
                    raise ParquetFormatError(
                        f"uncompressed page body is {len(stored)} bytes, header says {usize}")
                body: Any = stored
            else:
                body = codec.decompress(stored, usize)
            page = DataPageV1(h.num_values, h.encoding, h.definition_level_encoding,
                              h.repetition_level_encoding, body, ordinal, base_offset + pos)
        elif ptype == PageType.DICTIONARY_PAGE:
            # _make_page's dictionary branch written out (the first page of those chunks)
            d = header.dictionary_page_header
            if d is None or d.num_values is None or d.num_values < 0:
                raise ParquetFormatError("dictionary page without a valid header")
            usize = header.uncompressed_page_size
            if plain:
                if len(stored) != usize:
                    raise ParquetFormatError(
                        f"uncompressed page body is {len(stored)} bytes, header says {usize}")
                body = stored
            else:
                body = codec.decompress(stored, usize)
            page = DictionaryPage(d.num_values, d.encoding, body, ordinal, base_offset + pos)
        else:
            page = _make_page(header, stored, codec, plain, ordinal, base_offset + pos, limits)
        if ptype != PageType.DICTIONARY_PAGE:
            if page.num_values > num_values - seen:
                raise _overfull(page, num_values, seen, ordinal, base_offset + end)
            seen += page.num_values
            ordinal += 1
        pos = end
        out.append(page)
    if seen < num_values:
        raise ParquetFormatError(
            f"column chunk ends after {seen} values; its metadata promises {num_values}")
    return out


def read_page(buf: bytes | memoryview, codec_id: int, *, ordinal: int = 0, verify_crc: bool = True,
              base_offset: int = 0, crypto: ChunkDecryption = PLAINTEXT,
              chunk_start: bool = False, limits: PageLimits = DEFAULT_LIMITS) -> Page | None:
    """Decode the one page that *buf* begins with (a page located through the offset index).

    Returns None for a page type this reader skips (INDEX_PAGE, future types).
    *ordinal* is the data page ordinal of the page (its position in the offset
    index; an encrypted page's AAD holds it), and ``chunk_start=True`` reads the
    chunk's first page (a dictionary page, or data page 0).
    """
    view = _as_bytes(buf)
    if not len(view):
        raise ParquetFormatError(f"no page at file offset {base_offset}: 0 bytes")
    walk = walk_pages(view, len(view), crypto=crypto, base_offset=base_offset, first_ordinal=ordinal,
                      dictionary_first=True if chunk_start else None, statistics=False, limits=limits)
    first = next(walk)   # the buffer is not empty: a page, or an error
    return next(decode_pages((first,), codec_id, None, verify_crc=verify_crc, base_offset=base_offset,
                             crypto=crypto, limits=limits), None)


def _make_page(header: Any, stored: memoryview, codec: Any, plain: bool, ordinal: int,
               offset: int, limits: PageLimits = DEFAULT_LIMITS, left: int = -1) -> Page:
    """The page of a known type (the callers skip INDEX_PAGE and future types first);
    *left*: see :func:`_decompress` (data pages only)."""
    ptype = header.type
    if ptype == PageType.DICTIONARY_PAGE:
        h = header.dictionary_page_header
        if h is None or h.num_values is None or h.num_values < 0:
            raise ParquetFormatError("dictionary page without a valid header")
        body = _decompress(codec, stored, header.uncompressed_page_size, plain)
        return DictionaryPage(h.num_values, h.encoding, body, ordinal, offset)
    if ptype == PageType.DATA_PAGE:
        h = header.data_page_header
        if h is None or h.num_values is None or h.num_values < 0:
            raise ParquetFormatError("data page without a valid header")
        limits.check_count(h.num_values)
        body = _decompress(codec, stored, header.uncompressed_page_size, plain, left, h.encoding)
        return DataPageV1(h.num_values, h.encoding, h.definition_level_encoding,
                          h.repetition_level_encoding, body, ordinal, offset)
    if ptype == PageType.DATA_PAGE_V2:
        h = header.data_page_header_v2
        if h is None or h.num_values is None or h.num_values < 0:
            raise ParquetFormatError("v2 data page without a valid header")
        limits.check_count(h.num_values)
        return _v2_page(header, stored, codec, plain, ordinal, offset, left)
    raise ParquetFormatError(f"page type {ptype} is not a dictionary or data page")


class PageHeaderInfo(NamedTuple):
    """One page as :meth:`ParquetFile.page_headers` lists it.

    The typed properties (``page_type``, ``encoding``, ``num_values``...) give
    enum members by their spec names; ``header`` keeps the raw thrift struct
    for tools that need a field the properties do not expose.
    """

    header: Any          # the thrift PageHeader (raw)
    header_size: int
    offset: int          # in the file
    stored: memoryview   # the page's bytes as stored (compressed, encrypted)
    statistics: Any = None   # the header's statistics, decoded (a Statistics), or None

    @property
    def page_type(self) -> str:
        """``"DATA_PAGE"``, ``"DATA_PAGE_V2"``, ``"DICTIONARY_PAGE"``, ``"INDEX_PAGE"`` or ``UNKNOWN(n)``."""
        return enum_name(pt.PageType, self.header.type) or "UNKNOWN(None)"

    @property
    def compressed_page_size(self) -> int:
        """Bytes of the page body as stored (the header not included)."""
        return int(self.header.compressed_page_size)

    @property
    def uncompressed_page_size(self) -> int:
        """Bytes of the page body once decompressed."""
        return int(self.header.uncompressed_page_size)

    @property
    def crc(self) -> int | None:
        """The header's CRC-32 of the stored body (unsigned), or None."""
        c = self.header.crc
        return None if c is None else c & 0xFFFFFFFF

    def _sub(self) -> Any:
        h = self.header
        return h.data_page_header or h.data_page_header_v2 or h.dictionary_page_header

    @property
    def num_values(self) -> int | None:
        """Values (level slots for a data page, entries for a dictionary page)."""
        sub = self._sub()
        return None if sub is None else sub.num_values

    @property
    def encoding(self) -> str | None:
        """The values' encoding name (``"PLAIN"``, ``"RLE_DICTIONARY"``...)."""
        sub = self._sub()
        return None if sub is None else enum_name(pt.Encoding, sub.encoding)

    @property
    def num_rows(self) -> int | None:
        """Rows of a v2 data page (v1 headers do not say)."""
        v2 = self.header.data_page_header_v2
        return None if v2 is None else v2.num_rows

    @property
    def num_nulls(self) -> int | None:
        """Nulls of a v2 data page (v1 headers do not say)."""
        v2 = self.header.data_page_header_v2
        return None if v2 is None else v2.num_nulls

    def to_dict(self) -> dict[str, Any]:
        """The header as plain Python: offset, sizes, type and the page-kind header, enum names."""
        out: dict[str, Any] = {"offset": self.offset, "header_size": self.header_size,
                               "page_type": self.page_type}
        fields = thrift_to_dict(self.header)
        fields.pop("type", None)
        if "crc" in fields:
            fields["crc"] = self.crc
        out.update(fields)
        st = self.statistics
        if st is not None:
            out["decoded_statistics"] = st.to_dict()
        return out

    def __repr__(self) -> str:
        extra = f" encoding={self.encoding}" if self.encoding else ""
        return (f"<PageHeader {self.page_type} at {self.offset}: values={self.num_values}{extra} "
                f"size={self.compressed_page_size}/{self.uncompressed_page_size}>")


def iter_page_headers(chunk: bytes | memoryview, num_values: int, *, crypto: ChunkDecryption = PLAINTEXT,
                      dictionary_first: bool = False,
                      base_offset: int = 0) -> Iterator[tuple[Any, int, int, memoryview]]:
    """Yield ``(PageHeader, header length, offset in chunk, stored page bytes)`` per page.

    Headers only (:func:`walk_pages`): page bodies are neither decrypted nor
    decompressed (the stored bytes are what a CRC covers). For inspection
    tools; readers use :func:`iter_pages`. Stops after *num_values* values, as
    readers do.
    """
    buf = _as_bytes(chunk)
    walk = walk_pages(buf, len(buf), crypto=crypto, base_offset=base_offset, dictionary_first=dictionary_first)
    seen = 0
    while seen < num_values:   # checked before the next header is read: padding is never parsed
        item = next(walk, None)
        if item is None:
            return
        header, hlen, pos, stored, _, _ = item
        yield header, hlen, pos, stored
        if header.type in _DATA_PAGES:
            dph = header.data_page_header or header.data_page_header_v2
            seen += (dph.num_values or 0) if dph is not None else 0
