"""Infer a column's :class:`DataType` from Python values and build its storage.

Rules, per column (``None`` is null everywhere):

=====================================  ======================================
values                                 type
=====================================  ======================================
bool                                   bool
int                                    int64; uint64 when a value exceeds
                                       2**63-1 and none is negative
float, or int mixed with float         float64
str                                    string
bytes / bytearray / memoryview         binary
datetime.datetime                      timestamp[us]; tz-aware values are
                                       converted to UTC and typed
                                       ``timestamp[us, UTC]``
datetime.date                          date
datetime.time                          time[us]
decimal.Decimal (ints may mix in)      decimal(p, s), the smallest covering all:
                                       ``s`` is the most fractional digits a
                                       value is written with (``1.50`` has 2),
                                       ``p`` the digits then needed (as pyarrow)
uuid.UUID                              uuid
parquet_core Interval                  interval
only None                              null
=====================================  ======================================

pandas' ``pd.NA`` and ``pd.NaT`` count as null too.  Anything else, or a mix outside those unions (``[1, "a"]``, naive with
tz-aware datetimes...), raises :class:`ParquetSchemaError` naming the column
and the first row that breaks the rule.  Rows are counted from 0.

Reading the type of every Python object is one unavoidable pass over the
list; it is done with ``map(type, ...)`` and the conversions use numpy's
object-array casts wherever one exists.  The few per-value loops left
(datetime offsets, times, decimals, text encoding) are marked where they are.
"""

from __future__ import annotations

import datetime as _dt
import uuid as _uuid
from decimal import Decimal
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.pyvalues import Interval
from parquet_core.schema.types import DataType
from parquet_core.table.arrays import Array

__all__ = ["array_from_pylist", "decimal_storage", "decimal_width", "fill_nulls", "schema_error",
           "value_kind"]

_NONE = type(None)
#: pandas' missing-value singletons (``pd.NA``, ``pd.NaT``), recognised without importing pandas.
_MISSING_SENTINELS = frozenset({"NAType", "NaTType"})
_INT64_MAX = 2**63 - 1
_U32 = 2**32


def schema_error(column: str, row: int | None, message: str) -> ParquetSchemaError:
    """Build the error for data that does not fit, naming column and row."""
    where = f"column {column!r}" + ("" if row is None else f", row {row}")
    exc = ParquetSchemaError(f"{where}: {message}")
    # kept so that nested columns can restate a child's error at the top-level row
    exc.row, exc.detail = row, message  # type: ignore[attr-defined]
    return exc


def value_kind(t: type) -> str | None:
    """Return the inference kind of a Python type, ``None`` when unsupported."""
    if t.__name__ in _MISSING_SENTINELS and t.__module__.startswith("pandas"):
        return "null"
    checks: tuple[tuple[Any, str], ...] = (
        (_NONE, "null"), ((bool, np.bool_), "bool"), ((int, np.integer), "int"),
        ((float, np.floating), "float"), (str, "str"), ((bytes, bytearray, memoryview), "bytes"),
        (_dt.datetime, "datetime"), (_dt.date, "date"), (_dt.time, "time"), (np.datetime64, "datetime64"),
        (Decimal, "decimal"), (_uuid.UUID, "uuid"), (Interval, "interval"),
    )
    for cls, kind in checks:
        if issubclass(t, cls):
            return kind
    return None


#: Kinds that may share a column, and the kind they become.
_UNIONS = {frozenset({"int", "float"}): "float", frozenset({"int", "decimal"}): "decimal"}


def decimal_width(precision: int) -> int:
    """Return the fewest bytes whose two's complement holds ``precision`` digits."""
    w = 1
    while 10**precision - 1 > 2 ** (8 * w - 1) - 1:
        w += 1
    return w


def decimal_storage(unscaled: list[int], precision: int, width: int | None = None) -> Any:
    """Store unscaled decimal ints: int64 when precision <= 18, else (n, w) big-endian bytes."""
    if precision <= 18:
        return np.array(unscaled, dtype=np.int64).reshape(-1)
    w = width or decimal_width(precision)
    # Python ints are already one object per value; to_bytes is the cheapest exact path.
    raw = b"".join(v.to_bytes(w, "big", signed=True) for v in unscaled)
    return np.frombuffer(raw, dtype=np.uint8).reshape(len(unscaled), w).copy()


def array_from_pylist(values: Any, name: str, null: npt.NDArray[np.bool_] | None = None, *,
                      ints_as_decimal: bool = False) -> Array:
    """Infer the type of a list of Python values and build its :class:`Array`.

    Parameters
    ----------
    values:
        A list (or 1-D object array) of Python scalars, ``None`` for null.
    name:
        The column name, for error messages.
    null:
        Extra null mask (pandas' ``isna``); those slots are null whatever they hold.
    ints_as_decimal:
        Build plain Python ints as ``decimal(p, 0)`` (any size), for decimal columns.

    Raises
    ------
    ParquetSchemaError
        For unsupported values or incompatible mixes.
    """
    n = len(values)
    obj = np.fromiter(values, dtype=object, count=n) if not isinstance(values, np.ndarray) else values
    # The one pass over the Python objects: their types, numbered by first appearance.
    type_list = list(map(type, obj))
    index = {t: i for i, t in enumerate(dict.fromkeys(type_list))}
    codes = np.fromiter(map(index.__getitem__, type_list), dtype=np.intp, count=n)
    missing = [i for t, i in index.items() if value_kind(t) == "null"]
    is_null = np.isin(codes, missing) if missing else np.zeros(n, dtype=bool)
    if null is not None:
        is_null |= np.asarray(null, dtype=bool)
    kind = _column_kind(index, codes, is_null, name)
    if kind == "int" and ints_as_decimal:
        kind = "decimal"
    validity = None if not is_null.any() else ~is_null
    if kind == "null":
        return Array(DataType("null"), np.zeros(n, dtype=np.int8), np.zeros(n, dtype=bool))
    rows = np.flatnonzero(~is_null)
    used = set(np.unique(codes[rows]).tolist())
    present_types = [t for t, i in index.items() if i in used]
    dt, dense = _BUILDERS[kind](obj[rows], present_types, rows, name)
    return Array(dt, _scatter(dense, rows, n, validity), validity)


def _column_kind(index: dict[type, int], codes: npt.NDArray[np.intp], is_null: npt.NDArray[np.bool_],
                 name: str) -> str:
    """Merge the kinds of the value types, in order of first appearance."""
    present = set(np.unique(codes[~is_null]).tolist())
    kind = "null"
    for t, code in index.items():
        if code not in present:
            continue
        k = value_kind(t)
        merged = None if k is None else (k if kind in ("null", k) else _UNIONS.get(frozenset({kind, k})))
        if merged is None:
            row = int(np.argmax((codes == code) & ~is_null))
            what = (f"values of type {t.__name__} have no Parquet type" if k is None
                    else f"a {t.__name__} value cannot share a column with {kind} values")
            raise schema_error(name, row, what)
        kind = merged
    return kind


def _scatter(dense: Any, rows: npt.NDArray[np.intp], n: int, validity: Any) -> Any:
    """Place the values of the present rows into n slots, zeros elsewhere."""
    if validity is None:
        return dense
    if isinstance(dense, ByteArrays):
        lengths = np.zeros(n, dtype=np.int64)
        lengths[rows] = dense.lengths()
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return ByteArrays(offsets, dense.data)
    out = np.zeros((n,) + dense.shape[1:], dtype=dense.dtype)
    out[rows] = dense
    return out


def fill_nulls(values: Any, validity: npt.NDArray[np.bool_] | None) -> Any:
    """Return *values* with zeros (empty strings) in the null slots; copies only if needed."""
    if validity is None or len(validity) == 0:
        return values
    null = ~validity
    if isinstance(values, ByteArrays):
        lengths = values.lengths()
        if not lengths[null].any():
            return values
        base, end = int(values.offsets[0]), int(values.offsets[-1])
        data = values.data[base:end][np.repeat(validity, lengths)]
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(np.where(validity, lengths, 0), out=offsets[1:])
        return ByteArrays(offsets, data)
    if not np.any(values[null] != 0):
        return values
    mask = validity.reshape((-1,) + (1,) * (values.ndim - 1))
    return np.where(mask, values, np.zeros((), dtype=values.dtype))


def _first(bad: npt.NDArray[np.bool_], rows: npt.NDArray[np.intp]) -> int:
    return int(rows[int(np.argmax(bad))])


def _bools(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    return DataType("bool"), vals.astype(bool)


def _ints(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    try:
        return DataType("int64"), vals.astype(np.int64)
    except OverflowError:
        pass
    try:
        return DataType("uint64"), vals.astype(np.uint64)
    except OverflowError:
        pass
    # error path only: find the culprit among Python ints
    ints = [int(v) for v in vals.tolist()]
    huge = np.array([not -(2**63) <= v < 2**64 for v in ints])
    if huge.any():
        return _raise(name, _first(huge, rows), f"integer {ints[int(np.argmax(huge))]} needs more than 64 bits")
    big = np.array([v > _INT64_MAX for v in ints])
    return _raise(name, _first(big, rows), "integers above 2**63-1 cannot share a column with negative ones")


def _raise(name: str, row: int, msg: str) -> Any:
    raise schema_error(name, row, msg)


def _floats(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    return DataType("float64"), vals.astype(np.float64)


def _strings(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    # One encode per Python str: each object owns its own text buffer.
    try:
        encoded = list(map(str.encode, vals.tolist()))
    except UnicodeEncodeError:
        bad = np.array([not _encodable(s) for s in vals.tolist()])
        return _raise(name, _first(bad, rows), "text holds a lone surrogate, which UTF-8 cannot encode")
    return DataType("string"), ByteArrays.from_pylist(encoded)


def _encodable(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _binaries(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    items = vals.tolist()
    if any(not issubclass(t, bytes) for t in types):
        items = [bytes(v) for v in items]  # bytearray / memoryview: copy each to bytes once
    return DataType("binary"), ByteArrays.from_pylist(items)


def _datetimes(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    items = vals.tolist()
    # utcoffset() is a method call per value; datetime has no vectorised form.
    offsets = [v.utcoffset() for v in items]
    aware = np.fromiter((o is not None for o in offsets), dtype=bool, count=len(items))
    if aware.any() and not aware.all():
        bad = aware != aware[0]
        return _raise(name, _first(bad, rows), "naive and tz-aware datetimes cannot share a column")
    # pandas Timestamps carry nanoseconds that datetime (and M8[us]) drop: keep them
    # (one attribute read per value, like utcoffset() above: Python objects in, no vector form)
    nanos = np.fromiter((getattr(v, "nanosecond", 0) for v in items), dtype=np.int64, count=len(items))
    if not aware.any():
        micros = np.array(items, dtype="M8[us]").view(np.int64)
        return _with_nanos(micros, nanos, None, rows, name)
    naive = np.array([v.replace(tzinfo=None) for v in items], dtype="M8[us]")
    utc = naive - np.array(offsets, dtype="m8[us]")
    return _with_nanos(utc.view(np.int64), nanos, "UTC", rows, name)


def _with_nanos(micros: npt.NDArray[np.int64], nanos: npt.NDArray[np.int64], tz: str | None,
                rows: Any, name: str) -> tuple[DataType, Any]:
    if not nanos.any():
        return DataType("timestamp", unit="us", tz=tz), micros
    # micros * 1000 + nanos must fit int64 (nanos is 0..999): exact at the top, and
    # micros >= -(2**63 // 1000) keeps micros * 1000 above -2**63
    bad = (micros > ((2**63 - 1) - nanos) // 1000) | (micros < -((2**63) // 1000))
    if bad.any():
        return _raise(name, _first(bad, rows), "timestamp with nanoseconds is outside the int64 nanosecond range")
    return DataType("timestamp", unit="ns", tz=tz), micros * 1000 + nanos


_NP_UNITS = {"s": "ms", "ms": "ms", "us": "us", "ns": "ns"}


def _datetime64s(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    items = vals.tolist()
    arr = np.array(items)
    if arr.dtype.kind != "M":
        return _raise(name, int(rows[0]) if len(rows) else 0, "numpy datetime64 values of mixed units")
    nat = np.isnat(arr)
    if nat.any():
        return _raise(name, _first(nat, rows), "NaT in a list of datetime64 values (use None for a null)")
    unit = _NP_UNITS.get(np.datetime_data(arr.dtype)[0])
    if unit is None:   # days, weeks, ...: coarser than a timestamp unit
        unit = "ms"
    return DataType("timestamp", unit=unit), arr.astype(f"M8[{unit}]").view(np.int64)


def _dates(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    return DataType("date"), vals.astype("M8[D]").view(np.int64).astype(np.int32)


def _times(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    items = vals.tolist()
    aware = np.fromiter((t.tzinfo is not None for t in items), dtype=bool, count=len(items))
    if aware.any():
        return _raise(name, _first(aware, rows), "a time of day with a tzinfo cannot be stored")
    # four attribute reads per value; time objects expose nothing vectorised
    us = [((t.hour * 60 + t.minute) * 60 + t.second) * 1_000_000 + t.microsecond for t in items]
    # parquet_core.NanoTime carries nanoseconds below the microsecond: keep them
    nanos = np.fromiter((getattr(t, "nanosecond", 0) for t in items), dtype=np.int64, count=len(items))
    micros = np.array(us, dtype=np.int64).reshape(-1)
    if nanos.any():
        return DataType("time", unit="ns"), micros * 1000 + nanos
    return DataType("time", unit="us"), micros


def _decimals(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    # as_tuple() per value: Decimal has no array form; exact digits need it.
    parts = [Decimal(v).as_tuple() for v in vals.tolist()]
    finite = np.fromiter((isinstance(p.exponent, int) for p in parts), dtype=bool, count=len(parts))
    if not finite.all():
        return _raise(name, _first(~finite, rows), "NaN and infinite decimals cannot be stored")
    exps = np.array([p.exponent for p in parts], dtype=np.int64).reshape(-1)
    ndig = np.array([len(p.digits) for p in parts], dtype=np.int64).reshape(-1)
    scale = int(max(0, -int(exps.min()))) if len(parts) else 0
    int_digits = int(np.maximum(ndig + exps, 0).max()) if len(parts) else 1
    precision = max(int_digits + scale, 1)
    unscaled = [_unscaled(p, scale) for p in parts]
    width = decimal_width(precision) if precision > 18 else None
    dt = DataType("decimal", precision=precision, scale=scale, byte_width=width)
    return dt, decimal_storage(unscaled, precision)


def _unscaled(p: Any, scale: int) -> int:
    """The integer ``value * 10**scale`` of a finite ``DecimalTuple`` (exact)."""
    digits = int("".join(map(str, p.digits))) if p.digits else 0
    v = digits * 10 ** (p.exponent + scale)
    return -v if p.sign else v


def _uuids(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    raw = b"".join(u.bytes for u in vals.tolist())
    return DataType("uuid", byte_width=16), np.frombuffer(raw, np.uint8).reshape(-1, 16).copy()


def _intervals(vals: Any, types: Any, rows: Any, name: str) -> tuple[DataType, Any]:
    parts = np.array([tuple(v) for v in vals.tolist()], dtype=object).reshape(-1, 3)
    # (asarray: the stubs type a reduction along an axis as maybe a scalar; of a matrix it is a vector)
    ok = np.asarray(((parts >= 0) & (parts < _U32)).astype(bool).all(axis=1))
    if not ok.all():
        return _raise(name, _first(~ok, rows), "interval fields must be unsigned 32-bit integers")
    le = parts.astype(np.int64).astype("<u4")
    return DataType("interval", byte_width=12), np.ascontiguousarray(le).view(np.uint8).reshape(-1, 12)


_BUILDERS: dict[str, Callable[..., tuple[DataType, Any]]] = {
    "bool": _bools, "int": _ints, "float": _floats, "str": _strings, "bytes": _binaries,
    "datetime": _datetimes, "datetime64": _datetime64s, "date": _dates, "time": _times,
    "decimal": _decimals,
    "uuid": _uuids, "interval": _intervals,
}
