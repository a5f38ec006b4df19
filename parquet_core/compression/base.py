"""The shared contract of every codec: :class:`_BaseCodec` and small helpers.

See :mod:`parquet_core.compression.codecs` for the byte framings.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from parquet_core.errors import (
    CodecUnavailableError,
    ParquetError,
    ParquetFormatError,
    UnsupportedFeatureError,
)

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["Buffer"]

Buffer = bytes | bytearray | memoryview

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
    mod = sys.modules.get(module)
    # imported already (and not still being imported by another thread): spares
    # import_module's locking, about 1-2 us per page
    if mod is not None and not getattr(getattr(mod, "__spec__", None), "_initializing", False):
        return mod
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise CodecUnavailableError(codec, package) from exc


def _backend_failure(codec: str, stored: int, expected: int, exc: Exception) -> ParquetFormatError:
    return ParquetFormatError(
        f"{codec}: cannot decompress {stored} bytes into {expected} bytes: {type(exc).__name__}: {exc}")


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
            raise _backend_failure(self.name, len(src), uncompressed_size, exc) from exc
        if len(out) != uncompressed_size:
            raise _size_mismatch(self.name, uncompressed_size, len(out))
        return out

    def page_decompressor(self) -> Any:
        """An object whose ``decompress(data, uncompressed_size)`` is :meth:`decompress`, for
        a walk over one chunk's pages: a codec may resolve its backend once for the chunk
        instead of once per page (the same checks and errors).  This codec itself by default."""
        return self

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


