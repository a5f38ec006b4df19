"""The compression layer: page-body codecs keyed by the spec's enum values.

A Parquet column chunk names one ``CompressionCodec`` (an integer in the
Thrift metadata); every page body of the chunk is compressed with it.  This
package maps those integers to :class:`Codec` objects::

    >>> from parquet_core.compression import get_codec, CodecId
    >>> codec = get_codec(CodecId.ZSTD)
    >>> body = codec.compress(b"abc" * 100)
    >>> bytes(codec.decompress(body, 300)) == b"abc" * 100
    True

Backends (``python-snappy``, ``zstandard``, ``lz4``, ``brotli``) are imported
only when a codec is first used, so ``import parquet_core`` stays cheap.  The
byte framings are described in :mod:`parquet_core.compression.codecs`.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from parquet_core.compression.codecs import _all_codecs
from parquet_core.constants import CompressionCodec
from parquet_core.errors import UnsupportedFeatureError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["REGISTRY", "Codec", "CodecId", "CompressionCodec", "get_codec"]


#: The spec's ``CompressionCodec`` enum: one definition, in :mod:`parquet_core.constants`
#: (pinned to the generated IDL by a unit test); ``CodecId`` is the name this package
#: has always exported for it.  LZ4 (5) is deprecated: ambiguous framing, see lz4.Lz4Codec.
CodecId = CompressionCodec


class Codec(Protocol):
    """What the page layer needs from a codec.

    Attributes
    ----------
    name:
        The spec's codec name (``"SNAPPY"``, ``"LZ4_RAW"``, ...).
    codec_id:
        The spec's enum value.
    """

    @property
    def name(self) -> str: ...

    @property
    def codec_id(self) -> int: ...

    def decompress(
        self, data: bytes | bytearray | memoryview, uncompressed_size: int
    ) -> bytes | memoryview:
        """Return exactly *uncompressed_size* bytes or raise ``ParquetFormatError``.

        Parameters
        ----------
        data:
            Compressed page body.
        uncompressed_size:
            Size declared by the page header.

        Returns
        -------
        bytes | memoryview
            The decompressed body (a view only for UNCOMPRESSED input).
        """
        ...

    def page_decompressor(self) -> Any:
        """An object with this codec's ``decompress``, made once per chunk's page walk."""
        ...

    def compress(self, data: bytes | bytearray | memoryview, level: int | None = None) -> bytes:
        """Return *data* compressed in this codec's page framing.

        Parameters
        ----------
        data:
            Uncompressed page body.
        level:
            Backend level, ``None`` for the codec's default.

        Returns
        -------
        bytes
            The compressed body.
        """
        ...

    def is_available(self) -> bool:
        """Return whether the backend is installed and the codec supported.

        Returns
        -------
        bool
            ``True`` when :meth:`decompress` can be used.
        """
        ...


#: Codec id -> codec, for every id the specification defines.
REGISTRY: Mapping[int, Codec] = MappingProxyType({c.codec_id: c for c in _all_codecs()})


def get_codec(codec: int) -> Codec:
    """Return the codec for a ``CompressionCodec`` enum value.

    Parameters
    ----------
    codec:
        The enum value from the column chunk metadata (an ``int`` or
        :class:`CodecId`).

    Returns
    -------
    Codec
        The codec.  Codecs whose optional backend is missing (LZO without
        ``lzallright``) raise :class:`~parquet_core.errors.CodecUnavailableError`
        when used.

    Raises
    ------
    UnsupportedFeatureError
        For an id the specification does not define.
    TypeError
        When *codec* is not an integer.
    """
    if isinstance(codec, bool) or not isinstance(codec, int):
        raise TypeError(f"codec id must be an int, not {type(codec).__name__}")
    try:
        return REGISTRY[codec]
    except KeyError:
        raise UnsupportedFeatureError(f"unknown compression codec id {int(codec)}") from None
