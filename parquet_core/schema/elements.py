"""Turn a :class:`Schema` into the footer's flat ``pt.SchemaElement`` list.

The inverse of :func:`parquet_core.schema.logical.data_type_of`: for every
type built by :mod:`parquet_core.schema.build`,
``SchemaDescriptor(schema_to_elements(s))`` gives back the same types.

Each leaf gets its physical type (and ``type_length`` for
FIXED_LEN_BYTE_ARRAY), a repetition (OPTIONAL when nullable, else REQUIRED),
the ``logicalType`` and, as LogicalTypes.md asks of writers, the matching
deprecated ``converted_type`` where one exists::

    type                 physical               logicalType         converted_type
    -------------------  ---------------------  ------------------  ----------------
    null                 INT32                  UNKNOWN             -
    bool                 BOOLEAN                -                   -
    int8/16, uint8/16/32 INT32                  INTEGER(bits, sign) INT_8.. / UINT_..
    int32 / int64        INT32 / INT64          - (implied)         -
    uint64               INT64                  INTEGER(64, false)  UINT_64
    float16              FIXED_LEN_BYTE_ARRAY 2 FLOAT16             -
    float32 / float64    FLOAT / DOUBLE         -                   -
    string / enum / json BYTE_ARRAY             STRING/ENUM/JSON    UTF8/ENUM/JSON
    bson / binary        BYTE_ARRAY             BSON / -            BSON / -
    fixed_size_binary[w] FIXED_LEN_BYTE_ARRAY w -                   -
    uuid                 FIXED_LEN_BYTE_ARRAY16 UUID                -
    interval             FIXED_LEN_BYTE_ARRAY12 - (none exists)     INTERVAL
    decimal(p, s)        INT32 / INT64 / FLBA / DECIMAL(s, p)       DECIMAL (+ scale, precision)
                         BYTE_ARRAY (see build)
    date                 INT32                  DATE                DATE
    time[ms] / [us]      INT32 / INT64          TIME(unit, utc)     TIME_MILLIS / TIME_MICROS
    time[ns]             INT64                  TIME(NANOS, utc)    -
    timestamp[ms] / [us] INT64                  TIMESTAMP(unit,utc) TIMESTAMP_MILLIS / _MICROS
    timestamp[ns]        INT64                  TIMESTAMP(NANOS,..) -
    timestamp (int96)    INT96                  -                   -
    int96                INT96                  -                   -

TIME and TIMESTAMP carry the MILLIS/MICROS converted type whether or not they
are adjusted to UTC: the spec's forward-compatibility tables require it for
local values too.  (pyarrow 26 does so for timestamps but writes no
converted type for a local TIME.)

With ``int96_timestamps=True`` timestamps are written the legacy
Impala/Hive/Spark way, as INT96 without any annotation; such a column reads
back as type ``int96``.

Nested fields become groups (see :func:`field_to_elements`): a struct is
an unannotated group of its members, a list the LIST group of
LogicalTypes.md, a map its MAP group; both also carry the LIST / MAP
converted type.

The root element is named ``schema`` and, as parquet.thrift says of the
root, has no repetition.
"""

from __future__ import annotations

from typing import Any

from parquet_core.constants import ConvertedType, PhysicalType, Repetition
from parquet_core.schema.build import check_type
from parquet_core.schema.file_ref import FILE_ANNOTATION
from parquet_core.schema.logical import EDGE_ALGORITHMS
from parquet_core.schema.types import DataType, Field, Schema, TypeId, unhandled_type
from parquet_core.thrift import pt

__all__ = ["schema_to_elements", "field_to_elements", "leaf_element", "physical_type_of"]

_FIXED_SIZE_BINARY_UUID_INTERVAL_IDS = frozenset([TypeId.FIXED_SIZE_BINARY, TypeId.UUID, TypeId.INTERVAL])

_STRUCT_VARIANT_IDS = frozenset([TypeId.STRUCT, TypeId.VARIANT])
_LIST_MAP_IDS = frozenset([TypeId.LIST, TypeId.MAP])

#: Name of the root element (what pyarrow and parquet-java write).
ROOT_NAME = "schema"
#: Names of the repeated groups of the standard LIST and MAP layouts.
LIST_GROUP, MAP_GROUP = "list", "key_value"
#: Names of the legacy list layout (Spark's ``writeLegacyFormat``).
LEGACY_BAG, LEGACY_ELEMENT = "bag", "array"

_INT_CONVERTED = {
    TypeId.INT8: ConvertedType.INT_8, TypeId.INT16: ConvertedType.INT_16,
    TypeId.UINT8: ConvertedType.UINT_8, TypeId.UINT16: ConvertedType.UINT_16,
    TypeId.UINT32: ConvertedType.UINT_32, TypeId.UINT64: ConvertedType.UINT_64,
}
_TEXT = {
    TypeId.STRING: (lambda: pt.LogicalType(STRING=pt.StringType()), ConvertedType.UTF8),
    TypeId.ENUM: (lambda: pt.LogicalType(ENUM=pt.EnumType()), ConvertedType.ENUM),
    TypeId.JSON: (lambda: pt.LogicalType(JSON=pt.JsonType()), ConvertedType.JSON),
    TypeId.BSON: (lambda: pt.LogicalType(BSON=pt.BsonType()), ConvertedType.BSON),
}
_FIXED_PHYSICAL = {
    TypeId.NULL: PhysicalType.INT32, TypeId.BOOL: PhysicalType.BOOLEAN, TypeId.INT8: PhysicalType.INT32,
    TypeId.INT16: PhysicalType.INT32, TypeId.INT32: PhysicalType.INT32, TypeId.INT64: PhysicalType.INT64,
    TypeId.UINT8: PhysicalType.INT32, TypeId.UINT16: PhysicalType.INT32, TypeId.UINT32: PhysicalType.INT32,
    TypeId.UINT64: PhysicalType.INT64, TypeId.FLOAT32: PhysicalType.FLOAT,
    TypeId.FLOAT64: PhysicalType.DOUBLE,
    TypeId.STRING: PhysicalType.BYTE_ARRAY, TypeId.ENUM: PhysicalType.BYTE_ARRAY,
    TypeId.JSON: PhysicalType.BYTE_ARRAY, TypeId.BSON: PhysicalType.BYTE_ARRAY,
    TypeId.BINARY: PhysicalType.BYTE_ARRAY, TypeId.DATE: PhysicalType.INT32, TypeId.INT96: PhysicalType.INT96,
    TypeId.GEOMETRY: PhysicalType.BYTE_ARRAY, TypeId.GEOGRAPHY: PhysicalType.BYTE_ARRAY,
}
#: Types a leaf stores with its physical type alone (no logical or converted type).
_UNANNOTATED = frozenset([TypeId.BOOL, TypeId.INT32, TypeId.INT64, TypeId.FLOAT32, TypeId.FLOAT64,
                          TypeId.BINARY, TypeId.INT96, TypeId.FIXED_SIZE_BINARY])
_UNIT_NAMES = {"ms": "MILLIS", "us": "MICROS", "ns": "NANOS"}
_EDGE_CODES = {name: code for code, name in EDGE_ALGORITHMS.items()}


def physical_type_of(dt: DataType, *, int96_timestamps: bool = False) -> tuple[int, int | None]:
    """Return ``(physical_type, type_length)`` for a column of type *dt*.

    ``type_length`` is set only for FIXED_LEN_BYTE_ARRAY.
    """
    tid = dt.id
    if tid in _FIXED_PHYSICAL:
        return _FIXED_PHYSICAL[tid], None
    if tid is TypeId.FLOAT16:
        return PhysicalType.FIXED_LEN_BYTE_ARRAY, 2
    if tid in _FIXED_SIZE_BINARY_UUID_INTERVAL_IDS:
        return PhysicalType.FIXED_LEN_BYTE_ARRAY, dt.byte_width
    if tid is TypeId.DECIMAL:
        if dt.byte_width is not None:
            return PhysicalType.FIXED_LEN_BYTE_ARRAY, dt.byte_width
        p = dt.precision or 0
        if p > 18:
            return PhysicalType.BYTE_ARRAY, None
        return (PhysicalType.INT32 if p <= 9 else PhysicalType.INT64), None
    if tid is TypeId.TIME:
        return (PhysicalType.INT32 if dt.unit == "ms" else PhysicalType.INT64), None
    if tid is TypeId.TIMESTAMP:
        return (PhysicalType.INT96 if int96_timestamps else PhysicalType.INT64), None
    raise ValueError(f"type {dt} cannot be written")


def _time_unit(unit: str | None) -> Any:
    member = _UNIT_NAMES[unit or ""]
    cls = {"MILLIS": pt.MilliSeconds, "MICROS": pt.MicroSeconds, "NANOS": pt.NanoSeconds}[member]
    return pt.TimeUnit(**{member: cls()})


def _annotation(dt: DataType, int96_timestamps: bool) -> tuple[Any, int | None]:
    """Return ``(logicalType, converted_type)`` for *dt* (either may be None)."""
    tid = dt.id
    converted: int | None
    if tid in _TEXT:
        make, converted = _TEXT[tid]
        return make(), converted
    if tid in _INT_CONVERTED:
        bits = int(tid.value.removeprefix("u").removeprefix("int"))
        return (pt.LogicalType(INTEGER=pt.IntType(bitWidth=bits, isSigned=tid.value[0] == "i")),
                _INT_CONVERTED[tid])
    if tid is TypeId.NULL:
        return pt.LogicalType(UNKNOWN=pt.NullType()), None
    if tid is TypeId.GEOMETRY:
        return pt.LogicalType(GEOMETRY=pt.GeometryType(crs=dt.crs)), None
    if tid is TypeId.GEOGRAPHY:
        algo = None if dt.algorithm is None else _EDGE_CODES[dt.algorithm]
        return pt.LogicalType(GEOGRAPHY=pt.GeographyType(crs=dt.crs, algorithm=algo)), None
    if tid is TypeId.FLOAT16:
        return pt.LogicalType(FLOAT16=pt.Float16Type()), None
    if tid is TypeId.UUID:
        return pt.LogicalType(UUID=pt.UUIDType()), None
    if tid is TypeId.INTERVAL:
        return None, ConvertedType.INTERVAL
    if tid is TypeId.DATE:
        return pt.LogicalType(DATE=pt.DateType()), ConvertedType.DATE
    if tid is TypeId.DECIMAL:
        return (pt.LogicalType(DECIMAL=pt.DecimalType(scale=dt.scale, precision=dt.precision)),
                ConvertedType.DECIMAL)
    utc = dt.tz is not None
    if tid is TypeId.TIME:
        converted = {"ms": ConvertedType.TIME_MILLIS, "us": ConvertedType.TIME_MICROS}.get(dt.unit or "")
        return pt.LogicalType(TIME=pt.TimeType(isAdjustedToUTC=utc, unit=_time_unit(dt.unit))), converted
    if tid is TypeId.TIMESTAMP:
        if int96_timestamps:
            return None, None
        converted = {"ms": ConvertedType.TIMESTAMP_MILLIS,
                     "us": ConvertedType.TIMESTAMP_MICROS}.get(dt.unit or "")
        lt = pt.LogicalType(TIMESTAMP=pt.TimestampType(isAdjustedToUTC=utc, unit=_time_unit(dt.unit)))
        return lt, converted
    if tid in _UNANNOTATED:
        return None, None
    unhandled_type(dt, "leaf schema element annotation")


def leaf_element(name: str, dt: DataType, repetition: int, *,
                 int96_timestamps: bool = False) -> Any:
    """Build the ``pt.SchemaElement`` of one primitive column.

    Raises
    ------
    ValueError
        If *dt* is not a type the writer can store.
    """
    check_type(dt)
    ptype, type_length = physical_type_of(dt, int96_timestamps=int96_timestamps)
    logical, converted = _annotation(dt, int96_timestamps)
    el = pt.SchemaElement(type=int(ptype), type_length=type_length, repetition_type=int(repetition),
                          name=name, logicalType=logical,
                          converted_type=None if converted is None else int(converted))
    if dt.id is TypeId.DECIMAL:
        el.scale, el.precision = dt.scale, dt.precision
    return el


def _group(name: str, repetition: int, num_children: int, annotation: str | None = None) -> Any:
    el = pt.SchemaElement(name=name, repetition_type=int(repetition), num_children=num_children)
    if annotation == "LIST":
        el.logicalType, el.converted_type = pt.LogicalType(LIST=pt.ListType()), int(ConvertedType.LIST)
    elif annotation == "MAP":
        el.logicalType, el.converted_type = pt.LogicalType(MAP=pt.MapType()), int(ConvertedType.MAP)
    elif annotation == "VARIANT":   # no converted type exists for VARIANT
        el.logicalType = pt.LogicalType(VARIANT=pt.VariantType(specification_version=1))
    return el


def _node(name: str, dt: DataType, repetition: int, int96: bool, legacy: bool,
          field_id: int | None = None, element: str = "element") -> list[Any]:
    """Pre-order elements of one field of type *dt* at *repetition*, the first one carrying
    *field_id*; list elements are named *element*."""
    out = _node_elements(name, dt, repetition, int96, legacy, element)
    out[0].field_id = field_id
    return out


def _node_elements(name: str, dt: DataType, repetition: int, int96: bool, legacy: bool,
                   element: str) -> list[Any]:
    # Each child Field's id goes on the node standing for that field: the member of a
    # struct, the element of a list (never the repeated group between), a map's key and
    # value (never key_value), as pyarrow writes PARQUET:field_id of nested fields.
    if dt.id in _STRUCT_VARIANT_IDS:
        if not dt.fields:
            raise ValueError(f"field {name!r}: a struct without members has no column to write")
        out = [_group(name, repetition, len(dt.fields), "VARIANT" if dt.id is TypeId.VARIANT else None)]
        if dt.annotation == FILE_ANNOTATION:   # no ConvertedType exists for FILE
            out[0].logicalType = pt.LogicalType(FILE=pt.FileType())
        for f in dt.fields:
            out += _node(f.name, f.type, _repetition(f), int96, legacy, f.field_id, element)
        return out
    if dt.id is TypeId.LIST:
        elem = dt.fields[0]
        if legacy and not elem.nullable and elem.type.id not in _LIST_MAP_IDS:
            # two-level: the repeated field is the element itself (not for a list or map
            # element: a repeated LIST/MAP-annotated group is invalid, so those take the
            # three-level bag form below)
            return [_group(name, repetition, 1, "LIST")] + _node(
                LEGACY_ELEMENT, elem.type, Repetition.REPEATED, int96, legacy, elem.field_id, element)
        rep_name, elem_name = (LEGACY_BAG, LEGACY_ELEMENT) if legacy else (LIST_GROUP, element)
        return [_group(name, repetition, 1, "LIST"), _group(rep_name, Repetition.REPEATED, 1)] \
            + _node(elem_name, elem.type, _repetition(elem), int96, legacy, elem.field_id, element)
    if dt.id is TypeId.MAP:
        key, value = dt.fields
        return [_group(name, repetition, 1, "MAP"), _group(MAP_GROUP, Repetition.REPEATED, 2)] \
            + _node("key", key.type, Repetition.REQUIRED, int96, legacy, key.field_id, element) \
            + _node("value", value.type, _repetition(value), int96, legacy, value.field_id, element)
    if dt.id is TypeId.NULL and repetition == Repetition.REQUIRED:
        raise ValueError(f"field {name!r}: a null column must be nullable")
    return [leaf_element(name, dt, repetition, int96_timestamps=int96)]


def _repetition(f: Field) -> int:
    return Repetition.OPTIONAL if f.nullable else Repetition.REQUIRED


def field_to_elements(f: Field, *, int96_timestamps: bool = False,
                      legacy_list_layout: bool = False, list_element_name: str = "element") -> list[Any]:
    """Return the pre-order elements of one field: a leaf, or a group and its descendants.

    Lists take the standard three-level form (``list`` / ``element``), or
    with *legacy_list_layout* the form old Spark and Hive readers expect:
    two levels (``repeated <type> array``) when elements are required,
    ``repeated group bag { optional <type> array }`` when they may be null.
    Maps always take the standard ``key_value`` form, the key REQUIRED.
    """
    if f.type.id is TypeId.NULL and not f.nullable:
        raise ValueError(f"field {f.name!r}: a null column must be nullable")
    return _node(f.name, f.type, _repetition(f), int96_timestamps, legacy_list_layout, f.field_id,
                 list_element_name)


def schema_to_elements(schema: Schema, *, int96_timestamps: bool = False,
                       legacy_list_layout: bool = False, list_element_name: str = "element") -> list[Any]:
    """Return the ``FileMetaData.schema`` list for *schema*: the root, then every field.

    Parameters
    ----------
    schema:
        The table schema (see :func:`parquet_core.schema.build.schema`).
    int96_timestamps:
        Write timestamp columns as legacy INT96 (no logical type).
    legacy_list_layout:
        Write lists in the legacy Spark/Hive form (see :func:`field_to_elements`).
    list_element_name:
        The name of the three-level list's element: the spec's ``element``, or
        ``item`` (pyarrow's ``use_compliant_nested_type=False``).

    Raises
    ------
    ValueError
        On duplicate field names or a type the writer cannot store.
    """
    if not isinstance(schema, Schema):
        raise TypeError(f"expected a Schema, got {type(schema).__name__}")
    names = [f.name for f in schema]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"duplicate field name {dup!r}")
    out: list[Any] = [pt.SchemaElement(name=ROOT_NAME, num_children=len(schema))]
    for f in schema:
        out.extend(field_to_elements(f, int96_timestamps=int96_timestamps,
                                     legacy_list_layout=legacy_list_layout,
                                     list_element_name=list_element_name))
    return out
