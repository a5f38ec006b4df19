"""Spec constants: magic bytes, footer layout and the format's enums.

Values come from the Parquet format specification (parquet.thrift and the
"File format" section of the README).  The enums mirror the IDL so that code
can say ``PhysicalType.INT96`` instead of ``3``; a unit test pins each value
against the generated thrift module.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

__all__ = [
    "MAGIC",
    "MAGIC_ENCRYPTED",
    "FOOTER_SIZE_BYTES",
    "FOOTER_READ_SIZE",
    "PhysicalType",
    "ConvertedType",
    "Repetition",
    "Encoding",
    "CompressionCodec",
    "PageType",
    "BoundaryOrder",
    "enum_name",
    "known_value",
]

#: Four bytes at the start and the end of every plaintext-footer file.
MAGIC = b"PAR1"
#: Trailing magic of a file whose footer is encrypted (FileCryptoMetaData first).
MAGIC_ENCRYPTED = b"PARE"
#: The tail: a 4-byte little-endian footer length followed by the magic.
FOOTER_SIZE_BYTES = 8
#: Bytes read from the end of a file at once when it is opened (pyarrow's default footer read).
FOOTER_READ_SIZE = 64 * 1024


class PhysicalType(IntEnum):
    """``Type`` in parquet.thrift: how values are stored."""

    BOOLEAN = 0
    INT32 = 1
    INT64 = 2
    INT96 = 3
    FLOAT = 4
    DOUBLE = 5
    BYTE_ARRAY = 6
    FIXED_LEN_BYTE_ARRAY = 7


class ConvertedType(IntEnum):
    """The deprecated ``ConvertedType`` annotation (still written by many tools)."""

    UTF8 = 0
    MAP = 1
    MAP_KEY_VALUE = 2
    LIST = 3
    ENUM = 4
    DECIMAL = 5
    DATE = 6
    TIME_MILLIS = 7
    TIME_MICROS = 8
    TIMESTAMP_MILLIS = 9
    TIMESTAMP_MICROS = 10
    UINT_8 = 11
    UINT_16 = 12
    UINT_32 = 13
    UINT_64 = 14
    INT_8 = 15
    INT_16 = 16
    INT_32 = 17
    INT_64 = 18
    JSON = 19
    BSON = 20
    INTERVAL = 21


class Repetition(IntEnum):
    """``FieldRepetitionType``."""

    REQUIRED = 0
    OPTIONAL = 1
    REPEATED = 2


class Encoding(IntEnum):
    """``Encoding``; 1 (GROUP_VAR_INT) was never used and is absent from the IDL."""

    PLAIN = 0
    PLAIN_DICTIONARY = 2
    RLE = 3
    BIT_PACKED = 4
    DELTA_BINARY_PACKED = 5
    DELTA_LENGTH_BYTE_ARRAY = 6
    DELTA_BYTE_ARRAY = 7
    RLE_DICTIONARY = 8
    BYTE_STREAM_SPLIT = 9
    #: Adaptive Lossless floating-Point (AlpEncoding.md), a preview encoding in the spec.
    ALP = 10


class CompressionCodec(IntEnum):
    """``CompressionCodec``."""

    UNCOMPRESSED = 0
    SNAPPY = 1
    GZIP = 2
    LZO = 3
    BROTLI = 4
    LZ4 = 5
    ZSTD = 6
    LZ4_RAW = 7


class PageType(IntEnum):
    """``PageType``."""

    DATA_PAGE = 0
    INDEX_PAGE = 1
    DICTIONARY_PAGE = 2
    DATA_PAGE_V2 = 3


class BoundaryOrder(IntEnum):
    """``BoundaryOrder`` of a ColumnIndex: how the pages' bounds are ordered."""

    UNORDERED = 0
    ASCENDING = 1
    DESCENDING = 2


def enum_name(enum: Any, value: int | None) -> str | None:
    """The spec name of *value* in *enum* (one of the enums above, or a generated thrift enum
    class), ``UNKNOWN(n)`` for a value the spec lacks, None for None.

    The one way the package names an enum value in metadata, messages and reports.
    """
    if value is None:
        return None
    names = getattr(enum, "_VALUES_TO_NAMES", None)     # a generated thrift enum
    if names is not None:
        name = names.get(value)
    else:
        try:
            name = enum(value).name
        except ValueError:
            name = None
    return name if name is not None else f"UNKNOWN({value})"


def known_value(enum: Any, value: int | None) -> bool:
    """Whether *value* is a member of *enum* (see :func:`enum_name`)."""
    return value is not None and not enum_name(enum, value).startswith("UNKNOWN(")  # type: ignore[union-attr]
