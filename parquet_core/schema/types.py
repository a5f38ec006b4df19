"""The value types a Parquet column can hold, independent of their storage.

A :class:`DataType` is what a user sees for a column (``int8``,
``timestamp[us, UTC]``, ``decimal(10, 2)``...).  It is derived from a leaf's
physical type plus its logical type (or, for old files, its converted type)
by :mod:`parquet_core.schema.logical`.

Storage of each type inside :class:`parquet_core.table.arrays.Array`:

============================  =============================================
type name                     ``Array.values``
============================  =============================================
null                          int8 zeros (every slot is null)
bool                          numpy bool
int8 .. int64, uint8..uint64  numpy integer of that width
float16 / float32 / float64   numpy float of that width
date                          int32 days since 1970-01-01
time                          int32 (ms) or int64 (us, ns) since midnight
timestamp                     int64 in ``unit`` since the epoch
int96                         (n, 12) uint8: nanos-of-day LE int64 + Julian day LE int32
decimal                       int64 unscaled (precision <= 18, INT32/INT64 storage)
                              or the raw big-endian two's complement bytes
string, json, enum, binary,   ByteArrays
bson, geometry, geography     (WKB bytes for the last two)
fixed_size_binary, uuid,      (n, byte_width) uint8
interval, float16 raw
list, map                     offsets (n + 1 int64) into one child array
                              (:class:`parquet_core.table.nested.ListArray`)
struct                        one child array per field
                              (:class:`parquet_core.table.nested.StructArray`)
variant                       a StructArray of the stored group members
                              (metadata, value, typed_value; see
                              :mod:`parquet_core.schema.variant_layout`)
============================  =============================================

The three nested types name their children in ``fields``: a list has one
field (the element, named as in the file), a map two (``key``, ``value``),
a struct one per member.  Flat types have no fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as _dc_field
from enum import Enum
from typing import NoReturn

from parquet_core.errors import ParquetSchemaError, UnsupportedFeatureError

__all__ = ["DataType", "Field", "Schema", "TypeId", "ambiguous_name", "unhandled_type"]


class TypeId(str, Enum):
    """The identity of a :class:`DataType`: what code dispatches on.

    Each member's value is the type's name as the table above spells it, so
    ``TypeId("decimal") is TypeId.DECIMAL`` and ``TypeId.DECIMAL == "decimal"``.
    An unknown name fails here, when the type is made, not deep inside a
    reader or writer.
    """

    NULL = "null"
    BOOL = "bool"
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    UINT8 = "uint8"
    UINT16 = "uint16"
    UINT32 = "uint32"
    UINT64 = "uint64"
    FLOAT16 = "float16"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    DATE = "date"
    TIME = "time"
    TIMESTAMP = "timestamp"
    INT96 = "int96"
    DECIMAL = "decimal"
    STRING = "string"
    JSON = "json"
    ENUM = "enum"
    BINARY = "binary"
    BSON = "bson"
    GEOMETRY = "geometry"
    GEOGRAPHY = "geography"
    FIXED_SIZE_BINARY = "fixed_size_binary"
    UUID = "uuid"
    INTERVAL = "interval"
    LIST = "list"
    MAP = "map"
    STRUCT = "struct"
    VARIANT = "variant"
    #: Not a value type: the type ``ParquetFile.schema_arrow`` shows for a group
    #: column the reader cannot lay out (no valid LIST / MAP / struct shape).
    #: Reading that column raises the stored schema error; writers and every
    #: foreign type mapping refuse it; ``pqc show`` lists it as skipped.
    NESTED = "nested"

    def __str__(self) -> str:
        return self.value


def unhandled_type(dt: DataType | TypeId, where: str) -> NoReturn:
    """Raise for a type a dispatch over :class:`TypeId` has no case for.

    Every ``if``/``elif`` chain or table over type ids ends here instead of a
    silent default, so a new :class:`TypeId` member (or the ``nested``
    placeholder reaching code that needs a value type) fails loudly, naming
    the type and the place.
    """
    tid = dt if isinstance(dt, TypeId) else getattr(dt, "id", None)
    label = f"TypeId.{tid.name}" if isinstance(tid, TypeId) else repr(dt)
    raise UnsupportedFeatureError(f"{where}: no case for type {dt} ({label})")


#: The signed and unsigned integer types.
INTEGER_IDS = frozenset([TypeId.INT8, TypeId.INT16, TypeId.INT32, TypeId.INT64,
                         TypeId.UINT8, TypeId.UINT16, TypeId.UINT32, TypeId.UINT64])
#: The floating point types.
FLOAT_IDS = frozenset([TypeId.FLOAT16, TypeId.FLOAT32, TypeId.FLOAT64])
#: Types whose values are UTF-8 text.
TEXT_IDS = frozenset([TypeId.STRING, TypeId.JSON, TypeId.ENUM])
#: Types stored as a group (list, map, struct, variant).
NESTED_IDS = frozenset([TypeId.LIST, TypeId.MAP, TypeId.STRUCT, TypeId.VARIANT])
#: The geospatial types (WKB values).
GEO_IDS = frozenset([TypeId.GEOMETRY, TypeId.GEOGRAPHY])


#: name -> TypeId, for :meth:`DataType.__post_init__` (a TypeId member is a str too and finds
#: its own entry)
_TYPE_ID_OF: dict[str, TypeId] = {t.value: t for t in TypeId}


@dataclass(frozen=True, slots=True)
class DataType:
    """A column's value type.

    Parameters
    ----------
    name:
        One of the names in the module docstring (or a :class:`TypeId`).
    id:
        The :class:`TypeId` of ``name`` (set from it; dispatch on this).
    unit:
        ``"ms"``, ``"us"`` or ``"ns"`` for time and timestamp.
    tz:
        ``"UTC"`` for timestamps adjusted to UTC, else ``None``; for ``time``
        the same flag is kept here.
    precision, scale:
        For decimals.
    byte_width:
        For fixed-size binary storage.
    crs:
        For geometry and geography: the coordinate reference system string
        as the file states it (``None``: the spec's default, OGC:CRS84).
    algorithm:
        For geography: the edge interpolation algorithm, lower case
        (``"spherical"``, ``"vincenty"``, ``"thomas"``, ``"andoyer"``,
        ``"karney"``); ``None`` means the spec's default, spherical.
    fields:
        The child fields of ``list``, ``map`` and ``struct``; empty otherwise.
    annotation:
        For ``struct``: the logical annotation of the group, ``"file"`` for
        FILE (see :mod:`parquet_core.schema.file_ref`); ``None`` otherwise.
    """

    name: str
    unit: str | None = None
    tz: str | None = None
    precision: int | None = None
    scale: int | None = None
    byte_width: int | None = None
    crs: str | None = None
    algorithm: str | None = None
    fields: tuple[Field, ...] = ()
    annotation: str | None = None
    id: TypeId = _dc_field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # a dict lookup, not ``TypeId(name)``: a footer makes one DataType per column, and the
        # enum's own constructor costs five times as much
        type_id = _TYPE_ID_OF.get(self.name)
        if type_id is None:
            raise ValueError(f"unknown DataType name {self.name!r}")
        object.__setattr__(self, "id", type_id)
        object.__setattr__(self, "name", type_id.value)

    def __str__(self) -> str:
        tid = self.id
        if tid is TypeId.LIST and len(self.fields) == 1:
            return f"list<{self.fields[0]}>"
        if tid is TypeId.STRUCT:
            if self.annotation == "file":
                return "file_ref<" + ", ".join(str(f) for f in self.fields) + ">"
            return "struct<" + ", ".join(str(f) for f in self.fields) + ">"
        if tid is TypeId.MAP and len(self.fields) == 2:
            return f"map<{self.fields[0].type}, {self.fields[1].type}>"
        if tid is TypeId.VARIANT:
            from parquet_core.schema.variant_layout import shredded_type

            spec = shredded_type(self)
            return "variant" if spec is None else f"variant<shredded {spec}>"
        if tid is TypeId.TIMESTAMP:
            return f"timestamp[{self.unit}{', ' + self.tz if self.tz else ''}]"
        if tid is TypeId.TIME:
            return f"time[{self.unit}]"
        if tid is TypeId.DECIMAL:
            return f"decimal({self.precision}, {self.scale})"
        if tid in GEO_IDS and (self.crs or self.algorithm):
            params = ", ".join(p for p in (self.crs, self.algorithm) if p)
            return f"{self.name}({params})"
        if tid is TypeId.FIXED_SIZE_BINARY:
            return f"fixed_size_binary[{self.byte_width}]"
        return self.name   # every other type (a list / map with the wrong field count too) is its name

    @property
    def is_integer(self) -> bool:
        """True for the signed and unsigned integer types."""
        return self.id in INTEGER_IDS

    @property
    def is_nested(self) -> bool:
        """True for ``list``, ``map``, ``struct`` and ``variant`` (stored as a group)."""
        return self.id in NESTED_IDS

    @property
    def is_text(self) -> bool:
        """True for types whose values are UTF-8 text."""
        return self.id in TEXT_IDS


@dataclass(frozen=True, slots=True)
class Field:
    """A named, typed column of a table (``nullable`` means OPTIONAL).

    ``field_id`` is the Parquet schema's ``field_id`` (Arrow's
    ``PARQUET:field_id`` field metadata); it does not take part in equality.
    """

    name: str
    type: DataType
    nullable: bool = True
    path: tuple[str, ...] = ()
    field_id: int | None = _dc_field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.name}: {self.type}{'' if self.nullable else ' not null'}"


def ambiguous_name(name: str, positions: list[int], where: str = "") -> ParquetSchemaError:
    """The error for a name that several columns share, where one column is meant."""
    return ParquetSchemaError(
        f"column name {name!r} is ambiguous{where}: {len(positions)} columns have it, at positions "
        f"{', '.join(map(str, positions))}; select or filter on a name only one column has")


class Schema:
    """An ordered collection of :class:`Field` objects."""

    __slots__ = ("fields", "_index")

    def __init__(self, fields: list[Field]) -> None:
        self.fields: list[Field] = list(fields)
        #: name -> its positions (several when fields share a name, as a file's may)
        self._index: dict[str, list[int]] = {}
        for i, f in enumerate(self.fields):
            self._index.setdefault(f.name, []).append(i)

    @property
    def names(self) -> list[str]:
        """The field names in order."""
        return [f.name for f in self.fields]

    def positions(self, name: str) -> list[int]:
        """The positions of the fields called *name* (empty when none is)."""
        return list(self._index.get(name, ()))

    def index(self, name: str) -> int:
        """The position of the one field called *name*.

        Raises
        ------
        KeyError
            When no field has that name.
        ParquetSchemaError
            When several do (a name is then no way to pick one: use positions).
        """
        found = self._index[name]
        if len(found) > 1:
            raise ambiguous_name(name, found)
        return found[0]

    def field(self, name_or_index: str | int) -> Field:
        """Return a field by position, or by a name only one field has (see :meth:`index`)."""
        if isinstance(name_or_index, int):
            return self.fields[name_or_index]
        return self.fields[self.index(name_or_index)]

    def __len__(self) -> int:
        return len(self.fields)

    def __iter__(self):
        return iter(self.fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Schema) and self.fields == other.fields

    def __repr__(self) -> str:
        return "Schema(\n" + "".join(f"  {f}\n" for f in self.fields) + ")"

    def __arrow_c_schema__(self) -> object:
        """The Arrow PyCapsule interface: an ``arrow_schema`` capsule of this schema (a
        struct of its fields; types as :mod:`parquet_core.schema.arrow_format` maps them)."""
        from parquet_core.schema.arrow_format import schema_capsule

        return schema_capsule(self)

    def to_arrow(self):
        """Return the equivalent ``pyarrow.Schema`` (needs pyarrow)."""
        from parquet_core.interop.arrow_types import schema_to_arrow

        return schema_to_arrow(self)
