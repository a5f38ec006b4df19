"""Page value decoders and encoders for every Parquet encoding, keyed by the spec's enum.

Spec: parquet-format ``Encodings.md`` (all sections) and the ``Encoding``
enum of ``parquet.thrift``.  Each decoder is a stateless whole-page
function: it takes the values section of one (decompressed) data page and
returns exactly ``count`` values::

    data page v1:  [rep levels][def levels][ values section ................ ]
    data page v2:  header-sized levels,    [ values section ................ ]
                                             ^ buf passed to decode_values

Value representation per physical type (shared by every encoding):

    BOOLEAN               np.bool_ array
    INT32 / INT64         '<i4' / '<i8' array
    INT96                 (n, 12) uint8 array
    FLOAT / DOUBLE        '<f4' / '<f8' array
    BYTE_ARRAY            ByteArrays(offsets int64[n+1], data uint8)
    FIXED_LEN_BYTE_ARRAY  (n, type_length) uint8 array

PLAIN and DELTA_LENGTH_BYTE_ARRAY results may be zero-copy, read-only views
of ``buf``.  Dictionary-encoded data pages (PLAIN_DICTIONARY,
RLE_DICTIONARY) decode to int32 *indices*; the caller gathers them from the
dictionary page, which itself is always PLAIN (a dictionary *page* labelled
PLAIN_DICTIONARY must be decoded with ``Encoding.PLAIN``).

Supported combinations (anything else raises UnsupportedFeatureError):

    PLAIN                    all types
    PLAIN_/RLE_DICTIONARY    all types (indices)
    RLE                      BOOLEAN
    BIT_PACKED               none (levels only, see bit_packed.py)
    DELTA_BINARY_PACKED      INT32, INT64
    DELTA_LENGTH_BYTE_ARRAY  BYTE_ARRAY
    DELTA_BYTE_ARRAY         BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY
    BYTE_STREAM_SPLIT        INT32, INT64, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY
    ALP                      FLOAT, DOUBLE (preview in the spec)

Encoders (:func:`encode_values`, the writer's entry point) take the same
representations and return the values section of a page.  They cover the
value encodings PLAIN (all types), RLE (BOOLEAN), DELTA_BINARY_PACKED
(INT32, INT64), DELTA_LENGTH_BYTE_ARRAY (BYTE_ARRAY), DELTA_BYTE_ARRAY
(BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY), BYTE_STREAM_SPLIT (INT32, INT64,
FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY) and ALP (FLOAT, DOUBLE); anything
else is a ``ValueError`` (API misuse).  Dictionary pages are PLAIN; dictionary data pages come from
:func:`~parquet_core.encodings.rle_hybrid_encoder.encode_dictionary_indices`
and levels from ``encode_levels_v1`` / ``encode_levels_v2`` there.

Edge cases: ``count == 0`` returns an empty result without reading ``buf``;
a negative count or one above 2**31 - 1 -> ParquetFormatError; unknown
physical types -> ParquetFormatError; unknown encodings (e.g. the deprecated
GROUP_VAR_INT = 1, or values past the IDL we know) -> UnsupportedFeatureError.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from parquet_core.constants import Encoding, PhysicalType, enum_name
from parquet_core.encodings.alp import decode_alp
from parquet_core.encodings.alp_encoder import encode_alp
from parquet_core.encodings.byte_stream_split import (
    decode_byte_stream_split,
    encode_byte_stream_split,
)
from parquet_core.encodings.delta_binary_packed import (
    decode_delta_binary_packed,
    encode_delta_binary_packed,
)
from parquet_core.encodings.delta_byte_array import (
    decode_delta_byte_array,
    encode_delta_byte_array,
)
from parquet_core.encodings.delta_length_byte_array import (
    decode_delta_length_byte_array,
    encode_delta_length_byte_array,
)
from parquet_core.encodings.plain import decode_plain, encode_plain
from parquet_core.encodings.rle_hybrid import (
    decode_dictionary_indices,
    decode_rle_booleans,
    encode_rle_booleans,
)
from parquet_core.errors import ParquetFormatError, UnsupportedFeatureError

__all__ = [
    "ENCODERS",
    "REGISTRY",
    "EncodingSpec",
    "decode_values",
    "empty_values",
    "encode_values",
    "valid_encodings",
]

MAX_COUNT = 2**31 - 1

Decoder = Callable[[Any, int, int, "int | None"], Any]


@dataclass(frozen=True)
class EncodingSpec:
    """One registry entry: which physical types an encoding carries and how to decode it."""

    encoding: Encoding
    physical_types: frozenset[PhysicalType]
    decode: Decoder
    note: str = ""


_ALL = frozenset(PhysicalType)


def _plain(buf: Any, count: int, pt: int, tl: int | None) -> Any:
    return decode_plain(buf, count, pt, tl)


def _dictionary(buf: Any, count: int, pt: int, tl: int | None) -> Any:
    return decode_dictionary_indices(buf, count)


def _rle(buf: Any, count: int, pt: int, tl: int | None) -> Any:
    return decode_rle_booleans(buf, count)


def _unreachable(buf: Any, count: int, pt: int, tl: int | None) -> Any:  # pragma: no cover
    raise UnsupportedFeatureError("BIT_PACKED encodes levels only, never values")


def _dbp(buf: Any, count: int, pt: int, tl: int | None) -> Any:
    dtype = np.int32 if pt == PhysicalType.INT32 else np.int64
    values, _ = decode_delta_binary_packed(buf, 0, dtype, max_count=count)
    if values.size != count:
        raise ParquetFormatError(
            f"DELTA_BINARY_PACKED: the stream holds {values.size} values, {count} expected")
    return values


def _dlba(buf: Any, count: int, pt: int, tl: int | None) -> Any:
    return decode_delta_length_byte_array(buf, count)


def _dba(buf: Any, count: int, pt: int, tl: int | None) -> Any:
    if pt == PhysicalType.FIXED_LEN_BYTE_ARRAY:
        if tl is None:
            raise ParquetFormatError("DELTA_BYTE_ARRAY FIXED_LEN_BYTE_ARRAY needs a type_length")
        return decode_delta_byte_array(buf, count, tl)
    return decode_delta_byte_array(buf, count)


def _bss(buf: Any, count: int, pt: int, tl: int | None) -> Any:
    return decode_byte_stream_split(buf, count, pt, tl)


def _alp(buf: Any, count: int, pt: int, tl: int | None) -> Any:
    return decode_alp(buf, count, pt)


_FLOATS = frozenset({PhysicalType.FLOAT, PhysicalType.DOUBLE})


#: Decoders keyed by the integer value of the spec's ``Encoding`` enum.
REGISTRY: dict[int, EncodingSpec] = {
    spec.encoding: spec
    for spec in (
        EncodingSpec(Encoding.PLAIN, _ALL, _plain),
        EncodingSpec(Encoding.PLAIN_DICTIONARY, _ALL, _dictionary, "returns int32 indices"),
        EncodingSpec(Encoding.RLE, frozenset({PhysicalType.BOOLEAN}), _rle),
        EncodingSpec(Encoding.BIT_PACKED, frozenset(), _unreachable,
                     "levels only (encodings.bit_packed.decode_bit_packed)"),
        EncodingSpec(Encoding.DELTA_BINARY_PACKED,
                     frozenset({PhysicalType.INT32, PhysicalType.INT64}), _dbp),
        EncodingSpec(Encoding.DELTA_LENGTH_BYTE_ARRAY,
                     frozenset({PhysicalType.BYTE_ARRAY}), _dlba),
        EncodingSpec(Encoding.DELTA_BYTE_ARRAY,
                     frozenset({PhysicalType.BYTE_ARRAY, PhysicalType.FIXED_LEN_BYTE_ARRAY}),
                     _dba),
        EncodingSpec(Encoding.RLE_DICTIONARY, _ALL, _dictionary, "returns int32 indices"),
        EncodingSpec(Encoding.BYTE_STREAM_SPLIT,
                     frozenset({PhysicalType.INT32, PhysicalType.INT64, PhysicalType.FLOAT,
                                PhysicalType.DOUBLE, PhysicalType.FIXED_LEN_BYTE_ARRAY}),
                     _bss),
        EncodingSpec(Encoding.ALP, _FLOATS, _alp, "preview encoding"),
    )
}


def _name(enum: type[Any], value: int) -> str:
    name = enum_name(enum, value) or f"UNKNOWN({value})"
    return name if name.startswith("UNKNOWN(") else f"{name} ({int(value)})"


def empty_values(physical_type: int, type_length: int | None = None) -> Any:
    """A zero-length result in the representation of ``physical_type``."""
    return decode_plain(b"", 0, physical_type, type_length or 0)


def decode_values(encoding: int, buf: Any, count: int, physical_type: int,
                  type_length: int | None) -> Any:
    """Decode the values section of one data page.

    Parameters
    ----------
    encoding:
        The page's ``Encoding`` enum value.
    buf:
        Bytes-like or uint8 array holding exactly the values section (bytes
        after the values are tolerated where the encoding self-delimits).
    count:
        Number of non-null values in the page.
    physical_type:
        The column's ``Type`` enum value.
    type_length:
        Width of FIXED_LEN_BYTE_ARRAY values (ignored otherwise).

    Returns
    -------
    Any
        Exactly ``count`` values (see the module docstring), or int32
        dictionary indices for PLAIN_DICTIONARY / RLE_DICTIONARY.

    Raises
    ------
    UnsupportedFeatureError
        Unknown encoding, or an encoding that cannot carry this physical type.
    ParquetFormatError
        Malformed page data.
    """
    try:
        ptype = PhysicalType(physical_type)
    except ValueError:
        raise ParquetFormatError(f"unknown physical type {physical_type}") from None
    spec = REGISTRY.get(int(encoding))
    if spec is None:
        raise UnsupportedFeatureError(
            f"encoding {_name(Encoding, encoding)} is not supported "
            f"(physical type {ptype.name})")
    if ptype not in spec.physical_types:
        extra = f"; {spec.note}" if spec.note else ""
        raise UnsupportedFeatureError(
            f"encoding {spec.encoding.name} cannot decode physical type {ptype.name}{extra}")
    if count < 0 or count > MAX_COUNT:
        raise ParquetFormatError(f"invalid value count {count} for a data page")
    if count == 0:
        if spec.encoding in (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY):
            return np.zeros(0, dtype=np.int32)
        return empty_values(ptype, type_length)
    result = spec.decode(buf, count, ptype, type_length)
    if len(result) != count:
        # Every decoder returns exactly `count` values or raises; a mismatch means one
        # trusted a length from the page.  Not an assert: those vanish under -O.
        raise ParquetFormatError(
            f"{spec.encoding.name} data of a {ptype.name} page decoded to {len(result)} "
            f"values, but the page holds {count}")
    return result


# --------------------------------------------------------------------------------------
# Encoders
# --------------------------------------------------------------------------------------

Encoder = Callable[[Any, PhysicalType, "int | None"], bytes]


def _enc_plain(values: Any, pt: PhysicalType, tl: int | None) -> bytes:
    return encode_plain(values, pt, tl)


def _enc_rle(values: Any, pt: PhysicalType, tl: int | None) -> bytes:
    return encode_rle_booleans(values)


def _enc_dbp(values: Any, pt: PhysicalType, tl: int | None) -> bytes:
    # Arrow's block sizes: 128 values for INT32, 256 for INT64 (4 miniblocks each)
    if pt == PhysicalType.INT32:
        return encode_delta_binary_packed(values, np.int32, block_size=128, miniblocks=4)
    return encode_delta_binary_packed(values, np.int64, block_size=256, miniblocks=4)


def _enc_dlba(values: Any, pt: PhysicalType, tl: int | None) -> bytes:
    return encode_delta_length_byte_array(values)


def _enc_dba(values: Any, pt: PhysicalType, tl: int | None) -> bytes:
    return encode_delta_byte_array(values)


def _enc_bss(values: Any, pt: PhysicalType, tl: int | None) -> bytes:
    return encode_byte_stream_split(values, pt, tl)


def _enc_alp(values: Any, pt: PhysicalType, tl: int | None) -> bytes:
    return encode_alp(values, pt)


#: Value encoders: encoding -> (physical types it can write, encoder).
ENCODERS: dict[int, tuple[frozenset[PhysicalType], Encoder]] = {
    Encoding.PLAIN: (_ALL, _enc_plain),
    Encoding.RLE: (frozenset({PhysicalType.BOOLEAN}), _enc_rle),
    Encoding.DELTA_BINARY_PACKED: (frozenset({PhysicalType.INT32, PhysicalType.INT64}), _enc_dbp),
    Encoding.DELTA_LENGTH_BYTE_ARRAY: (frozenset({PhysicalType.BYTE_ARRAY}), _enc_dlba),
    Encoding.DELTA_BYTE_ARRAY: (frozenset({PhysicalType.BYTE_ARRAY,
                                           PhysicalType.FIXED_LEN_BYTE_ARRAY}), _enc_dba),
    Encoding.BYTE_STREAM_SPLIT: (frozenset({PhysicalType.INT32, PhysicalType.INT64,
                                            PhysicalType.FLOAT, PhysicalType.DOUBLE,
                                            PhysicalType.FIXED_LEN_BYTE_ARRAY}), _enc_bss),
    Encoding.ALP: (_FLOATS, _enc_alp),
}


def valid_encodings(physical_type: int) -> set[int]:
    """Value encodings :func:`encode_values` can write for ``physical_type``.

    Dictionary encodings are not listed: they are chosen with the writer's
    dictionary option, not as a value encoding.
    """
    pt = PhysicalType(physical_type)
    return {int(enc) for enc, (types, _) in ENCODERS.items() if pt in types}


def encode_values(encoding: int, values: Any, physical_type: int,
                  type_length: int | None = None) -> bytes:
    """Encode the values section of one data page.

    Parameters
    ----------
    encoding:
        A value ``Encoding`` (see :func:`valid_encodings`).
    values:
        Non-null physical values, in the representation the decoders return.
    physical_type:
        The column's ``Type`` enum value.
    type_length:
        Width of FIXED_LEN_BYTE_ARRAY values (checked against the rows).

    Raises
    ------
    ValueError
        Unknown encoding or physical type, or an encoding that cannot write
        this physical type (the message names both), or values that do not
        fit the encoding.
    """
    try:
        pt = PhysicalType(physical_type)
    except ValueError:
        raise ValueError(f"unknown physical type {physical_type}") from None
    entry = ENCODERS.get(int(encoding))
    if entry is None or pt not in entry[0]:
        hint = ""
        if int(encoding) in (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY):
            hint = " (dictionary pages are PLAIN; data pages use encode_dictionary_indices)"
        raise ValueError(
            f"encoding {_name(Encoding, encoding)} cannot encode physical type {pt.name}{hint}")
    if pt == PhysicalType.FIXED_LEN_BYTE_ARRAY and type_length is not None:
        rows = np.asarray(values)
        if rows.ndim != 2 or rows.shape[1] != type_length:
            raise ValueError(f"FIXED_LEN_BYTE_ARRAY({type_length}) values must be an "
                             f"(n, {type_length}) uint8 array, got shape {rows.shape}")
    return entry[1](values, pt, type_length)
