"""LZO (codec 3): Hadoop framing around LZO1X blocks, raw fallback, missing backend."""

from __future__ import annotations

import random
import struct
import sys

import pytest

import parquet_core as pc
from parquet_core.compression import CodecId, get_codec
from parquet_core.errors import CodecUnavailableError, ParquetFormatError

lzallright = pytest.importorskip("lzallright")

# An LZO1X stream of literals only, built from the format: a first byte of
# 17 + n introduces n (<= 238) literal bytes; 0x11 0x00 0x00 ends the stream.
_ABC_BLOCK = bytes([17 + 3]) + b"abc" + b"\x11\x00\x00"


def _hadoop(*blocks: tuple[int, bytes]) -> bytes:
    """Hadoop block framing: u32 BE raw length, u32 BE compressed length, block."""
    return b"".join(struct.pack(">II", n, len(b)) + b for n, b in blocks)


def test_hand_built_blocks_in_hadoop_framing_and_raw() -> None:
    codec = get_codec(CodecId.LZO)
    assert codec.is_available()
    assert bytes(codec.decompress(_hadoop((3, _ABC_BLOCK)), 3)) == b"abc"
    assert bytes(codec.decompress(_hadoop((3, _ABC_BLOCK), (3, _ABC_BLOCK)), 6)) == b"abcabc"
    assert bytes(codec.decompress(_ABC_BLOCK, 3)) == b"abc"         # no framing


def test_framing_around_the_bindings_own_blocks() -> None:
    rng = random.Random(7)
    data = bytes(rng.choice(b"abcdefgh") for _ in range(300_000))
    comp = lzallright.LZOCompressor()
    halves = (data[:200_000], data[200_000:])
    framed = _hadoop(*((len(h), bytes(comp.compress(h))) for h in halves))
    codec = get_codec(CodecId.LZO)
    assert bytes(codec.decompress(framed, len(data))) == data
    ours = codec.compress(data)
    # our output is the framing: 128 KiB blocks, each a stream the binding decodes alone
    n, m = struct.unpack(">II", ours[:8])
    assert n == 128 * 1024 and lzallright.LZOCompressor.decompress(ours[8:8 + m]) == data[:n]
    assert bytes(codec.decompress(ours, len(data))) == data
    assert bytes(codec.decompress(codec.compress(b""), 0)) == b""


@pytest.mark.parametrize("body, n", [
    (_hadoop((3, _ABC_BLOCK)), 4),                 # declared size differs
    (_ABC_BLOCK + b"zz", 3),                       # bytes after the end marker
    (_ABC_BLOCK[:-2], 3),                          # truncated stream
    (b"\x00\x00\x00\x09\x00\x00\x00\x01x", 9),     # framing with a broken block
])
def test_malformed_pages_raise_format_errors(body: bytes, n: int) -> None:
    with pytest.raises(ParquetFormatError):
        get_codec(CodecId.LZO).decompress(body, n)


def test_missing_backend_names_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "lzallright", None)
    with pytest.raises(CodecUnavailableError, match=r"parquet-core\[lzo\]"):
        get_codec(CodecId.LZO).decompress(_ABC_BLOCK, 3)


def test_lzo_files_round_trip(tmp_path) -> None:
    path = tmp_path / "lzo.parquet"
    data = {"i": list(range(1000)), "s": [f"v{i % 7}" for i in range(1000)]}
    pc.write_table(data, path, compression="lzo", data_page_version="2.0")
    pf = pc.ParquetFile(path)
    assert pf.metadata.row_group(0).column(0).compression == "LZO"
    assert pc.read_table(path).to_pydict() == data


def test_declared_size_is_not_allocated_before_the_bytes_can_hold_it(monkeypatch) -> None:
    """Issue 29: a few LZO bytes declaring 2 GiB made the backend allocate 2 GiB (its
    ``output_size_hint``) before anything was checked; now no block is given more room than
    its compressed bytes can expand to (LZO1X: 256-fold), and a bare block declaring more
    is refused unread."""
    hints: list[int] = []
    real = lzallright.LZOCompressor.decompress

    class Spy:
        @staticmethod
        def decompress(data, output_size_hint=0):   # noqa: ANN001, ANN205
            hints.append(output_size_hint)
            return real(data, output_size_hint=min(output_size_hint, 1 << 20))

    codec = get_codec(CodecId.LZO)
    monkeypatch.setattr(type(codec), "_backend", lambda self: type("B", (), {"LZOCompressor": Spy}))
    huge = (1 << 31) - 1
    with pytest.raises(ParquetFormatError, match="LZO"):
        codec.decompress(_hadoop((huge, _ABC_BLOCK)), huge)
    with pytest.raises(ParquetFormatError, match="expands at most"):
        codec.decompress(_ABC_BLOCK, huge)
    assert hints and max(hints) <= 256 * len(_hadoop((huge, _ABC_BLOCK))) + 64
    assert bytes(codec.decompress(_hadoop((3, _ABC_BLOCK)), 3)) == b"abc"     # still reads
