"""The page walk's reused-protocol header parser against the general thrift parse."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.constants import Encoding, PageType
from parquet_core.errors import ParquetFormatError
from parquet_core.page.reader import _HEADER_WINDOW, _HeaderParser
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse, serialize

ints = st.integers(-2**31, 2**31 - 1)


@st.composite
def headers(draw):
    stats = None
    if draw(st.booleans()):
        # statistics of any size: some headers do not fit the first window
        stats = pt.Statistics(max_value=draw(st.binary(max_size=2 * _HEADER_WINDOW)),
                              min_value=draw(st.binary(max_size=64)), null_count=draw(ints))
    kind = draw(st.sampled_from(["v1", "v2", "dict"]))
    h = pt.PageHeader(type={"v1": PageType.DATA_PAGE, "v2": PageType.DATA_PAGE_V2,
                            "dict": PageType.DICTIONARY_PAGE}[kind],
                      uncompressed_page_size=draw(ints), compressed_page_size=draw(ints),
                      crc=draw(st.none() | ints))
    if kind == "v1":
        h.data_page_header = pt.DataPageHeader(num_values=draw(ints), encoding=Encoding.PLAIN,
                                               definition_level_encoding=Encoding.RLE,
                                               repetition_level_encoding=Encoding.RLE, statistics=stats)
    elif kind == "v2":
        h.data_page_header_v2 = pt.DataPageHeaderV2(
            num_values=draw(ints), num_nulls=draw(ints), num_rows=draw(ints), encoding=Encoding.PLAIN,
            definition_levels_byte_length=draw(ints), repetition_levels_byte_length=draw(ints),
            is_compressed=draw(st.none() | st.booleans()), statistics=stats)
    else:
        h.dictionary_page_header = pt.DictionaryPageHeader(num_values=draw(ints), encoding=Encoding.PLAIN)
    return serialize(h)


def _general(buf: bytes, pos: int):
    try:
        return parse(memoryview(buf), pt.PageHeader, offset=pos)
    except ParquetFormatError:
        return "error"


def _fast(parser: _HeaderParser, buf: bytes, pos: int):
    try:
        return parser(memoryview(buf), pos)
    except ParquetFormatError:
        return "error"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40), headers(), st.binary(max_size=2 * _HEADER_WINDOW),
       st.integers(0, 2000), st.integers(0, 255))
def test_reused_parser_equals_parse(before: bytes, header: bytes, after: bytes, cut: int, flip: int) -> None:
    parser = _HeaderParser()
    buf = before + header + after
    pos = len(before)
    assert _fast(parser, buf, pos) == _general(buf, pos) != "error"
    # damaged: truncated, or one byte changed (the same parser object, reused after errors)
    short = buf[:pos + cut % (len(header) + 1)]
    assert _fast(parser, short, pos) == _general(short, pos)
    bad = bytearray(buf)
    bad[pos + cut % len(header)] = flip
    assert _fast(parser, bytes(bad), pos) == _general(bytes(bad), pos)
    assert _fast(parser, buf, pos) == _general(buf, pos)


def test_parser_works_without_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from parquet_core.page import reader

    monkeypatch.setattr(reader, "_FAST_HEADERS", False)
    parser = _HeaderParser()
    h = serialize(pt.PageHeader(type=PageType.DICTIONARY_PAGE, uncompressed_page_size=1,
                                compressed_page_size=1,
                                dictionary_page_header=pt.DictionaryPageHeader(num_values=1,
                                                                                encoding=Encoding.PLAIN)))
    buf = h + b"\0" * 1000
    assert parser(memoryview(buf), 0) == parse(buf, pt.PageHeader)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40), headers(), st.binary(max_size=2 * _HEADER_WINDOW),
       st.integers(0, 2000), st.integers(0, 255))
def test_parser_without_statistics_equals_parse(before: bytes, header: bytes, after: bytes, cut: int,
                                                flip: int) -> None:
    """The readers' parser (statistics skipped) gives the general parse's header, its
    statistics left out, and the same length; damaged headers: an error where the general
    parse fails, unless the damage is inside the skipped statistics."""
    parser = _HeaderParser(statistics=False)

    def strip(got):
        if got == "error":
            return got
        h, n = got
        for sub in (h.data_page_header, h.data_page_header_v2):
            if sub is not None:
                sub.statistics = None
        return h, n

    buf = before + header + after
    pos = len(before)
    general = _general(buf, pos)
    assert general != "error"
    # (a header near the end of the buffer goes through the general parse, statistics and all)
    assert strip(_fast(parser, buf, pos)) == strip(general)
    bad = bytearray(buf)
    bad[pos + cut % len(header)] = flip
    short = buf[:pos + cut % (len(header) + 1)]
    for damaged in (bytes(bad), short):
        want = strip(_general(damaged, pos))
        if want != "error":
            assert strip(_fast(parser, damaged, pos)) == want


def test_one_parser_per_thread_shared_by_page_walks() -> None:
    """The page walks of a thread reuse one parser (small files walk a few pages per
    chunk); another thread gets its own, and walks still parse every header."""
    import threading

    from parquet_core.page.reader import _header_parser, iter_page_headers

    mine = _header_parser(False)
    assert _header_parser(False) is mine and _header_parser(True) is not mine
    other: list[object] = []
    t = threading.Thread(target=lambda: other.append(_header_parser(False)))
    t.start()
    t.join()
    assert other[0] is not mine
    h = pt.PageHeader(type=PageType.DATA_PAGE, uncompressed_page_size=3, compressed_page_size=3,
                      data_page_header=pt.DataPageHeader(num_values=3, encoding=Encoding.PLAIN,
                                                         definition_level_encoding=Encoding.RLE,
                                                         repetition_level_encoding=Encoding.RLE))
    page = serialize(h) + b"abc"
    chunk = (page * 400)    # past the header window: the reused parser's own path
    got = [info[0].data_page_header.num_values for info in iter_page_headers(chunk, 1200)]
    assert got == [3] * 400
