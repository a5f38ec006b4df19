"""Reading WKB (ISO and EWKB) one geometry at a time: the pieces both bounders share.

The planar bounder (:mod:`parquet_core.metadata.geospatial`, GEOMETRY) and the
spherical one (:mod:`parquet_core.metadata.geography`, GEOGRAPHY) walk the same
format: a byte order, a type code (ISO dimensions in the thousands, or EWKB's Z/M/SRID
flag bits), then counts and coordinates.  Every read is bounds-checked, so a
hostile value raises :class:`ParquetFormatError` and never reads past itself.
"""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt

from parquet_core.errors import ParquetFormatError

__all__ = ["MAX_DEPTH", "header", "count", "coords", "to_xyzm", "coords_xyzm"]

_EWKB_Z, _EWKB_M, _EWKB_SRID = 0x80000000, 0x40000000, 0x20000000
#: Nested collections deeper than this are treated as corrupt.
MAX_DEPTH = 32


def header(buf: bytes, pos: int) -> tuple[str, int, int, int, int]:
    """Read byte order and type; return ``(endian, base, has_z, has_m, next_pos)``.

    ``base`` is the ISO base type 1..7; ``has_z``/``has_m`` are 0 or 1.
    """
    if pos + 5 > len(buf):
        raise ParquetFormatError(f"WKB truncated at byte {pos}")
    order = buf[pos]
    if order not in (0, 1):
        raise ParquetFormatError(f"WKB byte order {order} at byte {pos} is neither 0 nor 1")
    end = "<" if order == 1 else ">"
    (code,) = struct.unpack_from(end + "I", buf, pos + 1)
    pos += 5
    has_z, has_m = bool(code & _EWKB_Z), bool(code & _EWKB_M)
    if code & _EWKB_SRID:
        pos += 4      # EWKB SRID: not part of any statistics
    code &= 0x0FFFFFFF
    dims, base = divmod(code, 1000)
    if dims > 3 or not 1 <= base <= 7:
        raise ParquetFormatError(f"WKB geometry type {code} is not one of the ISO codes")
    return end, base, int(has_z or dims in (1, 3)), int(has_m or dims in (2, 3)), pos


def count(buf: bytes, pos: int, end: str) -> tuple[int, int]:
    """Read one uint32 count (points, rings or parts)."""
    if pos + 4 > len(buf):
        raise ParquetFormatError(f"WKB truncated at byte {pos}")
    return struct.unpack_from(end + "I", buf, pos)[0], pos + 4


def coords(buf: bytes, pos: int, n: int, ndim: int, end: str) -> tuple[npt.NDArray[np.float64], int]:
    """*n* points of *ndim* doubles as an ``(n, ndim)`` view, and the position after them."""
    stop = pos + 8 * n * ndim
    if n < 0 or stop > len(buf):
        raise ParquetFormatError(f"WKB coordinates run past the value ({n} points at byte {pos})")
    arr = np.frombuffer(buf, dtype=end + "f8", count=n * ndim, offset=pos).reshape(n, ndim)
    return arr, stop


def to_xyzm(pts: npt.NDArray[np.float64], has_z: int, has_m: int) -> npt.NDArray[np.float64]:
    """Spread ``(n, ndim)`` points into ``(n, 4)`` x/y/z/m columns (absent axes NaN)."""
    if has_z and has_m:
        return pts
    out = np.full((pts.shape[0], 4), np.nan)
    out[:, :2] = pts[:, :2]
    if has_z:
        out[:, 2] = pts[:, 2]
    elif has_m:
        out[:, 3] = pts[:, 2]
    return out


def coords_xyzm(buf: bytes, pos: int, n: int, has_z: int, has_m: int,
                end: str) -> tuple[npt.NDArray[np.float64], int]:
    """:func:`coords` spread by :func:`to_xyzm`."""
    pts, stop = coords(buf, pos, n, 2 + has_z + has_m, end)
    return to_xyzm(pts, has_z, has_m), stop
