"""The one-shot zstd path and the cramjam snappy path against the general paths."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.compression import CodecId, get_codec
from parquet_core.compression import codecs
from parquet_core.errors import ParquetFormatError

zstandard = pytest.importorskip("zstandard")
snappy = pytest.importorskip("snappy")

payloads = st.binary(min_size=0, max_size=3000) | st.builds(
    lambda b, k: b * k, st.binary(min_size=1, max_size=20), st.integers(1, 400))


def _stream_only(data: bytes, n: int) -> bytes:
    """The streaming path alone (the one-shot path switched off)."""
    saved = codecs._zstd_one_shot
    codecs._zstd_one_shot = lambda *a: None  # type: ignore[assignment]
    try:
        return bytes(get_codec(CodecId.ZSTD).decompress(data, n))
    finally:
        codecs._zstd_one_shot = saved  # type: ignore[assignment]


@settings(max_examples=60, deadline=None)
@given(payloads, payloads, st.booleans())
def test_zstd_frames_match_the_stream_path(a: bytes, b: bytes, content_size: bool) -> None:
    cctx = zstandard.ZstdCompressor(write_content_size=content_size)
    codec = get_codec(CodecId.ZSTD)
    one = cctx.compress(a)
    assert bytes(codec.decompress(one, len(a))) == a == _stream_only(one, len(a))
    two = one + cctx.compress(b)     # two frames in one page: read across them
    assert bytes(codec.decompress(two, len(a) + len(b))) == a + b == _stream_only(two, len(a) + len(b))
    if a:
        with pytest.raises(ParquetFormatError):
            codec.decompress(one, len(a) - 1)
        with pytest.raises(ParquetFormatError):
            codec.decompress(one, len(a) + 1)
    if b:
        with pytest.raises(ParquetFormatError):    # the first frame alone is not the page
            codec.decompress(two, len(a))


def test_zstd_one_shot_refuses_a_frame_declaring_more_than_the_page() -> None:
    frame = zstandard.ZstdCompressor(write_content_size=True).compress(b"x" * 1000)
    assert codecs._zstd_one_shot(zstandard, frame, 1000) == b"x" * 1000
    assert codecs._zstd_one_shot(zstandard, frame, 10) is None
    assert codecs._zstd_one_shot(zstandard, frame[:-3], 1000) is None
    assert codecs._zstd_one_shot(zstandard, b"junk", 1000) is None
    # an empty frame followed by another: zstandard's one-shot call would stop at the first
    cctx = zstandard.ZstdCompressor(write_content_size=True)
    assert codecs._zstd_one_shot(zstandard, cctx.compress(b"") + cctx.compress(b"x"), 0) is None
    with pytest.raises(ParquetFormatError):
        get_codec(CodecId.ZSTD).decompress(cctx.compress(b"") + cctx.compress(b"x"), 0)


@settings(max_examples=60, deadline=None)
@given(payloads)
def test_snappy_cramjam_matches_python_snappy(data: bytes) -> None:
    codec = get_codec(CodecId.SNAPPY)
    body = codec.compress(data)
    fast = bytes(codec.decompress(body, len(data)))
    saved = list(codecs._CRAMJAM_SNAPPY)
    codecs._CRAMJAM_SNAPPY[:] = [None]          # as without cramjam
    try:
        slow = bytes(codec.decompress(body, len(data)))
        if data:
            with pytest.raises(ParquetFormatError):
                codec.decompress(body[:-1], len(data))
    finally:
        codecs._CRAMJAM_SNAPPY[:] = saved
    assert fast == slow == data
    if data:
        with pytest.raises(ParquetFormatError):
            codec.decompress(body[:-1], len(data))
        with pytest.raises(ParquetFormatError):
            codec.decompress(body, len(data) + 1)


def _raises_like(fn_a, fn_b) -> None:  # type: ignore[no-untyped-def]
    """Both calls raise ParquetFormatError with the same message."""
    with pytest.raises(ParquetFormatError) as a:
        fn_a()
    with pytest.raises(ParquetFormatError) as b:
        fn_b()
    assert str(a.value) == str(b.value)


@settings(max_examples=60, deadline=None)
@given(payloads)
def test_snappy_page_decompressor_matches_the_codec(data: bytes) -> None:
    codec = get_codec(CodecId.SNAPPY)
    pages = codec.page_decompressor()
    assert isinstance(pages, codecs._SnappyPages)
    body = snappy.compress(data)          # compressed by python-snappy, not by us
    view = memoryview(bytearray(b"xx" + body))[2:]    # a slice of a chunk, as the page walk passes
    assert bytes(pages.decompress(view, len(data))) == data
    if data:
        _raises_like(lambda: pages.decompress(view[:-1], len(data)),
                     lambda: codec.decompress(view[:-1], len(data)))
        _raises_like(lambda: pages.decompress(view, len(data) + 1),
                     lambda: codec.decompress(view, len(data) + 1))


def test_snappy_page_decompressor_keeps_every_check() -> None:
    codec = get_codec(CodecId.SNAPPY)
    pages = codec.page_decompressor()
    data = bytes(range(256)) * 40
    body = memoryview(snappy.compress(data))
    # a block claiming more than it can hold (the expansion bound), refused before allocating
    claim = memoryview(bytes([0x80, 0x80, 0x04]) + b"\x00" * 10)    # 65536 bytes from 13
    _raises_like(lambda: pages.decompress(claim, 65536), lambda: codec.decompress(claim, 65536))
    # a damaged body: the backend's failure named as the codec's
    bad = bytearray(body)
    bad[len(bad) // 2:] = b"\xff" * (len(bad) - len(bad) // 2)
    _raises_like(lambda: pages.decompress(memoryview(bad), len(data)),
                 lambda: codec.decompress(memoryview(bad), len(data)))
    with pytest.raises(ParquetFormatError, match="SNAPPY"):
        pages.decompress(memoryview(bad), len(data))
    # bytes, an empty body and a zero size take the codec's own path
    assert bytes(pages.decompress(bytes(body), len(data))) == data
    assert pages.decompress(memoryview(b""), 0) == b""
    _raises_like(lambda: pages.decompress(memoryview(b""), 5), lambda: codec.decompress(memoryview(b""), 5))
