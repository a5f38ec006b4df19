"""Convert storage buffers to Python objects (the engine's edge), per DataType.

Used by :meth:`Array.to_pylist` and by statistics decoding.  Per-value loops
here are deliberate: producing Python objects is inherently one per value.
"""

from __future__ import annotations

import uuid as _uuid
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import ParquetFormatError
from parquet_core.schema.temporal import int96_to_py, times_to_py, timestamps_to_py
from parquet_core.schema.types import FLOAT_IDS, INTEGER_IDS, DataType, TypeId, unhandled_type

__all__ = ["py_values", "to_storage", "Interval"]

_BINARY_BSON_GEOMETRY_GEOGRAPHY_IDS = frozenset([TypeId.BINARY, TypeId.BSON, TypeId.GEOMETRY,
                                                 TypeId.GEOGRAPHY])

# Scaling an integer by a power of ten is exact under a context this wide: no
# digit count or exponent the schema allows can round or overflow.
_DEC_CTX = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)


class Interval(NamedTuple):
    """A Parquet INTERVAL: months, days and milliseconds (unsigned 32-bit each)."""

    months: int
    days: int
    milliseconds: int


def _decimal_ints(dt: DataType, values: Any) -> list[int]:
    if isinstance(values, ByteArrays):
        raw = values.to_pylist()
        return [int.from_bytes(b, "big", signed=True) if b else 0 for b in raw]
    if isinstance(values, np.ndarray) and values.ndim == 2:
        return [int.from_bytes(b, "big", signed=True) for b in _rows_as_bytes(values)]
    return [int(v) for v in np.asarray(values).tolist()]


def _rows_as_bytes(values: npt.NDArray[np.uint8]) -> list[bytes]:
    w = values.shape[1]
    buf = np.ascontiguousarray(values).tobytes()
    return [buf[i * w:(i + 1) * w] for i in range(values.shape[0])]


def _decode_text(raw: list[bytes], dt: DataType) -> list[str]:
    try:
        return [b.decode("utf-8") for b in raw]
    except UnicodeDecodeError as exc:
        raise ParquetFormatError(f"invalid UTF-8 in a {dt} column: {exc}") from exc


def py_values(dt: DataType, values: Any) -> list[Any]:
    """Convert a full values buffer (nulls included as filler) to Python objects."""
    tid = dt.id
    if tid is TypeId.NULL:
        return [None] * len(values)
    if dt.is_text:
        return _decode_text(values.to_pylist(), dt)
    if tid in _BINARY_BSON_GEOMETRY_GEOGRAPHY_IDS:
        return values.to_pylist()
    if tid is TypeId.DECIMAL:
        scale = -(dt.scale or 0)
        return [Decimal(v).scaleb(scale, _DEC_CTX) for v in _decimal_ints(dt, values)]
    if tid is TypeId.DATE:
        d = np.asarray(values, dtype=np.int64)
        ok = (d >= -719162) & (d <= 2932896)
        out = np.where(ok, d, 0).astype("datetime64[D]").astype(object).tolist()
        return [o if k else int(v) for o, k, v in zip(out, ok.tolist(), d.tolist())]
    if tid is TypeId.TIMESTAMP:
        return timestamps_to_py(values, dt.unit or "us", dt.tz)
    if tid is TypeId.TIME:
        return times_to_py(values, dt.unit or "us")
    if tid is TypeId.INT96:
        return int96_to_py(values)
    if tid is TypeId.UUID:
        return [_uuid.UUID(bytes=b) for b in _rows_as_bytes(values)]
    if tid is TypeId.INTERVAL:
        parts = np.ascontiguousarray(values).view("<u4").reshape(-1, 3).tolist()
        return [Interval(*p) for p in parts]
    if tid is TypeId.FIXED_SIZE_BINARY:
        return _rows_as_bytes(values)
    if tid in _NUMPY_VALUES:
        return np.asarray(values).tolist()
    unhandled_type(dt, "py_values")




#: Types whose storage is a numpy array of the values themselves.
_NUMPY_VALUES = INTEGER_IDS | FLOAT_IDS | {TypeId.BOOL}

#: Types whose storage is the decoder's physical values as they are.
_STORED_AS_READ = frozenset([TypeId.NULL, TypeId.BOOL, TypeId.FLOAT32, TypeId.FLOAT64, TypeId.INT96,
                             TypeId.DECIMAL, TypeId.STRING, TypeId.JSON, TypeId.ENUM, TypeId.BINARY,
                             TypeId.BSON, TypeId.GEOMETRY, TypeId.GEOGRAPHY, TypeId.FIXED_SIZE_BINARY,
                             TypeId.UUID, TypeId.INTERVAL])
_INT_VIEWS = {
    TypeId.INT8: ("<i4", np.int8), TypeId.INT16: ("<i4", np.int16), TypeId.INT32: ("<i4", np.int32),
    TypeId.UINT8: ("<u4", np.uint8), TypeId.UINT16: ("<u4", np.uint16), TypeId.UINT32: ("<u4", np.uint32),
    TypeId.INT64: ("<i8", np.int64), TypeId.UINT64: ("<u8", np.uint64),
}


def to_storage(dt: DataType, values: Any) -> Any:
    """Convert physical values to the storage of *dt*."""
    tid = dt.id
    if tid in _INT_VIEWS:
        view, target = _INT_VIEWS[tid]
        arr = np.asarray(values)
        return arr.view(view).astype(target, copy=False)
    if tid is TypeId.FLOAT16:
        arr = np.ascontiguousarray(values)
        return arr.view("<f2").reshape(-1)
    if tid is TypeId.DECIMAL and isinstance(values, np.ndarray) and values.ndim == 1:
        return values.astype(np.int64, copy=False)
    if tid is TypeId.DATE:
        return np.asarray(values).astype(np.int32, copy=False)
    if tid is TypeId.TIME:
        return np.asarray(values).astype(np.int32 if dt.unit == "ms" else np.int64, copy=False)
    if tid is TypeId.TIMESTAMP:
        return np.asarray(values).astype(np.int64, copy=False)
    if tid in _STORED_AS_READ:
        return values
    unhandled_type(dt, "to_storage")
