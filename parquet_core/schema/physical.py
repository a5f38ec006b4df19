"""Convert logical storage to the physical values a page encoder takes.

The write-side inverse of :func:`parquet_core.schema.pyvalues.to_storage`:
for every writable type, ``to_storage(desc.data_type, to_physical(desc, dt, v))``
gives back ``v`` (decimals come back in the storage form of the physical
type: int64 for INT32/INT64, bytes for the byte-array types; an INT96
timestamp column comes back as raw INT96, which
:func:`~parquet_core.schema.temporal.int96_to_epoch` turns into ``v``).

The target is the column's physical type and ``type_length``, taken from its
``ColumnDescriptor`` (or raw ``pt.SchemaElement``), not from the data type
alone, because one data type has several layouts: a timestamp may go to
INT64 or INT96, a decimal to INT32, INT64, FIXED_LEN_BYTE_ARRAY or
BYTE_ARRAY.  A column writer calls::

    to_physical(desc, array.type, values)

Every conversion is vectorised.  Values that cannot be represented (an
int8 column holding 300, a decimal wider than its bytes, an INT96 date
beyond int32 Julian days) raise :class:`ParquetSchemaError` naming the
column and the position inside *values*; a values buffer of the
wrong kind (text where integers are expected) raises :class:`TypeError`.

Decimal layout (LogicalTypes.md): the unscaled integer in big-endian two's
complement, sign-extended to the FIXED_LEN_BYTE_ARRAY width, or in the fewest
bytes that hold it for BYTE_ARRAY::

    -2 as FIXED_LEN_BYTE_ARRAY(5):  FF FF FF FF FE      as BYTE_ARRAY:  FE
    300 as FIXED_LEN_BYTE_ARRAY(5): 00 00 00 01 2C      as BYTE_ARRAY:  01 2C
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import PhysicalType
from parquet_core.errors import ParquetSchemaError, quoted
from parquet_core.schema.elements import physical_type_of
from parquet_core.schema.temporal import JULIAN_EPOCH_DAY
from parquet_core.schema.types import DataType, TypeId

__all__ = ["to_physical", "epoch_to_int96", "decimal_to_fixed", "decimal_to_minimal"]

_STORAGE_INT = {
    TypeId.INT8: np.int8, TypeId.INT16: np.int16, TypeId.INT32: np.int32, TypeId.INT64: np.int64,
    TypeId.UINT8: np.uint8, TypeId.UINT16: np.uint16, TypeId.UINT32: np.uint32, TypeId.UINT64: np.uint64,
}
_PER_DAY = {"s": 86_400, "ms": 86_400_000, "us": 86_400_000_000, "ns": 86_400_000_000_000}
_NANOS_PER = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def _fail(msg: str, pos: int, column: str | None) -> ParquetSchemaError:
    where = f"column {quoted(column)}: " if column else ""
    return ParquetSchemaError(f"{where}{msg} (value at position {pos})")


def _ints(values: Any, target: Any, what: object, column: str | None) -> npt.NDArray[Any]:
    """Cast an integer buffer to *target*, refusing values outside its range."""
    arr = np.asarray(values)
    dtype = np.dtype(target)
    if arr.dtype == dtype:
        return arr
    if arr.dtype.kind not in "iub":
        raise TypeError(f"{what} values must be integers, got a {arr.dtype} buffer")
    if not np.can_cast(arr.dtype, dtype, "safe") and arr.size:
        info = np.iinfo(dtype)
        bad = (arr < info.min) | (arr > info.max)
        if bad.any():
            i = int(np.argmax(bad))
            raise _fail(f"{arr[i]} is out of range for {what}", i, column)
    return arr.astype(dtype)


def _fixed(values: Any, width: int, what: object, column: str | None) -> npt.NDArray[np.uint8]:
    """Return an (n, width) uint8 matrix from a matrix or equal-length ByteArrays."""
    if isinstance(values, ByteArrays):
        lengths = values.lengths()
        if lengths.size and (lengths != width).any():
            i = int(np.argmax(lengths != width))
            raise _fail(f"{lengths[i]}-byte value for {what} of {width} bytes", i, column)
        base = int(values.offsets[0])
        return values.data[base:base + width * len(values)].reshape(len(values), width)
    arr = np.asarray(values)
    if arr.ndim != 2 or arr.dtype != np.uint8:
        raise TypeError(f"{what} values must be an (n, {width}) uint8 array, got "
                        f"{arr.dtype} with shape {arr.shape}")
    if arr.shape[1] != width:
        raise _fail(f"{arr.shape[1]}-byte values for {what} of {width} bytes", 0, column)
    return np.ascontiguousarray(arr)


def _sign_bytes(mat: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """0xFF for rows whose first byte has the sign bit set, else 0x00."""
    return np.where(mat[:, 0] >= 0x80, np.uint8(0xFF), np.uint8(0))


def _byte_arrays_to_matrix(values: ByteArrays) -> npt.NDArray[np.uint8]:
    """Sign-extend variable-length big-endian values to their common widest width.

    An empty value counts as zero, as on the read side.
    """
    n = len(values)
    lengths = values.lengths()
    width = max(1, int(lengths.max())) if n else 1
    base = int(values.offsets[0])
    data = values.data[base:int(values.offsets[-1])]
    first = np.zeros(n, dtype=np.uint8)
    nonempty = lengths > 0
    first[nonempty] = data[values.offsets[:-1][nonempty] - base]
    sign = np.where(first >= 0x80, np.uint8(0xFF), np.uint8(0))
    out = np.repeat(sign, width)
    # byte k of value r lands at flat position (r + 1) * width - len(r) + k
    # (right-aligned); its source position is offsets[r] - base + k
    shift = (np.arange(1, n + 1) * width - lengths) - (values.offsets[:-1] - base)
    out[np.arange(data.size) + np.repeat(shift, lengths)] = data
    return out.reshape(n, width)


def _decimal_matrix(values: Any, what: object) -> npt.NDArray[np.uint8]:
    """Any decimal storage (int64 unscaled, bytes matrix, ByteArrays) -> (n, w) big-endian."""
    if isinstance(values, ByteArrays):
        return _byte_arrays_to_matrix(values)
    arr = np.asarray(values)
    if arr.ndim == 2 and arr.dtype == np.uint8:
        return np.ascontiguousarray(arr)
    if arr.ndim == 1 and arr.dtype.kind in "iu":
        if arr.dtype == np.uint64 and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            raise TypeError(f"{what} unscaled values do not fit int64")
        return arr.astype(">i8").view(np.uint8).reshape(-1, 8)
    raise TypeError(f"{what} values must be int64 unscaled integers, an (n, w) uint8 "
                    f"array or ByteArrays, got {arr.dtype} with shape {arr.shape}")


def decimal_to_fixed(values: Any, width: int, *, column: str | None = None,
                     what: object = "decimal") -> npt.NDArray[np.uint8]:
    """Return decimals as (n, *width*) big-endian two's complement bytes.

    Raises
    ------
    ParquetSchemaError
        If a value needs more than *width* bytes.
    """
    mat = _decimal_matrix(values, what)
    n, have = mat.shape
    if have == width:
        return mat
    if have < width:
        out = np.empty((n, width), dtype=np.uint8)
        out[:, :width - have] = _sign_bytes(mat)[:, None]
        out[:, width - have:] = mat
        return out
    cut = have - width
    kept = mat[:, cut:]
    bad = (mat[:, :cut] != _sign_bytes(kept)[:, None]).any(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise _fail(f"{what} value needs more than {width} bytes", i, column)
    return np.ascontiguousarray(kept)


def decimal_to_minimal(values: Any, *, what: object = "decimal") -> ByteArrays:
    """Return decimals as BYTE_ARRAY values in their fewest bytes (at least one)."""
    mat = _decimal_matrix(values, what)
    n, width = mat.shape
    sign = _sign_bytes(mat)
    # A leading byte may go when it and all before it are sign bytes and the
    # byte after it still carries the sign; such bytes always form a prefix.
    is_sign = np.logical_and.accumulate(mat[:, :-1] == sign[:, None], axis=1)
    next_keeps = (mat[:, 1:] >= 0x80) == (sign[:, None] == 0xFF)
    drop = np.count_nonzero(is_sign & next_keeps, axis=1)
    lengths = width - drop
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    keep = np.arange(width)[None, :] >= drop[:, None]
    return ByteArrays(offsets, mat[keep])


def epoch_to_int96(values: Any, unit: str, *, column: str | None = None) -> npt.NDArray[np.uint8]:
    """Return epoch counts of *unit* as (n, 12) INT96: nanos-of-day LE int64 + Julian day LE int32.

    The inverse of :func:`parquet_core.schema.temporal.int96_to_epoch`.
    Days are floored, so a pre-1970 value gets the day before and a positive
    nanosecond count, as Impala, Spark and pyarrow write it.

    Raises
    ------
    ParquetSchemaError
        If the Julian day does not fit int32 (only possible for ``ms``).
    """
    v = _ints(values, np.int64, f"timestamp[{unit}]", column)
    days, rem = np.divmod(v, np.int64(_PER_DAY[unit]))
    julian = days + JULIAN_EPOCH_DAY
    info = np.iinfo(np.int32)
    bad = (julian < info.min) | (julian > info.max)
    if bad.any():
        i = int(np.argmax(bad))
        raise _fail(f"timestamp {v[i]} {unit} is beyond the INT96 day range", i, column)
    out = np.empty((v.size, 12), dtype=np.uint8)
    out[:, :8] = (rem * _NANOS_PER[unit]).astype("<i8").view(np.uint8).reshape(-1, 8)
    out[:, 8:] = julian.astype("<i4").view(np.uint8).reshape(-1, 4)
    return out


def _check_target(dt: DataType, ptype: int, type_length: int | None) -> None:
    allowed = {physical_type_of(dt)[0]}
    if dt.id is TypeId.DECIMAL:
        allowed |= {PhysicalType.INT32, PhysicalType.INT64, PhysicalType.FIXED_LEN_BYTE_ARRAY,
                    PhysicalType.BYTE_ARRAY}
    elif dt.id is TypeId.TIMESTAMP:
        allowed.add(PhysicalType.INT96)
    if ptype not in allowed:
        raise ValueError(f"{dt} cannot be stored as {PhysicalType(ptype).name}")
    if ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY and (type_length is None or type_length < 1):
        raise ValueError(f"FIXED_LEN_BYTE_ARRAY target for {dt} needs a type_length")


def _to_int(dt: DataType, values: Any, ptype: int, column: str | None) -> npt.NDArray[Any]:
    target = np.int32 if ptype == PhysicalType.INT32 else np.int64
    tid = dt.id
    if tid is TypeId.DECIMAL:
        arr = values if isinstance(values, ByteArrays) else np.asarray(values)
        if not (isinstance(arr, np.ndarray) and arr.ndim == 1):  # bytes -> int64 first
            arr = decimal_to_fixed(values, 8, column=column, what=dt).view(">i8").reshape(-1)
        return _ints(arr, target, dt, column)
    if tid is TypeId.NULL:
        return np.zeros(len(values), dtype=target)
    storage = _ints(values, _STORAGE_INT.get(tid, target), dt, column)
    if storage.dtype.kind == "u" and storage.dtype.itemsize == np.dtype(target).itemsize:
        return storage.view(target)  # uint32 / uint64: same bits, signed view
    return storage.astype(target, copy=False)


def _target_of(target: Any) -> tuple[int, int | None, str | None]:
    """(physical type, type_length, column name) of a ColumnDescriptor or SchemaElement."""
    if hasattr(target, "physical_type"):
        return int(target.physical_type), target.type_length, target.dotted_path
    if getattr(target, "type", None) is not None and hasattr(target, "type_length"):
        return int(target.type), target.type_length, target.name
    raise TypeError(f"expected a ColumnDescriptor or a leaf SchemaElement, got {target!r}")


def to_physical(target: Any, dt: DataType, values: Any) -> Any:
    """Convert a logical storage buffer of type *dt* to the physical values of *target*.

    Parameters
    ----------
    target:
        The column's ``ColumnDescriptor`` or leaf ``pt.SchemaElement``: its
        physical type and ``type_length`` decide the layout; its name goes
        into error messages.
    dt:
        The data type of *values* (``Array.type``); for an INT96 timestamp
        column it is the timestamp type, which says the unit.
    values:
        Storage as in :mod:`parquet_core.schema.types`.  Every entry is
        converted, so callers normally pass only the non-null slots;
        positions in error messages are indexes into *values*.

    Returns
    -------
    numpy array or ByteArrays
        In the physical representation of the read path (int32, int64,
        (n, 12) uint8 for INT96, (n, w) uint8 for FIXED_LEN_BYTE_ARRAY...).

    Raises
    ------
    ValueError
        If *dt* cannot be stored as the target's physical type.
    TypeError
        If *values* is not a storage buffer of *dt*, or *target* is not a leaf.
    ParquetSchemaError
        If a value does not fit the column.
    """
    ptype, type_length, column = _target_of(target)
    _check_target(dt, ptype, type_length)
    tid = dt.id
    if ptype in (PhysicalType.INT32, PhysicalType.INT64):
        return _to_int(dt, values, ptype, column)
    if ptype == PhysicalType.BOOLEAN:
        arr = np.asarray(values)
        if arr.dtype != np.bool_:
            raise TypeError(f"bool values must be a numpy bool array, got {arr.dtype}")
        return arr
    if ptype in (PhysicalType.FLOAT, PhysicalType.DOUBLE):
        arr = np.asarray(values)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"{dt} values must be numbers, got a {arr.dtype} buffer")
        return arr.astype(np.float32 if ptype == PhysicalType.FLOAT else np.float64, copy=False)
    if ptype == PhysicalType.INT96:
        if tid is TypeId.TIMESTAMP:
            return epoch_to_int96(values, dt.unit or "us", column=column)
        return _fixed(values, 12, dt, column)
    if ptype == PhysicalType.BYTE_ARRAY:
        if tid is TypeId.DECIMAL:
            return decimal_to_minimal(values, what=dt)
        if not isinstance(values, ByteArrays):
            raise TypeError(f"{dt} values must be ByteArrays, got {type(values).__name__}")
        return values
    if type_length is None:    # (refused above: only FIXED_LEN_BYTE_ARRAY is left)
        raise ValueError(f"FIXED_LEN_BYTE_ARRAY target for {dt} needs a type_length")
    width = int(type_length)
    if tid is TypeId.DECIMAL:
        return decimal_to_fixed(values, width, column=column, what=dt)
    if tid is TypeId.FLOAT16:
        floats = np.asarray(values) if not isinstance(values, ByteArrays) else None
        if floats is not None and floats.ndim == 1:
            if floats.dtype.kind != "f":
                raise TypeError(f"float16 values must be floats, got {floats.dtype}")
            return floats.astype("<f2").view(np.uint8).reshape(-1, 2)
    return _fixed(values, width, dt, column)
