"""Build :class:`DataType`, :class:`Field` and :class:`Schema` objects for writing.

The factories are named like pyarrow's where pyarrow has the type, so
``schema([("id", int64()), ("name", string())])`` reads the same in both
libraries.  Each returns exactly the :class:`DataType` the read path derives
from the column this module's types are written as, so a schema survives a
write/read round trip unchanged (see :mod:`parquet_core.schema.elements`).

Storage choices that live in the type:

* ``decimal(p, s)`` is stored as INT32 for ``p <= 9``, INT64 for ``p <= 18``
  and otherwise as the narrowest FIXED_LEN_BYTE_ARRAY that holds ``p``
  digits; its ``byte_width`` is set in that last case, as the reader sets it.
  ``decimal(p, s, byte_width=w)`` asks for FIXED_LEN_BYTE_ARRAY(``w``) at any
  precision.  A decimal type with ``p > 18`` and no ``byte_width`` (what the
  reader returns for a BYTE_ARRAY decimal) is written as BYTE_ARRAY, so a
  table read from such a file is written back the same way.
* ``timestamp(unit, tz)``: Parquet records only whether values are adjusted
  to UTC (instants) or local.  Any time zone, ``"UTC"`` or another, means
  *adjusted*: the stored numbers are counts since 1970-01-01 UTC, which is
  what pyarrow writes for a zoned timestamp.  The zone name itself has no
  place in a Parquet schema, so the type keeps ``tz="UTC"`` whatever zone
  was given.

Every factory raises :class:`ValueError` for an invalid parameter.
"""

from __future__ import annotations

from typing import Iterable

from parquet_core.schema.logical import EDGE_ALGORITHMS
from parquet_core.schema.types import DataType, Field, Schema, TypeId

__all__ = [
    "null", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "string", "utf8", "binary", "fixed_size_binary",
    "decimal", "decimal128", "decimal256", "date32", "date", "time32", "time64", "time",
    "timestamp", "uuid", "json_", "bson", "enum", "interval", "int96", "geometry", "geography",
    "field", "schema", "check_type", "decimal_byte_width", "MAX_DECIMAL_PRECISION",
]

_UUID_INTERVAL_IDS = frozenset([TypeId.UUID, TypeId.INTERVAL])
_LIST_MAP_STRUCT_IDS = frozenset([TypeId.LIST, TypeId.MAP, TypeId.STRUCT])

#: Widest decimal the writer accepts (pyarrow's decimal256 limit, 32 bytes).
MAX_DECIMAL_PRECISION = 76
_UNITS = ("ms", "us", "ns")


def _plain(name: str) -> DataType:
    return DataType(name)


def null() -> DataType:
    """A column whose every value is null (UNKNOWN logical type)."""
    return _plain("null")


def bool_() -> DataType:
    """BOOLEAN."""
    return _plain("bool")


def int8() -> DataType:
    """Signed 8-bit integer, INT32 annotated INT(8, true)."""
    return _plain("int8")


def int16() -> DataType:
    """Signed 16-bit integer, INT32 annotated INT(16, true)."""
    return _plain("int16")


def int32() -> DataType:
    """Signed 32-bit integer, plain INT32."""
    return _plain("int32")


def int64() -> DataType:
    """Signed 64-bit integer, plain INT64."""
    return _plain("int64")


def uint8() -> DataType:
    """Unsigned 8-bit integer, INT32 annotated INT(8, false)."""
    return _plain("uint8")


def uint16() -> DataType:
    """Unsigned 16-bit integer, INT32 annotated INT(16, false)."""
    return _plain("uint16")


def uint32() -> DataType:
    """Unsigned 32-bit integer, INT32 (bit pattern) annotated INT(32, false)."""
    return _plain("uint32")


def uint64() -> DataType:
    """Unsigned 64-bit integer, INT64 (bit pattern) annotated INT(64, false)."""
    return _plain("uint64")


def float16() -> DataType:
    """IEEE half precision, FIXED_LEN_BYTE_ARRAY(2) annotated FLOAT16."""
    return _plain("float16")


def float32() -> DataType:
    """FLOAT."""
    return _plain("float32")


def float64() -> DataType:
    """DOUBLE."""
    return _plain("float64")


def string() -> DataType:
    """UTF-8 text, BYTE_ARRAY annotated STRING."""
    return _plain("string")


utf8 = string


def binary() -> DataType:
    """Opaque bytes, plain BYTE_ARRAY."""
    return _plain("binary")


def json_() -> DataType:
    """A JSON document as UTF-8 text, BYTE_ARRAY annotated JSON."""
    return _plain("json")


def bson() -> DataType:
    """A BSON document, BYTE_ARRAY annotated BSON."""
    return _plain("bson")


def enum() -> DataType:
    """An enumeration label as UTF-8 text, BYTE_ARRAY annotated ENUM."""
    return _plain("enum")


def uuid() -> DataType:
    """A UUID, FIXED_LEN_BYTE_ARRAY(16) annotated UUID (big-endian bytes)."""
    return DataType("uuid", byte_width=16)


def interval() -> DataType:
    """Months, days, milliseconds: FIXED_LEN_BYTE_ARRAY(12), converted type INTERVAL."""
    return DataType("interval", byte_width=12)


def _crs(crs: str | None) -> str | None:
    if crs is not None and (not isinstance(crs, str) or not crs):
        raise ValueError(f"crs must be a non-empty str or None, got {crs!r}")
    return crs


def geometry(crs: str | None = None) -> DataType:
    """WKB geometries with planar edges, BYTE_ARRAY annotated GEOMETRY.

    *crs* is written as given (e.g. ``"OGC:CRS84"``, ``"srid:4326"``,
    ``"projjson:key"``); ``None`` leaves it out, which means OGC:CRS84.
    Geometry columns have no min/max order, so no min/max statistics are
    written for them.
    """
    return DataType("geometry", crs=_crs(crs))


def geography(crs: str | None = None, algorithm: str | None = None) -> DataType:
    """WKB geographies (edges on the ellipsoid), BYTE_ARRAY annotated GEOGRAPHY.

    *algorithm* is one of ``"spherical"`` (the default when ``None``),
    ``"vincenty"``, ``"thomas"``, ``"andoyer"``, ``"karney"``.
    """
    if algorithm is not None and algorithm not in EDGE_ALGORITHMS.values():
        raise ValueError(f"unknown edge interpolation algorithm {algorithm!r}; "
                         f"expected one of {sorted(EDGE_ALGORITHMS.values())}")
    return DataType("geography", crs=_crs(crs), algorithm=algorithm)


def int96() -> DataType:
    """Raw legacy INT96 timestamps: (n, 12) bytes, nanos-of-day + Julian day."""
    return _plain("int96")


def fixed_size_binary(byte_width: int) -> DataType:
    """Opaque bytes of a fixed width, plain FIXED_LEN_BYTE_ARRAY(``byte_width``)."""
    _check_int("byte_width", byte_width, 1)
    return DataType("fixed_size_binary", byte_width=byte_width)


def decimal_byte_width(precision: int) -> int:
    """Return the fewest bytes whose two's complement holds every ``precision``-digit value.

    LogicalTypes.md: ``n`` bytes hold ``floor(log10(2**(8n - 1) - 1))``
    digits, i.e. the smallest ``n`` with ``10**precision <= 2**(8n - 1)``.
    """
    _check_int("precision", precision, 1)
    bound = 10 ** precision
    n = 1
    while 2 ** (8 * n - 1) < bound:  # at most 32 steps for the widest decimal
        n += 1
    return n


def decimal(precision: int, scale: int = 0, *, byte_width: int | None = None) -> DataType:
    """A decimal ``unscaled * 10**-scale`` with at most ``precision`` digits.

    Parameters
    ----------
    precision:
        1 .. :data:`MAX_DECIMAL_PRECISION`.
    scale:
        0 .. ``precision``.
    byte_width:
        Store as FIXED_LEN_BYTE_ARRAY of this width (at least
        :func:`decimal_byte_width` of ``precision``).  ``None`` picks INT32
        (``precision <= 9``), INT64 (``<= 18``) or the narrowest
        FIXED_LEN_BYTE_ARRAY, like pyarrow with ``store_decimal_as_integer``.
    """
    _check_int("precision", precision, 1, MAX_DECIMAL_PRECISION)
    _check_int("scale", scale, 0, precision)
    if byte_width is None:
        byte_width = None if precision <= 18 else decimal_byte_width(precision)
    else:
        _check_int("byte_width", byte_width, decimal_byte_width(precision))
    return DataType("decimal", precision=precision, scale=scale, byte_width=byte_width)


def decimal128(precision: int, scale: int = 0) -> DataType:
    """:func:`decimal` limited to 38 digits, like ``pyarrow.decimal128``."""
    _check_int("precision", precision, 1, 38)
    return decimal(precision, scale)


def decimal256(precision: int, scale: int = 0) -> DataType:
    """:func:`decimal` limited to 76 digits, like ``pyarrow.decimal256``."""
    return decimal(precision, scale)


def date32() -> DataType:
    """Days since 1970-01-01, INT32 annotated DATE."""
    return _plain("date")


date = date32


def _unit(unit: str, allowed: tuple[str, ...] = _UNITS) -> str:
    if unit not in allowed:
        raise ValueError(f"time unit must be one of {', '.join(allowed)}, got {unit!r}")
    return unit


def time(unit: str = "us", utc: bool = False) -> DataType:
    """Time of day since midnight: ``ms`` on INT32, ``us``/``ns`` on INT64.

    ``utc=True`` marks the values adjusted to UTC (``isAdjustedToUTC``).
    """
    return DataType("time", unit=_unit(unit), tz="UTC" if utc else None)


def time32(unit: str = "ms") -> DataType:
    """Local time of day in milliseconds (pyarrow's ``time32``; seconds are not in Parquet)."""
    return time(_unit(unit, ("ms",)))


def time64(unit: str = "us") -> DataType:
    """Local time of day in microseconds or nanoseconds."""
    return time(_unit(unit, ("us", "ns")))


def timestamp(unit: str = "us", tz: str | None = None, *, utc: bool | None = None) -> DataType:
    """Counts of ``unit`` since 1970-01-01, on INT64.

    Parameters
    ----------
    unit:
        ``"ms"``, ``"us"`` or ``"ns"``.
    tz:
        Any non-empty zone name means adjusted to UTC (see the module
        docstring); the type records it as ``"UTC"``.
    utc:
        Alternative to ``tz``: ``True`` for adjusted, ``False`` for local.
    """
    _unit(unit)
    if tz is not None and (not isinstance(tz, str) or not tz):
        raise ValueError(f"tz must be a non-empty time zone name or None, got {tz!r}")
    if utc is not None and tz is not None and not utc:
        raise ValueError(f"timestamp(tz={tz!r}, utc=False) contradicts itself")
    adjusted = bool(utc) or tz is not None
    return DataType("timestamp", unit=unit, tz="UTC" if adjusted else None)


def _check_int(what: str, value: object, lo: int, hi: int | None = None) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{what} must be an int, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{what} must be {rng}, got {value}")


_PLAIN_IDS = frozenset([
    TypeId.NULL, TypeId.BOOL, TypeId.INT8, TypeId.INT16, TypeId.INT32, TypeId.INT64, TypeId.UINT8,
    TypeId.UINT16, TypeId.UINT32, TypeId.UINT64,
    TypeId.FLOAT16, TypeId.FLOAT32, TypeId.FLOAT64, TypeId.STRING, TypeId.BINARY, TypeId.JSON, TypeId.BSON,
    TypeId.ENUM, TypeId.DATE, TypeId.INT96,
])


def check_type(dt: DataType) -> DataType:
    """Check that *dt* is a type the writer can store; return it.

    Accepts everything the factories build (and equal hand-made
    ``DataType`` values).

    Raises
    ------
    TypeError
        If *dt* is not a :class:`DataType`.
    ValueError
        For an unknown type name or invalid parameters.
    """
    if not isinstance(dt, DataType):
        raise TypeError(f"expected a DataType, got {type(dt).__name__}")
    tid = dt.id
    if tid in _PLAIN_IDS:
        expected = DataType(tid)
    elif tid is TypeId.DECIMAL:
        if dt.precision is None:
            raise ValueError("decimal type without a precision")
        expected = decimal(dt.precision, 0 if dt.scale is None else dt.scale,
                           byte_width=dt.byte_width)
        if dt.byte_width is None:  # BYTE_ARRAY storage for wide decimals
            expected = DataType("decimal", precision=expected.precision, scale=expected.scale)
    elif tid is TypeId.TIME:
        expected = time(dt.unit or "", utc=dt.tz is not None)
    elif tid is TypeId.TIMESTAMP:
        expected = timestamp(dt.unit or "", utc=dt.tz is not None)
    elif tid is TypeId.FIXED_SIZE_BINARY:
        if dt.byte_width is None:
            raise ValueError("fixed_size_binary type without a byte_width")
        expected = fixed_size_binary(dt.byte_width)
    elif tid in _UUID_INTERVAL_IDS:
        expected = uuid() if tid is TypeId.UUID else interval()
    elif tid is TypeId.GEOMETRY:
        expected = geometry(dt.crs)
    elif tid is TypeId.GEOGRAPHY:
        expected = geography(dt.crs, dt.algorithm)
    elif tid in _LIST_MAP_STRUCT_IDS:
        from parquet_core.schema.build_nested import check_nested

        check_nested(dt, check_type)
        return dt
    elif tid is TypeId.VARIANT:
        from parquet_core.schema.build_nested import check_nested
        from parquet_core.schema.variant_layout import check_layout

        check_layout(dt)
        check_nested(DataType("struct", fields=dt.fields), check_type)
        return dt
    else:
        raise ValueError(f"type {dt} cannot be written")
    if dt != expected:
        raise ValueError(f"invalid parameters for {tid}: {dt!r}")
    return dt


def field(name: str, type: DataType, nullable: bool = True, *, field_id: int | None = None) -> Field:
    """A column or struct member: ``nullable`` ones are OPTIONAL, others REQUIRED.

    *field_id* is written as the Parquet ``SchemaElement.field_id`` (Arrow's
    ``PARQUET:field_id`` metadata); a :class:`Field` used as a list item, map
    key or value, or struct member keeps it too.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"field name must be a non-empty str, got {name!r}")
    check_type(type)
    if not isinstance(nullable, bool):
        raise TypeError(f"nullable must be a bool, got {nullable!r}")
    if type.id is TypeId.NULL and not nullable:
        raise ValueError(f"field {name!r}: a null column must be nullable")
    if field_id is not None and (isinstance(field_id, bool) or not isinstance(field_id, int)
                                 or not -2**31 <= field_id < 2**31):
        raise ValueError(f"field {name!r}: field_id must be a 32-bit int, got {field_id!r}")
    return Field(name, type, nullable, (name,), field_id)


def schema(fields: Iterable[Field | tuple[str, DataType]]) -> Schema:
    """Build a :class:`Schema` from :class:`Field` objects and/or ``(name, type)`` pairs.

    Raises
    ------
    ValueError
        On a duplicate or empty name, or a type the writer cannot store.
    TypeError
        On an item that is neither a Field nor a pair.
    """
    out: list[Field] = []
    seen: set[str] = set()
    for item in fields:
        if isinstance(item, Field):
            f = field(item.name, item.type, item.nullable, field_id=item.field_id)
        elif isinstance(item, tuple) and len(item) == 2:
            f = field(item[0], item[1])
        else:
            raise TypeError(f"schema() takes Field objects or (name, type) pairs, got {item!r}")
        if f.name in seen:
            raise ValueError(f"duplicate field name {f.name!r}")
        seen.add(f.name)
        out.append(f)
    return Schema(out)
