"""Statistics of the write path: page and chunk bounds, null counts, size statistics.

The rules come from parquet.thrift (``Statistics``, ``ColumnOrder``,
``SizeStatistics``):

* bounds follow the column's type-defined order (:func:`sort_order`):
  signed or unsigned integers, IEEE floats, ``false < true``, unsigned
  byte-wise binary, big-endian two's complement DECIMAL binary;
* INT96 and INTERVAL have no defined order, nor do GEOMETRY and GEOGRAPHY
  (they use ``GeospatialStatistics`` instead): no bounds are written;
* floating point: NaN never becomes a bound (all NaN: no bounds); a zero
  minimum is written as ``-0.0`` and a zero maximum as ``+0.0``;
* ``min_value``/``max_value`` hold the PLAIN encoding of the bounds (no
  length prefix for byte arrays); the deprecated ``min``/``max`` are only
  written for SIGNED orders, where their old meaning agrees;
* long BYTE_ARRAY bounds of unsigned order may be truncated
  (:mod:`parquet_core.metadata.binary_order`), which clears
  ``is_min_value_exact`` / ``is_max_value_exact``.  FIXED_LEN_BYTE_ARRAY
  bounds are never truncated: their PLAIN encoding is exactly
  ``type_length`` bytes.  Signed-order binaries (DECIMAL) are never truncated
  either: a prefix of a two's complement number is not a bound of it;
* level histograms have ``max_level + 1`` entries and are omitted when the
  max level is 0 (the spec allows omitting the definition histogram at max
  level 1 too; it is kept, as Arrow C++ does).

Other column orders (``column_order=``, parquet.thrift ``ColumnOrder``):

* ``IEEE_754_TOTAL_ORDER`` (FLOAT, DOUBLE, FLOAT16): bounds are the least
  and greatest non-NaN values by totalOrder (-0.0 < +0.0, no zero
  rewriting), or the least and greatest NaN when every non-null value is
  NaN; they are kept as their PLAIN bytes so NaN payloads survive.  The
  deprecated ``min``/``max`` are not written (their old meaning is numeric).
* ``INT96_TIMESTAMP_ORDER``: bounds compare the signed LE int32 day (bytes
  8..11), then the signed LE int64 nanoseconds (bytes 0..7).
* For every floating point column ``nan_count`` is written, zero included
  (required under both orders).

Bound values, as :func:`compute_bounds` returns them, live in the order's
own domain: Python ``int`` (unsigned integers already unsigned), ``float``
(FLOAT16 too), ``bool``, or ``bytes`` for binary types.
"""

from __future__ import annotations

import struct
from typing import Any, Callable, Iterable

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import PhysicalType
from parquet_core.metadata.binary_order import (
    byte_array_extremes,
    fixed_extremes,
    signed_byte_array_extremes,
    truncate_max,
    truncate_min,
)
from parquet_core.metadata.statistics import (
    IEEE_754_TOTAL_ORDER,
    INT96_TIMESTAMP_ORDER,
    TYPE_ORDER,
    SortOrder,
    sort_order,
)
from parquet_core.schema.descriptor import ColumnDescriptor
from parquet_core.schema.types import TypeId
from parquet_core.thrift import pt

__all__ = [
    "Bounds",
    "compute_bounds",
    "encode_bound",
    "encode_bounds",
    "bound_sort_key",
    "bound_sort_key_function",
    "total_order_key",
    "int96_order_key",
    "count_nans",
    "StatisticsBuilder",
    "level_histogram",
    "size_statistics",
    "merge_size_statistics",
    "truncate_min",
    "truncate_max",
]

#: ``(min, max)`` in the order's domain (see the module docstring).
Bounds = tuple[Any, Any]

#: Types without a defined order for min/max even though their physical type has one.
_UNORDERED_TYPES = frozenset({TypeId.GEOMETRY, TypeId.GEOGRAPHY})

_INT_RANGE: dict[int, tuple[int, int]] = {PhysicalType.INT32: (-(1 << 31), 1 << 32), PhysicalType.INT64: (-(1 << 63), 1 << 64)}


def _kind(desc: ColumnDescriptor, column_order: str = TYPE_ORDER) -> str | None:
    """Classify a leaf by how its bounds are computed; ``None`` when it has no order."""
    if column_order == INT96_TIMESTAMP_ORDER:
        return "int96" if desc.physical_type == PhysicalType.INT96 else None
    if column_order == IEEE_754_TOTAL_ORDER:
        if desc.physical_type in (PhysicalType.FLOAT, PhysicalType.DOUBLE):
            return "float_total"
        return "float16_total" if desc.data_type.id is TypeId.FLOAT16 else None
    order = sort_order(desc)
    tid = desc.data_type.id
    if order == SortOrder.UNKNOWN or tid in _UNORDERED_TYPES:
        return None
    ptype = desc.physical_type
    if ptype == PhysicalType.BOOLEAN:
        return "bool"
    if ptype in (PhysicalType.INT32, PhysicalType.INT64):
        return "uint" if order == SortOrder.UNSIGNED else "int"
    if ptype in (PhysicalType.FLOAT, PhysicalType.DOUBLE):
        return "float"
    if tid is TypeId.FLOAT16:
        return "float16"
    if ptype == PhysicalType.BYTE_ARRAY:
        return "signed_bytes" if order == SortOrder.SIGNED else "bytes"
    if ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY:
        return "signed_fixed" if order == SortOrder.SIGNED else "fixed"
    return None


def _float_bounds(v: np.ndarray) -> Bounds | None:
    return _float_bounds_nan(v)[0]


def _float_bounds_nan(v: np.ndarray) -> tuple[Bounds | None, bool]:
    """:func:`_float_bounds` and whether *v* holds a NaN (min and max propagate NaN,
    so two NaN-free extremes mean a NaN-free array)."""
    lo, hi = v.min(), v.max()
    if np.isnan(lo) or np.isnan(hi):
        v = v[~np.isnan(v)]
        if v.size == 0:
            return None, True  # all NaN: no bounds at all (spec: NaN is never written)
        lo, hi = v.min(), v.max()
        nan = True
    else:
        nan = False
    lo_f, hi_f = float(lo), float(hi)
    # spec: a zero minimum is written -0.0, a zero maximum +0.0
    return ((-0.0 if lo_f == 0.0 else lo_f), (0.0 if hi_f == 0.0 else hi_f)), nan


_SIGNED_BITS: dict[int, np.dtype[np.signedinteger[Any]]] = {2: np.dtype("<i2"), 4: np.dtype("<i4"), 8: np.dtype("<i8")}


def _total_key(bits: np.ndarray) -> np.ndarray:
    """IEEE 754 totalOrder as signed integers: flip all but the sign bit of negative values."""
    width = bits.dtype.itemsize * 8
    return bits ^ ((bits >> (width - 1)) & ((1 << (width - 1)) - 1))


def total_order_key(raw: bytes) -> int:
    """The totalOrder key of one PLAIN-encoded FLOAT, DOUBLE or FLOAT16 value."""
    v = int.from_bytes(raw, "little", signed=True)
    width = len(raw) * 8
    return v ^ ((v >> (width - 1)) & ((1 << (width - 1)) - 1))


def _is_nan_raw(raw: bytes) -> bool:
    v = int.from_bytes(raw, "little") & ((1 << (len(raw) * 8 - 1)) - 1)   # drop the sign
    exp_all_ones = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}[len(raw)]
    return v > exp_all_ones


def _total_bounds(v: np.ndarray) -> tuple[bytes, bytes]:
    """Extreme non-NaN values by totalOrder (the extreme NaNs if all are NaN), as bytes."""
    bits = np.ascontiguousarray(v).view(_SIGNED_BITS[v.dtype.itemsize])
    nan = np.isnan(v)
    if not nan.all():
        bits = bits[~nan]
    key = _total_key(bits)
    return bits[int(np.argmin(key))].tobytes(), bits[int(np.argmax(key))].tobytes()


def int96_order_key(raw: bytes) -> tuple[int, int]:
    """Chronological key of one INT96 timestamp: (Julian day, nanoseconds of the day)."""
    return (int.from_bytes(raw[8:12], "little", signed=True),
            int.from_bytes(raw[0:8], "little", signed=True))


def _int96_bounds(m: np.ndarray) -> tuple[bytes, bytes]:
    m = np.ascontiguousarray(m, dtype=np.uint8).reshape(-1, 12)
    days = m[:, 8:12].copy().view("<i4").ravel()
    nanos = m[:, 0:8].copy().view("<i8").ravel()
    order = np.lexsort((nanos, days))
    return m[order[0]].tobytes(), m[order[-1]].tobytes()


def count_nans(values: Any, desc: ColumnDescriptor) -> int | None:
    """NaN values among non-null physical *values*; None for non-floating columns."""
    if desc.physical_type in (PhysicalType.FLOAT, PhysicalType.DOUBLE):
        return int(np.count_nonzero(np.isnan(np.asarray(values))))
    if desc.data_type.id is TypeId.FLOAT16:
        half = np.ascontiguousarray(_fixed_matrix(values, desc)).view("<f2")
        return int(np.count_nonzero(np.isnan(half)))
    return None


def _fixed_matrix(values: Any, desc: ColumnDescriptor) -> np.ndarray:
    m = np.asarray(values, dtype=np.uint8)
    if m.ndim != 2 or m.shape[1] != desc.type_length:
        raise ValueError(f"column {desc.dotted_path}: FIXED_LEN_BYTE_ARRAY values must be an "
                         f"(n, {desc.type_length}) uint8 array, got shape {m.shape}")
    return m


def _binary_bounds(values: Any, desc: ColumnDescriptor, kind: str) -> Bounds:
    if kind in ("bytes", "signed_bytes"):
        if not isinstance(values, ByteArrays):
            raise TypeError(f"column {desc.dotted_path}: BYTE_ARRAY values must be ByteArrays, "
                            f"got {type(values).__name__}")
        i, j = (byte_array_extremes(values) if kind == "bytes"
                else signed_byte_array_extremes(values))
        o, d = values.offsets, values.data
        return d[o[i]:o[i + 1]].tobytes(), d[o[j]:o[j + 1]].tobytes()
    m = _fixed_matrix(values, desc)
    i, j = fixed_extremes(m, signed=kind == "signed_fixed")
    return m[i].tobytes(), m[j].tobytes()


def compute_bounds(values: Any, desc: ColumnDescriptor, column_order: str = TYPE_ORDER) -> Bounds | None:
    """Return ``(min, max)`` of non-null physical values under the column's order.

    Parameters
    ----------
    values:
        The non-null values of one page or chunk, in their physical
        representation: a numpy array (BOOLEAN, INT32, INT64, FLOAT,
        DOUBLE), :class:`ByteArrays` (BYTE_ARRAY) or an ``(n, width)`` uint8
        array (FIXED_LEN_BYTE_ARRAY, INT96).
    desc:
        The leaf the values belong to.

    Returns
    -------
    tuple or None
        The bounds (see the module docstring for their Python types), or
        ``None`` when there are no values, only NaNs, or the column's order
        is undefined.
    """
    return _bounds_of_kind(values, desc, _kind(desc, column_order))


def _bounds_of_kind(values: Any, desc: ColumnDescriptor, kind: str | None) -> Bounds | None:
    """:func:`compute_bounds` with the leaf's kind already known (a builder classifies its
    leaf once, not once per page)."""
    if kind is None or len(values) == 0:
        return None
    if kind == "float_total":
        ftype = np.float32 if desc.physical_type == PhysicalType.FLOAT else np.float64
        return _total_bounds(np.asarray(values).astype(ftype, copy=False))
    if kind == "float16_total":
        return _total_bounds(np.ascontiguousarray(_fixed_matrix(values, desc)).view("<f2").ravel())
    if kind == "int96":
        return _int96_bounds(values)
    if kind == "bool":
        v = np.asarray(values, dtype=np.bool_)
        return bool(v.all()), bool(v.any())
    if kind in ("int", "uint"):
        width = np.int32 if desc.physical_type == PhysicalType.INT32 else np.int64
        v = np.asarray(values).astype(width, copy=False)
        if kind == "uint":
            v = v.view(np.uint32 if width is np.int32 else np.uint64)
        return int(v.min()), int(v.max())
    if kind == "float":
        ftype = np.float32 if desc.physical_type == PhysicalType.FLOAT else np.float64
        return _float_bounds(np.asarray(values).astype(ftype, copy=False))
    if kind == "float16":
        half = np.ascontiguousarray(_fixed_matrix(values, desc)).view("<f2").ravel()
        return _float_bounds(half)
    return _binary_bounds(values, desc, kind)


def encode_bound(value: Any, desc: ColumnDescriptor) -> bytes:
    """Return the PLAIN encoding of one bound (byte arrays without length prefix).

    Parameters
    ----------
    value:
        A bound as :func:`compute_bounds` returns it; integers may be given
        signed or unsigned, FLOAT16 as a float or as its two bytes.
    desc:
        The leaf the bound belongs to.
    """
    ptype = desc.physical_type
    if ptype == PhysicalType.BOOLEAN:
        return b"\x01" if value else b"\x00"
    if ptype in _INT_RANGE:
        lo, hi = _INT_RANGE[ptype]
        v = int(value)
        if not lo <= v < hi:
            raise ValueError(f"column {desc.dotted_path}: bound {v} does not fit {PhysicalType(ptype).name}")
        return struct.pack("<I", v & 0xFFFFFFFF) if ptype == PhysicalType.INT32 else \
            struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)
    if isinstance(value, (bytes, bytearray)) and ptype in (PhysicalType.FLOAT, PhysicalType.DOUBLE):
        if len(value) != (4 if ptype == PhysicalType.FLOAT else 8):
            raise ValueError(f"column {desc.dotted_path}: bound has {len(value)} bytes")
        return bytes(value)      # total-order bounds keep their exact bits (NaN payloads)
    if ptype == PhysicalType.FLOAT:
        return struct.pack("<f", float(value))
    if ptype == PhysicalType.DOUBLE:
        return struct.pack("<d", float(value))
    if isinstance(value, (float, np.floating)) and desc.data_type.id is TypeId.FLOAT16:
        return np.array([value], dtype="<f2").tobytes()
    raw = value.tobytes() if isinstance(value, np.ndarray) else bytes(value)
    want = 12 if ptype == PhysicalType.INT96 else (
        desc.type_length if ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY else None)
    if want is not None and len(raw) != want:
        raise ValueError(f"column {desc.dotted_path}: bound has {len(raw)} bytes, expected {want}")
    return raw


def encode_bounds(bounds: Bounds, desc: ColumnDescriptor,
                  truncate_length: int | None) -> tuple[bytes, bytes, bool, bool]:
    """Encode ``(min, max)`` and truncate them when the column allows it.

    Returns
    -------
    tuple of (bytes, bytes, bool, bool)
        ``min_value``, ``max_value``, ``is_min_value_exact``, ``is_max_value_exact``.
    """
    lo, hi = encode_bound(bounds[0], desc), encode_bound(bounds[1], desc)
    if (truncate_length is None or desc.physical_type != PhysicalType.BYTE_ARRAY
            or _kind(desc) != "bytes"):
        return lo, hi, True, True
    text = desc.data_type.is_text
    lo_t, lo_exact = truncate_min(lo, truncate_length, text=text)
    hi_t, hi_exact = truncate_max(hi, truncate_length, text=text)
    if hi_t is None:  # no shorter upper bound exists: keep the real maximum
        hi_t, hi_exact = hi, True
    return lo_t, hi_t, lo_exact, hi_exact


_KEY_STRUCTS: dict[tuple[str, int], struct.Struct] = {("int", PhysicalType.INT32): struct.Struct("<i"), ("int", PhysicalType.INT64): struct.Struct("<q"),
                ("uint", PhysicalType.INT32): struct.Struct("<I"), ("uint", PhysicalType.INT64): struct.Struct("<Q"),
                ("float", PhysicalType.FLOAT): struct.Struct("<f"),
                ("float", PhysicalType.DOUBLE): struct.Struct("<d")}


def bound_sort_key(raw: bytes, desc: ColumnDescriptor, column_order: str = TYPE_ORDER) -> Any:
    """Return a Python value that compares like the PLAIN-encoded bound *raw* in the column's order.

    Useful to compare encoded bounds (e.g. a page index's boundary order):
    integers (unsigned ones unsigned), floats, ``bool``, ``bytes`` for
    unsigned binary, ``int`` for DECIMAL binary.

    Raises
    ------
    ValueError
        The column has no defined order (INT96, INTERVAL, GEOMETRY, ...).
    """
    return bound_sort_key_function(desc, column_order)(raw)


def bound_sort_key_function(desc: ColumnDescriptor, column_order: str = TYPE_ORDER) -> Callable[[bytes], Any]:
    """:func:`bound_sort_key` for the leaf *desc*, as a function of the bound alone (the
    leaf's order is classified once, not once per bound: a page index keys two bounds a page).

    Raises
    ------
    ValueError
        The column has no defined sort order.
    """
    kind = _kind(desc, column_order)
    if kind is None:
        raise ValueError(f"column {desc.dotted_path} has no defined sort order")
    if kind in ("float_total", "float16_total"):
        return lambda raw: total_order_key(bytes(raw))
    if kind == "int96":
        return lambda raw: int96_order_key(bytes(raw))
    fmt = _KEY_STRUCTS.get((kind, desc.physical_type))
    if fmt is not None:
        unpack = fmt.unpack
        return lambda raw: unpack(raw)[0]
    if kind == "bool":
        return lambda raw: raw[:1] != b"\x00"
    if kind == "float16":
        return lambda raw: float(np.frombuffer(raw, "<f2")[0])
    key = _order_key(kind)
    return lambda raw: key(bytes(raw))


def _order_key(kind: str | None) -> Any:
    if kind in ("float_total", "float16_total"):
        return total_order_key
    if kind == "int96":
        return int96_order_key
    if kind in ("signed_bytes", "signed_fixed"):
        return lambda b: int.from_bytes(b, "big", signed=True)
    return lambda v: v


#: :meth:`StatisticsBuilder._update_numeric`'s leaves, by (kind, physical type): the values'
#: dtype, the unsigned view of an unsigned order, the PLAIN packer of a bound, and the mask
#: that makes a signed or unsigned int the packer's unsigned word (None: floats)
_NUMERIC_BOUNDS: dict[tuple[str | None, int], tuple[Any, Any, Callable[[Any], bytes], int | None]] = {
    ("int", PhysicalType.INT32): (np.int32, None, struct.Struct("<I").pack, 0xFFFFFFFF),
    ("uint", PhysicalType.INT32): (np.int32, np.uint32, struct.Struct("<I").pack, 0xFFFFFFFF),
    ("int", PhysicalType.INT64): (np.int64, None, struct.Struct("<Q").pack, 0xFFFFFFFFFFFFFFFF),
    ("uint", PhysicalType.INT64): (np.int64, np.uint64, struct.Struct("<Q").pack, 0xFFFFFFFFFFFFFFFF),
    ("float", PhysicalType.FLOAT): (np.float32, None, struct.Struct("<f").pack, None),
    ("float", PhysicalType.DOUBLE): (np.float64, None, struct.Struct("<d").pack, None),
}


def _check_truncate_length(value: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"truncate_length must be a positive int or None, got {value!r}")
    return value


class StatisticsBuilder:
    """Accumulate page statistics of one column chunk and merge them into chunk statistics.

    Parameters
    ----------
    desc:
        The leaf being written.
    truncate_length:
        Longest BYTE_ARRAY bound to write (unsigned orders only); ``None``
        writes bounds whole.
    write_min_max:
        ``False`` writes only ``null_count`` (and ``nan_count``).
    column_order:
        The ``ColumnOrder`` the bounds follow (the footer must state it).
    """

    def __init__(self, desc: ColumnDescriptor, *, truncate_length: int | None = 64,
                 write_min_max: bool = True, column_order: str = TYPE_ORDER) -> None:
        self.descriptor = desc
        self.truncate_length = _check_truncate_length(truncate_length)
        self.write_min_max = bool(write_min_max)
        self.column_order = column_order
        self._kind = _kind(desc, column_order) if self.write_min_max else None
        # the deprecated min/max only where their old (signed, numeric) meaning holds
        self._signed = sort_order(desc) == SortOrder.SIGNED and column_order == TYPE_ORDER
        self._key = _order_key(self._kind)
        self._floating = desc.physical_type in (PhysicalType.FLOAT, PhysicalType.DOUBLE) \
            or desc.data_type.id is TypeId.FLOAT16
        self._page_bounds: Bounds | None = None
        self._page_encoded: tuple[bytes, bytes] | None = None
        self._page_nulls = 0
        self._page_nans = 0
        self._chunk_bounds: Bounds | None = None
        self._chunk_nulls = 0
        self._chunk_nans = 0
        self.num_pages = 0
        #: (dtype, unsigned view or None, bound packer, int mask or None) of a numeric leaf's
        #: values: its pages take :meth:`_update_numeric` (see there)
        self._numeric = _NUMERIC_BOUNDS.get((self._kind, desc.physical_type))

    def update(self, values: Any, null_count: int, all_values: Any = None) -> tuple[bytes, bytes] | None:
        """Record one page: its non-null physical values and its number of nulls.

        *values* may be the page's distinct values (bounds are the same);
        then *all_values* gives every value, for the NaN count.

        Returns
        -------
        tuple of (bytes, bytes) or None
            The page's exact bounds, PLAIN encoded and untruncated (as
            :meth:`page_bounds` returns them), or ``None`` when it has none.
        """
        null_count = int(null_count)
        if null_count < 0:
            raise ValueError(f"null_count must not be negative, got {null_count}")
        if self._numeric is not None and isinstance(values, np.ndarray) and values.ndim == 1 \
                and values.size and (all_values is None or all_values is values):
            encoded = self._update_numeric(values, null_count)
            if encoded is not None:
                return encoded
        desc = self.descriptor
        nan_free = False
        if self._kind == "float" and (all_values is None or all_values is values) and len(values):
            # the bounds over every value of the page also say whether it holds a NaN
            ftype = np.float32 if desc.physical_type == PhysicalType.FLOAT else np.float64
            bounds, nan = _float_bounds_nan(np.asarray(values).astype(ftype, copy=False))
            nan_free = not nan
        else:
            bounds = _bounds_of_kind(values, desc, self._kind) if self._kind is not None else None
        self._page_bounds, self._page_nulls = bounds, null_count
        self._chunk_nulls += null_count
        if self._floating:
            if nan_free:
                self._page_nans = 0
            else:
                self._page_nans = count_nans(values if all_values is None else all_values,
                                             self.descriptor) or 0
            self._chunk_nans += self._page_nans
        self.num_pages += 1
        if bounds is not None:
            self._chunk_bounds = bounds if self._chunk_bounds is None else self._merge(self._chunk_bounds, bounds)
        # encoded once per page: the page builder asks for them again (page index)
        self._page_encoded = self._encoded(bounds)
        return self._page_encoded

    def entry_order(self, entries: Any) -> npt.NDArray[np.intp] | None:
        """The positions of distinct *entries* (a dictionary) sorted by the bounds' order, or
        None where that is not simple: bounds off, an order other than numbers' own or
        unsigned bytes, or a NaN among floats (a page's extreme entries are then its bounds,
        NaN-free).  Entries that compare equal (``0.0`` and ``-0.0``) have the same bounds."""
        if self._numeric is not None and isinstance(entries, np.ndarray) and entries.ndim == 1:
            dtype, unsigned, _, mask = self._numeric
            key = entries.astype(dtype, copy=False)
            if mask is None and bool(np.isnan(key).any()):
                return None
            if unsigned is not None:
                key = key.view(unsigned)
            return np.argsort(key, kind="stable")
        if self._kind == "bytes" and isinstance(entries, ByteArrays):
            items = entries.to_pylist()
            return np.array(sorted(range(len(items)), key=items.__getitem__), dtype=np.intp)
        return None

    def _update_numeric(self, values: np.ndarray, null_count: int) -> tuple[bytes, bytes] | None:
        """:meth:`update` of a page of INT32/INT64/FLOAT/DOUBLE values in the type's own order
        (every value given), or None (nothing recorded) for a page holding a NaN.

        The same bounds, merge and PLAIN bytes as the general path, without its per-page
        dispatch on the leaf's kind: an int's bounds come from an array of its physical
        type, so they always fit it (the general encoder's range check cannot fail).
        """
        numeric = self._numeric
        assert numeric is not None
        dtype, unsigned, pack, mask = numeric
        v = values.astype(dtype, copy=False)
        if unsigned is not None:
            v = v.view(unsigned)
        if mask is None:
            lo_f, hi_f = float(v.min()), float(v.max())
            if lo_f != lo_f or hi_f != hi_f:
                return None             # a NaN: the general path drops NaNs and counts them
            # spec: a zero minimum is written -0.0, a zero maximum +0.0
            bounds: Bounds = ((-0.0 if lo_f == 0.0 else lo_f), (0.0 if hi_f == 0.0 else hi_f))
            self._page_nans = 0
            encoded = pack(bounds[0]), pack(bounds[1])
        else:
            lo, hi = int(v.min()), int(v.max())
            bounds = (lo, hi)
            encoded = pack(lo & mask), pack(hi & mask)
        self._page_bounds, self._page_nulls = bounds, null_count
        self._chunk_nulls += null_count
        self.num_pages += 1
        self._chunk_bounds = bounds if self._chunk_bounds is None else self._merge(self._chunk_bounds, bounds)
        self._page_encoded = encoded
        return encoded

    def _merge(self, old: Bounds, bounds: Bounds) -> Bounds:
        lo, hi = old
        key = self._key
        if self._kind in ("float_total", "float16_total"):
            # NaN bounds stand only for pages of NaN: any number bound replaces them
            old_nan, new_nan = _is_nan_raw(lo), _is_nan_raw(bounds[0])
            if old_nan != new_nan:
                return (lo, hi) if new_nan else bounds
        if key(bounds[0]) < key(lo):
            lo = bounds[0]
        if key(bounds[1]) > key(hi):
            hi = bounds[1]
        if self._kind in ("float", "float16"):   # TYPE_ORDER only: totalOrder keeps zero signs
            lo = -0.0 if lo == 0.0 else lo
            hi = 0.0 if hi == 0.0 else hi
        return lo, hi

    def _encoded(self, bounds: Bounds | None) -> tuple[bytes, bytes] | None:
        if bounds is None:
            return None
        return encode_bound(bounds[0], self.descriptor), encode_bound(bounds[1], self.descriptor)

    @property
    def floating(self) -> bool:
        """Whether pages count NaNs (then :meth:`update` wants every value, not only distinct ones)."""
        return self._floating

    def page_bounds(self) -> tuple[bytes, bytes] | None:
        """Return the last page's exact bounds, PLAIN encoded and untruncated (or ``None``)."""
        return self._page_encoded

    def chunk_bounds(self) -> tuple[bytes, bytes] | None:
        """Return the exact bounds over all pages so far, PLAIN encoded and untruncated."""
        return self._encoded(self._chunk_bounds)

    @property
    def null_count(self) -> int:
        """Nulls over all pages so far."""
        return self._chunk_nulls

    @property
    def page_nan_count(self) -> int | None:
        """NaNs in the last page (None for columns that cannot hold NaN)."""
        return self._page_nans if self._floating else None

    def page_statistics(self) -> Any:
        """Return ``pt.Statistics`` of the last page given to :meth:`update`."""
        if self.num_pages == 0:
            raise ValueError("page_statistics() called before any update()")
        return self._statistics(self._page_bounds, self._page_nulls, self._page_nans, self._page_encoded)

    def chunk_statistics(self) -> Any:
        """Return ``pt.Statistics`` of every page so far (the column chunk)."""
        return self._statistics(self._chunk_bounds, self._chunk_nulls, self._chunk_nans)

    def _statistics(self, bounds: Bounds | None, nulls: int, nans: int = 0,
                    encoded: tuple[bytes, bytes] | None = None) -> Any:
        st = pt.Statistics(null_count=nulls)
        if self._floating:
            st.nan_count = nans     # required for floats under both orders, zero included
        if bounds is None:
            return st
        if encoded is not None and self.descriptor.physical_type != PhysicalType.BYTE_ARRAY:
            # *bounds* already encoded (the page's): only byte arrays are ever truncated
            lo, hi = encoded
            lo_exact = hi_exact = True
        else:
            lo, hi, lo_exact, hi_exact = encode_bounds(bounds, self.descriptor, self.truncate_length)
        st.min_value, st.max_value = lo, hi
        st.is_min_value_exact, st.is_max_value_exact = lo_exact, hi_exact
        if self._signed:
            st.min, st.max = lo, hi  # the deprecated fields mean the same for signed orders
        return st


def level_histogram(levels: Any, max_level: int) -> list[int] | None:
    """Return how often each level ``0..max_level`` occurs; ``None`` when ``max_level`` is 0.

    Raises
    ------
    ValueError
        *levels* is missing while ``max_level > 0``, or holds a level outside
        ``0..max_level``.
    """
    if max_level == 0:
        return None
    if levels is None:
        raise ValueError(f"levels are required when the max level is {max_level}")
    lv = np.asarray(levels).ravel()
    if max_level <= _COUNTED_LEVELS and lv.dtype.kind in "iu" and lv.size:
        # a few levels: one count per level beats bincount's copy of the levels into intp
        if int(lv.max()) > max_level or (lv.dtype.kind == "i" and int(lv.min()) < 0):
            raise ValueError(f"a level is outside 0..{max_level}")
        above = [int(np.count_nonzero(lv == level)) for level in range(1, max_level + 1)]
        return [lv.size - sum(above), *above]
    counts = np.bincount(lv, minlength=max_level + 1)
    if counts.size > max_level + 1:
        raise ValueError(f"a level exceeds the max level {max_level}")
    return [int(c) for c in counts]


#: Up to this maximum level :func:`level_histogram` counts each level in turn.
_COUNTED_LEVELS = 4


def size_statistics(desc: ColumnDescriptor, *, values: Any = None, def_levels: Any = None,
                    rep_levels: Any = None) -> Any:
    """Return ``pt.SizeStatistics`` of one page (or of a whole chunk at once).

    Parameters
    ----------
    desc:
        The leaf.
    values:
        The non-null physical values (only read for BYTE_ARRAY, whose
        ``unencoded_byte_array_data_bytes`` is the sum of their lengths).
    def_levels, rep_levels:
        The level streams; required when the matching max level is above 0.
    """
    unencoded = None
    if desc.physical_type == PhysicalType.BYTE_ARRAY:
        if values is None:
            unencoded = 0
        elif isinstance(values, ByteArrays):
            unencoded = int(values.offsets[-1] - values.offsets[0])
        else:
            raise TypeError(f"column {desc.dotted_path}: BYTE_ARRAY values must be ByteArrays")
    return pt.SizeStatistics(
        unencoded_byte_array_data_bytes=unencoded,
        repetition_level_histogram=level_histogram(rep_levels, desc.max_repetition_level),
        definition_level_histogram=level_histogram(def_levels, desc.max_definition_level))


def _sum_lists(lists: list[Any]) -> list[int] | None:
    if not lists or any(h is None for h in lists):
        return None
    if len({len(h) for h in lists}) != 1:
        raise ValueError("cannot merge level histograms of different lengths")
    return [int(c) for c in np.sum(np.asarray(lists, dtype=np.int64), axis=0)]


def merge_size_statistics(parts: Iterable[Any]) -> Any:
    """Merge page-level ``pt.SizeStatistics`` into chunk-level ones.

    A field is kept only when every part has it (otherwise the total is unknown).
    """
    parts = list(parts)
    byte_counts = [p.unencoded_byte_array_data_bytes for p in parts]
    unencoded = None if not parts or any(b is None for b in byte_counts) else int(sum(byte_counts))
    return pt.SizeStatistics(
        unencoded_byte_array_data_bytes=unencoded,
        repetition_level_histogram=_sum_lists([p.repetition_level_histogram for p in parts]),
        definition_level_histogram=_sum_lists([p.definition_level_histogram for p in parts]))
