"""iter_pages' one-loop path for plaintext chunks against the general walk + decode.

Chunks come from the generator of the chunk decoding tests (every page kind,
codec, CRCs); they are read intact, with bytes changed, cut short, or with a
smaller value count, by both paths: the same pages, or the same error with
the same notes.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_core.errors import ParquetError
from parquet_core.page import reader
from tests._support.random_chunks import chunks


def _outcome(pages):
    try:
        return "ok", [(type(p).__name__, {k: bytes(v) if isinstance(v, memoryview) else v
                                          for k, v in ((s, getattr(p, s)) for s in p.__slots__)})
                      for p in pages]
    except ParquetError as exc:
        return type(exc).__name__, str(exc), getattr(exc, "__notes__", [])


def _general(buf, codec, num_values, verify_crc):
    view = memoryview(buf)
    return reader.decode_pages(reader.walk_pages(view, len(view), statistics=False, base_offset=100), codec, num_values,
                               verify_crc=verify_crc, base_offset=100)


def _damaged(chunk, at: int, byte: int, how: int) -> tuple[bytes, int]:
    """The chunk's bytes and value count, damaged by *how*: 0 intact, 1 one byte set to
    *byte*, 2 cut short, 3 fewer values promised, 4 more values promised than the pages hold."""
    data = chunk.data
    num_values = chunk.num_values
    if how == 1 and data:
        bad = bytearray(data)
        bad[at % len(data)] = byte
        data = bytes(bad)
    elif how == 2:
        data = data[:at % (len(data) + 1)]
    elif how == 3:
        num_values = at % (num_values + 1)
    elif how == 4:
        num_values += 1 + at % 3
    return data, num_values


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chunks(), st.integers(0, 1 << 30), st.integers(0, 255), st.integers(0, 3), st.booleans(), st.booleans())
def test_plain_loop_equals_walk_and_decode(chunk, at, byte, how, verify_crc, shared) -> None:
    data, num_values = _damaged(chunk, at, byte, how)
    # shared=True: data pages decompressed side by side into shared blocks (the whole-chunk read)
    fast = _outcome(reader.iter_pages(data, chunk.codec, num_values, verify_crc=verify_crc, base_offset=100,
                                      shared=shared))
    slow = _outcome(_general(data, chunk.codec, num_values, verify_crc))
    assert fast == slow


def _skips_a_page(buf) -> bool:
    """Whether the walk of *buf* meets a page type the readers skip (INDEX_PAGE, later ones)."""
    view = memoryview(buf)
    try:
        return any(h.type not in reader._KNOWN_PAGES for h, *_ in reader.walk_pages(view, len(view), statistics=False))
    except ParquetError:
        return False


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chunks(), st.integers(0, 1 << 30), st.integers(0, 255), st.integers(0, 4), st.booleans())
def test_few_pages_list_equals_the_plain_loop(chunk, at, byte, how, verify_crc) -> None:
    """``few_plain_pages`` (the light read of small files): the pages of a chunk of at most
    two pages as iter_pages gives them, or iter_pages' error (its type and message: the
    caller reads a failing chunk again through iter_pages for the notes); None only for a
    chunk of more pages, one holding a page type the walk skips, or one that fails later."""
    from parquet_core.compression import get_codec
    from parquet_core.constants import CompressionCodec

    data, num_values = _damaged(chunk, at, byte, how)
    general = _outcome(reader.iter_pages(data, chunk.codec, num_values, verify_crc=verify_crc, base_offset=100))
    limits = reader.DEFAULT_LIMITS
    try:
        codec = get_codec(chunk.codec).page_decompressor()
    except ParquetError:
        return      # a codec this build cannot read: the caller's page walk reports it
    try:
        few = reader.few_plain_pages(memoryview(data), codec, chunk.codec == CompressionCodec.UNCOMPRESSED,
                                     num_values, verify_crc, 100, limits)
    except ParquetError as exc:
        assert general[0] == type(exc).__name__ and general[1] == str(exc)
        return
    if few is None:
        assert general[0] != "ok" or len(general[1]) > 2 or _skips_a_page(data)
    else:
        assert len(few) <= 2 and _outcome(few) == general
