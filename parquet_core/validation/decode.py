"""Decode every page of a chunk, page by page, for the data-level rules.

Built from the engine's own pieces (``page.reader.read_page`` for
decryption and decompression, ``column.levels`` for levels,
``encodings.decode_values`` for values), page by page rather than chunk
by chunk, so that each page's values, levels and failures are known
separately.  Dictionary indices are checked here (the reader's check
raises; here each page out of range is a finding).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core._kernels.varint import read_uleb128
from parquet_core.column.levels import level_bit_width, read_levels_v1, read_levels_v2
from parquet_core.constants import Encoding, PageType, PhysicalType
from parquet_core.encodings import decode_values
from parquet_core.encryption.context import chunk_decryption
from parquet_core.errors import ParquetEncryptionError, ParquetError, ParquetResourceError
from parquet_core.page.limits import PageLimits
from parquet_core.page.model import DataPageV1, DictionaryPage
from parquet_core.page.reader import read_page
from parquet_core.validation.context import MEMORY, Checker, ChunkState, PageInfo
from parquet_core.validation.rules import ERROR, WARNING, rule

__all__ = ["decode_chunk", "concat_values"]

BODY = rule("values.page-body", ERROR, "README.md#data-pages",
            "a page body decrypts and decompresses to uncompressed_page_size bytes")
DECODE = rule("values.decode", ERROR, "Encodings.md", "a page's levels and values decode in its encodings")
DICT_DECODE = rule("values.dictionary-decode", ERROR, "Encodings.md#dictionary-encoding-plain_dictionary--2-and-rle_dictionary--8",
                   "the dictionary page holds num_values PLAIN values")
DICT_INDEX = rule("values.dictionary-index", ERROR, "Encodings.md#dictionary-encoding-plain_dictionary--2-and-rle_dictionary--8",
                  "every dictionary index of a data page is below the dictionary's size")

DELTA_WIDTH = rule("pages.delta-bit-width", WARNING, "Encodings.md#delta-encoding-delta_binary_packed--5",
                   "INT32 DELTA_BINARY_PACKED miniblocks are at most 32 bits wide (wider ones, from deltas computed "
                   "in 64 bits, are read wrapping to 32 bits)")

V2_LEVEL_LENGTH = rule("pages.v2-level-length", WARNING, "parquet.thrift DataPageHeaderV2; Encodings.md#run-length-encoding--bit-packing-hybrid-rle--3",
                       "a v2 page's level byte lengths are exactly what its RLE levels use (readers that "
                       "decode levels as a stream, not by the stated lengths, misread padded ones)")

_DICT = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)


def rle_bytes_used(buf: Any, bit_width: int, count: int) -> int | None:
    """Bytes an RLE/bit-packed hybrid stream needs for *count* values (None: it runs out).

    Walks run headers only; the number of runs is small next to the number
    of values (one Python step per run, not per value).
    """
    pos, seen, width = 0, 0, (bit_width + 7) // 8
    while seen < count:
        if pos >= len(buf):
            return None
        header, pos = read_uleb128(buf, pos)
        if header & 1:
            groups = header >> 1
            pos += groups * bit_width
            seen += groups * 8
        else:
            pos += width
            seen += header >> 1
            if header >> 1 == 0:
                return None
        if pos > len(buf):
            return None
    return pos


def _check_v2_level_lengths(ck: Checker, ch: ChunkState, p: PageInfo, page: Any) -> None:
    d = ch.desc
    for what, stream, top in (("repetition", page.repetition_levels, d.max_repetition_level),
                              ("definition", page.definition_levels, d.max_definition_level)):
        size = len(stream)
        if top == 0:
            if size:
                ck.report_chunk(V2_LEVEL_LENGTH, ch, f"{what} levels take {size} bytes in a column whose "
                                "maximum level is 0 (0 expected)", page=p.ordinal, offset=p.offset)
            continue
        used = rle_bytes_used(memoryview(stream), level_bit_width(top), page.num_values)
        if used is not None and used < size:
            ck.report_chunk(V2_LEVEL_LENGTH, ch, f"{what}_levels_byte_length is {size} but the "
                            f"{page.num_values} levels use {used} bytes", page=p.ordinal, offset=p.offset)


def widest_miniblock(buf: Any) -> int:
    """The widest miniblock bit width a DELTA_BINARY_PACKED stream uses (headers only).

    One step per block (block headers form a chain), as the decoder walks them.
    """
    data = bytes(buf)
    block, pos = read_uleb128(data, 0)
    nmini, pos = read_uleb128(data, pos)
    total, pos = read_uleb128(data, pos)
    _, pos = read_uleb128(data, pos)
    if total <= 1 or nmini == 0 or block < nmini:
        return 0
    vpm = block // nmini
    left, widest = total - 1, 0
    while left > 0 and pos < len(data):
        _, pos = read_uleb128(data, pos)
        for w in data[pos:pos + nmini]:
            if left <= 0:
                break
            widest = max(widest, w)
            pos += vpm * w // 8
            left -= vpm
        pos += nmini
    return widest


def concat_values(parts: list[Any], desc: Any) -> Any:
    """One array of the pages' values (physical representation)."""
    if not parts:
        return decode_values(Encoding.PLAIN, b"", 0, desc.physical_type, desc.type_length)
    if isinstance(parts[0], ByteArrays):
        return parts[0] if len(parts) == 1 else ByteArrays.concat(parts)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def decode_chunk(ck: Checker, ch: ChunkState) -> bool:
    """Decode every page into ``PageInfo.values`` / levels; True when all pages decoded.

    The chunk is held decoded, so its declared value count is held to ``max_decoded_bytes``
    first, and every page to ``max_page_bytes`` (``check``'s options, else the reader's defaults)
    (``check.memory-limit`` when past them: not checked, not an error of the file)."""
    dictionary = None
    ok = True
    start = ch.pages[0].offset if ch.pages else 0
    level = 0
    limits = PageLimits.of(ck.options, ch.desc, ch.meta.total_uncompressed_size)
    try:
        limits.check_count(ch.meta.num_values or 0, "column chunk")
    except ParquetResourceError as exc:
        ck.report_chunk(MEMORY, ch, str(exc))
        return False
    for p in ch.pages:
        if p.header.type not in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2, PageType.DICTIONARY_PAGE):
            continue
        pos = p.offset - (ch.start if ch.buf is not None else start)
        try:
            page = read_page(ch.buf[pos:pos + p.header_size + len(p.stored)], ch.meta.codec,
                             ordinal=p.data_ordinal or 0, verify_crc=False, base_offset=p.offset,
                             crypto=chunk_decryption(ch.wrapper), chunk_start=p.ordinal == 0, limits=limits)
        except ParquetResourceError as exc:
            ck.report_chunk(MEMORY, ch, str(exc), page=p.ordinal, offset=p.offset)
            return False
        except ParquetEncryptionError as exc:
            from parquet_core.validation.encryption import MODULE

            ck.report_chunk(MODULE, ch, str(exc), page=p.ordinal, offset=p.offset)
            return False
        except ParquetError as exc:
            ck.report_chunk(BODY, ch, str(exc), page=p.ordinal, offset=p.offset)
            ok = False
            continue
        if isinstance(page, DictionaryPage):
            try:
                dictionary = decode_values(Encoding.PLAIN, page.body, page.num_values, ch.desc.physical_type,
                                           ch.desc.type_length)
            except (ParquetError, ValueError, IndexError) as exc:
                ck.report_chunk(DICT_DECODE, ch, f"the dictionary page does not decode: {exc}", page=p.ordinal,
                                offset=p.offset)
                return False
            continue
        if page is None:    # a page type the reader skips: those were passed over above
            continue
        p.first_level = level
        level += page.num_values
        try:
            _decode_page(ck, ch, p, page, dictionary)
        except (ParquetError, ValueError, IndexError, TypeError, OverflowError) as exc:
            ck.report_chunk(DECODE, ch, f"{type(exc).__name__}: {exc}" if not isinstance(exc, ParquetError)
                            else str(exc), page=p.ordinal, offset=p.offset)
            ok = False
        if p.values is None:
            ok = False
    return ok


def _decode_page(ck: Checker, ch: ChunkState, p: PageInfo, page: Any, dictionary: Any) -> None:
    d = ch.desc
    n = page.num_values
    reps = defs = None
    if isinstance(page, DataPageV1):
        buf = memoryview(page.body)
        pos = 0
        if d.max_repetition_level > 0:
            reps, pos = read_levels_v1(buf, pos, page.repetition_level_encoding, d.max_repetition_level, n, "repetition")
        if d.max_definition_level > 0:
            defs, pos = read_levels_v1(buf, pos, page.definition_level_encoding, d.max_definition_level, n, "definition")
        body: Any = buf[pos:]
    else:
        if d.max_repetition_level > 0:
            reps = read_levels_v2(memoryview(page.repetition_levels), d.max_repetition_level, n, "repetition")
        if d.max_definition_level > 0:
            defs = read_levels_v2(memoryview(page.definition_levels), d.max_definition_level, n, "definition")
        _check_v2_level_lengths(ck, ch, p, page)
        body = memoryview(page.values)
    present = n if defs is None else int(np.count_nonzero(defs == d.max_definition_level))
    p.def_levels, p.rep_levels = defs, reps
    if page.encoding in _DICT:
        if dictionary is None:
            return   # reported by pages.dictionary-missing
        idx = decode_values(page.encoding, body, present, d.physical_type, d.type_length)
        size = len(dictionary)
        if len(idx) and int(idx.max()) >= size:
            bad = int(np.count_nonzero(idx >= size))
            ck.report_chunk(DICT_INDEX, ch, f"{bad} index(es) up to {int(idx.max())} for a dictionary of {size} "
                            "values", page=p.ordinal, offset=p.offset)
            return
        p.values = dictionary.take(idx) if isinstance(dictionary, ByteArrays) else dictionary.take(idx, axis=0)
    else:
        p.values = decode_values(page.encoding, body, present, d.physical_type, d.type_length)
        if page.encoding == Encoding.DELTA_BINARY_PACKED and d.physical_type == PhysicalType.INT32:
            w = widest_miniblock(body)
            if w > 32:
                ck.report_chunk(DELTA_WIDTH, ch, f"miniblocks up to {w} bits wide in an INT32 column; expected at "
                                "most 32", page=p.ordinal, offset=p.offset)
