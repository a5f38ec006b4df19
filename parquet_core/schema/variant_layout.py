"""The Parquet layout of a VARIANT column, as a :class:`DataType` (VariantShredding.md).

A variant column's ``DataType("variant", fields=...)`` lists the group's
members as they are stored, so the reader, the writer and ``to_arrow`` all
see the same physical struct::

    unshredded   metadata: binary not null, value: binary not null
    shredded     metadata: binary not null, value: binary, typed_value: T

where ``T``, the *typed_value* of a shredding schema ``S``, is

===========================  ==============================================
``S``                        ``T``
===========================  ==============================================
a primitive type             that type (the spec's table of shredded types)
``struct`` / ``{name: S'}``  ``struct`` of one *required* member per name,
                             each ``struct<value: binary, typed_value: T'>``
``list`` / ``[S']``          ``list`` of *required* elements
                             ``struct<value: binary, typed_value: T'>``
===========================  ==============================================

:func:`variant_type` builds the layout from a shredding schema,
:func:`shredded_type` gives the schema back, :func:`check_layout` checks a
layout read from a file or built by hand.
"""

from __future__ import annotations

from typing import Any, Mapping

from parquet_core.schema.types import DataType, Field, TypeId

__all__ = ["variant_type", "shredded_type", "check_layout", "is_shreddable_primitive",
           "VALUE", "TYPED_VALUE", "METADATA"]

METADATA, VALUE, TYPED_VALUE = "metadata", "value", "typed_value"
_BINARY = DataType("binary")
#: Primitive types the spec allows as a ``typed_value`` whatever their parameters.
_PLAIN_SHREDDABLE = frozenset([TypeId.BOOL, TypeId.INT8, TypeId.INT16, TypeId.INT32, TypeId.INT64,
                               TypeId.FLOAT32, TypeId.FLOAT64, TypeId.DATE, TypeId.BINARY,
                               TypeId.STRING, TypeId.UUID])


def is_shreddable_primitive(dt: DataType) -> bool:
    """True for the primitive types the spec allows as a ``typed_value``."""
    tid = dt.id
    if tid in _PLAIN_SHREDDABLE:
        return True
    if tid is TypeId.DECIMAL:
        return dt.precision is not None and dt.precision <= 38
    if tid is TypeId.TIME:
        return dt.unit == "us" and dt.tz is None
    if tid is TypeId.TIMESTAMP:
        return dt.unit in ("us", "ns")
    return False


def _slot(typed: DataType | None) -> DataType:
    """The ``struct<value, typed_value>`` group of an object field or array element."""
    fields = [Field(VALUE, _BINARY, True)]
    if typed is not None:
        fields.append(Field(TYPED_VALUE, typed, True))
    return DataType("struct", fields=tuple(fields))


def _typed(spec: Any, where: str) -> DataType:
    """The ``typed_value`` type for shredding schema *spec*."""
    if isinstance(spec, Mapping):
        spec = DataType("struct", fields=tuple(Field(k, v, True) for k, v in spec.items()))
    elif isinstance(spec, list):
        if len(spec) != 1:
            raise ValueError(f"{where}: a list shredding schema holds exactly one element type")
        spec = DataType("list", fields=(Field("element", spec[0], True),))
    if not isinstance(spec, DataType):
        raise TypeError(f"{where}: a shredding schema is a DataType, a dict or a one-item list, "
                        f"got {type(spec).__name__}")
    if spec.id is TypeId.STRUCT:
        if not spec.fields:
            raise ValueError(f"{where}: an object shredding schema needs at least one field")
        names = [f.name for f in spec.fields]
        if len(set(names)) != len(names) or not all(isinstance(n, str) and n for n in names):
            raise ValueError(f"{where}: object field names must be unique non-empty str: {names}")
        return DataType("struct", fields=tuple(
            Field(f.name, _slot(_typed(f.type, f"{where}.{f.name}")), False) for f in spec.fields))
    if spec.id is TypeId.LIST:
        return DataType("list", fields=(
            Field("element", _slot(_typed(spec.fields[0].type, f"{where}[]")), False),))
    if not is_shreddable_primitive(spec):
        raise ValueError(f"{where}: {spec} cannot be a shredded Variant type (VariantShredding.md)")
    return spec


def variant_type(shredding: Any = None) -> DataType:
    """The type of a VARIANT column, unshredded or shredded by *shredding*.

    Parameters
    ----------
    shredding:
        ``None`` (unshredded), or the schema of the values to store typed:
        a primitive type (``pc.int64()``...), a struct / ``dict`` of field
        name to schema (an object's fields), or a list type / one-item
        ``list`` (an array's elements).  Values that do not match go to the
        ``value`` binaries, as the spec describes.

    Raises
    ------
    ValueError, TypeError
        For a type the spec does not allow in ``typed_value``.
    """
    if shredding is None:
        return DataType("variant", fields=(Field(METADATA, _BINARY, False), Field(VALUE, _BINARY, False)))
    typed = _typed(shredding, "shredding")
    return DataType("variant", fields=(Field(METADATA, _BINARY, False), Field(VALUE, _BINARY, True),
                                       Field(TYPED_VALUE, typed, True)))


def _members(dt: DataType) -> dict[str, Field]:
    return {f.name: f for f in dt.fields}


def _spec_of(typed: DataType) -> DataType:
    if typed.id is TypeId.STRUCT:
        return DataType("struct", fields=tuple(
            Field(f.name, _slot_spec(f.type), True) for f in typed.fields))
    if typed.id is TypeId.LIST:
        return DataType("list", fields=(Field("element", _slot_spec(typed.fields[0].type), True),))
    return typed


def _slot_spec(slot: DataType) -> DataType:
    tv = _members(slot).get(TYPED_VALUE)
    return DataType("binary") if tv is None else _spec_of(tv.type)


def shredded_type(dt: DataType) -> DataType | None:
    """The shredding schema of variant layout *dt* (``None`` when unshredded).

    A field or element stored only as ``value`` shows as ``binary``.
    """
    tv = _members(dt).get(TYPED_VALUE)
    return None if tv is None else _spec_of(tv.type)


def _check_slot(slot: DataType, where: str) -> None:
    if slot.id is not TypeId.STRUCT:
        raise ValueError(f"{where}: a shredded field or element must be a group, got {slot}")
    m = _members(slot)
    if set(m) - {VALUE, TYPED_VALUE} or not m:
        raise ValueError(f"{where}: holds {sorted(m)}; expected value and/or typed_value")
    if VALUE in m and m[VALUE].type.id is not TypeId.BINARY:
        raise ValueError(f"{where}.value must be binary, got {m[VALUE].type}")
    if TYPED_VALUE in m:
        _check_typed(m[TYPED_VALUE].type, f"{where}.typed_value")


def _check_typed(typed: DataType, where: str) -> None:
    if typed.id is TypeId.STRUCT:
        for f in typed.fields:
            _check_slot(f.type, f"{where}.{f.name}")
    elif typed.id is TypeId.LIST:
        _check_slot(typed.fields[0].type, f"{where}.element")
    elif not is_shreddable_primitive(typed):
        raise ValueError(f"{where}: {typed} cannot be a shredded Variant type")


def check_layout(dt: DataType, where: str = "variant") -> None:
    """Check that *dt* is a valid variant layout (module docstring).

    Raises
    ------
    ValueError
        Naming the member at fault.
    """
    m = _members(dt)
    extra = set(m) - {METADATA, VALUE, TYPED_VALUE}
    if extra:
        raise ValueError(f"{where}: unexpected members {sorted(extra)}")
    meta = m.get(METADATA)
    if meta is None or meta.type.id is not TypeId.BINARY:
        raise ValueError(f"{where}: needs a binary 'metadata' member")
    if VALUE not in m and TYPED_VALUE not in m:
        raise ValueError(f"{where}: needs a 'value' and/or a 'typed_value' member")
    if VALUE in m and m[VALUE].type.id is not TypeId.BINARY:
        raise ValueError(f"{where}.value must be binary, got {m[VALUE].type}")
    if TYPED_VALUE in m:
        _check_typed(m[TYPED_VALUE].type, f"{where}.typed_value")
