"""Page rules: every page header of every column chunk, against the chunk's metadata.

Spec: README.md "Column chunks", "Data Pages", "Checksumming";
parquet.thrift ``PageHeader``, ``ColumnMetaData.encodings`` /
``encoding_stats``; Encodings.md (which encodings fit which types).
Page bodies are not decompressed here (that is the data level).
"""

from __future__ import annotations

import zlib
from collections import Counter
from typing import Any

from parquet_core.constants import Encoding as E
from parquet_core.constants import PageType, enum_name
from parquet_core.constants import PhysicalType as P
from parquet_core.encryption.context import chunk_decryption
from parquet_core.errors import ParquetEncryptionError, ParquetError
from parquet_core.metadata.compat import chunk_length_padding
from parquet_core.page.reader import iter_page_headers
from parquet_core.validation.context import Checker, ChunkState, PageInfo
from parquet_core.validation.rules import ERROR, INFO, WARNING, rule

__all__ = ["check_pages"]

_CC = "README.md#column-chunks"
HEADER = rule("pages.header", ERROR, "parquet.thrift PageHeader",
              "every page header decodes, has its required fields and sizes, and its page fits in the chunk")
CRC = rule("pages.crc", ERROR, "README.md#checksumming", "a page's crc, when set, is the CRC-32 of the page as stored")
NUM_VALUES = rule("pages.num-values", ERROR, "parquet.thrift ColumnMetaData.num_values",
                  "the data pages' num_values add up to the chunk's num_values")
COMPRESSED = rule("pages.total-compressed-size", ERROR, "parquet.thrift ColumnMetaData.total_compressed_size",
                  "total_compressed_size equals the chunk's pages with their headers, as stored")
UNCOMPRESSED = rule("pages.total-uncompressed-size", ERROR, "parquet.thrift ColumnMetaData.total_uncompressed_size",
                    "total_uncompressed_size equals the chunk's pages with their headers, uncompressed")
DICT_POSITION = rule("pages.dictionary-position", ERROR, _CC,
                     "a chunk has at most one dictionary page, and it comes first")
DICT_OFFSET = rule("pages.dictionary-page-offset", ERROR, "parquet.thrift ColumnMetaData.dictionary_page_offset",
                   "dictionary_page_offset, when set, points at the chunk's dictionary page")
DICT_OFFSET_UNSET = rule("pages.dictionary-page-offset-unset", WARNING, "parquet.thrift ColumnMetaData.dictionary_page_offset",
                         "a chunk with a dictionary page records dictionary_page_offset")
DATA_OFFSET = rule("pages.data-page-offset", ERROR, "parquet.thrift ColumnMetaData.data_page_offset",
                   "data_page_offset is the offset of the chunk's first data page")
ENC_LISTED = rule("pages.encoding-not-listed", WARNING, "parquet.thrift ColumnMetaData.encodings",
                  "every encoding a page uses is listed in ColumnMetaData.encodings")
ENC_STATS = rule("pages.encoding-stats", WARNING, "parquet.thrift ColumnMetaData.encoding_stats",
                 "encoding_stats counts the chunk's pages by type and encoding exactly (v2 pages may be counted as DATA_PAGE)")
DICT_ONLY = rule("pages.dictionary-only-claim", ERROR, "parquet.thrift ColumnMetaData.encoding_stats",
                 "when encoding_stats (or, without them, encodings) say every data page is dictionary-encoded, "
                 "none is not (else dictionary pruning drops rows)")
ENC_TYPE = rule("pages.encoding-type", ERROR, "Encodings.md",
                "a page's value encoding is defined for the column's physical type")
DICT_ENCODING = rule("pages.dictionary-encoding", ERROR, "Encodings.md#dictionary-encoding-plain_dictionary--2-and-rle_dictionary--8",
                     "a dictionary page is PLAIN (or the deprecated PLAIN_DICTIONARY) encoded")
DICT_MISSING = rule("pages.dictionary-missing", ERROR, "Encodings.md#dictionary-encoding-plain_dictionary--2-and-rle_dictionary--8",
                    "a chunk with dictionary-encoded data pages has a dictionary page")
LEVEL_ENCODING = rule("pages.level-encoding", ERROR, "Encodings.md",
                      "v1 level encodings are RLE or the deprecated BIT_PACKED")
BIT_PACKED = rule("pages.bit-packed-levels", WARNING, "Encodings.md#bit-packed-deprecated-bit_packed--4",
                  "levels in the deprecated BIT_PACKED encoding")
V2_COUNTS = rule("pages.v2-counts", ERROR, "parquet.thrift DataPageHeaderV2",
                 "a v2 header has num_nulls <= num_values, num_rows <= num_values and level lengths inside the page")
V2_ROWS = rule("pages.v2-num-rows", ERROR, "parquet.thrift DataPageHeaderV2.num_rows",
              "a chunk of v2 data pages: their num_rows add up to the row group's num_rows (each page's own "
              "num_rows is checked against its levels at the data level)")
EMPTY_PAGE = rule("pages.empty-data-page", INFO, "parquet.thrift DataPageHeader.num_values",
                  "data pages with num_values 0: legal, they hold nothing (counted once per chunk)")
PAGE_TYPE = rule("pages.unknown-type", WARNING, "parquet.thrift PageType",
                 "pages of a type readers skip (INDEX_PAGE, unknown types) inside a column chunk")

_DICT = (E.PLAIN_DICTIONARY, E.RLE_DICTIONARY)
_ALLOWED = {
    E.PLAIN: None, E.PLAIN_DICTIONARY: None, E.RLE_DICTIONARY: None,
    E.RLE: {P.BOOLEAN},
    E.DELTA_BINARY_PACKED: {P.INT32, P.INT64},
    E.DELTA_LENGTH_BYTE_ARRAY: {P.BYTE_ARRAY},
    E.DELTA_BYTE_ARRAY: {P.BYTE_ARRAY, P.FIXED_LEN_BYTE_ARRAY},
    E.BYTE_STREAM_SPLIT: {P.FLOAT, P.DOUBLE, P.INT32, P.INT64, P.FIXED_LEN_BYTE_ARRAY},
    E.BIT_PACKED: set(),
}


def _enc(v: Any) -> str:
    return enum_name(E, v) or "no encoding"


def check_pages(ck: Checker) -> None:
    """Walk the pages of every usable chunk."""
    for ch in ck.iter_chunks():
        with ck.guard(HEADER, row_group=ch.rg, column=ch.path, offset=ch.start):
            _walk(ck, ch)
        if ch.pages_ok:
            with ck.guard(HEADER, row_group=ch.rg, column=ch.path, offset=ch.start):
                _check_chunk(ck, ch)


def _walk(ck: Checker, ch: ChunkState) -> None:
    start, claimed = ch.start, ch.length
    length = claimed
    pad = chunk_length_padding(ck.writer) if ck.writer is not None else 0
    if pad:   # PARQUET-816: the chunk may run a little past its recorded size
        length = max(claimed, min(claimed + pad, ck.footer_start - start))
    buf = ck.source.read_at(start, length)
    if ck.deeper("data"):
        ch.buf = buf
    data = seen = 0
    pages = iter_page_headers(buf, 1 << 62, crypto=chunk_decryption(ch.wrapper),
                              dictionary_first=start != ch.meta.data_page_offset, base_offset=start)
    while True:
        try:
            item = next(pages, None)
        except ParquetEncryptionError as exc:
            from parquet_core.validation.encryption import MODULE

            ck.report_chunk(MODULE, ch, str(exc), page=len(ch.pages), offset=_next_offset(ch, start))
            return
        except ParquetError as exc:
            if seen >= ch.meta.num_values:
                break   # every value found: the bytes left over are counted by the size rule
            ck.report_chunk(HEADER, ch, str(exc), page=len(ch.pages), offset=_next_offset(ch, start))
            return
        if item is None:
            break
        header, hlen, pos, stored = item
        info = PageInfo(len(ch.pages), header, hlen, start + pos, stored)
        if header.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
            info.data_ordinal = data
            data += 1
            seen += _num_values(header)
        ch.pages.append(info)
        if not _check_header(ck, ch, info):
            return
        if seen >= ch.meta.num_values and pos + hlen + len(stored) >= min(claimed, len(buf)):
            break   # readers stop here
        if seen >= ch.meta.num_values and ch.meta.num_values > 0 and pad:
            break
    ch.pages_ok = True


def _next_offset(ch: ChunkState, start: int) -> int:
    if not ch.pages:
        return start
    p = ch.pages[-1]
    return p.offset + p.header_size + len(p.stored)


def _num_values(h: Any) -> int:
    sub = h.data_page_header or h.data_page_header_v2
    return (sub.num_values or 0) if sub is not None else 0


def _check_header(ck: Checker, ch: ChunkState, p: PageInfo) -> bool:
    """Per-page rules; False when the page is too broken to go on walking."""
    h = p.header
    where = {"page": p.ordinal, "offset": p.offset}
    sub = {PageType.DATA_PAGE: "data_page_header", PageType.DATA_PAGE_V2: "data_page_header_v2",
           PageType.DICTIONARY_PAGE: "dictionary_page_header"}.get(h.type)
    if sub is None:
        ck.report_chunk(PAGE_TYPE, ch, f"page of type {h.type} (skipped by readers)", **where)
        return True
    s = getattr(h, sub)
    if s is None or s.num_values is None or s.encoding is None or s.num_values < 0:
        ck.report_chunk(HEADER, ch, f"{PageType(h.type).name} header lacks {sub} or its num_values/encoding", **where)
        return False
    if h.crc is not None:
        actual = zlib.crc32(p.stored) & 0xFFFFFFFF
        if actual != h.crc & 0xFFFFFFFF:
            ck.report_chunk(CRC, ch, f"header says crc {h.crc & 0xFFFFFFFF:#010x}, the page bytes give {actual:#010x}",
                            **where)
    ptype = ch.desc.physical_type
    if h.type == PageType.DICTIONARY_PAGE:
        if s.encoding not in (E.PLAIN, E.PLAIN_DICTIONARY):
            ck.report_chunk(DICT_ENCODING, ch, f"expected a PLAIN dictionary page, found {_enc(s.encoding)}", **where)
        if p.ordinal != 0:
            ck.report_chunk(DICT_POSITION, ch, f"dictionary page at position {p.ordinal}; expected only one, first",
                            **where)
        return True
    allowed = _ALLOWED.get(s.encoding, set())
    if allowed is not None and ptype not in allowed:
        ck.report_chunk(ENC_TYPE, ch, f"{_enc(s.encoding)} data page in a {P(ptype).name} column", **where)
    if s.encoding in _DICT and not (ch.pages and ch.pages[0].header.type == PageType.DICTIONARY_PAGE):
        ck.report_chunk(DICT_MISSING, ch, f"{_enc(s.encoding)} data page without a dictionary page", **where)
    if h.type == PageType.DATA_PAGE:
        for what, enc, level in (("definition", s.definition_level_encoding, ch.desc.max_definition_level),
                                 ("repetition", s.repetition_level_encoding, ch.desc.max_repetition_level)):
            if level == 0:
                continue
            if enc == E.BIT_PACKED:
                ck.report_chunk(BIT_PACKED, ch, f"{what} levels are BIT_PACKED", **where)
            elif enc != E.RLE:
                ck.report_chunk(LEVEL_ENCODING, ch, f"{what} levels in {_enc(enc)}; expected RLE", **where)
    else:
        rl, dl = s.repetition_levels_byte_length, s.definition_levels_byte_length
        problems = []
        if s.num_nulls is not None and not 0 <= s.num_nulls <= s.num_values:
            problems.append(f"num_nulls {s.num_nulls} of {s.num_values} values")
        if s.num_rows is not None and not 0 <= s.num_rows <= s.num_values:
            problems.append(f"num_rows {s.num_rows} of {s.num_values} values")
        if rl is None or dl is None or rl < 0 or dl < 0 or rl + dl > len(p.stored):
            problems.append(f"level lengths {rl} + {dl} for a page of {len(p.stored)} bytes")
        if problems:
            ck.report_chunk(V2_COUNTS, ch, "; ".join(problems), **where)
            return False
    return True


def _check_chunk(ck: Checker, ch: ChunkState) -> None:
    m = ch.meta
    pages = ch.pages
    data = ch.data_pages
    total = sum(_num_values(p.header) for p in data)
    if total != m.num_values:
        ck.report_chunk(NUM_VALUES, ch, f"the chunk says num_values {m.num_values}, its data pages hold {total}",
                        page=data[-1].ordinal if data else None)
    v2 = [p.header.data_page_header_v2 for p in data]
    if v2 and all(h is not None and h.num_rows is not None for h in v2):
        rows, want = sum(h.num_rows for h in v2), ck.raw.row_groups[ch.rg].num_rows
        if rows != want:
            ck.report_chunk(V2_ROWS, ch, f"the row group has {want} rows, the chunk's v2 data pages say {rows}",
                            page=data[-1].ordinal)
    comp = sum(p.header_size + p.header.compressed_page_size for p in pages)
    unc = sum(p.header_size + p.header.uncompressed_page_size for p in pages)
    if comp != m.total_compressed_size:
        from parquet_core.validation import writers

        if not writers.short_chunk_size(ck, ch, comp):
            ck.report_chunk(COMPRESSED, ch, f"total_compressed_size is {m.total_compressed_size}, the pages take {comp} bytes")
    if unc != m.total_uncompressed_size:
        from parquet_core.validation import writers

        if writers.short_chunk_size(ck, ch, unc, "total_uncompressed_size"):
            pass
        else:
            ck.report_chunk(UNCOMPRESSED, ch, f"total_uncompressed_size is {m.total_uncompressed_size}, the "
                            f"pages uncompressed take {unc} bytes")
    has_dict = bool(pages) and pages[0].header.type == PageType.DICTIONARY_PAGE
    dpo = m.dictionary_page_offset
    if has_dict and not dpo:
        ck.report_chunk(DICT_OFFSET_UNSET, ch, "the chunk starts with a dictionary page but dictionary_page_offset "
                        "is not set", page=0, offset=pages[0].offset)
    elif dpo and not (has_dict and pages[0].offset == dpo):
        ck.report_chunk(DICT_OFFSET, ch, f"dictionary_page_offset is {dpo}, but "
                        f"{'the dictionary page is at ' + str(pages[0].offset) if has_dict else 'the chunk has no dictionary page'}",
                        offset=dpo)
    legacy = has_dict and not dpo and m.data_page_offset == pages[0].offset   # old writers: reported above
    if data and data[0].offset != m.data_page_offset and not legacy:
        ck.report_chunk(DATA_OFFSET, ch, f"data_page_offset is {m.data_page_offset}, the first data page is at "
                        f"{data[0].offset}", page=data[0].ordinal, offset=data[0].offset)
    _check_encodings(ck, ch)
    empty = [p for p in data if _num_values(p.header) == 0]
    if empty:
        ck.report_chunk(EMPTY_PAGE, ch, f"{len(empty)} data page(s) without values (the first: data page "
                        f"{empty[0].data_ordinal})", page=empty[0].ordinal, offset=empty[0].offset)


def _used_encodings(ch: ChunkState) -> Counter[tuple[int, int]]:
    used: Counter[tuple[int, int]] = Counter()
    for p in ch.pages:
        h = p.header
        sub = h.data_page_header or h.data_page_header_v2 or h.dictionary_page_header
        if sub is not None and h.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2, PageType.DICTIONARY_PAGE):
            used[(h.type, sub.encoding)] += 1
    return used


def _check_encodings(ck: Checker, ch: ChunkState) -> None:
    m = ch.meta
    used = _used_encodings(ch)
    listed = set(m.encodings or [])
    for (ptype, enc) in sorted(used):
        if enc not in listed and not _dictionary_covered(ptype, enc, listed):
            page = next(p for p in ch.pages if p.header.type == ptype and _page_encoding(p) == enc)
            ck.report_chunk(ENC_LISTED, ch, f"a {PageType(ptype).name} uses {_enc(enc)}, which encodings "
                            f"{[_enc(e) for e in m.encodings or []]} does not list", page=page.ordinal, offset=page.offset)
    plain_pages = [p for p in ch.data_pages if _page_encoding(p) not in _DICT]
    if m.encoding_stats is not None:
        claimed: Counter[tuple[int, int]] = Counter()
        for st in m.encoding_stats:
            if st is None or st.page_type is None or st.encoding is None:
                continue
            t = PageType.DATA_PAGE if st.page_type == PageType.DATA_PAGE_V2 else st.page_type
            claimed[(t, st.encoding)] += st.count or 0
        norm: Counter[tuple[int, int]] = Counter()
        for (t, e), n in used.items():
            norm[(PageType.DATA_PAGE if t == PageType.DATA_PAGE_V2 else t, e)] += n
        if +claimed != +norm:
            ck.report_chunk(ENC_STATS, ch, f"encoding_stats claim {_show(claimed)}; the pages are {_show(norm)}")
        says_all_dict = not any(t == PageType.DATA_PAGE and e not in _DICT and n for (t, e), n in claimed.items())
        what = "encoding_stats"
    else:
        says_all_dict = bool(listed & set(_DICT)) and listed <= {E.PLAIN_DICTIONARY, E.RLE_DICTIONARY, E.RLE, E.BIT_PACKED}
        what = f"encodings {[_enc(e) for e in m.encodings or []]}"
    if says_all_dict and plain_pages and any(p.data_ordinal is not None for p in ch.pages):
        p = plain_pages[0]
        ck.report_chunk(DICT_ONLY, ch, f"{what} say every data page is dictionary-encoded, but "
                        f"{len(plain_pages)} are not (the first in {_enc(_page_encoding(p))})", page=p.ordinal,
                        offset=p.offset)


def _dictionary_covered(ptype: int, enc: int, listed: set[int]) -> bool:
    """A dictionary encoding in ``encodings`` covers its PLAIN dictionary page (duckdb lists only that)."""
    return ptype == PageType.DICTIONARY_PAGE and enc == E.PLAIN and bool(listed & set(_DICT))


def _page_encoding(p: PageInfo) -> int:
    h = p.header
    return (h.data_page_header or h.data_page_header_v2 or h.dictionary_page_header).encoding


def _show(c: Counter[tuple[int, int]]) -> str:
    return ", ".join(f"{n} {enum_name(PageType, t)}/{_enc(e)}"
                     for (t, e), n in sorted(c.items()) if n)
