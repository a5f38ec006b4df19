"""Compare a column's storage with one literal, vectorised: the kernel of filtering and pruning.

Values are compared in the column's *storage* (what :class:`~parquet_core.table.arrays.Array`
holds), so a literal is first converted the way the writer converts data
(:func:`~parquet_core.table.ingest.as_array` with the column's field):
``datetime`` to epoch units, ``Decimal`` to unscaled integers, ``str`` to
UTF-8, ``UUID`` to 16 bytes.  The same function serves exact row filtering
and pruning (statistics and page-index bounds decode to one-element
storage arrays), so both always agree.

Three storage families:

* 1-D numbers (integers, floats, booleans, dates, times, timestamps,
  decimals up to 18 digits): numpy comparisons.  A literal that is not a
  whole number against integer storage is rounded exactly
  (``x < 2.5`` is ``x <= 2``, ``x == 2.5`` matches nothing);
* byte arrays (text, binary, wide decimals from BYTE_ARRAY): unsigned
  byte-wise order, eight bytes per numpy step over all values;
* fixed-width rows (fixed_size_binary, UUID, FLBA decimals): the same order
  per row, signed (two's complement) for decimals.

INT96 (legacy timestamps: LE int64 nanoseconds of the day, then LE int32
Julian day) is ordered chronologically, day first, then nanoseconds, the
order ``INT96_TIMESTAMP_ORDER`` states; literals are ``datetime`` (naive
means UTC) or ``numpy.datetime64``.  INTERVAL and the geospatial types have
no order: only equality.
"""

from __future__ import annotations

import datetime
import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.metadata.binary_order import sign_extend
from parquet_core.schema.types import FLOAT_IDS, INTEGER_IDS, DataType, Field, TypeId
from parquet_core.table.ingest import as_array

__all__ = ["compare", "isin", "starts_with", "has_order", "is_floating"]

#: ``_BE_MASKS[k]``: the top ``k`` bytes of a big-endian word (k = 0..8).
_BE_MASKS = np.array([0] + [((1 << (8 * k)) - 1) << (64 - 8 * k) for k in range(1, 9)], dtype=np.uint64)
_UNORDERED = frozenset({TypeId.INTERVAL, TypeId.GEOMETRY, TypeId.GEOGRAPHY})
_JULIAN_EPOCH = 2_440_588            # Julian day number of 1970-01-01
_NANOS_PER_DAY = 86_400 * 10**9
_INTEGER_LIKE = INTEGER_IDS


def has_order(dt: DataType) -> bool:
    """Whether ``< <= > >=`` are defined for the type."""
    return dt.id not in _UNORDERED


def is_floating(dt: DataType) -> bool:
    """Whether values may be NaN."""
    return dt.id in FLOAT_IDS


# -- literals -------------------------------------------------------------------------------------

def _exact_rational(value: Any) -> Fraction | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, Decimal):
        return Fraction(value) if value.is_finite() else None
    if isinstance(value, (float, np.floating)):
        return Fraction(float(value)) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return Fraction(int(value))
    return None


def _round_literal(op: str, r: Fraction) -> tuple[str, int] | bool:
    """``x op r`` for integer ``x``: an equivalent ``(op, integer)``, or a constant."""
    if r.denominator == 1:
        return op, int(r)
    if op == "==":
        return False
    if op == "!=":
        return True
    if op in ("<", "<="):
        return "<=", math.floor(r)
    return ">=", math.ceil(r)


def _convert(dt: DataType, value: Any, column: str) -> Any:
    """The one-element storage of *value* as a *dt* column would hold it."""
    if dt.is_text and isinstance(value, bytes):
        value = value.decode("utf-8", errors="surrogateescape")
    try:
        arr = as_array([value], column, Field(column, dt, True), validate_utf8=False)
    except Exception as exc:  # noqa: BLE001 - any refusal is the same user error
        raise ValueError(f"cannot compare column {column!r} of type {dt} with {value!r}: {exc}") from None
    if arr.validity is not None and not arr.validity.all():
        raise ValueError(f"cannot compare column {column!r} with a null literal")
    return arr.values


def _int96_literal(value: Any, column: str) -> tuple[int, int]:
    """``(julian_day, nanoseconds_of_day)`` of a datetime literal, exactly."""
    if isinstance(value, (bytes, bytearray)) and len(value) == 12:   # the raw stored form
        return int.from_bytes(value[8:], "little", signed=True), int.from_bytes(value[:8], "little", signed=True)
    if isinstance(value, np.datetime64):
        unit = np.datetime_data(value.dtype)[0]
        if unit in ("ps", "fs", "as") or np.isnat(value):
            raise ValueError(f"cannot compare INT96 timestamp column {column!r} with {value!r}")
        # through microseconds, not nanoseconds: datetime64[ns] overflows past 2262
        ns = int(value.astype(np.int64)) if unit == "ns" \
            else int(value.astype("datetime64[us]").astype(np.int64)) * 1000
    elif isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        delta = value - datetime.datetime(1970, 1, 1)
        ns = (delta.days * 86_400 + delta.seconds) * 10**9 + delta.microseconds * 1000
    else:
        raise ValueError(f"cannot compare INT96 timestamp column {column!r} with {value!r}: "
                         "use a datetime or numpy.datetime64")
    day, nanos = divmod(ns, _NANOS_PER_DAY)
    return day + _JULIAN_EPOCH, nanos


def _cmp_int96(values: npt.NDArray[np.uint8], lit: tuple[int, int]) -> npt.NDArray[np.int8]:
    """Chronological -1/0/1 of ``(n, 12)`` INT96 rows against ``(day, nanos)``."""
    rows = np.ascontiguousarray(np.asarray(values, dtype=np.uint8).reshape(-1, 12))
    nanos = rows[:, :8].copy().view("<i8")[:, 0]
    day = rows[:, 8:].copy().view("<i4")[:, 0].astype(np.int64)
    by_day = np.sign(day - lit[0]).astype(np.int8)
    by_nanos = (nanos > lit[1]).astype(np.int8) - (nanos < lit[1]).astype(np.int8)
    return np.where(by_day != 0, by_day, by_nanos)


def _integer_storage(dt: DataType, values: Any) -> bool:
    if dt.id in _INTEGER_LIKE:
        return True
    return dt.id is TypeId.DECIMAL and isinstance(values, np.ndarray) and values.ndim == 1


# -- kernels --------------------------------------------------------------------------------------

def _cmp_rows(rows: npt.NDArray[np.uint8], lit: npt.NDArray[np.uint8], signed: bool) -> npt.NDArray[np.int8]:
    if rows.shape[1] != lit.size:
        raise ValueError(f"literal of {lit.size} bytes against rows of {rows.shape[1]}")
    if signed and lit.size:
        rows = rows.copy()
        lit = lit.copy()
        rows[:, 0] ^= 0x80   # two's complement order = unsigned order with the sign bit flipped
        lit[0] ^= 0x80
    diff = rows != lit[None, :]
    first = diff.argmax(axis=1)
    at = rows[np.arange(rows.shape[0]), first]
    out = np.where(at < lit[first], np.int8(-1), np.int8(1)).astype(np.int8)
    out[~diff.any(axis=1)] = 0
    return out


def _cmp_bytes(values: ByteArrays, lit: bytes) -> npt.NDArray[np.int8]:
    offsets = values.offsets
    base, end = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(end - base + 8, dtype=np.uint8)
    padded[:end - base] = values.data[base:end]
    words = np.ndarray((end - base + 1,), dtype=">u8", buffer=padded, strides=(1,))
    lpad = np.zeros(len(lit) + 8, dtype=np.uint8)
    lpad[:len(lit)] = np.frombuffer(lit, dtype=np.uint8)
    lwords = np.ndarray((len(lit) + 1,), dtype=">u8", buffer=lpad, strides=(1,))
    starts = offsets[:-1] - base
    lens = np.diff(offsets)
    common = np.minimum(lens, len(lit))
    out = np.zeros(len(values), dtype=np.int8)
    rows = np.flatnonzero(common > 0)
    k = 0
    # one numpy step per 8 bytes of the literal (not per value); rows leave once decided
    while rows.size:
        left = np.clip(common[rows] - k, 0, 8)
        mask = _BE_MASKS[left]
        a = words[np.minimum(starts[rows] + k, len(words) - 1)].astype(np.uint64) & mask
        b = np.uint64(lwords[k]) & mask
        differ = a != b
        out[rows[differ]] = np.where(a[differ] < b[differ], np.int8(-1), np.int8(1))
        rows = rows[~differ & (left == 8) & (common[rows] > k + 8)]
        k += 8
    tie = out == 0   # equal over the common prefix: the shorter one is smaller
    out[tie] = np.sign(lens[tie] - len(lit)).astype(np.int8)
    return out


def _apply(op: str, c: Any) -> npt.NDArray[np.bool_]:
    if op == "==":
        return c == 0
    if op == "!=":
        return c != 0
    if op == "<":
        return c < 0
    if op == "<=":
        return c <= 0
    if op == ">":
        return c > 0
    return c >= 0


def _numeric(op: str, values: npt.NDArray[Any], lit: Any) -> npt.NDArray[np.bool_]:
    if op == "==":
        return values == lit
    if op == "!=":
        return values != lit
    if op == "<":
        return values < lit
    if op == "<=":
        return values <= lit
    if op == ">":
        return values > lit
    return values >= lit


def _wide_decimal(dt: DataType, values: Any) -> npt.NDArray[np.uint8]:
    return sign_extend(values) if isinstance(values, ByteArrays) else np.asarray(values, dtype=np.uint8)


def _int_rows(v: int, width: int) -> npt.NDArray[np.uint8] | None:
    try:
        return np.frombuffer(v.to_bytes(width, "big", signed=True), dtype=np.uint8)
    except OverflowError:
        return None


def compare(values: Any, dt: DataType, op: str, literal: Any, column: str = "?") -> npt.NDArray[np.bool_]:
    """``values <op> literal`` for every slot (null slots give arbitrary results: mask them).

    Raises
    ------
    ValueError
        The literal cannot be a value of the column, or the type has no
        order and *op* is not ``==``/``!=``.
    """
    n = len(values)
    if dt.id is TypeId.NULL:     # every slot is null: the callers mask them all, whatever the literal
        return np.zeros(n, dtype=np.bool_)
    if op not in ("==", "!=") and not has_order(dt):
        raise ValueError(f"column {column!r} of type {dt} has no order: only == and != apply")
    if dt.id is TypeId.DECIMAL:
        r = _exact_rational(literal)
        if r is None:
            raise ValueError(f"cannot compare decimal column {column!r} with {literal!r}")
        rounded = _round_literal(op, r * 10 ** (dt.scale or 0))
        if isinstance(rounded, bool):
            return np.full(n, rounded)
        op, lit = rounded
        if isinstance(values, np.ndarray) and values.ndim == 1:
            return _numeric(op, values, lit)
        rows = _wide_decimal(dt, values)
        row_lit = _int_rows(lit, rows.shape[1]) if n else None
        if row_lit is None:   # beyond the column's width: every value compares the same way
            return np.full(n, _apply(op, -1 if lit > 0 else 1))
        return _apply(op, _cmp_rows(rows, row_lit, True))
    if _integer_storage(dt, values) and not isinstance(literal, (bool, np.bool_)):
        r = _exact_rational(literal)
        if r is None:
            raise ValueError(f"cannot compare integer column {column!r} with {literal!r}")
        rounded = _round_literal(op, r)
        if isinstance(rounded, bool):
            return np.full(n, rounded)
        return _numeric(rounded[0], values, rounded[1])
    if is_floating(dt):
        return _numeric(op, values, _scalar(dt, literal, column, values))
    if dt.id is TypeId.INT96:
        return _apply(op, _cmp_int96(values, _int96_literal(literal, column)))
    lit = _convert(dt, literal, column)
    if isinstance(values, ByteArrays):
        return _apply(op, _cmp_bytes(values, lit.to_pylist()[0] if isinstance(lit, ByteArrays) else bytes(lit)))
    if isinstance(values, np.ndarray) and values.ndim == 2:
        return _apply(op, _cmp_rows(values, np.asarray(lit, dtype=np.uint8).reshape(-1), False))
    return _numeric(op, values, lit[0])


def isin(values: Any, dt: DataType, literals: tuple[Any, ...], column: str = "?") -> npt.NDArray[np.bool_]:
    """Whether each slot equals one of *literals*."""
    if dt.id is TypeId.NULL:
        return np.zeros(len(values), dtype=np.bool_)
    if isinstance(values, np.ndarray) and values.ndim == 1 and dt.id is not TypeId.DECIMAL:
        # numbers: the literals the column can hold exactly, then one np.isin
        keep = [s for s in (_scalar(dt, lit, column, values) for lit in literals) if s is not None]
        if not keep:
            return np.zeros(len(values), dtype=np.bool_)
        if is_floating(dt):
            return _float_members(values, np.array(keep, dtype=values.dtype))
        return np.isin(values, np.array(keep, dtype=values.dtype))
    # other storages: one vectorised comparison per literal (a loop over the literals only)
    out = np.zeros(len(values), dtype=np.bool_)
    for lit in literals:
        out |= compare(values, dt, "==", lit, column)
    return out


def _float_members(values: npt.NDArray[Any], members: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """Set membership of floats as pyarrow's ``is_in`` has it: by bit pattern (so -0.0 and
    0.0 are different members), every NaN matching every NaN."""
    bits = np.dtype(f"<u{values.dtype.itemsize}")
    nan_key = np.array([np.nan], dtype=values.dtype).view(bits)[0]   # no number has a NaN's bits
    key = values.view(bits).copy()
    key[np.isnan(values)] = nan_key
    mkey = members.view(bits).copy()
    mkey[np.isnan(members)] = nan_key
    return np.isin(key, mkey)


def _scalar(dt: DataType, lit: Any, column: str, values: npt.NDArray[Any]) -> Any:
    """*lit* as a value of the column's numpy storage, or None when no value can equal it."""
    if dt.id in _INTEGER_LIKE:
        r = _exact_rational(lit)
        if r is None or isinstance(lit, (bool, np.bool_)):
            raise ValueError(f"cannot compare integer column {column!r} with {lit!r}")
        info = np.iinfo(values.dtype)
        return int(r) if r.denominator == 1 and info.min <= int(r) <= info.max else None
    if is_floating(dt):
        if isinstance(lit, (bool, np.bool_)) or not isinstance(lit, (int, float, Decimal, Fraction, np.number)):
            raise ValueError(f"cannot compare floating column {column!r} with {lit!r}")
        return float(lit)
    return _convert(dt, lit, column)[0]


def starts_with(values: Any, dt: DataType, prefix: str | bytes, column: str = "?") -> npt.NDArray[np.bool_]:
    """Whether each slot begins with *prefix* (text and binary columns)."""
    if not isinstance(values, ByteArrays) or dt.id is TypeId.DECIMAL:
        raise ValueError(f"starts_with needs a text or binary column; {column!r} is {dt}")
    p = prefix.encode() if isinstance(prefix, str) else bytes(prefix)
    lens = values.lengths()
    # values at least len(p) long whose first len(p) bytes equal p
    return (lens >= len(p)) & (_cmp_bytes(_prefixes(values, len(p)), p) == 0)


def _prefixes(values: ByteArrays, k: int) -> ByteArrays:
    """The first ``k`` bytes of every value (shorter values whole), sharing the data buffer."""
    starts = values.offsets[:-1]
    ends = np.minimum(values.offsets[1:], starts + k)
    if len(values) == 0:
        return values
    # a ByteArrays needs contiguous values: gather the prefixes
    lens = ends - starts
    idx = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens) + np.arange(int(lens.sum()))
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    return ByteArrays(offsets, values.data[idx])
