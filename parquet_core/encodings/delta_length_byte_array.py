"""DELTA_LENGTH_BYTE_ARRAY (Encoding.DELTA_LENGTH_BYTE_ARRAY = 6) for BYTE_ARRAY.

Spec: parquet-format ``Encodings.md``, "Delta-length byte array
(DELTA_LENGTH_BYTE_ARRAY = 6)".  All lengths first, as one
DELTA_BINARY_PACKED stream, then every value's bytes back to back::

    +--------------------------------+----------------------------+
    | DELTA_BINARY_PACKED(lengths)   | bytes0 bytes1 bytes2 ...   |
    +--------------------------------+----------------------------+
    e.g. "Hello" "World" "Foobar" "ABCDEF":
         DBP(5, 5, 6, 6) | HelloWorldFoobarABCDEF

Decoding is fully vectorised: the offsets are a cumsum of the lengths and
the data is a zero-copy slice of the input.  Encoding is the lengths
(``np.diff`` of the offsets) through the DELTA_BINARY_PACKED encoder plus
the data slice as is.

Edge cases: ``count == 0`` reads nothing; the lengths stream must declare
exactly ``count`` values (when a count is given); a negative length, or
lengths summing past the end of the buffer -> ParquetFormatError; bytes
after the data are ignored.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core._kernels.bitpack import as_uint8
from parquet_core.encodings._inputs import as_byte_arrays
from parquet_core.encodings.delta_binary_packed import (
    decode_delta_binary_packed,
    encode_delta_binary_packed,
)
from parquet_core.errors import ParquetFormatError

__all__ = [
    "decode_delta_length_byte_array",
    "decode_delta_length_byte_arrays_multi",
    "decode_dlba_at",
    "encode_delta_length_byte_array",
]

_MAX_LENGTH = 2**31 - 1


def decode_dlba_at(arr: npt.NDArray[np.uint8], pos: int, count: int | None,
                   what: str = "DELTA_LENGTH_BYTE_ARRAY") -> tuple[ByteArrays, int]:
    """Decode a DELTA_LENGTH_BYTE_ARRAY stream starting at ``pos``.

    ``count`` (if not None) is the number of values the stream must hold.
    Returns the values and the offset just past their data.
    """
    lengths, pos = decode_delta_binary_packed(arr, pos, np.int32, max_count=count)
    n = lengths.size
    if count is not None and n != count:
        raise ParquetFormatError(f"{what}: {n} lengths encoded, {count} values expected")
    if n and int(lengths.min()) < 0:
        raise ParquetFormatError(f"{what}: negative value length {int(lengths.min())}")
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    if pos + total > arr.size:
        raise ParquetFormatError(
            f"{what}: values need {total} bytes after the lengths, only "
            f"{arr.size - pos} remain")
    return ByteArrays(offsets, arr[pos:pos + total]), pos + total


def decode_delta_length_byte_array(buf: Any, count: int) -> ByteArrays:
    """Decode ``count`` BYTE_ARRAY values; data is a zero-copy slice of ``buf``."""
    if count < 0:
        raise ParquetFormatError(f"DELTA_LENGTH_BYTE_ARRAY: negative value count {count}")
    arr = as_uint8(buf)
    if count == 0:
        return ByteArrays.empty()
    return decode_dlba_at(arr, 0, count)[0]


def decode_delta_length_byte_arrays_multi(buffers: Sequence[Any],
                                          counts: Sequence[int]) -> ByteArrays:
    """Decode the values sections of several pages into one :class:`ByteArrays`.

    Same contract as :func:`parquet_core.encodings.plain.decode_plain_byte_arrays_multi`
    (one buffer and one value count per page, errors name the page).  Each
    page is already a zero-copy slice plus a cumsum, so the only chunk-level
    work is one copy of every page's bytes into the result.
    """
    if len(buffers) != len(counts):
        raise ValueError(f"{len(buffers)} buffers but {len(counts)} counts")
    parts = []
    for p, (buf, count) in enumerate(zip(buffers, counts)):
        try:
            parts.append(decode_delta_length_byte_array(buf, int(count)))
        except ParquetFormatError as exc:
            if len(buffers) == 1:
                raise
            raise ParquetFormatError(f"page {p} of {len(buffers)}: {exc}") from exc
    return ByteArrays.concat(parts)


def encode_delta_length_byte_array(values: Any, **dbp_options: Any) -> bytes:
    """Encode byte strings: DELTA_BINARY_PACKED lengths, then all the bytes.

    Parameters
    ----------
    values:
        A :class:`ByteArrays` (offsets may start above 0), ``(n, w)`` uint8
        rows, or a list of bytes.
    **dbp_options:
        ``block_size`` / ``miniblocks`` for the lengths stream.

    Raises
    ------
    ValueError
        A value of 2**31 bytes or more (lengths are INT32).
    """
    ba = as_byte_arrays(values)
    lengths = np.diff(ba.offsets)
    if lengths.size and int(lengths.max()) > _MAX_LENGTH:
        raise ValueError(f"DELTA_LENGTH_BYTE_ARRAY: a value of {int(lengths.max())} bytes "
                         f"exceeds the INT32 length limit")
    data = ba.data[int(ba.offsets[0]):int(ba.offsets[-1])]
    head = encode_delta_binary_packed(lengths, np.int32, **dbp_options)
    return b"".join((head, np.ascontiguousarray(data).data))
