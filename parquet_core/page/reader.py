"""Walk the pages of one column chunk: header, CRC, decompression.

:func:`iter_pages` takes the chunk's bytes (one positional read done by
``file/``) and yields :mod:`parquet_core.page.model` pages whose bodies are
plaintext.  Page types this reader does not use (INDEX_PAGE, or a type id
from a future spec) are skipped using their ``compressed_page_size``.

The page CRC (``PageHeader.crc``) is the standard CRC-32 (zlib's, the
polynomial of gzip) over the page's bytes *as stored*, i.e. after
compression; for v2 pages that includes the uncompressed levels.
"""

from __future__ import annotations

import io
import zlib
from typing import Any, Iterable, Iterator, NamedTuple

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
from parquet_core.encryption.modules import ModuleType
from parquet_core.errors import ParquetEncryptionError, ParquetError, ParquetFormatError
from parquet_core.page.model import DataPageV1, DataPageV2, DictionaryPage, Page
from parquet_core.metadata.thrift_dict import enum_name, thrift_to_dict
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse

__all__ = ["PageHeaderInfo", "chunk_pages", "iter_page_headers", "iter_pages", "read_page"]

#: A page claiming a larger decompressed size than this is treated as corrupt.
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
    else (a header near the chunk's end, one larger than the window, any
    decoding error, no C decoder) goes through :func:`_parse_header`, which
    decides and reports.
    """

    __slots__ = ("trans", "proto")

    def __init__(self) -> None:
        self.trans: Any = None
        self.proto: Any = None
        if _FAST_HEADERS:
            trans = TMemoryBuffer()
            if isinstance(getattr(trans, "_buffer", None), io.BytesIO):
                self.trans = trans
                self.proto = TCompactProtocolAccelerated(
                    trans, string_length_limit=_HEADER_WINDOW, container_length_limit=_HEADER_WINDOW,
                    fallback=False)

    def __call__(self, buf: memoryview, pos: int) -> tuple[Any, int]:
        trans = self.trans
        if trans is None or len(buf) - pos < _HEADER_WINDOW:
            return _parse_header(buf, pos)
        window = io.BytesIO(buf[pos:pos + _HEADER_WINDOW].tobytes())
        trans._buffer = window
        header = pt.PageHeader()
        try:
            header.read(self.proto)
        except Exception:  # noqa: BLE001 - the general parse raises the proper error
            return _parse_header(buf, pos)
        return header, window.tell()


def _check_sizes(header: Any, pos: int, hlen: int, avail: int) -> None:
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


def _verify_crc(header: Any, stored: memoryview) -> None:
    if header.crc is None:
        return
    actual = zlib.crc32(stored) & 0xFFFFFFFF
    if actual != header.crc & 0xFFFFFFFF:
        raise ParquetFormatError(
            f"page CRC mismatch: header says {header.crc & 0xFFFFFFFF:#010x}, "
            f"bytes give {actual:#010x}")


def _decompress(codec: Any, data: memoryview, usize: int, is_plain: bool) -> bytes | memoryview:
    if is_plain:
        if len(data) != usize:
            raise ParquetFormatError(
                f"uncompressed page body is {len(data)} bytes, header says {usize}")
        return data
    return codec.decompress(data, usize)


def _v2_page(header: Any, stored: memoryview, codec: Any, plain: bool, ordinal: int,
             offset: int) -> DataPageV2:
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
        values = codec.decompress(body, usize) if usize or len(body) else b""
    else:
        values = _decompress(codec, body, usize, True)
    return DataPageV2(num_values=h.num_values, num_nulls=h.num_nulls or 0, num_rows=h.num_rows,
                      encoding=h.encoding, repetition_levels=stored[:rl],
                      definition_levels=stored[rl:rl + dl], values=values,
                      ordinal=ordinal, offset=offset)


def iter_pages(chunk: bytes | memoryview, codec_id: int, num_values: int, *,
               verify_crc: bool = True, base_offset: int = 0, decryptor: Any = None,
               dictionary_first: bool = False) -> Iterator[Page]:
    """Yield the dictionary and data pages of one column chunk.

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
    decryptor:
        The chunk's :class:`~parquet_core.file.decryptor.ColumnDecryptor` when
        it is encrypted (see :func:`_parse_encrypted_page`).
    dictionary_first:
        For an encrypted chunk: the metadata says it starts with a dictionary page.

    Raises
    ------
    ParquetFormatError
        On a malformed header, an impossible size or a CRC mismatch; the
        exception carries a note with the page ordinal and file offset.
    """
    buf = memoryview(chunk)
    if buf.itemsize != 1 or buf.ndim != 1:
        buf = buf.cast("B")
    codec = get_codec(codec_id)
    plain = codec_id == CompressionCodec.UNCOMPRESSED
    headers = _HeaderParser()

    def parsed() -> Iterator[tuple[Page | None, int]]:
        pos = ordinal = 0
        while pos < len(buf):
            if decryptor is None:
                page, size = _parse_page(buf, pos, codec, plain, ordinal, base_offset, verify_crc, headers)
            else:
                page, size = _parse_encrypted_page(buf, pos, codec, plain, ordinal, base_offset, verify_crc,
                                                   decryptor, dictionary_first if pos == 0 else None)
            pos += size
            if page is not None and not isinstance(page, DictionaryPage):
                ordinal += 1
            yield page, base_offset + pos

    yield from chunk_pages(parsed(), num_values)


def chunk_pages(parsed: Iterable[tuple[Page | None, int]], num_values: int) -> Iterator[Page]:
    """The pages of one chunk, until they hold its ``num_values`` values (levels, nulls included).

    *parsed* gives each page (None: one to skip, such as an index page) with the file
    offset just past it.  It is pulled only while values are missing, so padding after
    the last page is never parsed.  Shared by every walk over a chunk's pages (whole
    chunk in memory, or read ahead window by window).

    Raises
    ------
    ParquetFormatError
        A data page holds more values than the chunk has left, or the pages end before
        the chunk's values do.
    """
    seen = ordinal = 0
    it = iter(parsed)
    while seen < num_values:
        item = next(it, None)
        if item is None:
            break
        page, after = item
        if page is None:
            continue
        if not isinstance(page, DictionaryPage):
            if page.num_values > num_values - seen:
                err = ParquetFormatError(
                    f"page holds {page.num_values} values but the column chunk has only "
                    f"{num_values - seen} left of {num_values}")
                err.add_note(f"at page {ordinal} (file offset {after})")
                raise err
            seen += page.num_values
            ordinal += 1
        yield page
    if seen < num_values:
        raise ParquetFormatError(
            f"column chunk ends after {seen} values; its metadata promises {num_values}")


def _parse_page(buf: memoryview, pos: int, codec: Any, plain: bool, ordinal: int, base_offset: int,
                verify_crc: bool, headers: Any = _parse_header) -> tuple[Page | None, int]:
    """The page whose header starts at *pos*, and its size with the header."""
    try:
        header, hlen = headers(buf, pos)
        _check_required_fields(header)
        _check_sizes(header, pos, hlen, len(buf))
        stored = buf[pos + hlen: pos + hlen + header.compressed_page_size]
        if verify_crc:
            _verify_crc(header, stored)
        page = _make_page(header, stored, codec, plain, ordinal, base_offset + pos)
    except ParquetError as exc:
        exc.add_note(f"at page {ordinal} (file offset {base_offset + pos})")
        raise
    return page, hlen + header.compressed_page_size


def read_page(buf: bytes | memoryview, codec_id: int, *, ordinal: int = 0, verify_crc: bool = True,
              base_offset: int = 0, decryptor: Any = None, chunk_start: bool = False) -> Page | None:
    """Decode the one page that *buf* begins with (a page located through the offset index).

    Returns None for a page type this reader skips (INDEX_PAGE, future types).
    For an encrypted chunk, *ordinal* is the data page ordinal of the page
    (its position in the offset index), and ``chunk_start=True`` reads the
    chunk's first page (a dictionary page, or data page 0).
    """
    codec, plain = get_codec(codec_id), codec_id == CompressionCodec.UNCOMPRESSED
    if decryptor is None:
        page, _ = _parse_page(memoryview(buf), 0, codec, plain, ordinal, base_offset, verify_crc)
    else:
        page, _ = _parse_encrypted_page(memoryview(buf), 0, codec, plain, ordinal, base_offset, verify_crc,
                                        decryptor, True if chunk_start else None)
    return page


def _decrypt_header(buf: memoryview, pos: int, ordinal: int, decryptor: Any,
                    at_start: bool | None) -> tuple[Any, int, bool]:
    """Decrypt and parse the page header at *pos*: (header, stored length, is the dictionary's).

    A dictionary page header's AAD has no page ordinal, a data page header's
    has the data page ordinal; the module type is part of the AAD, so it must
    be known before decrypting. Only a chunk's first page can be either:
    *at_start* is then the metadata's hint (True: dictionary first), the
    other kind being tried when the hint fails authentication.
    """
    kinds = [False] if at_start is None else [at_start, not at_start]
    first_error = None
    for is_dict in kinds:
        try:
            if is_dict:
                plain, used = decryptor.decrypt(buf[pos:], ModuleType.DICTIONARY_PAGE_HEADER,
                                                where="dictionary page header")
            else:
                plain, used = decryptor.decrypt(buf[pos:], ModuleType.DATA_PAGE_HEADER, ordinal,
                                                where=f"header of data page {ordinal}")
        except ParquetError as exc:
            first_error = first_error or exc
            continue
        header, _ = parse(plain, pt.PageHeader)
        if (header.type == PageType.DICTIONARY_PAGE) != is_dict:
            raise ParquetFormatError(f"decrypted page header has page type {header.type}, "
                                     f"but was encrypted as a {'dictionary' if is_dict else 'data'} page header")
        return header, used, is_dict
    assert first_error is not None
    raise first_error


def _parse_encrypted_page(buf: memoryview, pos: int, codec: Any, plain: bool, ordinal: int, base_offset: int,
                          verify_crc: bool, decryptor: Any, at_start: bool | None) -> tuple[Page | None, int]:
    """:func:`_parse_page` for an encrypted chunk.

    Each page is two modules: the encrypted header, then the encrypted page
    (``compressed_page_size`` counts the whole stored module). The CRC, like
    the size, is over the page as stored, i.e. the encrypted bytes (as
    parquet-java and parquet-cpp write it); the decrypted body is what gets
    decompressed.
    """
    try:
        header, hlen, is_dict = _decrypt_header(buf, pos, ordinal, decryptor, at_start)
        _check_required_fields(header)
        _check_sizes(header, pos, hlen, len(buf))
        stored = buf[pos + hlen: pos + hlen + header.compressed_page_size]
        if header.type not in (PageType.DICTIONARY_PAGE, PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
            return None, hlen + header.compressed_page_size
        if is_dict:
            body, used = decryptor.decrypt(stored, ModuleType.DICTIONARY_PAGE, where="dictionary page")
        else:
            body, used = decryptor.decrypt(stored, ModuleType.DATA_PAGE, ordinal, where=f"data page {ordinal}")
        if used != len(stored):
            raise ParquetEncryptionError(f"encrypted page module is {used} bytes, its header says {len(stored)}")
        if verify_crc:   # after authentication, so that an altered GCM page reports as such
            _verify_crc(header, stored)
        page = _make_page(header, memoryview(body), codec, plain, ordinal, base_offset + pos)
    except ParquetError as exc:
        exc.add_note(f"at page {ordinal} (file offset {base_offset + pos})")
        raise
    return page, hlen + header.compressed_page_size


def _make_page(header: Any, stored: memoryview, codec: Any, plain: bool, ordinal: int,
               offset: int) -> Page | None:
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
        body = _decompress(codec, stored, header.uncompressed_page_size, plain)
        return DataPageV1(h.num_values, h.encoding, h.definition_level_encoding,
                          h.repetition_level_encoding, body, ordinal, offset)
    if ptype == PageType.DATA_PAGE_V2:
        h = header.data_page_header_v2
        if h is None or h.num_values is None or h.num_values < 0:
            raise ParquetFormatError("v2 data page without a valid header")
        return _v2_page(header, stored, codec, plain, ordinal, offset)
    return None  # INDEX_PAGE or a page type from a later spec: skip it


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


def iter_page_headers(chunk: bytes | memoryview, num_values: int, *, decryptor: Any = None,
                      dictionary_first: bool = False) -> Iterator[tuple[Any, int, int, memoryview]]:
    """Yield ``(PageHeader, header length, offset in chunk, stored page bytes)`` per page.

    Headers only: page bodies are neither decrypted nor decompressed (the
    stored bytes are what a CRC covers). For inspection tools; readers use
    :func:`iter_pages`. Stops after *num_values* values, as readers do.
    """
    buf = memoryview(chunk)
    pos = seen = ordinal = 0
    while pos < len(buf) and seen < num_values:
        try:
            if decryptor is None:
                header, hlen = parse(buf, pt.PageHeader, offset=pos)
            else:
                header, hlen, _ = _decrypt_header(buf, pos, ordinal, decryptor,
                                                  dictionary_first if pos == 0 else None)
            _check_sizes(header, pos, hlen, len(buf))
        except ParquetError as exc:
            exc.add_note(f"at page {ordinal} (offset {pos} in the column chunk)")
            raise
        yield header, hlen, pos, buf[pos + hlen: pos + hlen + header.compressed_page_size]
        pos += hlen + header.compressed_page_size
        if header.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
            dph = header.data_page_header or header.data_page_header_v2
            seen += (dph.num_values or 0) if dph is not None else 0
            ordinal += 1
