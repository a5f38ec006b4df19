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
  page layer's job.
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
    we check against the declared size before decoding anything.

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
    Not supported, see :class:`LzoCodec`.

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
    optional, so decoding is streamed with an output cap rather than trusting
    the header.

LZ4_RAW (7)
    One bare LZ4 block with no header at all; the declared uncompressed
    size is the only length information.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from parquet_core.errors import (
    CodecUnavailableError,
    ParquetError,
    ParquetFormatError,
    UnsupportedFeatureError,
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

Buffer = bytes | bytearray | memoryview

#: Largest uncompressed size of one block that :class:`Lz4Codec` writes.
LZ4_HADOOP_BLOCK_SIZE: Final = 128 * 1024

_U32_PAIR: Final = struct.Struct(">II")
_U32: Final = struct.Struct(">I")
_LZ4_FRAME_MAGIC: Final = b"\x04\x22\x4d\x18"


# --------------------------------------------------------------------------
# helpers


def _as_bytes(data: Buffer) -> bytes | memoryview:
    """Return *data* as ``bytes`` or a flat byte ``memoryview`` (no copy).

    Parameters
    ----------
    data:
        Any C-contiguous buffer.

    Returns
    -------
    bytes | memoryview
        ``data`` itself when it is ``bytes``, otherwise a one-dimensional
        unsigned-byte view of it, so that ``len()`` counts bytes.
    """
    if isinstance(data, bytes):
        return data
    view = memoryview(data)
    if view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    return view


def _import_backend(module: str, codec: str, package: str) -> ModuleType:
    """Import a backend module, mapping ``ImportError`` to a clear error.

    Parameters
    ----------
    module:
        Dotted module name, e.g. ``"lz4.block"``.
    codec:
        Codec name for the error message.
    package:
        The pip package that provides *module*.

    Returns
    -------
    ModuleType
        The imported module (``sys.modules`` caches it after the first call).

    Raises
    ------
    CodecUnavailableError
        When the module cannot be imported.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise CodecUnavailableError(codec, package) from exc


def _too_large(codec: str, expected: int) -> ParquetFormatError:
    return ParquetFormatError(
        f"{codec}: decompressed data is larger than the declared "
        f"uncompressed size of {expected} bytes"
    )


def _size_mismatch(codec: str, expected: int, actual: int) -> ParquetFormatError:
    return ParquetFormatError(
        f"{codec}: decompressed size mismatch: expected {expected} bytes, got {actual}"
    )


def _check_level(codec: str, level: int, low: int, high: int) -> int:
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"{codec}: compression level must be an int, not {type(level).__name__}")
    if not low <= level <= high:
        raise ValueError(f"{codec}: compression level {level} outside [{low}, {high}]")
    return level


def _join(chunks: list[bytes]) -> bytes:
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


# --------------------------------------------------------------------------
# base class


@dataclass(frozen=True)
class _BaseCodec:
    """Shared argument checking, error wrapping and size validation.

    Subclasses implement :meth:`_decompress` and :meth:`_compress`; the
    public methods add the contract described in the module docstring.

    Attributes
    ----------
    name:
        The spec's name of the codec (``"SNAPPY"``, ``"LZ4_RAW"``, ...).
    codec_id:
        The spec's ``CompressionCodec`` enum value.
    package:
        The pip package that provides the backend, ``None`` for the stdlib.
    default_level:
        Level used by :meth:`compress` when none is given (``None`` when the
        codec has no levels).
    """

    name: str
    codec_id: int
    package: str | None = None
    default_level: int | None = None

    # -- public API ----------------------------------------------------

    def decompress(self, data: Buffer, uncompressed_size: int) -> bytes | memoryview:
        """Decompress one page body.

        Parameters
        ----------
        data:
            The compressed bytes (``bytes``, ``bytearray`` or ``memoryview``).
        uncompressed_size:
            The size declared by the page header; the result must match it.

        Returns
        -------
        bytes | memoryview
            Exactly ``uncompressed_size`` bytes.

        Raises
        ------
        ParquetFormatError
            Corrupt input, or a result whose size differs from the declared
            one (the message names the codec and both sizes).
        CodecUnavailableError
            The backend package is not installed.
        UnsupportedFeatureError
            The codec is not supported at all (LZO).
        """
        if isinstance(uncompressed_size, bool) or not isinstance(uncompressed_size, int):
            raise TypeError(
                f"uncompressed_size must be an int, not {type(uncompressed_size).__name__}"
            )
        if uncompressed_size < 0:
            raise ParquetFormatError(
                f"{self.name}: negative uncompressed size {uncompressed_size}"
            )
        src = _as_bytes(data)
        if len(src) == 0 and uncompressed_size == 0:
            # Some writers store an empty body for an empty page.
            self._ensure_supported()
            return b""
        try:
            out = self._decompress(src, uncompressed_size)
        except (ParquetError, MemoryError):
            raise
        except Exception as exc:  # any backend failure means corrupt input
            raise ParquetFormatError(
                f"{self.name}: cannot decompress {len(src)} bytes into "
                f"{uncompressed_size} bytes: {type(exc).__name__}: {exc}"
            ) from exc
        if len(out) != uncompressed_size:
            raise _size_mismatch(self.name, uncompressed_size, len(out))
        return out

    def compress(self, data: Buffer, level: int | None = None) -> bytes:
        """Compress *data* into this codec's page framing.

        Parameters
        ----------
        data:
            The bytes to compress.
        level:
            Backend compression level; ``None`` for :attr:`default_level`.
            Ignored by codecs without levels.

        Returns
        -------
        bytes
            The compressed page body.

        Raises
        ------
        ValueError, TypeError
            An out-of-range or non-integer level.
        CodecUnavailableError
            The backend package is not installed.
        """
        return self._compress(_as_bytes(data), self.default_level if level is None else level)

    def is_available(self) -> bool:
        """Return whether :meth:`decompress` / :meth:`compress` can work here.

        Returns
        -------
        bool
            ``False`` when the backend is missing or the codec unsupported.
        """
        try:
            self._ensure_supported()
        except UnsupportedFeatureError:
            return False
        return True

    # -- to implement --------------------------------------------------

    def _ensure_supported(self) -> None:
        """Raise if the backend is missing (default: nothing to check)."""

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes | memoryview:
        raise NotImplementedError

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        raise NotImplementedError


# --------------------------------------------------------------------------
# UNCOMPRESSED


@dataclass(frozen=True)
class UncompressedCodec(_BaseCodec):
    """Codec 0: the identity; :meth:`decompress` does not copy."""

    name: str = "UNCOMPRESSED"
    codec_id: int = 0

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
    result = 0
    for shift in range(0, 35, 7):  # at most 5 bytes for a 32-bit length
        if shift // 7 >= len(data):
            break
        byte = data[shift // 7]
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result
    raise ParquetFormatError("SNAPPY: truncated or invalid length preamble")


@dataclass(frozen=True)
class SnappyCodec(_BaseCodec):
    """Codec 1: raw Snappy blocks via ``python-snappy``."""

    name: str = "SNAPPY"
    codec_id: int = 1
    package: str | None = "python-snappy"

    def _backend(self) -> ModuleType:
        return _import_backend("snappy", self.name, "python-snappy")

    def _ensure_supported(self) -> None:
        self._backend()

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes:
        declared = _snappy_declared_length(data)
        if declared != n:
            # Refuse before allocating anything: the preamble is what the
            # backend would allocate.
            raise _size_mismatch(self.name, n, declared)
        return bytes(self._backend().uncompress(data))

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        return bytes(self._backend().compress(data))


# --------------------------------------------------------------------------
# GZIP


@dataclass(frozen=True)
class GzipCodec(_BaseCodec):
    """Codec 2: gzip (possibly several members) via the stdlib ``zlib``."""

    name: str = "GZIP"
    codec_id: int = 2
    default_level: int | None = 6

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes:
        chunks: list[bytes] = []
        remaining = n
        src: bytes | memoryview = data
        while True:
            # 32 + 15: detect a gzip or zlib header automatically.
            dobj = zlib.decompressobj(wbits=47)
            # max_length caps the output (0 would mean "unbounded", but
            # remaining + 1 >= 1): one extra byte reveals an overrun.
            out = dobj.decompress(src, remaining + 1)
            remaining -= len(out)
            if remaining < 0:
                raise _too_large(self.name, n)
            chunks.append(out)
            if not dobj.eof:
                raise ParquetFormatError(
                    f"{self.name}: truncated stream after {n - remaining} of {n} bytes"
                )
            tail = dobj.unused_data
            if not tail or not tail.strip(b"\x00"):
                break  # done; trailing NUL padding is tolerated
            src = tail
        return _join(chunks)

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        assert level is not None
        _check_level(self.name, level, -1, 9)
        # wbits=31: a gzip member (the format Hadoop's GzipCodec reads).
        cobj = zlib.compressobj(level, zlib.DEFLATED, 31)
        return cobj.compress(data) + cobj.flush()


# --------------------------------------------------------------------------
# LZO


@dataclass(frozen=True)
class LzoCodec(_BaseCodec):
    """Codec 3: LZO, which we do not support.

    Parquet's LZO pages use Hadoop's block framing around LZO1X blocks.  The
    only Python binding, ``python-lzo``, ships no wheels for current
    CPython on Linux and needs the ``liblzo2`` headers to build, so it
    cannot be an install-anywhere dependency; LZO is also essentially
    unused in practice and deprecated in the format.  Both methods raise
    :class:`~parquet_core.errors.UnsupportedFeatureError`.
    """

    name: str = "LZO"
    codec_id: int = 3

    def _error(self) -> UnsupportedFeatureError:
        return UnsupportedFeatureError(
            "LZO compression (codec 3) is not supported by parquet-core: no "
            "maintained Python binding with prebuilt wheels exists; rewrite the "
            "file with another codec (e.g. ZSTD or SNAPPY)"
        )

    def _ensure_supported(self) -> None:
        raise self._error()

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes:
        raise self._error()

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        raise self._error()


# --------------------------------------------------------------------------
# BROTLI


@dataclass(frozen=True)
class BrotliCodec(_BaseCodec):
    """Codec 4: Brotli via the ``brotli`` package."""

    name: str = "BROTLI"
    codec_id: int = 4
    package: str | None = "brotli"
    # brotli's own default (11) is an order of magnitude slower for a few
    # percent; 8 is Arrow's default too.
    default_level: int | None = 8

    def _backend(self) -> ModuleType:
        return _import_backend("brotli", self.name, "brotli")

    def _ensure_supported(self) -> None:
        self._backend()

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes:
        brotli = self._backend()
        dec = brotli.Decompressor()
        limit = n + 1
        try:
            first = dec.process(data, output_buffer_limit=limit)
        except TypeError:
            # brotli < 1.1 has no output limit: no bomb guard possible there.
            return bytes(brotli.decompress(bytes(data)))
        chunks = [first]
        produced = len(first)
        while produced <= n and not dec.is_finished():
            if dec.can_accept_more_data():
                # All input consumed, stream not finished: truncated.
                raise ParquetFormatError(
                    f"{self.name}: truncated stream after {produced} of {n} bytes"
                )
            more = dec.process(b"", output_buffer_limit=limit - produced)
            if not more:
                raise ParquetFormatError(f"{self.name}: decoder made no progress")
            chunks.append(more)
            produced += len(more)
        if produced > n:
            raise _too_large(self.name, n)
        return _join(chunks)

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        assert level is not None
        _check_level(self.name, level, 0, 11)
        return bytes(self._backend().compress(data, quality=level))


# --------------------------------------------------------------------------
# LZ4 (Hadoop framing) and LZ4_RAW


def _lz4_block_compress(block: ModuleType, data: bytes | memoryview, level: int | None) -> bytes:
    """Compress one raw LZ4 block (no size prefix).

    Parameters
    ----------
    block:
        The ``lz4.block`` module.
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


def _check_lz4_level(codec: str, level: int | None) -> None:
    if level is not None:
        _check_level(codec, level, -(1 << 16), 12)


def _lz4_hadoop_decompress(
    block: ModuleType, data: bytes | memoryview, n: int
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
class Lz4Codec(_BaseCodec):
    """Codec 5 (deprecated LZ4): Hadoop framing, raw block or frame format."""

    name: str = "LZ4"
    codec_id: int = 5
    package: str | None = "lz4"

    def _backend(self) -> ModuleType:
        return _import_backend("lz4.block", self.name, "lz4")

    def _ensure_supported(self) -> None:
        self._backend()

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes:
        block = self._backend()
        out, hadoop_why = _lz4_hadoop_decompress(block, data, n)
        if out is not None:
            return out
        # Raw block: the output buffer is exactly n bytes, bomb-safe.
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
            if len(framed) != n:
                raise _size_mismatch(self.name, n, len(framed))
            return framed
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
class Lz4RawCodec(_BaseCodec):
    """Codec 7 (LZ4_RAW): one bare LZ4 block."""

    name: str = "LZ4_RAW"
    codec_id: int = 7
    package: str | None = "lz4"

    def _backend(self) -> ModuleType:
        return _import_backend("lz4.block", self.name, "lz4")

    def _ensure_supported(self) -> None:
        self._backend()

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes:
        # The output buffer is exactly n bytes: an overrun is a backend error.
        return bytes(self._backend().decompress(data, uncompressed_size=n))

    def _compress(self, data: bytes | memoryview, level: int | None) -> bytes:
        _check_lz4_level(self.name, level)
        return _lz4_block_compress(self._backend(), data, level)


# --------------------------------------------------------------------------
# ZSTD


@dataclass(frozen=True)
class ZstdCodec(_BaseCodec):
    """Codec 6: Zstandard via the ``zstandard`` package."""

    name: str = "ZSTD"
    codec_id: int = 6
    package: str | None = "zstandard"
    default_level: int | None = 3

    def _backend(self) -> ModuleType:
        return _import_backend("zstandard", self.name, "zstandard")

    def _ensure_supported(self) -> None:
        self._backend()

    def _decompress(self, data: bytes | memoryview, n: int) -> bytes:
        zstd = self._backend()
        # A frame's content size is optional and untrusted; stream with a cap
        # of n + 1 bytes instead (this also reads across several frames).
        reader = zstd.ZstdDecompressor().stream_reader(data, read_across_frames=True)
        chunks: list[bytes] = []
        produced = 0
        while produced <= n:
            out = reader.read(n + 1 - produced)
            if not out:
                break
            chunks.append(out)
            produced += len(out)
        if produced > n:
            raise _too_large(self.name, n)
        return _join(chunks) if chunks else b""

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
