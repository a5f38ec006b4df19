"""LZ4 (codec 5, Hadoop framing with raw-block and frame fallbacks) and LZ4_RAW (codec 7).

The framings are drawn in :mod:`parquet_core.compression.codecs`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol

from parquet_core.compression.base import (
    _BaseCodec,
    _check_level,
    _import_backend,
    _join,
    _too_large,
)
from parquet_core.constants import CompressionCodec
from parquet_core.errors import (
    ParquetFormatError,
)

if TYPE_CHECKING:
    from types import ModuleType


__all__ = ["LZ4_HADOOP_BLOCK_SIZE", "Lz4Codec", "Lz4RawCodec"]

#: Largest uncompressed size of one block that :class:`Lz4Codec` writes.
LZ4_HADOOP_BLOCK_SIZE: Final = 128 * 1024

_U32_PAIR: Final = struct.Struct(">II")
_U32: Final = struct.Struct(">I")
_LZ4_FRAME_MAGIC: Final = b"\x04\x22\x4d\x18"


# --------------------------------------------------------------------------
# LZ4 (Hadoop framing) and LZ4_RAW


class _BlockDecompressor(Protocol):
    """What the Hadoop framing decoder calls per block: ``lz4.block`` offers it, and LZO adapts to it."""

    def decompress(self, source: bytes | memoryview, /, uncompressed_size: int) -> bytes: ...


def _lz4_block_compress(block: ModuleType, data: bytes | memoryview, level: int | None) -> bytes:
    """Compress one raw LZ4 block (no size prefix).

    Parameters
    ----------
    block:
        The ``lz4.block`` module, or another block decoder with its ``decompress``.
    data:
        Input bytes.
    level:
        ``None`` or 0..2: the fast default; ``< 0``: fast mode with
        acceleration ``-level``; 3..12: high-compression mode at that level.

    Returns
    -------
    bytes
        The raw block.
    """
    if level is None or 0 <= level <= 2:
        out = block.compress(data, store_size=False)
    elif level < 0:
        out = block.compress(data, mode="fast", acceleration=-level, store_size=False)
    else:
        out = block.compress(data, mode="high_compression", compression=level, store_size=False)
    return bytes(out)


#: An LZ4 block never expands more than this: past a sequence's token, every further
#: input byte adds at most 255 bytes to a match length (LZ4 block format, "Match length").
LZ4_MAX_RATIO = 255


def _beyond_block_ratio(compressed: int, n: int) -> str:
    """Why *compressed* bytes cannot be one LZ4 block of *n* bytes ("" when they can).

    Checked before decoding: the backend allocates the whole declared size up
    front, so a page claiming gigabytes would otherwise allocate them (found by fuzzing).
    """
    if n > LZ4_MAX_RATIO * compressed + 64:
        return (f"{compressed} compressed bytes cannot hold {n} bytes "
                f"(an LZ4 block expands at most {LZ4_MAX_RATIO}-fold)")
    return ""


def _check_lz4_level(codec: str, level: int | None) -> None:
    if level is not None:
        _check_level(codec, level, -(1 << 16), 12)


def _lz4_hadoop_decompress(
    block: _BlockDecompressor | ModuleType, data: bytes | memoryview, n: int,
    max_ratio: int | None = LZ4_MAX_RATIO
) -> tuple[bytes | None, str]:
    """Try to decode the Hadoop LZ4 framing.

    Parameters
    ----------
    block:
        The ``lz4.block`` module.
    data:
        The page body.
    n:
        Declared uncompressed size.
    max_ratio:
        The most one compressed byte of a chunk can expand to: a chunk is decoded
        into at most that many bytes per compressed byte (the backend allocates
        the size it is given up front, so a block header declaring gigabytes in
        front of a few bytes allocates no more than those bytes can hold).
        None: the declared size.

    Returns
    -------
    tuple[bytes | None, str]
        The decoded bytes (exactly *n* of them), or ``None`` and the reason
        why *data* is not a valid Hadoop framing of *n* bytes.
    """
    total = len(data)
    pos = 0
    produced = 0
    chunks: list[bytes] = []
    if total < _U32_PAIR.size:
        return None, "shorter than one block header"
    while pos < total:
        if total - pos < _U32_PAIR.size:
            return None, f"dangling {total - pos} bytes at offset {pos}"
        (block_len,) = _U32.unpack_from(data, pos)
        pos += _U32.size
        if block_len > n - produced:
            return None, f"block at offset {pos - 4} declares {block_len} bytes, beyond the page"
        block_done = 0
        while True:  # at least one chunk per block, also for block_len == 0
            if total - pos < _U32.size:
                return None, f"missing chunk length at offset {pos}"
            (comp_len,) = _U32.unpack_from(data, pos)
            pos += _U32.size
            if comp_len > total - pos:
                return None, f"chunk at offset {pos - 4} overruns the input"
            want = block_len - block_done
            if max_ratio is not None:
                want = min(want, max_ratio * comp_len + 64)
            try:
                out = block.decompress(data[pos : pos + comp_len], uncompressed_size=want)
            except Exception as exc:  # noqa: BLE001 - not this framing
                return None, f"chunk at offset {pos - 4}: {exc}"
            pos += comp_len
            chunks.append(out)
            block_done += len(out)
            if block_done >= block_len:
                break
            if not out:
                return None, f"empty chunk at offset {pos - comp_len - 4}"
        produced += block_done
    if produced != n:
        return None, f"decoded {produced} bytes, expected {n}"
    return _join(chunks) if chunks else b"", ""


def _lz4_frame_decompress(data: bytes | memoryview, n: int) -> bytes:
    """Decode one or more concatenated LZ4 frames, at most *n* (+1) bytes.

    Parameters
    ----------
    data:
        The page body, starting with the LZ4 frame magic.
    n:
        Declared uncompressed size.

    Returns
    -------
    bytes
        The decoded bytes (the caller checks the length).
    """
    frame = _import_backend("lz4.frame", "LZ4", "lz4")
    chunks: list[bytes] = []
    remaining = n
    src: bytes | memoryview = data
    while True:
        dec = frame.LZ4FrameDecompressor()
        out = dec.decompress(src, max_length=remaining + 1)
        while True:
            remaining -= len(out)
            chunks.append(out)
            if remaining < 0:
                raise _too_large("LZ4", n)
            if dec.eof or dec.needs_input:
                break
            out = dec.decompress(b"", max_length=remaining + 1)
        if not dec.eof:
            raise ParquetFormatError(f"LZ4: truncated frame after {n - remaining} of {n} bytes")
        tail = dec.unused_data
        if not tail:
            break
        src = tail
    return b"".join(chunks)


@dataclass(frozen=True)
class _Lz4BlockCodec(_BaseCodec):
    """What both LZ4 codecs share: the ``lz4.block`` backend."""

    package: str | None = "lz4"

    def _backend(self) -> ModuleType:
        return _import_backend("lz4.block", self.name, "lz4")

    def _ensure_supported(self) -> None:
        self._backend()


@dataclass(frozen=True)
class Lz4Codec(_Lz4BlockCodec):
    """Codec 5 (deprecated LZ4): Hadoop framing, raw block or frame format."""

    name: str = "LZ4"
    codec_id: int = int(CompressionCodec.LZ4)

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes:
        block = self._backend()
        out, hadoop_why = _lz4_hadoop_decompress(block, data, n)
        if out is not None:
            return out
        # Raw block: the output buffer is exactly n bytes, bomb-safe.
        raw_why = _beyond_block_ratio(len(data), n)
        if not raw_why:
            try:
                raw = block.decompress(data, uncompressed_size=n)
            except Exception as exc:  # noqa: BLE001 - try the next framing
                raw_why = f"{type(exc).__name__}: {exc}"
            else:
                if len(raw) == n:
                    return bytes(raw)
                raw_why = f"decoded {len(raw)} bytes, expected {n}"
        if bytes(data[:4]) == _LZ4_FRAME_MAGIC:
            try:
                framed = _lz4_frame_decompress(data, n)
            except ParquetFormatError:
                raise
            except Exception as exc:
                raise ParquetFormatError(
                    f"{self.name}: not Hadoop-framed ({hadoop_why}), not a raw block "
                    f"({raw_why}), bad LZ4 frame: {exc}"
                ) from exc
            return framed  # its size is checked by _BaseCodec.decompress
        raise ParquetFormatError(
            f"{self.name}: cannot decompress {len(data)} bytes into {n} bytes: not "
            f"Hadoop-framed ({hadoop_why}), not a raw block ({raw_why}), no LZ4 frame magic"
        )

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        _check_lz4_level(self.name, level)
        block = self._backend()
        view = memoryview(data)
        parts: list[bytes] = []
        start = 0
        while True:  # at least one block, also for empty input (as Arrow does)
            piece = view[start : start + LZ4_HADOOP_BLOCK_SIZE]
            comp = _lz4_block_compress(block, piece, level)
            parts.append(_U32_PAIR.pack(len(piece), len(comp)))
            parts.append(comp)
            start += LZ4_HADOOP_BLOCK_SIZE
            if start >= len(view):
                break
        return b"".join(parts)


@dataclass(frozen=True)
class Lz4RawCodec(_Lz4BlockCodec):
    """Codec 7 (LZ4_RAW): one bare LZ4 block."""

    name: str = "LZ4_RAW"
    codec_id: int = int(CompressionCodec.LZ4_RAW)

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes:
        why = _beyond_block_ratio(len(data), n)
        if why:
            raise ParquetFormatError(f"{self.name}: {why}")
        # The output buffer is exactly n bytes: an overrun is a backend error.
        return bytes(self._backend().decompress(data, uncompressed_size=n))

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        _check_lz4_level(self.name, level)
        return _lz4_block_compress(self._backend(), data, level)


