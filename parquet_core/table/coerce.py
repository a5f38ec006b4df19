"""Cast an :class:`Array` to a field's :class:`DataType`, validating every value.

Casts are exact or refused: nothing is rounded, truncated or wrapped.  Each
refusal raises :class:`ParquetSchemaError` naming the column and the first
offending row (counted from 0).  Checks are vectorised; only decimals wider
than 18 digits go through Python ints.

=========================  ===================================================
target                     accepted sources
=========================  ===================================================
null                       an all-null column of any type
bool                       bool
int8 .. uint64             integers within range; floats only when integral
                           and within range (``2.0`` yes, ``2.5`` no), as
                           pyarrow does
float16/32/64              integers and floats (numpy's rounding)
decimal(p, s)              integers and decimals whose value needs at most
                           ``s`` fractional and ``p`` total digits; floats are
                           refused (binary fractions are not decimal values)
string / json / enum       text or binary; UTF-8 checked when asked
binary / bson / geo*       text or binary, fixed-size binary
fixed_size_binary[w],      fixed-size binary of width ``w``, or binary whose
uuid (16), interval (12)   every value has ``w`` bytes
date                       date, integers (days), naive timestamps at midnight
time[unit]                 time in any unit (exact), integers (count of unit)
timestamp[unit, tz]        timestamps with the same tz-awareness (exact unit
                           change, as pyarrow's safe cast), integers (count of
                           unit), dates and INT96 into naive columns
=========================  ===================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.schema.temporal import int96_to_epoch
from parquet_core.schema.types import FLOAT_IDS, INTEGER_IDS, DataType, Field, TypeId
from parquet_core.table.arrays import Array
from parquet_core.table.dictionary import DictionaryArray
from parquet_core.table.infer import decimal_storage, decimal_width, fill_nulls, schema_error
from parquet_core.table.utf8 import first_invalid_utf8

__all__ = ["cast_array", "null_storage"]

_FIXED_SIZE_BINARY_UUID_INTERVAL_IDS = frozenset([TypeId.FIXED_SIZE_BINARY, TypeId.UUID, TypeId.INTERVAL])
_TIMESTAMP_DATE_INT96_IDS = frozenset([TypeId.TIMESTAMP, TypeId.DATE, TypeId.INT96])

_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
_INT64_MAX = 2**63 - 1
_DAY_S = 86_400
_NUMERIC = {
    TypeId.BOOL: np.bool_, TypeId.INT8: np.int8, TypeId.INT16: np.int16, TypeId.INT32: np.int32,
    TypeId.INT64: np.int64,
    TypeId.UINT8: np.uint8, TypeId.UINT16: np.uint16, TypeId.UINT32: np.uint32, TypeId.UINT64: np.uint64,
    TypeId.FLOAT16: np.float16, TypeId.FLOAT32: np.float32, TypeId.FLOAT64: np.float64, TypeId.DATE: np.int32,
    TypeId.TIMESTAMP: np.int64, TypeId.NULL: np.int8,
}
_BINARY = frozenset([TypeId.BINARY, TypeId.BSON, TypeId.GEOMETRY, TypeId.GEOGRAPHY])
_FIXED = {TypeId.UUID: 16, TypeId.INTERVAL: 12, TypeId.INT96: 12}


@dataclass(frozen=True)
class _Ctx:
    name: str
    validate_utf8: bool
    trusted_text: bool


def cast_array(arr: Array, field: Field, *, validate_utf8: bool = True, trusted_text: bool = False) -> Array:
    """Return *arr* as ``field.type``, refusing values that do not fit.

    Parameters
    ----------
    arr:
        The source column.
    field:
        Target name (for messages), type and nullability.
    validate_utf8:
        Check that text columns hold valid UTF-8.
    trusted_text:
        The source text was encoded by us from Python ``str`` (known valid).

    Raises
    ------
    ParquetSchemaError
        Naming the column and the first row that does not fit.
    """
    dt, n = field.type, len(arr)
    if dt.is_nested or arr.type.is_nested:
        from parquet_core.table.ingest_nested import cast_nested

        return cast_nested(arr, field, validate_utf8=validate_utf8, trusted_text=trusted_text)
    ctx = _Ctx(field.name, validate_utf8, trusted_text)
    if isinstance(arr, DictionaryArray) and arr.type == dt and (field.nullable or not arr.null_count):
        return _kept_dictionary(arr, ctx)
    validity = arr.validity
    if validity is not None and validity.all():
        validity = None
    if arr.type.id is TypeId.NULL or (validity is not None and not validity.any()):
        values: Any = null_storage(dt, n, ctx.name)
        validity = np.zeros(n, dtype=bool)
    elif arr.type == dt and _plain_storage(dt, arr.values):
        values = arr.values  # same type, nothing a value could violate
    else:
        caster = _CASTS.get(dt.id)
        if caster is None:
            raise schema_error(ctx.name, None, f"cannot write a column of type {dt}")
        values = caster(arr.values, arr.type, dt, validity, ctx)
    if not field.nullable and validity is not None and n and not validity.all():
        raise schema_error(ctx.name, int(np.argmax(~validity)), "null in a non-nullable field")
    return Array(dt, fill_nulls(values, validity), validity)


def _kept_dictionary(arr: DictionaryArray, ctx: _Ctx) -> Array:
    """A dictionary column of the target type, kept whole (its dictionaries are written as they are)."""
    if arr.type.is_text and ctx.validate_utf8 and not ctx.trusted_text:
        for run in arr.runs:   # every entry is written, used or not
            if first_invalid_utf8(run.dictionary) is not None:
                raise schema_error(ctx.name, None, "dictionary entry is not valid UTF-8")
    return arr


def _plain_storage(dt: DataType, values: Any) -> bool:
    """True when *values* already is *dt*'s storage and no value can be out of range."""
    if dt.id in _BINARY:
        return isinstance(values, ByteArrays)
    expected = _NUMERIC.get(dt.id)
    return (expected is not None and dt.id is not TypeId.NULL and isinstance(values, np.ndarray)
            and values.ndim == 1 and values.dtype == expected)


def null_storage(dt: DataType, n: int, name: str = "?") -> Any:
    """Storage of *n* null slots of type *dt* (zeros, empty strings)."""
    if dt.is_text or dt.id in _BINARY:
        return ByteArrays(np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.uint8))
    width = _fixed_width(dt, name)
    if width is not None:
        return np.zeros((n, width), dtype=np.uint8)
    if dt.id is TypeId.TIME:
        return np.zeros(n, dtype=np.int32 if dt.unit == "ms" else np.int64)
    if dt.id is TypeId.DECIMAL:
        return np.zeros(n, dtype=np.int64)
    if dt.id not in _NUMERIC:
        raise schema_error(name, None, f"cannot write a column of type {dt}")
    return np.zeros(n, dtype=_NUMERIC[dt.id])


def _fixed_width(dt: DataType, name: str) -> int | None:
    if dt.id in _FIXED:
        return _FIXED[dt.id]
    if dt.id is TypeId.FIXED_SIZE_BINARY:
        if not dt.byte_width or dt.byte_width < 1:
            raise schema_error(name, None, "fixed_size_binary needs a positive byte_width")
        return dt.byte_width
    if dt.id is TypeId.DECIMAL and (dt.precision or 0) > 18:
        need = decimal_width(dt.precision or 0)
        if dt.byte_width is not None and dt.byte_width < need:
            raise schema_error(name, None, f"{dt} needs {need} bytes, byte_width is {dt.byte_width}")
        return dt.byte_width or need
    return None


def _refuse(src: DataType, dt: DataType, validity: Any, ctx: _Ctx) -> Any:
    row = 0 if validity is None else int(np.argmax(validity))
    raise schema_error(ctx.name, row, f"cannot store {src} values in a {dt} column")


def _fail(bad: npt.NDArray[np.bool_], validity: Any, ctx: _Ctx, message: str) -> None:
    """Raise for the first valid row flagged in *bad*, if any."""
    if validity is not None:
        bad = bad & validity
    if bad.any():
        raise schema_error(ctx.name, int(np.argmax(bad)), message)


def _to_bool(values: Any, src: DataType, dt: DataType, validity: Any, ctx: _Ctx) -> Any:
    return values if src.id is TypeId.BOOL else _refuse(src, dt, validity, ctx)


def _to_int(values: Any, src: DataType, dt: DataType, validity: Any, ctx: _Ctx) -> Any:
    info = np.iinfo(_NUMERIC[dt.id])
    if src.is_integer:
        _fail((values < info.min) | (values > info.max), validity, ctx, f"value out of range for {dt}")
        return values.astype(info.dtype, copy=False)
    if src.id in FLOAT_IDS:
        with np.errstate(invalid="ignore"):
            _fail(~np.isfinite(values) | (values != np.floor(values)), validity, ctx,
                  f"float value with a fractional part (or NaN/inf) cannot be stored as {dt}")
            # 2**63 and 2**64 are exact floats; the int64/uint64 maxima are not
            _fail((values < info.min) | (values >= float(info.max) + 1.0), validity, ctx,
                  f"value out of range for {dt}")
        return np.where(validity, values, 0).astype(info.dtype) if validity is not None \
            else values.astype(info.dtype)
    return _refuse(src, dt, validity, ctx)


def _to_float(values: Any, src: DataType, dt: DataType, validity: Any, ctx: _Ctx) -> Any:
    if src.is_integer or src.id in FLOAT_IDS:
        return values.astype(_NUMERIC[dt.id], copy=False)
    return _refuse(src, dt, validity, ctx)


def _to_text(values: Any, src: DataType, dt: DataType, validity: Any, ctx: _Ctx) -> Any:
    if not isinstance(values, ByteArrays) or not (src.is_text or src.id in _BINARY):
        return _refuse(src, dt, validity, ctx)
    if ctx.validate_utf8 and not (ctx.trusted_text and src.is_text):
        row = first_invalid_utf8(values, validity)
        if row is not None:
            raise schema_error(ctx.name, row, "value is not valid UTF-8")
    return values


def _to_binary(values: Any, src: DataType, dt: DataType, validity: Any, ctx: _Ctx) -> Any:
    if isinstance(values, ByteArrays) and (src.is_text or src.id in _BINARY):
        return values
    if src.id in _FIXED_SIZE_BINARY_UUID_INTERVAL_IDS and values.ndim == 2:
        n, w = values.shape
        lengths = np.full(n, w, dtype=np.int64) if validity is None else np.where(validity, w, 0)
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        rows = values if validity is None else values[validity]
        return ByteArrays(offsets, np.ascontiguousarray(rows).reshape(-1))
    return _refuse(src, dt, validity, ctx)


def _to_fixed(values: Any, src: DataType, dt: DataType, validity: Any, ctx: _Ctx) -> Any:
    w = _fixed_width(dt, ctx.name) or 0
    if src.id in _FIXED_SIZE_BINARY_UUID_INTERVAL_IDS and values.ndim == 2:
        if values.shape[1] != w:
            _fail(np.ones(len(values), bool), validity, ctx, f"value has {values.shape[1]} bytes, {dt} needs {w}")
        return values
    if isinstance(values, ByteArrays) and src.id in _BINARY:
        lengths = values.lengths()
        _fail(lengths != w, validity, ctx, f"value length differs from the {w} bytes of {dt}")
        n = len(values)
        out = np.zeros((n, w), dtype=np.uint8)
        base = int(values.offsets[0])
        data = values.data[base:int(values.offsets[-1])]
        if validity is None:
            return data.reshape(n, w).copy()
        out[validity] = data[np.repeat(validity, lengths)].reshape(-1, w)
        return out
    return _refuse(src, dt, validity, ctx)


def _rescale(v: Any, factor_num: int, factor_den: int, validity: Any, ctx: _Ctx, what: str,
             inexact: str | None = None) -> Any:
    """Return ``v * num // den`` in int64, refusing overflow and inexact division."""
    v = v.astype(np.int64, copy=False)
    if factor_num > 1:
        bound = _INT64_MAX // factor_num
        _fail((v > bound) | (v < -bound), validity, ctx, inexact or f"value overflows {what}")
        v = v * factor_num
    if factor_den > 1:
        _fail(v % factor_den != 0, validity, ctx, inexact or f"value would lose precision as {what}")
        v = v // factor_den
    return v


def _units(src_unit: str, dst_unit: str) -> tuple[int, int]:
    a, b = _PER_SECOND[src_unit], _PER_SECOND[dst_unit]
    return (b // a, 1) if b >= a else (1, a // b)


def _to_date(values: Any, src: DataType, dt: DataType, validity: Any, ctx: _Ctx) -> Any:
    if src.id is TypeId.DATE:
        return values
    if src.is_integer:
        info = np.iinfo(np.int32)
        _fail((values < info.min) | (values > info.max), validity, ctx, "day count out of range for date")
        return values.astype(np.int32)
    if src.id is TypeId.TIMESTAMP and not src.tz:
        days = _rescale(values, 1, _DAY_S * _PER_SECOND[src.unit or "us"], validity, ctx, "date (not midnight)")
        return days.astype(np.int32)
    return _refuse(src, dt, validity, ctx)


def _to_time(values: Any, src: DataType, dt: DataType, validity: Any, ctx: _Ctx) -> Any:
    unit = dt.unit or "us"
    if src.id is TypeId.TIME:
        values = _rescale(values, *_units(src.unit or "us", unit), validity, ctx, str(dt))
    elif src.is_integer:
        _fail(values > _INT64_MAX, validity, ctx, f"value out of range for {dt}")
    else:
        return _refuse(src, dt, validity, ctx)
    _fail((values < 0) | (values >= _DAY_S * _PER_SECOND[unit]), validity, ctx,
          f"value is not a time of day in {unit}")
    return values.astype(np.int32 if unit == "ms" else np.int64)


def _to_timestamp(values: Any, src: DataType, dt: DataType, validity: Any, ctx: _Ctx) -> Any:
    unit = dt.unit or "us"
    if src.id in _TIMESTAMP_DATE_INT96_IDS and bool(src.tz) != bool(dt.tz):
        aware = "tz-aware" if src.tz else "naive"
        _fail(np.ones(len(values), bool), validity, ctx, f"{aware} {src} values do not match a {dt} column")
    if src.id is TypeId.TIMESTAMP:
        return _rescale(values, *_units(src.unit or "us", unit), validity, ctx, str(dt))
    if src.id is TypeId.DATE:
        return _rescale(values, _DAY_S * _PER_SECOND[unit], 1, validity, ctx, str(dt))
    if src.id is TypeId.INT96:
        out, exact = int96_to_epoch(values, unit)
        _fail(~exact, validity, ctx, f"INT96 value is not exact as {dt}")
        return out
    if src.is_integer:
        _fail(values > _INT64_MAX, validity, ctx, f"value out of range for {dt}")
        return values.astype(np.int64)
    return _refuse(src, dt, validity, ctx)


def _to_decimal(values: Any, src: DataType, dt: DataType, validity: Any, ctx: _Ctx) -> Any:
    p, s = dt.precision or 0, dt.scale or 0
    if p < 1 or s < 0 or s > p:
        raise schema_error(ctx.name, None, f"invalid decimal type {dt}")
    if src.is_integer:
        src_scale, unscaled = 0, values
    elif src.id is TypeId.DECIMAL:
        src_scale, unscaled = src.scale or 0, _decimal_unscaled(values)
    else:
        return _refuse(src, dt, validity, ctx)
    limit = 10**p - 1
    message = f"value does not fit {dt} without rounding"
    if isinstance(unscaled, np.ndarray) and p <= 18 and unscaled.dtype != np.uint64:
        num, den = (10 ** (s - src_scale), 1) if s >= src_scale else (1, 10 ** (src_scale - s))
        out = _rescale(unscaled, num, den, validity, ctx, str(dt), message)
        _fail((out > limit) | (out < -limit), validity, ctx, message)
        return out
    # Wide decimals (or uint64 sources) need Python ints: one multiply per value.
    ints = [int(v) for v in np.asarray(unscaled, dtype=object).tolist()] \
        if isinstance(unscaled, np.ndarray) else unscaled
    shift = s - src_scale
    scaled = [v * 10**shift if shift >= 0 else (v // 10**-shift if v % 10**-shift == 0 else None)
              for v in ints]
    bad = np.fromiter((v is None or abs(v) > limit for v in scaled), dtype=bool, count=len(scaled))
    _fail(bad, validity, ctx, message)
    clean = [0 if b or v is None else v for v, b in zip(scaled, bad.tolist())]   # (None is bad too)
    return decimal_storage(clean, p, _fixed_width(dt, ctx.name))


def _decimal_unscaled(values: Any) -> Any:
    """Unscaled ints of any decimal storage: int64 array, or a list of Python ints."""
    if isinstance(values, np.ndarray) and values.ndim == 1:
        return values.astype(np.int64, copy=False)
    raw = values.to_pylist() if isinstance(values, ByteArrays) else \
        [bytes(r) for r in np.ascontiguousarray(values)]
    # big-endian two's complement of any width: int.from_bytes per value is exact
    return [int.from_bytes(b, "big", signed=True) if b else 0 for b in raw]


_CASTS: dict[TypeId, Callable[..., Any]] = {
    TypeId.BOOL: _to_bool, TypeId.FLOAT16: _to_float, TypeId.FLOAT32: _to_float, TypeId.FLOAT64: _to_float,
    **{k: _to_int for k in INTEGER_IDS},
    TypeId.STRING: _to_text, TypeId.JSON: _to_text, TypeId.ENUM: _to_text,
    **{k: _to_binary for k in _BINARY},
    TypeId.FIXED_SIZE_BINARY: _to_fixed, TypeId.UUID: _to_fixed, TypeId.INTERVAL: _to_fixed,
    TypeId.DATE: _to_date, TypeId.TIME: _to_time, TypeId.TIMESTAMP: _to_timestamp,
    TypeId.DECIMAL: _to_decimal,
    TypeId.INT96: lambda v, src, dt, validity, ctx:
        v if src.id is TypeId.INT96 else _refuse(src, dt, validity, ctx),
    # an all-null source never reaches here (cast_array handles it first)
    TypeId.NULL: lambda v, src, dt, validity, ctx: _refuse(src, dt, validity, ctx),
}
