"""Shredded Variant columns: rebuild values on read, split them on write (VariantShredding.md).

Both directions work on the rows of the variant group as Python dicts, the
form :meth:`StructArray.to_pylist` gives for the raw layout
(:mod:`parquet_core.schema.variant_layout`)::

    {"metadata": b"...", "value": b"..." | None, "typed_value": <typed> | None}

where an object's ``typed_value`` is ``{field: {"value": ..., "typed_value": ...}}``
and an array's is a list of such ``{"value", "typed_value"}`` elements.

Reading (:func:`unshred_rows`) follows the spec's table:

=========  ============  ====================================================
value      typed_value   meaning
=========  ============  ====================================================
null       null          missing: the field is absent (a Variant null where a
                         value is required: top level, array element)
non-null   null          the value, any type
null       non-null      the shredded value
non-null   non-null      a partially shredded object: ``value`` must be an
                         object whose keys are disjoint from the shredded ones
=========  ============  ====================================================

A partially shredded object whose ``value`` also holds a field that
``typed_value`` shreds breaks the spec ("the value column of a partially
shredded object must never contain fields represented by the Parquet columns
in typed_value"); the spec lets readers that read it anyway use the
``typed_value`` column, so the read keeps the shredded field (present or
missing) and drops the copy in ``value``, as Iceberg and parquet-java do.
:func:`shredding_conflicts` lists such rows for ``pqc check``, where they
are an error.  Any other combination (``value`` set beside a shredded
primitive or array, a non-object ``value`` beside a shredded object) has no
reading the spec allows and raises :class:`ParquetFormatError` naming the
column and the row.

Writing (:func:`shred_row`) splits one Python value by a layout's
``typed_value``: what matches the typed column goes there, the rest is
encoded into ``value`` with the row's metadata, whose dictionary holds every
key of the value, shredded or not (the spec requires that).

Both walk one Python value at a time: each row of a Variant column may have
its own shape, so this is inherently per value.
"""

from __future__ import annotations

import datetime as _dt
import uuid as _uuid
from decimal import Decimal
from typing import Any, Callable, Sequence

import numpy as np

from parquet_core.errors import ParquetFormatError
from parquet_core.schema.types import DataType, TypeId
from parquet_core.schema.variant_layout import METADATA, TYPED_VALUE, VALUE
from parquet_core.variant.encoding import (
    NULL,
    collect_keys,
    decode_metadata,
    decode_value,
    encode_metadata,
    encode_value,
)

__all__ = ["unshred_rows", "shred_row", "shredding_conflicts", "MISSING"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


#: A shredded slot where both ``value`` and ``typed_value`` are null.
MISSING = _Missing()


class _Conflict(Exception):
    """An invalid value/typed_value combination (restated with column and row)."""


def _members(dt: DataType) -> dict[str, DataType]:
    return {f.name: f.type for f in dt.fields}


class _Reader:
    __slots__ = ("keys", "null", "overlaps")

    def __init__(self, keys: Sequence[str], null: Any, overlaps: list[str] | None = None) -> None:
        self.keys, self.null = keys, null
        #: where a shredded field was also found in ``value`` (collected for the checker)
        self.overlaps = overlaps

    def slot(self, value: bytes | None, typed: Any, layout: DataType | None, where: str) -> Any:
        """Rebuild one value from its ``value`` bytes and ``typed_value`` (MISSING if both null)."""
        if typed is None or layout is None:
            return MISSING if value is None else decode_value(self.keys, value, null=self.null)
        if layout.id is _STRUCT:
            fields = {}
            shredded = _members(layout)
            for name, sub in shredded.items():
                got = typed.get(name) or {}
                v = self.slot(got.get(VALUE), got.get(TYPED_VALUE),
                              _members(sub).get(TYPED_VALUE), f"{where}.{name}")
                if v is not MISSING:
                    fields[name] = v
            if value is None:
                return dict(sorted(fields.items()))
            rest = decode_value(self.keys, value, null=self.null)
            if not isinstance(rest, dict):
                raise _Conflict(f"{where}: typed_value is a shredded object but value is "
                                f"not an object ({type(rest).__name__})")
            both = rest.keys() & shredded.keys()
            if both:
                # the spec's reading of a file that breaks the rule: typed_value wins
                if self.overlaps is not None:
                    self.overlaps.append(f"{where}: field {sorted(both)[0]!r} is shredded in typed_value "
                                         "and also present in value")
                for name in both:
                    del rest[name]
            rest.update(fields)
            return dict(sorted(rest.items()))
        if value is not None:
            kind = "array" if layout.id is _LIST else "primitive"
            raise _Conflict(f"{where}: value and typed_value are both set for a shredded {kind}")
        if layout.id is _LIST:
            elem = _members(layout.fields[0].type).get(TYPED_VALUE)
            out = []
            for i, e in enumerate(typed):
                v = self.slot(e.get(VALUE), e.get(TYPED_VALUE), elem, f"{where}[{i}]")
                out.append(self.null if v is MISSING else v)
            return out
        return _primitive(typed, layout)


def _primitive(v: Any, layout: DataType) -> Any:
    """A typed column's Python value as the Variant decoder would give it."""
    if layout.id is _FLOAT32:
        return float(np.float32(v))
    return v


def unshred_rows(rows: Sequence[Any], layout: DataType, column: str, *, null: Any = NULL) -> list[Any]:
    """Python values of a variant column from its raw group rows (``None`` rows stay ``None``).

    Raises
    ------
    ParquetFormatError
        Malformed bytes or an invalid value/typed_value combination, naming
        *column* and the row.
    """
    typed_layout = _members(layout).get(TYPED_VALUE)
    cache: dict[bytes, tuple[str, ...]] = {}
    out: list[Any] = []
    for i, row in enumerate(rows):
        if row is None:
            out.append(None)
            continue
        try:
            meta = row[METADATA]
            keys = cache.get(meta)
            if keys is None:
                keys = cache[meta] = decode_metadata(meta)
            v = _Reader(keys, null).slot(row.get(VALUE), row.get(TYPED_VALUE), typed_layout, "")
        except _Conflict as exc:
            raise ParquetFormatError(f"variant column {column!r}, row {i}: invalid shredding at "
                                     f"{_where(str(exc))}") from None
        except ParquetFormatError as exc:
            raise ParquetFormatError(f"variant column {column!r}, row {i}: {exc}") from exc
        out.append(null if v is MISSING else v)
    return out


def shredding_conflicts(rows: Sequence[Any], layout: DataType, *,
                        limit: int = 20) -> tuple[list[tuple[bool, str]], int]:
    """Rows of a variant column that break the shredding rules (for the checker).

    Returns up to *limit* findings ``(readable, "row N: <where>: <what>")`` and
    the number of rows with a problem.  ``readable`` is True for a field both
    shredded and in ``value`` (which :func:`unshred_rows` reads from
    ``typed_value``) and False for the combinations it refuses.  Malformed
    Variant bytes are not this function's business and raise
    :class:`ParquetFormatError` as on read.
    """
    typed_layout = _members(layout).get(TYPED_VALUE)
    cache: dict[bytes, tuple[str, ...]] = {}
    found: list[tuple[bool, str]] = []
    bad = 0
    for i, row in enumerate(rows):
        if row is None:
            continue
        meta = row[METADATA]
        keys = cache.get(meta)
        if keys is None:
            keys = cache[meta] = decode_metadata(meta)
        overlaps: list[str] = []
        readable = True
        try:
            _Reader(keys, NULL, overlaps).slot(row.get(VALUE), row.get(TYPED_VALUE), typed_layout, "")
        except _Conflict as exc:
            overlaps.insert(0, str(exc))
            readable = False
        if overlaps:
            bad += 1
            if len(found) < limit:
                found.append((readable, f"row {i}: {_where(overlaps[0])}"))
    return found, bad


def _where(text: str) -> str:
    """``.a.b: what`` -> ``a.b: what``; ``: what`` (the top of the value) -> ``(top): what``."""
    text = text.lstrip(".")
    return "(top)" + text if text.startswith(":") else text


# ---------------------------------------------------------------------------
# writing

# The walkers below run once per value: plain module globals are cheaper to reach than
# Enum class attributes (TypeId.X costs an attribute lookup on the Enum metaclass).
_STRUCT, _LIST, _FLOAT32 = TypeId.STRUCT, TypeId.LIST, TypeId.FLOAT32
_INT_RANGE = {TypeId.INT8: 7, TypeId.INT16: 15, TypeId.INT32: 31, TypeId.INT64: 63}


def _fits_int(v: Any, dt: DataType) -> bool:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        return False
    bits = _INT_RANGE[dt.id]
    return -(1 << bits) <= int(v) < 1 << bits


def _fits_decimal(v: Any, dt: DataType) -> bool:
    if not isinstance(v, Decimal) or not v.is_finite():
        return False
    exp = v.as_tuple().exponent
    assert isinstance(exp, int)
    # only values that keep their exact scale: rescaling would change the Variant value
    return -exp == (dt.scale or 0) and len(v.as_tuple().digits) <= (dt.precision or 0)


def _fits_timestamp(v: Any, dt: DataType) -> bool:
    if not isinstance(v, _dt.datetime):
        return False
    aware = v.tzinfo is not None and v.utcoffset() is not None
    ns = bool(getattr(v, "nanosecond", 0))
    return aware == (dt.tz is not None) and (dt.unit == "ns" or not ns)


#: Whether a value is of the Variant type class of a shredded column's type, per type id
#: (a table: this runs once per value).  A type not here holds no value.
_FITS: dict[TypeId, Callable[[Any, DataType], bool]] = {
    TypeId.BOOL: lambda v, dt: isinstance(v, (bool, np.bool_)),
    **{t: _fits_int for t in _INT_RANGE},
    TypeId.FLOAT64: lambda v, dt: isinstance(v, (float, np.floating)) and not isinstance(v, np.float32),
    TypeId.FLOAT32: lambda v, dt: isinstance(v, np.float32),
    TypeId.DECIMAL: _fits_decimal,
    TypeId.STRING: lambda v, dt: isinstance(v, str),
    TypeId.BINARY: lambda v, dt: isinstance(v, (bytes, bytearray)),
    TypeId.UUID: lambda v, dt: isinstance(v, _uuid.UUID),
    TypeId.DATE: lambda v, dt: isinstance(v, _dt.date) and not isinstance(v, _dt.datetime),
    TypeId.TIME: lambda v, dt: isinstance(v, _dt.time) and not getattr(v, "nanosecond", 0),
    TypeId.TIMESTAMP: _fits_timestamp,
}


def _fits(v: Any, dt: DataType) -> bool:
    """True when *v* is a value of Variant type class *dt* (the shredded column's type)."""
    if v is None or v is NULL:
        return False
    test = _FITS.get(dt.id)
    return test is not None and test(v, dt)


class _Writer:
    __slots__ = ("ids",)

    def __init__(self, ids: dict[str, int]) -> None:
        self.ids = ids

    def encode(self, v: Any) -> bytes:
        return encode_value(v, self.ids)

    def slot(self, v: Any, layout: DataType | None) -> tuple[bytes | None, Any]:
        """``(value, typed_value)`` for *v* (``MISSING`` gives two nulls)."""
        if v is MISSING:
            return None, None
        if layout is None:
            return self.encode(v), None
        if layout.id is _STRUCT:
            if not isinstance(v, dict):
                return self.encode(v), None
            typed = {}
            for name, sub in _members(layout).items():
                val, tv = self.slot(v.get(name, MISSING), _members(sub).get(TYPED_VALUE))
                typed[name] = {VALUE: val, TYPED_VALUE: tv}
            rest = {k: x for k, x in v.items() if k not in typed}
            return (self.encode(rest) if rest else None), typed
        if layout.id is _LIST:
            if not isinstance(v, (list, tuple)):
                return self.encode(v), None
            elem = _members(layout.fields[0].type).get(TYPED_VALUE)
            out = []
            for x in v:
                val, tv = self.slot(NULL if x is None else x, elem)
                out.append({VALUE: val, TYPED_VALUE: tv})
            return None, out
        if _fits(v, layout):
            return None, v
        return self.encode(v), None


def shred_row(v: Any, layout: DataType) -> dict[str, Any] | None:
    """The raw group row of Python value *v* for variant *layout* (``None``: SQL NULL).

    Raises
    ------
    TypeError, ValueError
        For a value Variant cannot hold (see :func:`encode_value`).
    """
    if v is None:
        return None
    keys = sorted(collect_keys(v, set()))
    meta = encode_metadata(keys)
    writer = _Writer({k: i for i, k in enumerate(keys)})
    members = _members(layout)
    value, typed = writer.slot(v, members.get(TYPED_VALUE))
    row = {METADATA: meta, VALUE: value}
    if TYPED_VALUE in members:
        row[TYPED_VALUE] = typed
    elif value is None:  # pragma: no cover - unshredded layouts always take the value
        row[VALUE] = encode_value(NULL, {})
    return row
