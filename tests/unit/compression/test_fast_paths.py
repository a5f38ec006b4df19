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
