"""LZO (codec 3): LZO1X blocks in Hadoop's block framing, with a raw-block fallback.

Compression.md only names "a codec based on or interoperable with the LZO
library"; in practice Parquet LZO pages are what Hadoop's ``LzoCodec``
(parquet-java) writes: the same big-endian framing as Hadoop LZ4 (see
:mod:`parquet_core.compression.codecs`), around LZO1X blocks::

    +-----------+-----------+------------+-----------+------------+----
    | raw_len   | comp_len  | LZO1X blk  | comp_len  | LZO1X blk  | ...
    | u32 BE    | u32 BE    |            | u32 BE    |            |
    +-----------+-----------+------------+-----------+------------+----

Reading tries that framing first and falls back to one bare LZO1X block
(what a writer that skipped the framing would emit).  An LZO1X stream ends
with its own end marker (``11 00 00``), so the raw fallback cannot silently
stop early.  Writing emits the framing, one block per 128 KiB of input (an
empty page is one empty block).

The backend is ``lzallright`` (Rust, wheels for CPython 3.11+), an optional
dependency: ``pip install parquet-core[lzo]``.  Edge cases: an empty page,
a block declaring more bytes than the page, trailing bytes after a raw
block (``InputNotConsumed``), all raise ``ParquetFormatError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from parquet_core.compression.base import _BaseCodec, _check_level, _import_backend
from parquet_core.compression.lz4 import _U32_PAIR, _lz4_hadoop_decompress
from parquet_core.constants import CompressionCodec
from parquet_core.errors import ParquetFormatError

__all__ = ["LzoCodec", "LZO_HADOOP_BLOCK_SIZE", "LZO_MAX_RATIO"]

#: The most one compressed byte of an LZO1X block expands to: past its opcode, a match's
#: length grows by 255 per zero byte (LZO1X's long-length encoding), literals take their
#: own bytes; zeros compress about 186-fold.  A block declaring more is refused unread.
LZO_MAX_RATIO: Final = 256

#: Largest uncompressed size of one block that :class:`LzoCodec` writes.
LZO_HADOOP_BLOCK_SIZE: Final = 128 * 1024


class _LzoBlocks:
    """Adapts ``lzallright`` to the ``decompress(data, uncompressed_size=)`` call the
    Hadoop framing decoder makes (the same one ``lz4.block`` offers)."""

    def __init__(self, backend: Any) -> None:
        self._lzo = backend.LZOCompressor

    def decompress(self, data: bytes | memoryview, uncompressed_size: int) -> bytes:
        out = self._lzo.decompress(bytes(data), output_size_hint=uncompressed_size)
        return bytes(out)


@dataclass(frozen=True)
class LzoCodec(_BaseCodec):
    """Codec 3: LZO1X via ``lzallright`` (see the module docstring)."""

    name: str = "LZO"
    codec_id: int = int(CompressionCodec.LZO)
    package: str | None = "lzallright"

    def _backend(self) -> Any:
        return _import_backend("lzallright", self.name, "parquet-core[lzo] (lzallright)")

    def _ensure_supported(self) -> None:
        self._backend()

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes:
        blocks = _LzoBlocks(self._backend())
        # the backend allocates the size it is given before decoding: each block (and a bare
        # block) is given at most what its compressed bytes can expand to
        framed, hadoop_why = _lz4_hadoop_decompress(blocks, data, n, LZO_MAX_RATIO)
        if framed is not None:
            return framed
        if n > LZO_MAX_RATIO * len(data) + 64:
            raise ParquetFormatError(
                f"LZO: {len(data)} compressed bytes cannot hold the declared {n} bytes: not "
                f"Hadoop-framed ({hadoop_why}), and a raw LZO1X block expands at most "
                f"{LZO_MAX_RATIO}-fold")
        try:
            raw = blocks.decompress(data, n)
        except Exception as exc:  # noqa: BLE001 - lzallright raises its own error types
            raise ParquetFormatError(
                f"LZO: cannot decompress {len(data)} bytes into {n} bytes: not Hadoop-framed "
                f"({hadoop_why}), not a raw LZO1X block ({type(exc).__name__}: {exc!s:.80})"
            ) from exc
        return raw   # its size is checked by _BaseCodec.decompress

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        if level is not None:
            _check_level(self.name, level, 1, 1)   # lzallright has one (LZO1X-1 style) level
        compressor = self._backend().LZOCompressor()
        view = memoryview(data)
        parts: list[bytes] = []
        start = 0
        while True:  # at least one block, also for an empty page
            piece = view[start:start + LZO_HADOOP_BLOCK_SIZE]
            comp = bytes(compressor.compress(bytes(piece)))
            parts.append(_U32_PAIR.pack(len(piece), len(comp)))
            parts.append(comp)
            start += LZO_HADOOP_BLOCK_SIZE
            if start >= len(view):
                break
        return b"".join(parts)
