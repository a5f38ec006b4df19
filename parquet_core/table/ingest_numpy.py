"""Turn a numpy array (plain or masked) into an :class:`Array`, by dtype.

=================================  =========================================
numpy dtype                        type
=================================  =========================================
bool                               bool
int8..int64, uint8..uint64         the same width (kept zero-copy)
float16 / float32 / float64        the same width (kept zero-copy)
datetime64[ns / us / ms]           timestamp in that unit (naive); NaT = null
datetime64[s / m / h]              timestamp[ms] (Parquet has no seconds)
datetime64[D / W / M / Y]          date
``'U'``                            string (UTF-8, encoded vectorised)
``'S'``                            binary
``'V<w>'``, 2-D uint8 ``(n, w)``   fixed_size_binary[w]
object                             inferred from the Python values
=================================  =========================================

A ``numpy.ma`` mask marks nulls.  numpy's fixed-width text drops trailing
NUL characters; so does the result.  Anything else (complex, timedelta,
long double, structured) raises :class:`ParquetSchemaError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core.schema.types import DataType
from parquet_core.table.arrays import Array
from parquet_core.table.infer import array_from_pylist, fill_nulls, schema_error
from parquet_core.table.utf8 import UnencodableText, bytes_from_fixed, encode_ucs4

__all__ = ["array_from_numpy"]

_INT64_MAX = np.iinfo(np.int64).max
#: numpy datetime64 units stored as milliseconds, with their factor.
_TO_MS = {"s": 1_000, "m": 60_000, "h": 3_600_000}
_DATE_UNITS = ("D", "W", "M", "Y")


def array_from_numpy(arr: npt.NDArray[Any], name: str, *, ints_as_decimal: bool = False) -> Array:
    """Build the :class:`Array` of a numpy column (``numpy.ma`` masks become nulls).

    *ints_as_decimal* is passed on to the inference of object arrays.

    Raises
    ------
    ParquetSchemaError
        For dtypes with no Parquet type, or values out of range.
    ValueError
        For arrays that are not 1-D (or 2-D uint8 fixed-size binary).
    """
    validity = None
    if isinstance(arr, np.ma.MaskedArray):
        null = np.ma.getmaskarray(arr)
        arr = np.ma.getdata(arr)
        validity = ~null if null.any() else None
    if arr.ndim == 2 and arr.dtype == np.uint8:
        return _finish(DataType("fixed_size_binary", byte_width=arr.shape[1]),
                       np.ascontiguousarray(arr), validity)
    if arr.ndim != 1:
        raise ValueError(f"column {name!r}: expected a 1-D array, got shape {arr.shape}")
    kind = arr.dtype.kind
    if kind == "O":
        return array_from_pylist(arr, name, None if validity is None else ~validity,
                                 ints_as_decimal=ints_as_decimal)
    if kind in "biufM" and arr.dtype.byteorder not in ("=", "|", _NATIVE):
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if kind == "b":
        return _finish(DataType("bool"), arr, validity)
    if kind in "iu":
        prefix = "int" if kind == "i" else "uint"
        return _finish(DataType(f"{prefix}{arr.dtype.itemsize * 8}"), arr, validity)
    if kind == "f" and arr.dtype.itemsize in (2, 4, 8):
        return _finish(DataType(f"float{arr.dtype.itemsize * 8}"), arr, validity)
    if kind == "M":
        return _datetimes(arr, name, validity)
    if kind == "U":
        try:
            return _finish(DataType("string"), encode_ucs4(arr), validity)
        except UnencodableText as exc:
            raise schema_error(name, exc.row, "text holds a lone surrogate, which UTF-8 cannot encode") from None
    if kind == "S":
        return _finish(DataType("binary"), bytes_from_fixed(arr), validity)
    if kind == "V" and arr.dtype.names is None:
        w = arr.dtype.itemsize
        raw = np.ascontiguousarray(arr).view(np.uint8).reshape(len(arr), w)
        return _finish(DataType("fixed_size_binary", byte_width=w), raw, validity)
    raise schema_error(name, None, f"numpy dtype {arr.dtype} has no Parquet type")


_NATIVE = "<" if np.little_endian else ">"


def _finish(dt: DataType, values: Any, validity: npt.NDArray[np.bool_] | None) -> Array:
    return Array(dt, fill_nulls(values, validity), validity)


def _and(validity: npt.NDArray[np.bool_] | None, present: npt.NDArray[np.bool_]) -> Any:
    if validity is not None:
        present = present & validity
    return None if present.all() else present


def _datetimes(arr: npt.NDArray[np.datetime64], name: str, validity: Any) -> Array:
    unit, count = np.datetime_data(arr.dtype)
    validity = _and(validity, ~np.isnat(arr))
    if unit in _DATE_UNITS:
        days = _checked(arr.astype("M8[D]").view(np.int64), 1, np.iinfo(np.int32).max, name, validity)
        return _finish(DataType("date"), days.astype(np.int32), validity)
    if unit in ("ms", "us", "ns"):  # datetime64[10us] and the like keep the base unit
        out_unit, factor = unit, count
    elif unit in _TO_MS:
        out_unit, factor = "ms", _TO_MS[unit] * count
    else:
        raise schema_error(name, None, f"numpy dtype {arr.dtype} has no Parquet type")
    raw = arr.view(np.int64)
    if factor == 1:
        return _finish(DataType("timestamp", unit=out_unit), raw, validity)
    scaled = _checked(raw, factor, _INT64_MAX, name, validity) * factor
    return _finish(DataType("timestamp", unit=out_unit), scaled, validity)


def _checked(raw: npt.NDArray[np.int64], factor: int, limit: int, name: str, validity: Any) -> Any:
    """Refuse values whose ``raw * factor`` leaves ``[-limit, limit]`` (NaT slots ignored)."""
    bound = limit // factor
    bad = (raw > bound) | (raw < -bound)
    if validity is not None:
        bad &= validity
    if bad.any():
        row = int(np.argmax(bad))
        raise schema_error(name, row, "datetime value out of range for the Parquet type")
    return np.where(validity, raw, 0) if validity is not None else raw
