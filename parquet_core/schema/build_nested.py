"""Factories for the nested types: ``list_``, ``struct`` and ``map_`` (named like pyarrow's).

Every level carries its own nullability: a list's element, each struct
member and a map's value may be nullable or required; a map's key is always
required (the MAP layout of LogicalTypes.md writes it REQUIRED).  The child
names are fixed where the format fixes them: a list's single field is
``element``, a map's two are ``key`` and ``value``.

The writer stores these as the standard layouts (see
:mod:`parquet_core.schema.elements`)::

    list_(int64())                       <rep> group x (LIST) { repeated group list { optional int64 element } }
    map_(string(), int64())              <rep> group x (MAP) { repeated group key_value {
                                             required binary key (STRING); optional int64 value } }
    struct([("a", int32())])             <rep> group x { optional int32 a }
"""

from __future__ import annotations

from typing import Callable, Iterable

from parquet_core.schema.file_ref import FILE_ANNOTATION, check_file_ref
from parquet_core.schema.types import DataType, Field, TypeId

__all__ = ["list_", "struct", "map_", "check_nested", "LIST_ELEMENT", "MAP_KEY", "MAP_VALUE"]

LIST_ELEMENT = "element"
MAP_KEY = "key"
MAP_VALUE = "value"


def _child(name: str, item: DataType | Field, nullable: bool | None) -> Field:
    if isinstance(item, Field):
        keep = item.nullable if nullable is None else nullable
        return Field(name, item.type, keep, field_id=item.field_id)
    if not isinstance(item, DataType):
        raise TypeError(f"expected a DataType or a Field, got {type(item).__name__}")
    return Field(name, item, True if nullable is None else nullable)


def list_(item: DataType | Field, *, nullable_items: bool | None = None) -> DataType:
    """A list of *item* (a type, or a :class:`Field` to say whether elements may be null).

    Elements are nullable unless *item* is a non-nullable Field or
    ``nullable_items=False``.
    """
    from parquet_core.schema.build import check_type

    f = _child(LIST_ELEMENT, item, nullable_items)
    check_type(f.type)
    return DataType("list", fields=(f,))


def struct(fields: Iterable[Field | tuple[str, DataType]]) -> DataType:
    """A struct (Parquet group) of the given members, in order."""
    from parquet_core.schema.build import field as make_field

    out: list[Field] = []
    for item in fields:
        if isinstance(item, Field):
            f = make_field(item.name, item.type, item.nullable, field_id=item.field_id)
        elif isinstance(item, tuple) and len(item) in (2, 3):
            f = make_field(*item)
        else:
            raise TypeError(f"struct() takes Field objects or (name, type) pairs, got {item!r}")
        out.append(Field(f.name, f.type, f.nullable, field_id=f.field_id))
    names = [f.name for f in out]
    if len(set(names)) != len(names):
        raise ValueError(f"struct names a member twice: {names}")
    if not out:
        raise ValueError("a struct needs at least one member (Parquet groups hold columns)")
    return DataType("struct", fields=tuple(out))


def map_(key_type: DataType | Field, item_type: DataType | Field, *,
         nullable_items: bool | None = None) -> DataType:
    """A map from *key_type* (never null) to *item_type* (nullable unless said otherwise).

    A :class:`Field` given for the key or the item lends its ``field_id``.
    """
    from parquet_core.schema.build import check_type

    k = _child(MAP_KEY, key_type, False)
    v = _child(MAP_VALUE, item_type, nullable_items)
    check_type(k.type)
    check_type(v.type)
    if k.type.is_nested:
        # legal Parquet, but no engine we test against reads nested map keys
        raise ValueError(f"map keys must be a primitive type, got {k.type}")
    return DataType("map", fields=(k, v))


def check_nested(dt: DataType, check: Callable[[DataType], DataType]) -> None:
    """Check a nested type's shape and, with *check*, every child type.

    Raises
    ------
    ValueError
        For a list without exactly one field, a map without ``key``/``value``
        or with a nullable key, an empty struct, or a bad child type.
    """
    tid, fields = dt.id, dt.fields
    if not all(isinstance(f, Field) for f in fields):
        raise ValueError(f"{tid}: fields must be Field objects")
    if tid is TypeId.LIST and len(fields) != 1:
        raise ValueError(f"a list type has exactly one field, got {len(fields)}")
    if tid is TypeId.MAP:
        if len(fields) != 2:
            raise ValueError(f"a map type has a key and a value field, got {len(fields)} fields")
        if fields[0].type.is_nested:
            raise ValueError(f"map keys must be a primitive type, got {fields[0].type}")
    if tid is TypeId.STRUCT:
        if not fields:
            raise ValueError("a struct needs at least one member")
        names = [f.name for f in fields]
        if len(set(names)) != len(names):
            raise ValueError(f"struct names a member twice: {names}")
        if dt.annotation == FILE_ANNOTATION:
            check_file_ref(dt)
        elif dt.annotation is not None:
            raise ValueError(f"unknown struct annotation {dt.annotation!r}")
    for f in fields:
        if not f.name:
            raise ValueError(f"{tid}: a field has an empty name")
        if f.type.id is TypeId.NULL and not f.nullable:
            raise ValueError(f"field {f.name!r}: a null column must be nullable")
        check(f.type)
