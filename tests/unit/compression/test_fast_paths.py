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


def _owner(view: memoryview) -> object:
    from parquet_core.encodings.plain import _owner as owner
    import numpy as np
    return owner(np.frombuffer(view, dtype=np.uint8))


@settings(max_examples=40, deadline=None)
@given(st.lists(payloads.filter(len), min_size=1, max_size=6), st.integers(0, 3))
def test_snappy_pages_side_by_side(datas: list[bytes], kind_change: int) -> None:
    """decompress_page (a chunk read whole): each page's bytes as the codec gives them, the
    pages of one kind in order in one block while they fit, the same errors as decompress."""
    import numpy as np

    codec = get_codec(CodecId.SNAPPY)
    pages = codec.page_decompressor()
    bodies = [snappy.compress(d) for d in datas]     # compressed by python-snappy, not by us
    views = []
    for i, (data, body) in enumerate(zip(datas, bodies)):
        left = sum(len(b) for b in bodies[i + 1:])
        kind = 8 if i < kind_change else 0
        before = pages._block
        out = pages.decompress_page(memoryview(body), len(data), left, kind)
        assert bytes(out) == data
        views.append((out, kind))
        block = pages._block
        assert block is not None
        if block is not before:     # a new block: sized for this page and the stored bytes after it
            assert block.size <= len(data) + codecs.SNAPPY_MAX_RATIO * left
    for (a, ka), (b, kb) in zip(views, views[1:]):
        arr_a, arr_b = np.frombuffer(a, np.uint8), np.frombuffer(b, np.uint8)
        if _owner(a) is _owner(b):       # same block: b right after a
            assert ka == kb
            assert arr_b.ctypes.data == arr_a.ctypes.data + arr_a.size
        else:
            assert ka != kb or arr_b.size > 0
    # the first data page of each kind starts a block; later pages of that kind follow it
    # when the block was sized at their ratio (every payload here is one of two shapes, so
    # only check the pages of one kind that compress alike)
    for (a, ka), (b, kb), da, db in zip(views, views[1:], datas, datas[1:]):
        if ka == kb and da == db:
            assert _owner(a) is _owner(b)
    # the bytes of earlier pages are not touched by later ones
    assert [bytes(v) for v, _ in views] == datas


def test_snappy_pages_side_by_side_keep_every_check() -> None:
    codec = get_codec(CodecId.SNAPPY)
    pages = codec.page_decompressor()
    data = bytes(range(256)) * 40
    body = memoryview(snappy.compress(data))
    claim = memoryview(bytes([0x80, 0x80, 0x04]) + b"\x00" * 10)    # 65536 bytes from 13
    _raises_like(lambda: pages.decompress_page(claim, 65536, 100, 0), lambda: codec.decompress(claim, 65536))
    bad = bytearray(body)
    bad[len(bad) // 2:] = b"\xff" * (len(bad) - len(bad) // 2)
    _raises_like(lambda: pages.decompress_page(memoryview(bad), len(data), 0, 0),
                 lambda: codec.decompress(memoryview(bad), len(data)))
    _raises_like(lambda: pages.decompress_page(body, len(data) + 1, 0, 0),
                 lambda: codec.decompress(body, len(data) + 1))
    # a block is never larger than the stored bytes after the page can expand to, nor
    # than SHARED_BLOCK_MAX (a page larger than that gets a block of its own size)
    pages = codec.page_decompressor()
    assert bytes(pages.decompress_page(body, len(data), 3, 0)) == data
    assert pages._block is not None and pages._block.size <= len(data) + 3 * codecs.SNAPPY_MAX_RATIO
    pages = codec.page_decompressor()
    saved = codecs.SHARED_BLOCK_MAX
    codecs.SHARED_BLOCK_MAX = 1000
    try:
        assert bytes(pages.decompress_page(body, len(data), 1 << 30, 0)) == data
        assert pages._block is not None and pages._block.size == len(data)
    finally:
        codecs.SHARED_BLOCK_MAX = saved
