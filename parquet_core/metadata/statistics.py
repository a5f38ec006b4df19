"""Column statistics decoded into typed values, following the spec's sort orders.

The rules (parquet.thrift, comments on ``Statistics`` and ``ColumnOrder``):

* ``min_value`` / ``max_value`` are written with the column's type-defined
  order.  They are trusted when the file declares ``column_orders``; without
  it, only columns whose order is *signed* are trusted (older writers
  compared binary values as signed bytes, which is wrong for unsigned orders).
* The legacy ``min`` / ``max`` fields are only meaningful for signed orders.
* Floating point: a NaN bound makes both bounds unusable; a zero minimum is
  read as -0.0 and a zero maximum as +0.0, so a ``-0.0`` or ``+0.0`` value is
  never wrongly excluded.
* INT96 and INTERVAL have no defined order: their bounds are ignored.

Column orders other than TYPE_ORDER (``FileMetaData.column_orders``):

* ``IEEE_754_TOTAL_ORDER`` (FLOAT, DOUBLE, FLOAT16): ``min_value`` /
  ``max_value`` are the extreme non-NaN values, compared by IEEE 754
  totalOrder, so they are exact (no zero widening); both are NaN only when
  every non-null value is NaN, and then give no usable bound.  The deprecated
  ``min`` / ``max`` are not read for such columns.
* ``INT96_TIMESTAMP_ORDER`` (INT96): bounds are chronological and trusted.
* An order this reader does not know (a future union member), or an order
  given to a type it does not apply to: min and max are ignored, as
  parquet.thrift requires.

``nan_count`` is reported as stored (None: unknown, which means "NaNs may
be present").
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import PhysicalType
from parquet_core.errors import ParquetFormatError
from parquet_core.metadata.column_orders import (  # noqa: F401  (re-exported)
    IEEE_754_TOTAL_ORDER,
    INT96_TIMESTAMP_ORDER,
    TYPE_ORDER,
    UNKNOWN_ORDER,
    column_order_name,
)
from parquet_core.metadata.thrift_dict import plain_value
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.pyvalues import py_values, to_storage
from parquet_core.schema.types import TypeId
from parquet_core.thrift import pt

__all__ = ["Statistics", "StatisticsDecoder", "SortOrder", "sort_order", "decode_statistics", "decode_stat_value",
           "decode_stat_storage", "decode_stat_storages", "TYPE_ORDER", "IEEE_754_TOTAL_ORDER",
           "INT96_TIMESTAMP_ORDER", "UNKNOWN_ORDER", "column_order_name", "column_order_struct",
           "order_applies"]

_INT96_INTERVAL_IDS = frozenset([TypeId.INT96, TypeId.INTERVAL])
_DECIMAL_FLOAT16_IDS = frozenset([TypeId.DECIMAL, TypeId.FLOAT16])


def column_order_struct(name: str) -> Any:
    """The ``pt.ColumnOrder`` union setting member *name*."""
    member = {TYPE_ORDER: pt.TypeDefinedOrder, IEEE_754_TOTAL_ORDER: pt.IEEE754TotalOrder,
              INT96_TIMESTAMP_ORDER: pt.Int96TimestampOrder}[name]
    return pt.ColumnOrder(**{name: member()})


class SortOrder:
    """How values of a column compare (names as in the spec)."""

    SIGNED = "SIGNED"
    UNSIGNED = "UNSIGNED"
    UNKNOWN = "UNKNOWN"


def sort_order(desc: ColumnDescriptor) -> str:
    """Return the type-defined sort order of a leaf."""
    tid = desc.data_type.id
    pt_ = desc.physical_type
    if tid in _INT96_INTERVAL_IDS or pt_ == PhysicalType.INT96:
        return SortOrder.UNKNOWN
    if tid in _UNSIGNED_IDS:
        return SortOrder.UNSIGNED
    if tid in _DECIMAL_FLOAT16_IDS:
        return SortOrder.SIGNED
    if pt_ in (PhysicalType.BYTE_ARRAY, PhysicalType.FIXED_LEN_BYTE_ARRAY):
        return SortOrder.UNSIGNED
    return SortOrder.SIGNED


@dataclass(frozen=True, slots=True)
class Statistics:
    """Decoded statistics of a column chunk or page.

    ``min``/``max`` are Python values of the column's logical type (as
    :meth:`Array.to_pylist` would return them) or ``None`` when absent or not
    trustworthy; ``min_raw``/``max_raw`` keep the stored bytes.
    """

    min: Any
    max: Any
    null_count: int | None
    distinct_count: int | None
    min_raw: bytes | None
    max_raw: bytes | None
    is_min_value_exact: bool | None = None
    is_max_value_exact: bool | None = None
    #: NaN values counted by the writer (floating point only; None: unknown)
    nan_count: int | None = None
    #: the ColumnOrder the bounds follow (None: the footer gives no column orders)
    column_order: str | None = None

    @property
    def has_min_max(self) -> bool:
        """True when both bounds are usable."""
        return self.min is not None and self.max is not None

    def to_dict(self) -> dict[str, Any]:
        """The statistics as JSON-ready Python (bounds as text when not numbers)."""
        return {"min": plain_value(self.min), "max": plain_value(self.max),
                "null_count": self.null_count, "distinct_count": self.distinct_count,
                "nan_count": self.nan_count, "is_min_value_exact": self.is_min_value_exact,
                "is_max_value_exact": self.is_max_value_exact, "column_order": self.column_order}


def _statistics_factory() -> Any:
    """``Statistics(*fields)``, about four times cheaper (a footer walk makes one per chunk).

    The frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, and
    calling the slots' own setters costs a method-wrapper call per field.  Here the fields are
    stored into an object of a plain class with the very same slots (ordinary slot stores,
    which the interpreter specialises), then the object's class becomes ``Statistics``:
    Python allows that between classes of one layout (same base, same slots in the same
    order), and checks it.  Equal to the constructor: every field, in the class's order."""
    names = tuple(f.name for f in dataclasses.fields(Statistics))
    expected = ("min", "max", "null_count", "distinct_count", "min_raw", "max_raw", "is_min_value_exact",
                "is_max_value_exact", "nan_count", "column_order")
    if names != expected or tuple(Statistics.__slots__) != expected:   # the stores below follow them
        raise AssertionError(f"Statistics has fields {names}, the factory sets {expected}")
    builder = type("_StatisticsBuilder", (), {"__slots__": expected})
    new = object.__new__
    target = Statistics

    def make(lo: Any, hi: Any, null_count: Any, distinct_count: Any, lo_raw: Any, hi_raw: Any,
             min_exact: Any, max_exact: Any, nan_count: Any, column_order: Any) -> Statistics:
        st: Any = new(builder)
        st.min = lo
        st.max = hi
        st.null_count = null_count
        st.distinct_count = distinct_count
        st.min_raw = lo_raw
        st.max_raw = hi_raw
        st.is_min_value_exact = min_exact
        st.is_max_value_exact = max_exact
        st.nan_count = nan_count
        st.column_order = column_order
        st.__class__ = target
        return st   # a Statistics now
    return make


_make_statistics = _statistics_factory()


_FIXED: dict[int, int] = {PhysicalType.BOOLEAN: 1, PhysicalType.INT32: 4, PhysicalType.INT64: 8,
          PhysicalType.INT96: 12, PhysicalType.FLOAT: 4, PhysicalType.DOUBLE: 8}


#: Plain numbers whose bound decodes with one ``struct`` call (the common case,
#: and the hot one when a whole footer's statistics are read).
_UNSIGNED_IDS = frozenset([TypeId.UINT8, TypeId.UINT16, TypeId.UINT32, TypeId.UINT64])
#: The integer types narrower than their INT32 storage: (bits, signed).
_NARROW_INTS = {TypeId.INT8: (8, True), TypeId.INT16: (16, True), TypeId.UINT8: (8, False),
                TypeId.UINT16: (16, False)}
_SCALAR: dict[tuple[int, TypeId], struct.Struct] = {
    (PhysicalType.INT32, TypeId.INT32): struct.Struct("<i"),
    (PhysicalType.INT64, TypeId.INT64): struct.Struct("<q"),
    (PhysicalType.INT32, TypeId.INT8): struct.Struct("<i"),
    (PhysicalType.INT32, TypeId.INT16): struct.Struct("<i"),
    (PhysicalType.INT32, TypeId.UINT8): struct.Struct("<I"),
    (PhysicalType.INT32, TypeId.UINT16): struct.Struct("<I"),
    (PhysicalType.INT32, TypeId.UINT32): struct.Struct("<I"),
    (PhysicalType.INT64, TypeId.UINT64): struct.Struct("<Q"),
    (PhysicalType.FLOAT, TypeId.FLOAT32): struct.Struct("<f"),
    (PhysicalType.DOUBLE, TypeId.FLOAT64): struct.Struct("<d"),
}


def _check_width(raw: bytes, desc: ColumnDescriptor) -> None:
    pt_ = desc.physical_type
    want = _FIXED.get(pt_, desc.type_length if pt_ == PhysicalType.FIXED_LEN_BYTE_ARRAY else None)
    if want is not None and len(raw) != want:
        raise ParquetFormatError(
            f"statistics value for {desc.dotted_path} has {len(raw)} bytes, expected {want}")


def decode_stat_storage(raw: bytes, desc: ColumnDescriptor) -> Any:
    """Decode one PLAIN-encoded bound into a one-element array of the column's storage.

    The same representation :class:`~parquet_core.table.arrays.Array` holds
    for the column, so bounds compare with values by the same code.
    """
    _check_width(raw, desc)
    return to_storage(desc.data_type, _physical(raw, desc.physical_type))


def decode_stat_storages(raws: list[bytes], present: Any, desc: ColumnDescriptor) -> Any:
    """Decode many PLAIN-encoded bounds at once into one array of the column's storage.

    Slots where *present* (a boolean array) is False are placeholders (zeros,
    or empty byte strings) whatever their raw bytes hold: a null page's
    bounds, for instance.  The others are width-checked like
    :func:`decode_stat_storage`.
    """
    pt_ = desc.physical_type
    width = _FIXED.get(pt_, desc.type_length if pt_ == PhysicalType.FIXED_LEN_BYTE_ARRAY else None)
    keep = [bool(p) for p in present]
    for raw, k in zip(raws, keep):
        if k:
            _check_width(raw, desc)
    if pt_ == PhysicalType.BYTE_ARRAY or width is None:
        physical: Any = ByteArrays.from_pylist([bytes(r) if k else b"" for r, k in zip(raws, keep)])
    elif pt_ == PhysicalType.BOOLEAN:
        physical = np.array([k and r[0] != 0 for r, k in zip(raws, keep)], dtype=np.bool_)
    else:
        blank = bytes(width)
        joined = b"".join(bytes(r) if k else blank for r, k in zip(raws, keep))
        dtype = _PAIR_DTYPES.get(pt_)
        physical = np.frombuffer(joined, dtype) if dtype else np.frombuffer(joined, np.uint8).reshape(-1, width)
    return to_storage(desc.data_type, physical)


def _physical(raw: bytes, pt_: int) -> Any:
    if pt_ == PhysicalType.BOOLEAN:
        return np.array([raw[0] != 0])
    if pt_ == PhysicalType.INT32:
        return np.frombuffer(raw, "<i4")
    if pt_ == PhysicalType.INT64:
        return np.frombuffer(raw, "<i8")
    if pt_ == PhysicalType.FLOAT:
        return np.frombuffer(raw, "<f4")
    if pt_ == PhysicalType.DOUBLE:
        return np.frombuffer(raw, "<f8")
    if pt_ == PhysicalType.BYTE_ARRAY:
        return ByteArrays.from_pylist([bytes(raw)])
    return np.frombuffer(raw, np.uint8).reshape(1, -1)


def decode_stat_value(raw: bytes, desc: ColumnDescriptor) -> Any:
    """Decode one PLAIN-encoded bound (no length prefix for byte arrays)."""
    _check_width(raw, desc)
    fast = _SCALAR.get((desc.physical_type, desc.data_type.id))
    if fast is not None:
        value = fast.unpack(raw)[0]
        narrow = _NARROW_INTS.get(desc.data_type.id)
        if narrow is not None:
            # narrow types keep the low bits of the INT32, as the column values do
            bits, signed = narrow
            value &= (1 << bits) - 1
            if signed and value >> (bits - 1):
                value -= 1 << bits
        return value
    dt = desc.data_type
    pt_ = desc.physical_type
    # Bounds a footer holds thousands of: text, bytes, booleans and dates without the
    # one-element arrays of the general path (pinned to it in tests/unit/metadata).
    if pt_ == PhysicalType.BYTE_ARRAY and (dt.is_text or dt.id is TypeId.BINARY):
        value = bytes(raw)
        if not dt.is_text:
            return value
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParquetFormatError(f"invalid UTF-8 in a {dt} column: {exc}") from exc
    if pt_ == PhysicalType.BOOLEAN and dt.id is TypeId.BOOL:
        return raw[0] != 0
    if pt_ == PhysicalType.INT32 and dt.id is TypeId.DATE:
        days = _I32.unpack(raw)[0]
        # the general path's datetime64[D] -> date conversion covers years 1 to 9999
        return _EPOCH + datetime.timedelta(days=days) if -719162 <= days <= 2932896 else days
    return py_values(dt, to_storage(dt, _physical(raw, pt_)))[0]


_I32 = struct.Struct("<i")
_EPOCH = datetime.date(1970, 1, 1)


def _is_float(desc: ColumnDescriptor) -> bool:
    return desc.physical_type in (PhysicalType.FLOAT, PhysicalType.DOUBLE) or \
        desc.data_type.id is TypeId.FLOAT16


def _float_rules(lo: Any, hi: Any) -> tuple[Any, Any]:
    if lo is None or hi is None:
        return None, None
    if math.isnan(lo) or math.isnan(hi):
        return None, None
    if lo == 0.0:
        lo = -0.0
    if hi == 0.0:
        hi = 0.0
    return lo, hi


def order_applies(column_order: str | None, desc: ColumnDescriptor) -> bool:
    """Whether min/max under *column_order* may be used for *desc* (None: no column orders).

    TYPE_ORDER (or no orders) needs a type with a defined order, and without
    column orders only signed ones are trusted (see the module docstring);
    the other two orders apply to their own types only.
    """
    order = sort_order(desc)
    if column_order is None:
        return order == SortOrder.SIGNED
    if column_order == TYPE_ORDER:
        return order != SortOrder.UNKNOWN
    if column_order == IEEE_754_TOTAL_ORDER:
        return _is_float(desc)
    if column_order == INT96_TIMESTAMP_ORDER:
        return desc.physical_type == PhysicalType.INT96
    return False


def _normal_order(column_order: bool | str | None) -> str | None:
    if column_order is True:
        return TYPE_ORDER
    if column_order is False:
        return None
    return column_order


#: Physical types whose two bounds decode together (one array of two) on the general path.
_PAIR_DTYPES: dict[int, str] = {PhysicalType.INT32: "<i4", PhysicalType.INT64: "<i8", PhysicalType.FLOAT: "<f4",
                PhysicalType.DOUBLE: "<f8"}


class StatisticsDecoder:
    """:func:`decode_statistics` for one leaf and column order, with everything that depends
    only on those two worked out once (a footer walk decodes one leaf's statistics in every
    row group).  ``StatisticsDecoder(desc, order).decode(raw)`` equals
    ``decode_statistics(raw, desc, order)``: every width check is still made per bound."""

    __slots__ = ("_desc", "_col_order", "_new_ok", "_legacy_ok", "_ieee", "_float", "_one", "_pair", "_two",
                 "_width", "_plain_two")

    def __init__(self, desc: ColumnDescriptor, column_order: bool | str | None) -> None:
        col_order = _normal_order(column_order)
        order = sort_order(desc)
        self._desc = desc
        self._col_order = col_order
        self._new_ok = order_applies(col_order, desc)
        self._legacy_ok = order == SortOrder.SIGNED and col_order in (None, TYPE_ORDER)
        self._ieee = col_order == IEEE_754_TOTAL_ORDER
        self._float = _is_float(desc)
        self._one = _value_decoder(desc)
        # Types without a one-value fast path (timestamps, times, decimals in integers...):
        # both bounds go through the general conversion in one two-element array.
        pt_ = desc.physical_type
        self._pair = self._one is None and (
            pt_ in _PAIR_DTYPES or pt_ in (PhysicalType.INT96, PhysicalType.FIXED_LEN_BYTE_ARRAY))
        # plain numbers stored at their own width: both bounds in one ``struct`` call
        fast = _SCALAR.get((pt_, desc.data_type.id))
        if fast is not None and desc.data_type.id not in _NARROW_INTS:
            self._two: Any = struct.Struct("<" + fast.format[1:] * 2).unpack
            self._width = fast.size
        else:
            self._two = None
            self._width = 0
        #: the walk's common case in :meth:`decode`: integers whose new-style bounds apply and
        #: decode together (no float rules); the others take the general path
        self._plain_two = self._two if self._new_ok and not self._float and not self._ieee else None

    def __reduce__(self) -> tuple[Any, ...]:
        # made again from its leaf and order (its value decoders are closures); a decoder may be
        # shared by many files' metadata (metadata/wrappers.py), pickled with any of them
        return (StatisticsDecoder, (self._desc, self._col_order))

    def _bounds(self, lo_raw: bytes, hi_raw: bytes) -> tuple[Any, Any]:
        desc = self._desc
        one = self._one
        if one is not None:
            return one(lo_raw), one(hi_raw)
        if self._pair:
            _check_width(lo_raw, desc)
            _check_width(hi_raw, desc)
            pt_ = desc.physical_type
            dtype = _PAIR_DTYPES.get(pt_)
            if dtype is not None:
                both = np.frombuffer(bytes(lo_raw) + bytes(hi_raw), dtype)
            else:   # INT96, FIXED_LEN_BYTE_ARRAY: two rows of the (checked) width
                both = np.frombuffer(bytes(lo_raw) + bytes(hi_raw), np.uint8).reshape(2, len(lo_raw))
            lo, hi = py_values(desc.data_type, to_storage(desc.data_type, both))
            return lo, hi
        return decode_stat_value(lo_raw, desc), decode_stat_value(hi_raw, desc)

    def decode(self, raw: Any) -> Statistics | None:
        """The decoded statistics of a raw ``pt.Statistics`` (None for None)."""
        if raw is None:
            return None
        two = self._plain_two
        if two is not None:
            lo_raw = raw.min_value
            hi_raw = raw.max_value
            if type(lo_raw) is bytes and type(hi_raw) is bytes and len(lo_raw) == self._width == len(hi_raw):
                try:
                    nan_count, min_exact, max_exact = (raw.nan_count, raw.is_min_value_exact,
                                                       raw.is_max_value_exact)
                except AttributeError:
                    pass    # the general path below
                else:
                    lo, hi = two(lo_raw + hi_raw)
                    return _make_statistics(
                        lo, hi, raw.null_count, raw.distinct_count, lo_raw, hi_raw, min_exact, max_exact,
                        None if nan_count is None else int(nan_count), self._col_order)
        col_order = self._col_order
        lo_raw = hi_raw = None
        if raw.min_value is not None and raw.max_value is not None and self._new_ok:
            lo_raw, hi_raw = raw.min_value, raw.max_value
        elif raw.min is not None and raw.max is not None and self._legacy_ok:
            lo_raw, hi_raw = raw.min, raw.max
        lo = hi = None
        if lo_raw is not None and hi_raw is not None:
            two = self._two
            if (two is not None and type(lo_raw) is bytes and type(hi_raw) is bytes
                    and len(lo_raw) == self._width == len(hi_raw)):
                lo, hi = two(lo_raw + hi_raw)
            else:   # the one-value decoders, which also name a bound of the wrong width
                lo, hi = self._bounds(lo_raw, hi_raw)
            if self._ieee:
                if math.isnan(lo) or math.isnan(hi):    # every non-null value is NaN
                    lo = hi = None
            elif self._float:
                lo, hi = _float_rules(lo, hi)
        try:    # a pt.Statistics has every field (an object from elsewhere may lack the newer ones)
            nan_count, min_exact, max_exact = raw.nan_count, raw.is_min_value_exact, raw.is_max_value_exact
        except AttributeError:
            nan_count = getattr(raw, "nan_count", None)
            min_exact = getattr(raw, "is_min_value_exact", None)
            max_exact = getattr(raw, "is_max_value_exact", None)
        return _make_statistics(   # positional: the fields' order
            lo, hi, raw.null_count, raw.distinct_count, lo_raw, hi_raw, min_exact, max_exact,
            None if nan_count is None else int(nan_count), col_order)


def _value_decoder(desc: ColumnDescriptor) -> Any:
    """A one-argument function equal to ``decode_stat_value(raw, desc)`` for the leaf's common
    types (plain numbers, text, binary), or None for the others."""
    pt_ = desc.physical_type
    dt = desc.data_type
    tid = dt.id
    where = desc.dotted_path
    want = _FIXED.get(pt_, desc.type_length if pt_ == PhysicalType.FIXED_LEN_BYTE_ARRAY else None)
    fast = _SCALAR.get((pt_, tid))
    if fast is not None:
        unpack = fast.unpack
        narrow = _NARROW_INTS.get(tid)

        def number(raw: bytes) -> Any:
            if len(raw) != want:
                raise ParquetFormatError(
                    f"statistics value for {where} has {len(raw)} bytes, expected {want}")
            value = unpack(raw)[0]
            if narrow is not None:
                bits, signed = narrow
                value &= (1 << bits) - 1
                if signed and value >> (bits - 1):
                    value -= 1 << bits
            return value
        return number
    if pt_ == PhysicalType.BYTE_ARRAY and dt.is_text:
        def text(raw: bytes) -> Any:
            try:
                return bytes(raw).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ParquetFormatError(f"invalid UTF-8 in a {dt} column: {exc}") from exc
        return text
    if pt_ == PhysicalType.BYTE_ARRAY and tid is TypeId.BINARY:
        return bytes
    if (pt_ == PhysicalType.BOOLEAN and tid is TypeId.BOOL) or (pt_ == PhysicalType.INT32 and tid is TypeId.DATE):
        return lambda raw: decode_stat_value(raw, desc)   # its own one-value paths
    return None


def decode_statistics(raw: Any, desc: ColumnDescriptor,
                      column_order: bool | str | None) -> Statistics | None:
    """Decode a raw ``pt.Statistics`` for column *desc*.

    Parameters
    ----------
    raw:
        The thrift struct, or ``None``.
    desc:
        The leaf the statistics belong to.
    column_order:
        The column's ``ColumnOrder`` member name (:data:`TYPE_ORDER`,
        :data:`IEEE_754_TOTAL_ORDER`, :data:`INT96_TIMESTAMP_ORDER`,
        :data:`UNKNOWN_ORDER`), or None when the footer has no column orders.
        ``True`` / ``False`` are accepted for TYPE_ORDER / None.
    """
    if raw is None:
        return None
    col_order = _normal_order(column_order)
    order = sort_order(desc)
    lo_raw = hi_raw = None
    usable = order_applies(col_order, desc)
    if raw.min_value is not None and raw.max_value is not None and usable:
        lo_raw, hi_raw = raw.min_value, raw.max_value
    elif raw.min is not None and raw.max is not None and order == SortOrder.SIGNED \
            and col_order in (None, TYPE_ORDER):
        lo_raw, hi_raw = raw.min, raw.max
    lo = hi = None
    if lo_raw is not None and hi_raw is not None:
        lo, hi = decode_stat_value(lo_raw, desc), decode_stat_value(hi_raw, desc)
        if col_order == IEEE_754_TOTAL_ORDER:
            if math.isnan(lo) or math.isnan(hi):    # every non-null value is NaN
                lo = hi = None
        elif _is_float(desc):
            lo, hi = _float_rules(lo, hi)
    nan_count = getattr(raw, "nan_count", None)
    return Statistics(
        min=lo, max=hi, null_count=raw.null_count, distinct_count=raw.distinct_count,
        min_raw=lo_raw, max_raw=hi_raw,
        is_min_value_exact=getattr(raw, "is_min_value_exact", None),
        is_max_value_exact=getattr(raw, "is_max_value_exact", None),
        nan_count=None if nan_count is None else int(nan_count), column_order=col_order)


