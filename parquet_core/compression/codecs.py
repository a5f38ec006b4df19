"""Codec implementations: one small frozen dataclass per Parquet codec.

Every codec shares the same contract, enforced by :class:`_BaseCodec`:

* ``decompress(data, uncompressed_size)`` returns exactly
  ``uncompressed_size`` bytes or raises :class:`~parquet_core.errors.ParquetFormatError`
  naming the codec together with the expected and actual sizes.  Any
  exception from a backend library is wrapped (``raise ... from exc``).
* The declared size is also the budget: no codec ever materialises more
  than ``uncompressed_size`` bytes plus a small slack (one output chunk of
  the backend), so a hostile page cannot inflate into gigabytes.  The
  declared size itself comes from the page header; bounding *that* is the
  page layer's job (:mod:`parquet_core.page.limits`).
* Nor is the declared size allocated before bytes back it: codecs whose
  backend allocates the output up front (SNAPPY, LZ4) first check that the
  compressed bytes can expand that far at all (each format has a largest
  ratio); the streaming ones (GZIP, BROTLI, ZSTD without a matching content
  size) grow their output in steps of :data:`_STEP` bytes as it is decoded,
  in one buffer (never a list of pieces joined at the end, which would hold
  the page twice).
* ``compress(data, level=None)`` returns the codec's framing of *data*.
  ``level=None`` picks the codec's :attr:`default_level`; codecs without a
  notion of level (UNCOMPRESSED, SNAPPY) ignore the argument.
* Backends are imported inside the functions that use them, so importing
  :mod:`parquet_core` never loads a compression library.  A missing backend
  raises :class:`~parquet_core.errors.CodecUnavailableError` naming the pip
  package that provides it.

The byte framings, in our own words
-----------------------------------

UNCOMPRESSED (0)
    The bytes are stored as they are.

SNAPPY (1)
    One *raw* Snappy block (not the ``sNaPpY`` streaming format).  The block
    opens with the uncompressed length as an unsigned LEB128 varint, which
    we check against the declared size before decoding anything.  Decoded
    with ``cramjam`` into a buffer of that size when it is installed, else
    with ``python-snappy``.

GZIP (2)
    A gzip stream as written by ``java.util.zip``/Hadoop's ``GzipCodec``.
    A stream may consist of several gzip *members* glued together (each with
    its own header and CRC trailer); the decompressed page is the
    concatenation of all members.  ``wbits=47`` lets zlib detect a gzip or a
    zlib header by itself, so zlib-wrapped pages are accepted too.  Trailing
    NUL padding after the last member is tolerated, any other trailing byte
    is an error::

        +----------------+----------------+-----+------------+
        | gzip member #1 | gzip member #2 | ... | 00 00 (opt)|
        +----------------+----------------+-----+------------+

LZO (3)
    LZO1X blocks in the Hadoop framing drawn under LZ4 below, with a raw
    block fallback; see :mod:`parquet_core.compression.lzo` (backend
    ``lzallright``, the ``parquet-core[lzo]`` extra).

BROTLI (4)
    One Brotli stream.

LZ4 (5, deprecated)
    Ambiguous in practice.  parquet-java writes it through Hadoop's
    ``Lz4Codec``, which wraps raw LZ4 blocks in a length-prefixed framing;
    old parquet-cpp wrote one bare LZ4 block; some writers emitted the LZ4
    *frame* format.  We therefore try, in this order, the Hadoop framing,
    a raw block, then the frame format, and accept the first that yields
    exactly the declared number of bytes.  The Hadoop framing is a sequence
    of blocks; all integers are 32-bit **big-endian**::

        +------------------+------------------+----------------------+
        | block 0          | block 1          | ...                  |
        +------------------+------------------+----------------------+

        one block:
        +-----------+-----------+------------+-----------+------------+--
        | raw_len   | comp_len  | LZ4 block  | comp_len  | LZ4 block  | ...
        | u32 BE    | u32 BE    | comp_len B | u32 BE    | comp_len B |
        +-----------+-----------+------------+-----------+------------+--
          raw_len = total decompressed size of the block; the inner
          (comp_len, LZ4 block) chunks repeat until raw_len bytes have
          been produced (Hadoop splits large writes this way).

    When writing we emit blocks of at most :data:`LZ4_HADOOP_BLOCK_SIZE`
    uncompressed bytes with exactly one chunk each: Hadoop's decoder
    buffer (256 KiB by default) holds a block, and readers that do not
    understand multi-chunk blocks (Arrow, parquet-rs) still read it.

ZSTD (6)
    One or more Zstandard frames.  The content size field of a frame is
    optional: a page that is one frame declaring exactly the page header's
    size is decoded in one shot into that many bytes; anything else is
    streamed with an output cap rather than trusting the frame header.

LZ4_RAW (7)
    One bare LZ4 block with no header at all; the declared uncompressed
    size is the only length information.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from parquet_core.compression.base import (
    _backend_failure,
    _BaseCodec,
    _check_level,
    _import_backend,
    _size_mismatch,
    _too_large,
)
from parquet_core.compression.lz4 import LZ4_HADOOP_BLOCK_SIZE, Lz4Codec, Lz4RawCodec
from parquet_core.compression.lzo import LzoCodec
from parquet_core.constants import CompressionCodec
from parquet_core.errors import (
    ParquetError,
    ParquetFormatError,
)

if TYPE_CHECKING:
    from types import ModuleType


__all__ = [
    "BrotliCodec",
    "GzipCodec",
    "LZ4_HADOOP_BLOCK_SIZE",
    "Lz4Codec",
    "Lz4RawCodec",
    "LzoCodec",
    "SnappyCodec",
    "UncompressedCodec",
    "ZstdCodec",
]


# --------------------------------------------------------------------------
# UNCOMPRESSED


@dataclass(frozen=True)
class UncompressedCodec(_BaseCodec):
    """Codec 0: the identity; :meth:`decompress` does not copy."""

    name: str = "UNCOMPRESSED"
    codec_id: int = int(CompressionCodec.UNCOMPRESSED)

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes | memoryview:
        return data

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        return bytes(data)


# --------------------------------------------------------------------------
# SNAPPY


def _snappy_declared_length(data: bytes | memoryview) -> int:
    """Read the varint length preamble of a raw Snappy block.

    Parameters
    ----------
    data:
        A raw Snappy block.

    Returns
    -------
    int
        The uncompressed length the block declares.
    """
    if len(data) > 2:   # pages of up to 2 MiB: a two- or three-byte preamble, read directly
        b0, b1 = data[0], data[1]
        if b0 < 0x80:
            return b0
        if b1 < 0x80:
            return (b0 & 0x7F) | b1 << 7
        b2 = data[2]
        if b2 < 0x80:
            return (b0 & 0x7F) | (b1 & 0x7F) << 7 | b2 << 14
    result = 0
    for shift in range(0, 35, 7):  # at most 5 bytes for a 32-bit length
        if shift // 7 >= len(data):
            break
        byte = data[shift // 7]
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result
    raise ParquetFormatError("SNAPPY: truncated or invalid length preamble")


#: A raw Snappy block expands at most this much: its densest element, a 3-byte copy
#: (tag and 2-byte offset), stands for at most 64 bytes.
SNAPPY_MAX_RATIO = 22

#: The most bytes one shared block of a chunk's decompressed data pages holds
#: (:meth:`_SnappyPages.decompress_page`); a page larger than this gets a block of its size.
SHARED_BLOCK_MAX = 64 << 20

#: Output bytes a streaming decoder is asked for at a time (see the module docstring).
_STEP = 1 << 22


class _Output:
    """A decoder's output, growing in steps.  A page of at most :data:`_STEP` bytes is
    the decoder's one piece, not copied; a larger one is appended piece by piece to one
    bytearray, which grows in place (joining a list of pieces at the end would hold the
    page twice).  Callers drop each piece once added, so at most the page and one piece
    are held."""

    __slots__ = ("pieces", "buf", "size")

    def __init__(self, expected: int) -> None:
        self.pieces: list[bytes] = []
        self.buf: bytearray | None = bytearray() if expected > _STEP else None
        self.size = 0

    def add(self, piece: bytes) -> None:
        if self.buf is not None:
            self.buf += piece
        else:
            self.pieces.append(piece)
        self.size += len(piece)

    def result(self) -> bytes | memoryview:
        if self.buf is not None:
            return memoryview(self.buf)
        pieces = self.pieces
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)


_CRAMJAM_SNAPPY: list[Callable[[Any, Any], int] | None] = []


def _cramjam_snappy_into() -> Callable[[Any, Any], int] | None:
    """``cramjam.snappy.decompress_raw_into`` when cramjam is installed, else None (cached)."""
    if not _CRAMJAM_SNAPPY:
        try:
            import cramjam  # python-snappy >= 0.7 depends on it

            fn = getattr(cramjam.snappy, "decompress_raw_into", None)
        except ImportError:
            fn = None
        _CRAMJAM_SNAPPY.append(fn)
    return _CRAMJAM_SNAPPY[0]


@dataclass(frozen=True)
class SnappyCodec(_BaseCodec):
    """Codec 1: raw Snappy blocks via ``python-snappy``."""

    name: str = "SNAPPY"
    codec_id: int = int(CompressionCodec.SNAPPY)
    package: str | None = "python-snappy"

    def _backend(self) -> ModuleType:
        return _import_backend("snappy", self.name, "python-snappy")

    def _ensure_supported(self) -> None:
        self._backend()

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes | memoryview:
        declared = _snappy_declared_length(data)
        if declared != n:
            # Refuse before allocating anything: the preamble is what the
            # backend would allocate.
            raise _size_mismatch(self.name, n, declared)
        if n > SNAPPY_MAX_RATIO * len(data):
            raise ParquetFormatError(
                f"{self.name}: {len(data)} compressed bytes cannot hold {n} bytes (a Snappy block "
                f"expands at most {SNAPPY_MAX_RATIO}-fold)")
        backend = self._backend()   # python-snappy stays the declared dependency
        into = _cramjam_snappy_into()
        if into is None:
            return bytes(backend.uncompress(data))
        # cramjam writes straight into a buffer of the declared size and
        # releases the GIL; python-snappy (a wrapper over it since 0.7) would
        # return a Buffer that needs one more copy under the GIL.  An output
        # smaller than the block needs is a backend error, so nothing beyond
        # n bytes is ever allocated.
        out = np.empty(n, dtype=np.uint8)   # not zero-filled: every byte gets written
        written = into(data, out)
        if written != n:
            raise _size_mismatch(self.name, n, written)
        return out.data

    def page_decompressor(self) -> Any:
        """:class:`_SnappyPages` when cramjam's ``decompress_raw_into`` is there and
        python-snappy imports, else this codec (which then reports what is missing)."""
        into = _cramjam_snappy_into()
        if into is None:
            return self
        try:
            self._backend()
        except ParquetError:
            return self
        return _SnappyPages(self, into)

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        return bytes(self._backend().compress(data))


class _SnappyPages:
    """:meth:`SnappyCodec.decompress` of one chunk's pages with the backend resolved once:
    a small page spent about as long in the layers around the backend (argument checks,
    backend lookups) as in decompressing.  A page body that is not a plain byte view, or an
    empty or negative size, goes through the codec's own method; every other page gets the
    same checks in the same order and the same errors."""

    __slots__ = ("codec", "into", "_block", "_used", "_kind")

    def __init__(self, codec: SnappyCodec, into: Callable[[Any, Any], int]) -> None:
        self.codec = codec
        self.into = into
        self._block: npt.NDArray[np.uint8] | None = None
        self._used = 0
        self._kind = -1

    def decompress(self, data: Any, n: int) -> bytes | memoryview:
        return self._decompress(data, n, -1)

    def decompress_page(self, data: Any, n: int, left: int, kind: int = 0) -> bytes | memoryview:
        """:meth:`decompress` of a data page followed by *left* more stored bytes of its
        chunk (the same checks and errors): the page lands in the next free slice of a
        block shared with the chunk's following data pages.  One allocation serves the
        chunk's pages instead of one each, and a decoder that needs the pages back to
        back (PLAIN byte arrays: ``encodings.plain._join_pages``) finds them so and
        copies nothing.  A block is sized for this page and the ones after it at this
        page's ratio, 1/8 more, at most what those stored bytes can expand to
        (:data:`SNAPPY_MAX_RATIO`) and at most :data:`SHARED_BLOCK_MAX` bytes; a page
        that does not fit the rest of a block starts a new one, and so does a page of
        another *kind* (its encoding: the pages of a dictionary fallback, PLAIN after
        the dictionary's indices, compress differently and are decoded apart)."""
        if kind != self._kind:
            self._kind = kind
            self._block = None
        return self._decompress(data, n, left)

    def _slice(self, n: int, stored: int, left: int) -> npt.NDArray[np.uint8]:
        block, used = self._block, self._used
        if block is None or block.size - used < n:
            guess = n * left // stored
            more = min(guess + (guess >> 3), SNAPPY_MAX_RATIO * left, max(SHARED_BLOCK_MAX - n, 0))
            block = self._block = np.empty(n + more, dtype=np.uint8)
            used = 0
        self._used = used + n
        return block[used:used + n]

    def _decompress(self, data: Any, n: int, left: int) -> bytes | memoryview:
        if type(n) is not int or n <= 0 or type(data) is not memoryview or \
                data.format != "B" or data.ndim != 1 or not len(data):
            return self.codec.decompress(data, n)
        name = self.codec.name
        declared = _snappy_declared_length(data)
        if declared != n:
            raise _size_mismatch(name, n, declared)
        if n > SNAPPY_MAX_RATIO * len(data):
            raise ParquetFormatError(
                f"{name}: {len(data)} compressed bytes cannot hold {n} bytes (a Snappy block "
                f"expands at most {SNAPPY_MAX_RATIO}-fold)")
        out = np.empty(n, dtype=np.uint8) if left < 0 else self._slice(n, len(data), left)
        try:
            written = self.into(data, out)
        except MemoryError:
            raise
        except Exception as exc:  # any backend failure means corrupt input
            raise _backend_failure(name, len(data), n, exc) from exc
        if written != n:
            raise _size_mismatch(name, n, written)
        return out.data


# --------------------------------------------------------------------------
# GZIP


@dataclass(frozen=True)
class GzipCodec(_BaseCodec):
    """Codec 2: gzip (possibly several members) via the stdlib ``zlib``."""

    name: str = "GZIP"
    codec_id: int = int(CompressionCodec.GZIP)
    default_level: int | None = 6

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes | memoryview:
        out = _Output(n)
        src: bytes | memoryview = data
        while True:
            # 32 + 15: detect a gzip or zlib header automatically.
            dobj = zlib.decompressobj(wbits=47)
            while True:
                # max_length caps each step (0 would mean "unbounded", but it is >= 1);
                # asking for one byte more than the page has left reveals an overrun
                piece = dobj.decompress(src, min(n + 1 - out.size, _STEP))
                progress = len(piece)
                out.add(piece)
                del piece
                if out.size > n:
                    raise _too_large(self.name, n)
                src = dobj.unconsumed_tail
                if dobj.eof or not progress:
                    break
            if not dobj.eof:
                raise ParquetFormatError(
                    f"{self.name}: truncated stream after {out.size} of {n} bytes"
                )
            tail = dobj.unused_data
            if not tail or not tail.strip(b"\x00"):
                break  # done; trailing NUL padding is tolerated
            src = tail
        return out.result()

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        assert level is not None
        _check_level(self.name, level, -1, 9)
        # wbits=31: a gzip member (the format Hadoop's GzipCodec reads).
        cobj = zlib.compressobj(level, zlib.DEFLATED, 31)
        return cobj.compress(data) + cobj.flush()


# --------------------------------------------------------------------------
# BROTLI


@dataclass(frozen=True)
class BrotliCodec(_BaseCodec):
    """Codec 4: Brotli via the ``brotli`` package."""

    name: str = "BROTLI"
    codec_id: int = int(CompressionCodec.BROTLI)
    package: str | None = "brotli"
    # brotli's own default (11) is an order of magnitude slower for a few
    # percent; 8 is Arrow's default too.
    default_level: int | None = 8

    def _backend(self) -> ModuleType:
        return _import_backend("brotli", self.name, "brotli")

    def _ensure_supported(self) -> None:
        self._backend()

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes | memoryview:
        brotli = self._backend()
        dec = brotli.Decompressor()
        out = _Output(n)
        try:
            out.add(dec.process(data, output_buffer_limit=min(n + 1, _STEP)))
        except TypeError:
            # brotli < 1.1 has no output limit: no bomb guard possible there.
            return bytes(brotli.decompress(bytes(data)))
        while out.size <= n and not dec.is_finished():
            more = dec.process(b"", output_buffer_limit=min(n + 1 - out.size, _STEP))
            if not more and not dec.is_finished():
                if dec.can_accept_more_data():
                    # All input consumed, nothing pending, stream not finished: truncated.
                    raise ParquetFormatError(
                        f"{self.name}: truncated stream after {out.size} of {n} bytes"
                    )
                raise ParquetFormatError(f"{self.name}: decoder made no progress")
            out.add(more)
            del more
        if out.size > n:
            raise _too_large(self.name, n)
        return out.result()

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        assert level is not None
        _check_level(self.name, level, 0, 11)
        return bytes(self._backend().compress(data, quality=level))


# --------------------------------------------------------------------------
# ZSTD


#: output bytes asked of the zstd stream reader at a time
_ZSTD_STEP = 1 << 20

_ZSTD_LOCAL = threading.local()


def _zstd_one_shot(zstd: ModuleType, data: bytes | memoryview, n: int) -> bytes | None:
    """Decompress a page that is one frame declaring exactly *n* bytes, or return None.

    One-shot decompression allocates the frame's declared content size, so it
    is used only when that size equals the page header's (the caller's
    budget); frames without a content size, with another one, or followed by
    more frames (``allow_extra_data=False`` refuses them) go through the
    bounded streaming path, which also produces any error message.  It
    avoids the stream reader's chunked reads (about 15 % of a zstd page).
    """
    if n == 0:   # zstandard returns b"" for a frame declaring 0 bytes without looking further
        return None
    try:
        if zstd.frame_content_size(data) != n:
            return None
        dctx = getattr(_ZSTD_LOCAL, "dctx", None)
        if dctx is None:   # decompressor contexts are not shared across threads
            dctx = _ZSTD_LOCAL.dctx = zstd.ZstdDecompressor()
        out = dctx.decompress(data, max_output_size=n, allow_extra_data=False)
    except Exception:  # noqa: BLE001 - the streaming path decides and reports
        return None
    return out if len(out) == n else None


@dataclass(frozen=True)
class ZstdCodec(_BaseCodec):
    """Codec 6: Zstandard via the ``zstandard`` package."""

    name: str = "ZSTD"
    codec_id: int = int(CompressionCodec.ZSTD)
    package: str | None = "zstandard"
    default_level: int | None = 3

    def _backend(self) -> ModuleType:
        return _import_backend("zstandard", self.name, "zstandard")

    def _ensure_supported(self) -> None:
        self._backend()

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes | memoryview:
        zstd = self._backend()
        out = _zstd_one_shot(zstd, data, n)
        if out is not None:
            return out
        # A frame's content size is optional and untrusted; stream with a cap
        # of n + 1 bytes instead (this also reads across several frames).
        reader = zstd.ZstdDecompressor().stream_reader(data, read_across_frames=True)
        produced = _Output(n)
        while produced.size <= n:
            # read() allocates its whole size up front: a bounded step keeps a page that
            # declares gigabytes from allocating them before any byte is decoded (found by fuzzing)
            piece = reader.read(min(n + 1 - produced.size, _ZSTD_STEP))
            if not piece:
                break
            produced.add(piece)
            del piece
        if produced.size > n:
            raise _too_large(self.name, n)
        return produced.result()

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        assert level is not None
        zstd = self._backend()
        _check_level(self.name, level, -(1 << 17), zstd.MAX_COMPRESSION_LEVEL)
        return bytes(zstd.ZstdCompressor(level=level, write_content_size=True).compress(data))


# --------------------------------------------------------------------------
# the registry's content


def _all_codecs() -> tuple[_BaseCodec, ...]:
    return (
        UncompressedCodec(),
        SnappyCodec(),
        GzipCodec(),
        LzoCodec(),
        BrotliCodec(),
        Lz4Codec(),
        ZstdCodec(),
        Lz4RawCodec(),
    )
