"""Tests for parquet_core.compression: registry, codecs, framings, corpus."""

from __future__ import annotations

import os
import random
import struct
import subprocess
import sys
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_core.compression import REGISTRY, CodecId, get_codec
from parquet_core.compression.codecs import LZ4_HADOOP_BLOCK_SIZE
from parquet_core.errors import (
    CodecUnavailableError,
    ParquetFormatError,
    UnsupportedFeatureError,
)

SUPPORTED: list[CodecId] = [c for c in CodecId if c != CodecId.LZO]
COMPRESSING: list[CodecId] = [c for c in SUPPORTED if c != CodecId.UNCOMPRESSED]

_rng = random.Random(1234)
PAYLOADS: dict[str, bytes] = {
    "empty": b"",
    "one": b"x",
    "short": b"abcdefgh",
    "random": _rng.randbytes(1000),
    "repetitive": b"parquet!" * 40_000,
    # larger than one Hadoop LZ4 block, mixing incompressible and redundant data
    "mixed": _rng.randbytes(200_000) + bytes(300_000) + b"0123456789" * 20_000,
}


def _ids(codecs: list[CodecId]) -> list[str]:
    return [c.name for c in codecs]


# --------------------------------------------------------------------------
# registry


def test_registry_covers_the_spec_enum() -> None:
    assert sorted(REGISTRY) == list(range(8))
    for cid in CodecId:
        codec = get_codec(cid)
        assert codec is get_codec(int(cid)) is REGISTRY[cid]
        assert codec.name == cid.name
        assert codec.codec_id == cid


@pytest.mark.parametrize("bad", [-1, 8, 42, 2**31])
def test_unknown_codec_id(bad: int) -> None:
    with pytest.raises(UnsupportedFeatureError, match=str(bad)):
        get_codec(bad)


@pytest.mark.parametrize("bad", ["1", 1.0, True, None])
def test_codec_id_must_be_int(bad: Any) -> None:
    with pytest.raises(TypeError):
        get_codec(bad)


def test_registry_is_read_only() -> None:
    with pytest.raises(TypeError):
        REGISTRY[9] = REGISTRY[0]  # type: ignore[index]


def test_import_does_not_load_backends() -> None:
    code = (
        "import sys, parquet_core.compression as c\n"
        "c.get_codec(6); c.get_codec(1)\n"
        "print(sorted(m for m in ('snappy', 'zstandard', 'lz4', 'brotli', 'cramjam')"
        " if m in sys.modules))\n"
    )
    import parquet_core.compression

    # the directory holding the parquet_core this process imported
    root = Path(parquet_core.compression.__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), *sys.path]))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[]"


_BACKEND_MODULES = {
    CodecId.SNAPPY: ("snappy", "python-snappy"),
    CodecId.BROTLI: ("brotli", "brotli"),
    CodecId.LZ4: ("lz4.block", "lz4"),
    CodecId.LZ4_RAW: ("lz4.block", "lz4"),
    CodecId.ZSTD: ("zstandard", "zstandard"),
}


@pytest.mark.parametrize("cid", list(_BACKEND_MODULES), ids=_ids(list(_BACKEND_MODULES)))
def test_missing_backend_names_the_package(cid: CodecId, monkeypatch: pytest.MonkeyPatch) -> None:
    module, package = _BACKEND_MODULES[cid]
    codec = get_codec(cid)
    body = codec.compress(b"payload")
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    assert not codec.is_available()
    for call in (lambda: codec.decompress(body, 7), lambda: codec.compress(b"payload")):
        with pytest.raises(CodecUnavailableError, match=package) as info:
            call()
        assert info.value.package == package


def test_stdlib_codecs_are_available() -> None:
    assert get_codec(CodecId.UNCOMPRESSED).is_available()
    assert get_codec(CodecId.GZIP).is_available()


# --------------------------------------------------------------------------
# round trips


@pytest.mark.parametrize("name", list(PAYLOADS))
@pytest.mark.parametrize("cid", SUPPORTED, ids=_ids(SUPPORTED))
def test_round_trip(cid: CodecId, name: str) -> None:
    codec = get_codec(cid)
    payload = PAYLOADS[name]
    body = codec.compress(payload)
    assert isinstance(body, bytes)
    assert bytes(codec.decompress(body, len(payload))) == payload
    # every buffer flavour is accepted, on both sides
    body2 = codec.compress(memoryview(bytearray(payload)))
    assert bytes(codec.decompress(memoryview(body2), len(payload))) == payload
    assert bytes(codec.decompress(bytearray(body2), len(payload))) == payload


_LEVELS = {
    CodecId.GZIP: [-1, 0, 1, 9],
    CodecId.BROTLI: [0, 5, 11],
    CodecId.ZSTD: [-5, 1, 19],
    CodecId.LZ4: [-3, 0, 3, 12],
    CodecId.LZ4_RAW: [-3, 0, 3, 12],
    CodecId.SNAPPY: [1, 99],  # ignored
    CodecId.UNCOMPRESSED: [5],  # ignored
}


@pytest.mark.parametrize(
    ("cid", "level"),
    [(c, lv) for c, lvs in _LEVELS.items() for lv in lvs],
    ids=[f"{c.name}-{lv}" for c, lvs in _LEVELS.items() for lv in lvs],
)
def test_round_trip_levels(cid: CodecId, level: int) -> None:
    codec = get_codec(cid)
    payload = PAYLOADS["mixed"][150_000:350_000]
    assert bytes(codec.decompress(codec.compress(payload, level), len(payload))) == payload


@pytest.mark.parametrize(
    ("cid", "level", "exc"),
    [
        (CodecId.GZIP, 10, ValueError),
        (CodecId.GZIP, -2, ValueError),
        (CodecId.BROTLI, 12, ValueError),
        (CodecId.ZSTD, 23, ValueError),
        (CodecId.LZ4, 13, ValueError),
        (CodecId.LZ4_RAW, 13, ValueError),
        (CodecId.ZSTD, 1.5, TypeError),
        (CodecId.GZIP, True, TypeError),
    ],
)
def test_bad_levels(cid: CodecId, level: Any, exc: type[Exception]) -> None:
    with pytest.raises(exc):
        get_codec(cid).compress(b"abc", level)


def test_higher_levels_compress_better() -> None:
    payload = PAYLOADS["repetitive"] + PAYLOADS["random"]
    for cid, low, high in [(CodecId.GZIP, 1, 9), (CodecId.ZSTD, 1, 19), (CodecId.BROTLI, 0, 11)]:
        codec = get_codec(cid)
        assert len(codec.compress(payload, high)) <= len(codec.compress(payload, low))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cid=st.sampled_from(SUPPORTED),
    payload=st.one_of(
        st.binary(max_size=3000),
        st.builds(lambda b, k: b * k, st.binary(min_size=1, max_size=40), st.integers(1, 5000)),
    ),
)
def test_round_trip_hypothesis(cid: CodecId, payload: bytes) -> None:
    codec = get_codec(cid)
    assert bytes(codec.decompress(codec.compress(payload), len(payload))) == payload


def test_uncompressed_is_zero_copy() -> None:
    data = b"abc" * 10
    codec = get_codec(CodecId.UNCOMPRESSED)
    assert codec.decompress(data, 30) is data
    view = codec.decompress(bytearray(data), 30)
    assert isinstance(view, memoryview) and view == data


def test_non_byte_memoryview_counts_bytes() -> None:
    import array

    arr = array.array("i", range(100))  # 400 bytes, 100 items
    for cid in SUPPORTED:
        codec = get_codec(cid)
        body = codec.compress(memoryview(arr))
        assert bytes(codec.decompress(body, 400)) == arr.tobytes()


@pytest.mark.parametrize("cid", SUPPORTED, ids=_ids(SUPPORTED))
def test_empty_body_for_empty_page(cid: CodecId) -> None:
    assert bytes(get_codec(cid).decompress(b"", 0)) == b""


# --------------------------------------------------------------------------
# errors: wrong sizes, corruption, bombs


@pytest.mark.parametrize("cid", SUPPORTED, ids=_ids(SUPPORTED))
@pytest.mark.parametrize("delta", [-1, 1, 1000])
def test_wrong_declared_size(cid: CodecId, delta: int) -> None:
    codec = get_codec(cid)
    payload = PAYLOADS["mixed"][:100_000]
    body = codec.compress(payload)
    with pytest.raises(ParquetFormatError, match=cid.name) as info:
        codec.decompress(body, len(payload) + delta)
    msg = str(info.value)
    # the message names the declared size
    assert str(len(payload) + delta) in msg


@pytest.mark.parametrize("cid", SUPPORTED, ids=_ids(SUPPORTED))
def test_size_mismatch_message_names_both_sizes(cid: CodecId) -> None:
    codec = get_codec(cid)
    body = codec.compress(b"z" * 100)
    with pytest.raises(ParquetFormatError) as info:
        codec.decompress(body, 101)
    msg = str(info.value)
    assert cid.name in msg and "101" in msg
    if cid in (CodecId.UNCOMPRESSED, CodecId.SNAPPY, CodecId.GZIP, CodecId.ZSTD, CodecId.BROTLI):
        assert "expected 101 bytes, got 100" in msg


def test_negative_size_is_a_format_error() -> None:
    for cid in SUPPORTED:
        with pytest.raises(ParquetFormatError):
            get_codec(cid).decompress(b"abc", -1)


def test_size_must_be_int() -> None:
    with pytest.raises(TypeError):
        get_codec(CodecId.GZIP).decompress(b"abc", "3")  # type: ignore[arg-type]


def _corruptions(body: bytes) -> list[bytes]:
    rnd = random.Random(7)
    return [
        body[: len(body) // 2],  # truncated
        body[:-1],  # missing last byte
        rnd.randbytes(len(body)),  # garbage of the same length
        b"\xff" * 64,
        b"\x00" * 3,
    ]


@pytest.mark.parametrize("cid", COMPRESSING, ids=_ids(COMPRESSING))
def test_corrupt_input(cid: CodecId) -> None:
    codec = get_codec(cid)
    payload = PAYLOADS["mixed"][:100_000]
    for bad in _corruptions(codec.compress(payload)):
        with pytest.raises(ParquetFormatError, match=cid.name):
            codec.decompress(bad, len(payload))


@settings(max_examples=300, deadline=None)
@given(
    cid=st.sampled_from(COMPRESSING),
    garbage=st.binary(max_size=600),
    size=st.integers(0, 5000),
)
def test_arbitrary_input_only_raises_format_errors(cid: CodecId, garbage: bytes, size: int) -> None:
    codec = get_codec(cid)
    try:
        out = codec.decompress(garbage, size)
    except ParquetFormatError:
        return
    assert len(out) == size


@settings(max_examples=200, deadline=None)
@given(
    cid=st.sampled_from(COMPRESSING),
    payload=st.binary(min_size=1, max_size=2000),
    data=st.data(),
)
def test_bit_flips_only_raise_format_errors(cid: CodecId, payload: bytes, data: Any) -> None:
    codec = get_codec(cid)
    body = bytearray(codec.compress(payload))
    index = data.draw(st.integers(0, len(body) - 1))
    body[index] ^= 1 << data.draw(st.integers(0, 7))
    try:
        out = codec.decompress(bytes(body), len(payload))
    except ParquetFormatError:
        return
    assert len(out) == len(payload)


def test_backend_exception_is_chained() -> None:
    with pytest.raises(ParquetFormatError) as info:
        get_codec(CodecId.ZSTD).decompress(b"not zstd at all", 10)
    assert info.value.__cause__ is not None


@pytest.mark.parametrize("cid", COMPRESSING, ids=_ids(COMPRESSING))
def test_decompression_bomb_is_bounded(cid: CodecId) -> None:
    codec = get_codec(cid)
    bomb = codec.compress(bytes(64 << 20))  # 64 MiB of zeros
    assert len(bomb) < 4 << 20  # snappy tops out near 21:1
    tracemalloc.start()
    try:
        with pytest.raises(ParquetFormatError, match=cid.name):
            codec.decompress(bomb, 1000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, f"{cid.name} allocated {peak} bytes for a 1000-byte page"


# --------------------------------------------------------------------------
# SNAPPY specifics


def test_snappy_preamble_checked_first() -> None:
    codec = get_codec(CodecId.SNAPPY)
    # preamble says 2**31 bytes; must fail fast without allocating them
    body = b"\x80\x80\x80\x80\x08" + b"\x00" * 10
    with pytest.raises(ParquetFormatError, match="expected 10 bytes, got 2147483648"):
        codec.decompress(body, 10)
    with pytest.raises(ParquetFormatError, match="preamble"):
        codec.decompress(b"\x80\x80", 10)


# --------------------------------------------------------------------------
# GZIP specifics


def _gzip(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def test_gzip_output_is_a_gzip_member() -> None:
    body = get_codec(CodecId.GZIP).compress(b"hello")
    assert body[:2] == b"\x1f\x8b"
    import gzip

    assert gzip.decompress(body) == b"hello"


def test_gzip_concatenated_members() -> None:
    codec = get_codec(CodecId.GZIP)
    parts = [b"first member|", b"", b"second" * 1000, PAYLOADS["random"]]
    body = b"".join(_gzip(p) for p in parts)
    expected = b"".join(parts)
    assert codec.decompress(body, len(expected)) == expected


def test_gzip_accepts_zlib_wrapping_and_nul_padding() -> None:
    codec = get_codec(CodecId.GZIP)
    assert codec.decompress(zlib.compress(b"abc" * 50), 150) == b"abc" * 50
    assert codec.decompress(_gzip(b"abc") + b"\x00" * 8, 3) == b"abc"


def test_gzip_rejects_trailing_garbage_and_truncated_members() -> None:
    codec = get_codec(CodecId.GZIP)
    with pytest.raises(ParquetFormatError, match="GZIP"):
        codec.decompress(_gzip(b"abc") + b"junk", 3)
    second = _gzip(b"def")
    with pytest.raises(ParquetFormatError, match="GZIP"):
        codec.decompress(_gzip(b"abc") + second[:-4], 6)
    # a second member beyond the declared size
    with pytest.raises(ParquetFormatError, match="larger than the declared"):
        codec.decompress(_gzip(b"abc") + second, 3)


# --------------------------------------------------------------------------
# LZ4 (Hadoop framing and its fallbacks) and LZ4_RAW


def _literal_block(data: bytes) -> bytes:
    """A raw LZ4 block holding *data* as one literal run (len < 15)."""
    assert len(data) < 15
    return bytes([len(data) << 4]) + data


def _be32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def test_lz4_hadoop_golden_single_block() -> None:
    body = _be32(8) + _be32(9) + b"\x80abcdefgh"
    assert body == b"\x00\x00\x00\x08\x00\x00\x00\x09\x80abcdefgh"
    assert get_codec(CodecId.LZ4).decompress(body, 8) == b"abcdefgh"
    # and our writer produces exactly these bytes
    assert get_codec(CodecId.LZ4).compress(b"abcdefgh") == body


def test_lz4_hadoop_golden_several_blocks() -> None:
    body = (
        _be32(5) + _be32(6) + _literal_block(b"hello")
        + _be32(1) + _be32(2) + _literal_block(b" ")
        + _be32(5) + _be32(6) + _literal_block(b"world")
    )  # fmt: skip
    assert get_codec(CodecId.LZ4).decompress(body, 11) == b"hello world"


def test_lz4_hadoop_golden_block_with_inner_chunks() -> None:
    # one block of 11 bytes split into three chunks, as Hadoop's
    # BlockCompressorStream does for large writes
    body = (
        _be32(11)
        + _be32(6) + _literal_block(b"hello")
        + _be32(2) + _literal_block(b" ")
        + _be32(6) + _literal_block(b"world")
    )  # fmt: skip
    assert get_codec(CodecId.LZ4).decompress(body, 11) == b"hello world"


def test_lz4_hadoop_golden_empty() -> None:
    body = _be32(0) + _be32(1) + b"\x00"
    assert get_codec(CodecId.LZ4).compress(b"") == body
    assert get_codec(CodecId.LZ4).decompress(body, 0) == b""


def test_lz4_writer_splits_into_single_chunk_blocks() -> None:
    import lz4.block

    payload = PAYLOADS["mixed"]
    body = get_codec(CodecId.LZ4).compress(payload)
    pos, sizes = 0, []
    while pos < len(body):
        raw_len, comp_len = struct.unpack_from(">II", body, pos)
        pos += 8
        chunk = lz4.block.decompress(body[pos : pos + comp_len], uncompressed_size=raw_len)
        assert len(chunk) == raw_len
        pos += comp_len
        sizes.append(raw_len)
    assert pos == len(body)
    assert sum(sizes) == len(payload)
    assert max(sizes) == LZ4_HADOOP_BLOCK_SIZE <= 256 * 1024 - 1044  # Hadoop's buffer
    assert len(sizes) == -(-len(payload) // LZ4_HADOOP_BLOCK_SIZE)


def test_lz4_falls_back_to_raw_block() -> None:
    import lz4.block

    codec = get_codec(CodecId.LZ4)
    for payload in (PAYLOADS["short"], PAYLOADS["random"], PAYLOADS["mixed"]):
        raw = lz4.block.compress(payload, store_size=False)
        assert codec.decompress(raw, len(payload)) == payload
    # hand-made raw block: a literal run, no Hadoop header
    assert codec.decompress(_literal_block(b"abcdefgh"), 8) == b"abcdefgh"


def test_lz4_falls_back_to_frame_format() -> None:
    import lz4.frame

    codec = get_codec(CodecId.LZ4)
    for payload in (PAYLOADS["short"], PAYLOADS["mixed"]):
        framed = lz4.frame.compress(payload)
        assert framed[:4] == b"\x04\x22\x4d\x18"
        assert codec.decompress(framed, len(payload)) == payload
    # concatenated frames, some without content size
    two = lz4.frame.compress(b"abc" * 100) + lz4.frame.compress(
        b"xyz" * 100, store_size=False
    )
    assert codec.decompress(two, 600) == b"abc" * 100 + b"xyz" * 100
    # a frame holding more than declared
    with pytest.raises(ParquetFormatError, match="LZ4"):
        codec.decompress(lz4.frame.compress(b"abc" * 100), 299)
    # a truncated frame
    with pytest.raises(ParquetFormatError, match="LZ4"):
        codec.decompress(lz4.frame.compress(PAYLOADS["random"])[:-10], 1000)


def test_lz4_error_lists_every_attempt() -> None:
    with pytest.raises(ParquetFormatError) as info:
        get_codec(CodecId.LZ4).decompress(b"\x00\x00\x00\x10\x00\x00\x00\x05\xff\xff\xff", 16)
    msg = str(info.value)
    assert "Hadoop" in msg and "raw block" in msg and "frame" in msg


def test_lz4_raw_is_a_bare_block() -> None:
    import lz4.block

    codec = get_codec(CodecId.LZ4_RAW)
    assert codec.compress(b"abcdefgh") == _literal_block(b"abcdefgh")
    payload = PAYLOADS["mixed"]
    assert codec.decompress(lz4.block.compress(payload, store_size=False), len(payload)) == payload
    # the Hadoop framing is *not* accepted as LZ4_RAW
    with pytest.raises(ParquetFormatError, match="LZ4_RAW"):
        codec.decompress(get_codec(CodecId.LZ4).compress(b"abcdefgh"), 8)


# --------------------------------------------------------------------------
# ZSTD and BROTLI specifics


def test_zstd_frames_without_content_size_and_concatenated() -> None:
    import zstandard

    codec = get_codec(CodecId.ZSTD)
    payload = PAYLOADS["mixed"]
    no_size = zstandard.ZstdCompressor(write_content_size=False).compress(payload)
    assert zstandard.frame_content_size(no_size) == -1
    assert codec.decompress(no_size, len(payload)) == payload
    both = codec.compress(b"abc" * 10) + no_size
    assert codec.decompress(both, 30 + len(payload)) == b"abc" * 10 + payload
    with pytest.raises(ParquetFormatError, match="ZSTD"):
        codec.decompress(no_size + b"junk", len(payload))
    with pytest.raises(ParquetFormatError, match="ZSTD"):
        codec.decompress(no_size, len(payload) - 1)


def test_zstd_writes_content_size() -> None:
    import zstandard

    body = get_codec(CodecId.ZSTD).compress(b"abc" * 10)
    assert zstandard.frame_content_size(body) == 30


def test_brotli_trailing_garbage_and_truncation() -> None:
    codec = get_codec(CodecId.BROTLI)
    body = codec.compress(PAYLOADS["random"])
    with pytest.raises(ParquetFormatError, match="BROTLI"):
        codec.decompress(body + b"junk", 1000)
    with pytest.raises(ParquetFormatError, match="BROTLI"):
        codec.decompress(body[:-5], 1000)


# --------------------------------------------------------------------------
# LZO


def test_lzo_is_registered() -> None:
    # behaviour lives in test_lzo.py (its backend is an optional extra)
    assert get_codec(CodecId.LZO).name == "LZO"


# --------------------------------------------------------------------------
# the Apache parquet-testing corpus
#
# Only the page *bodies* matter here, so the test walks the pages itself:
# pyarrow gives each column chunk's offsets, and the Thrift runtime's
# compact protocol reads just the few PageHeader fields needed (no generated
# types required).


def _corpus_dir() -> Path | None:
    candidates = [
        os.environ.get("PARQUET_TEST_DATA"),
        "/work/shared/parquet-testing/data",
        str(Path(__file__).resolve().parents[3].parent / "shared" / "parquet-testing" / "data"),
    ]
    for cand in candidates:
        if cand and Path(cand, "hadoop_lz4_compressed.parquet").is_file():
            return Path(cand)
    return None


CORPUS = _corpus_dir()
needs_corpus = pytest.mark.skipif(
    CORPUS is None, reason="parquet-testing corpus not found (set PARQUET_TEST_DATA)"
)

# pyarrow's names for the chunk codecs: it maps the deprecated LZ4 (5) to
# its LZ4_HADOOP codec, printed "UNKNOWN", and LZ4_RAW (7) to "LZ4".
_PYARROW_CODEC = {
    "UNCOMPRESSED": 0, "SNAPPY": 1, "GZIP": 2, "LZO": 3, "BROTLI": 4,
    "UNKNOWN": 5, "ZSTD": 6, "LZ4": 7,
}  # fmt: skip


def _iter_page_bodies(path: Path) -> Any:
    """Yield (codec_id, page_type, body, uncompressed_size) for every page."""
    pq = pytest.importorskip("pyarrow.parquet")
    pytest.importorskip("thrift")
    from thrift.protocol.TCompactProtocol import TCompactProtocol
    from thrift.Thrift import TType
    from thrift.transport.TTransport import TMemoryBuffer

    class _Proto(TCompactProtocol):  # type: ignore[misc]
        def readString(self) -> bytes:  # noqa: N802 - statistics are binary
            return self.readBinary()

    def read_struct(proto: Any, wanted: dict[tuple[int, int], Any]) -> dict[int, Any]:
        out: dict[int, Any] = {}
        proto.readStructBegin()
        while True:
            _, ftype, fid = proto.readFieldBegin()
            if ftype == TType.STOP:
                break
            reader = wanted.get((fid, ftype))
            if reader is None:
                proto.skip(ftype)
            else:
                out[fid] = reader(proto)
            proto.readFieldEnd()
        proto.readStructEnd()
        return out

    i32 = lambda p: p.readI32()  # noqa: E731
    v2_fields = {(5, TType.I32): i32, (6, TType.I32): i32, (7, TType.BOOL): lambda p: p.readBool()}
    header_fields = {
        (1, TType.I32): i32,  # type
        (2, TType.I32): i32,  # uncompressed_page_size
        (3, TType.I32): i32,  # compressed_page_size
        (8, TType.STRUCT): lambda p: read_struct(p, v2_fields),  # data_page_header_v2
    }

    raw = path.read_bytes()
    meta = pq.ParquetFile(path).metadata
    for rg in range(meta.num_row_groups):
        for ci in range(meta.num_columns):
            col = meta.row_group(rg).column(ci)
            codec_id = _PYARROW_CODEC[col.compression]
            pos = col.data_page_offset
            dict_off = col.dictionary_page_offset
            if col.has_dictionary_page and dict_off and dict_off < pos:
                pos = dict_off
            end = pos + col.total_compressed_size
            while pos < end:
                trans = TMemoryBuffer(raw[pos : pos + 65536])
                header = read_struct(_Proto(trans), header_fields)
                pos += trans._buffer.tell()
                body = memoryview(raw)[pos : pos + header[3]]
                pos += header[3]
                size = header[2]
                if header[1] == 3:  # DATA_PAGE_V2: levels are never compressed
                    v2 = header[8]
                    if not v2.get(7, True):
                        continue
                    levels = v2.get(5, 0) + v2.get(6, 0)
                    body, size = body[levels:], size - levels
                yield codec_id, header[1], body, size


def _compressed_corpus_files() -> list[str]:
    if CORPUS is None:
        return []
    names = [
        "hadoop_lz4_compressed.parquet",
        "hadoop_lz4_compressed_larger.parquet",
        "non_hadoop_lz4_compressed.parquet",
        "lz4_raw_compressed.parquet",
        "lz4_raw_compressed_larger.parquet",
        "concatenated_gzip_members.parquet",
        "byte_stream_split.zstd.parquet",
        "delta_length_byte_array.parquet",
        "page_v2_empty_compressed.parquet",
        "nested_structs.rust.parquet",
        "alltypes_plain.snappy.parquet",
        "datapage_v2.snappy.parquet",
        "byte_stream_split_extended.gzip.parquet",
    ]
    return [n for n in names if (CORPUS / n).is_file()]


@needs_corpus
@pytest.mark.parametrize("name", _compressed_corpus_files())
def test_corpus_pages_decompress_to_declared_size(name: str) -> None:
    assert CORPUS is not None
    pages = 0
    for codec_id, _, body, size in _iter_page_bodies(CORPUS / name):
        out = get_codec(codec_id).decompress(body, size)
        assert len(out) == size
        pages += 1
    assert pages > 0


@needs_corpus
@pytest.mark.slow
def test_corpus_brotli_gigabyte_pages() -> None:
    """Two BROTLI pages of 1 GiB each (about 10 s and 2 GiB of memory)."""
    assert CORPUS is not None
    sizes = []
    for codec_id, _, body, size in _iter_page_bodies(CORPUS / "large_string_map.brotli.parquet"):
        assert codec_id == CodecId.BROTLI
        out = get_codec(codec_id).decompress(body, size)
        assert len(out) == size
        sizes.append(size)
        del out
    assert max(sizes) > 1 << 30


@needs_corpus
@pytest.mark.parametrize(
    ("name", "hadoop"),
    [
        ("hadoop_lz4_compressed.parquet", True),
        ("hadoop_lz4_compressed_larger.parquet", True),
        ("non_hadoop_lz4_compressed.parquet", False),
    ],
)
def test_corpus_lz4_framings(name: str, hadoop: bool) -> None:
    import lz4.block

    from parquet_core.compression.lz4 import _lz4_hadoop_decompress

    assert CORPUS is not None
    seen = 0
    for codec_id, _, body, size in _iter_page_bodies(CORPUS / name):
        assert codec_id == CodecId.LZ4
        out, why = _lz4_hadoop_decompress(lz4.block, body, size)
        assert (out is not None) is hadoop, why
        assert len(get_codec(codec_id).decompress(body, size)) == size
        seen += 1
    assert seen > 0


@needs_corpus
def test_corpus_concatenated_gzip_has_several_members() -> None:
    assert CORPUS is not None
    for codec_id, _, body, size in _iter_page_bodies(CORPUS / "concatenated_gzip_members.parquet"):
        assert codec_id == CodecId.GZIP
        members, rest = 0, bytes(body)
        while rest:
            d = zlib.decompressobj(wbits=31)
            d.decompress(rest)
            rest, members = d.unused_data, members + 1
        assert members >= 2
        assert len(get_codec(CodecId.GZIP).decompress(body, size)) == size


def test_one_codec_enum() -> None:
    """``CodecId`` is the spec enum of ``parquet_core.constants`` (itself pinned to the
    generated IDL), and every codec's name and id agree with it."""
    from parquet_core.constants import CompressionCodec

    assert CodecId is CompressionCodec
    for cid, codec in REGISTRY.items():
        assert CompressionCodec(cid).name == codec.name and codec.codec_id == cid
        assert type(codec.codec_id) is int
    assert set(REGISTRY) == set(CompressionCodec)


@pytest.mark.parametrize("length", [0, 1, 127, 128, 300, 16383, 16384, 2**21 - 1, 2**21, 2**28 - 1, 2**28,
                                    2**32 - 1])
@pytest.mark.parametrize("tail", [b"", b"\x01\x02\x03"])
def test_snappy_preamble_read_directly_equals_the_varint(length: int, tail: bytes) -> None:
    """The one-, two- and three-byte preambles read directly give the varint's value (the
    spec's little-endian base-128), as the longer ones and the byte loop do."""
    from parquet_core.compression.codecs import _snappy_declared_length

    raw, v = bytearray(), length
    while True:
        raw.append((v & 0x7F) | (0x80 if v >> 7 else 0))
        v >>= 7
        if not v:
            break
    assert _snappy_declared_length(bytes(raw) + tail) == length
    assert _snappy_declared_length(memoryview(bytes(raw) + tail)) == length


def test_snappy_preamble_unterminated_is_refused() -> None:
    from parquet_core.compression.codecs import _snappy_declared_length

    with pytest.raises(ParquetFormatError, match="preamble"):
        _snappy_declared_length(b"\xff\xff\xff")
