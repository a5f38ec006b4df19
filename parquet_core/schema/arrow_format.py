"""parquet_core types as Arrow C Data Interface format strings, and back (no data).

Export (:func:`field_node`, :func:`schema_node`) follows the pyarrow mapping of
:mod:`parquet_core.interop.arrow_types`: text is ``utf8`` (``u``), binary
``binary`` (``z``), ``uuid`` and ``json`` the ``arrow.uuid`` / ``arrow.json``
extension types (``ARROW:extension:name`` in the field's metadata), decimals
``decimal128`` (``decimal256`` above 38 digits), INT96 ``timestamp[ns]``, a
map whose key is nullable a list of ``key_value`` structs; a field id is the
field's ``PARQUET:field_id`` metadata.  The exporter of data
(:mod:`parquet_core.table.arrow_c_export`) may widen ``u``/``z``/``+l`` to
their 64-bit-offset forms when the data needs them.

Import (:func:`type_from_node`) maps every Arrow type we can hold:

================================================  ===============================
Arrow (format)                                    parquet_core
================================================  ===============================
null, bool, int8..uint64, float16/32/64           same name
utf8, large_utf8, utf8_view (u U vu)              string (``arrow.json``: json)
binary, large_binary, binary_view (z Z vz)        binary
fixed_size_binary[w] (w:w)                        fixed_size_binary (``arrow.uuid``: uuid)
decimal32/64/128/256 (d:p,s[,bits])               decimal(p, s)
date32 / date64 (tdD tdm)                         date (date64 floored to days)
time32 / time64 (tts ttm ttu ttn)                 time (seconds as ms)
timestamp (tss: tsm: tsu: tsn:, any zone)         timestamp (s as ms; a zone -> UTC)
duration (tDs tDm tDu tDn)                        int64 (the count; ARROW:schema the unit)
month_day_nano interval (tin)                     interval (whole ms, non-negative)
list, large_list, fixed_size_list (+l +L +w:n)    list
map (+m)                                          map
struct (+s)                                       struct
dictionary (any integer index type)               its value type
================================================  ===============================

Refused with :class:`~parquet_core.errors.UnsupportedFeatureError` naming
the type: unions, run-end encoded arrays, list views, month and day-time
intervals, and extension types other than ``arrow.uuid`` / ``arrow.json``
(named).  A duration is held as its int64 count, as pyarrow stores it: a
table imported from a stream carries the producer's ``ARROW:schema``
(:mod:`parquet_core.table.arrow_c_import`), so the file reads back as a
duration (pyarrow, ``to_pandas``); a lone column (:func:`column_from_capsules`)
has nowhere to keep the unit and is refused.
"""

from __future__ import annotations

from parquet_core.arrow_c.export import SchemaNode, export_schema
from parquet_core.arrow_c.structs import FLAG_NULLABLE
from parquet_core.errors import ParquetFormatError, UnsupportedFeatureError
from parquet_core.schema.build import decimal_byte_width
from parquet_core.schema.types import DataType, Field, Schema, TypeId, unhandled_type

__all__ = ["field_node", "schema_node", "type_from_node", "field_from_node", "schema_from_node",
           "FLAT_FORMATS", "EXTENSION_NAME", "FIELD_ID_KEY", "describe_format", "flat_format",
           "schema_capsule"]

EXTENSION_NAME = b"ARROW:extension:name"
EXTENSION_METADATA = b"ARROW:extension:metadata"
FIELD_ID_KEY = b"PARQUET:field_id"

#: formats of the types without parameters
FLAT_FORMATS: dict[TypeId, str] = {
    TypeId.NULL: "n", TypeId.BOOL: "b", TypeId.INT8: "c", TypeId.UINT8: "C", TypeId.INT16: "s",
    TypeId.UINT16: "S", TypeId.INT32: "i", TypeId.UINT32: "I", TypeId.INT64: "l", TypeId.UINT64: "L",
    TypeId.FLOAT16: "e", TypeId.FLOAT32: "f", TypeId.FLOAT64: "g", TypeId.DATE: "tdD",
    TypeId.STRING: "u", TypeId.JSON: "u", TypeId.ENUM: "u", TypeId.BINARY: "z", TypeId.BSON: "z",
    TypeId.GEOMETRY: "z", TypeId.GEOGRAPHY: "z", TypeId.INT96: "tsn:",
}
_FROM_FLAT = {"n": "null", "b": "bool", "c": "int8", "C": "uint8", "s": "int16", "S": "uint16",
              "i": "int32", "I": "uint32", "l": "int64", "L": "uint64", "e": "float16", "f": "float32",
              "g": "float64", "u": "string", "U": "string", "vu": "string", "z": "binary",
              "Z": "binary", "vz": "binary", "tdD": "date", "tdm": "date"}
_EXTENSIONS = {TypeId.JSON: b"arrow.json", TypeId.UUID: b"arrow.uuid"}
_NAMES = {"tDs": "duration[s]", "tDm": "duration[ms]", "tDu": "duration[us]", "tDn": "duration[ns]",
          "+vl": "list_view", "+vL": "large_list_view", "+r": "run_end_encoded", "+ud": "dense_union",
          "+us": "sparse_union", "tiM": "month_interval", "tiD": "day_time_interval"}


def describe_format(fmt: str) -> str:
    """A readable Arrow type name for a format string (for error messages)."""
    for prefix, name in _NAMES.items():
        if fmt.startswith(prefix):
            return f"{name} ({fmt!r})"
    return f"format {fmt!r}"


def _metadata(f: Field, extension: bytes | None = None) -> dict[bytes, bytes] | None:
    meta = {}
    if extension is not None:
        meta[EXTENSION_NAME], meta[EXTENSION_METADATA] = extension, b""
    if f.field_id is not None:
        meta[FIELD_ID_KEY] = str(f.field_id).encode()
    return meta or None


def flat_format(dt: DataType) -> str:
    """The format of a type without children (fixed choices; see the module docstring)."""
    tid = dt.id
    if tid in FLAT_FORMATS:
        return FLAT_FORMATS[tid]
    if tid is TypeId.TIME:
        return {"ms": "ttm", "us": "ttu", "ns": "ttn"}[dt.unit or "us"]
    if tid is TypeId.TIMESTAMP:
        return f"ts{(dt.unit or 'us')[0]}:{dt.tz or ''}"
    if tid is TypeId.DECIMAL:
        p, s = dt.precision or 38, dt.scale or 0
        return f"d:{p},{s}" if p <= 38 else f"d:{p},{s},256"
    if tid in (TypeId.FIXED_SIZE_BINARY, TypeId.INTERVAL):
        return f"w:{dt.byte_width or 12}"
    if tid is TypeId.UUID:
        return "w:16"
    if tid is TypeId.NESTED:
        raise UnsupportedFeatureError(f"no Arrow type for {dt}: a group the reader cannot lay out")
    unhandled_type(dt, "flat_format")


def field_node(f: Field) -> SchemaNode:
    """The ArrowSchema of one field, children included."""
    dt, flags = f.type, FLAG_NULLABLE if f.nullable else 0
    if dt.id is TypeId.LIST:
        return SchemaNode("+l", f.name, flags, _metadata(f), [field_node(dt.fields[0])])
    if dt.id is TypeId.MAP:
        key, value = dt.fields
        if key.nullable:   # Arrow maps cannot hold null keys: a list of entries
            entries = SchemaNode("+s", "key_value", 0, None, [field_node(key), field_node(value)])
            return SchemaNode("+l", f.name, flags, _metadata(f), [entries])
        # the entries named after the map's field, as pyarrow.parquet's reader names them
        entries = SchemaNode("+s", f.name, 0, None, [field_node(key), field_node(value)])
        return SchemaNode("+m", f.name, flags, _metadata(f), [entries])
    if dt.id in (TypeId.STRUCT, TypeId.VARIANT):
        return SchemaNode("+s", f.name, flags, _metadata(f), [field_node(c) for c in dt.fields])
    return SchemaNode(flat_format(dt), f.name, flags, _metadata(f, _EXTENSIONS.get(dt.id)))


def schema_node(schema: Schema, metadata: dict[bytes, bytes] | None = None) -> SchemaNode:
    """The ArrowSchema of a whole schema: a struct of its fields (a record batch's type)."""
    return SchemaNode("+s", "", 0, metadata or None, [field_node(f) for f in schema])


def schema_capsule(schema: Schema) -> object:
    """An ``arrow_schema`` capsule of *schema* (see :meth:`Schema.__arrow_c_schema__`)."""
    return export_schema(schema_node(schema))


# ---------------------------------------------------------------- from Arrow

def _field_id(node: SchemaNode) -> int | None:
    raw = (node.metadata or {}).get(FIELD_ID_KEY)
    try:
        return None if raw is None else int(raw)
    except ValueError:
        return None


def field_from_node(node: SchemaNode, name: str | None = None) -> Field:
    """The :class:`Field` an ArrowSchema describes (*name* overrides its own)."""
    return Field(node.name if name is None else name, type_from_node(node, node.name),
                 nullable=bool(node.flags & FLAG_NULLABLE), field_id=_field_id(node))


def schema_from_node(node: SchemaNode) -> Schema:
    """The :class:`Schema` of a record batch's ArrowSchema (a struct)."""
    if node.format != "+s":
        raise UnsupportedFeatureError(f"an Arrow stream of {describe_format(node.format)} arrays is not a "
                                      "table; expected struct arrays (record batches)")
    return Schema([field_from_node(c) for c in node.children])


def _refuse(node: SchemaNode, column: str) -> UnsupportedFeatureError:
    return UnsupportedFeatureError(f"column {column!r}: Arrow type {describe_format(node.format)} has "
                                   "no parquet_core type")


def type_from_node(node: SchemaNode, column: str = "?") -> DataType:
    """The :class:`DataType` that holds an Arrow type's values (table in the module docstring).

    Raises
    ------
    UnsupportedFeatureError
        For Arrow types without a counterpart, naming the type and *column*.
    """
    if node.dictionary is not None:
        if node.format not in ("c", "C", "s", "S", "i", "I", "l", "L"):
            raise _refuse(node, column)
        return type_from_node(node.dictionary, column)
    fmt = node.format
    extension = (node.metadata or {}).get(EXTENSION_NAME)
    if extension == b"arrow.uuid" and fmt == "w:16":
        return DataType("uuid", byte_width=16)
    if extension == b"arrow.json" and fmt in ("u", "U", "vu"):
        return DataType("json")
    if extension is not None:
        raise UnsupportedFeatureError(
            f"column {column!r}: Arrow extension type {extension.decode('utf-8', 'replace')!r} (storage "
            f"{describe_format(fmt)}) is not supported: only arrow.uuid (fixed_size_binary[16]) and "
            "arrow.json (a string type) have Parquet types; convert it to its storage type first")
    if fmt in ("tDs", "tDm", "tDu", "tDn"):
        # pyarrow's storage: the int64 count in the unit, which ARROW:schema records (the
        # importer of a table attaches it, see table/arrow_c_import.py)
        return DataType("int64")
    if fmt in _FROM_FLAT:
        return DataType(_FROM_FLAT[fmt])
    if fmt.startswith("w:"):
        return DataType("fixed_size_binary", byte_width=_number(node, fmt[2:], column))
    if fmt.startswith("d:"):
        parts = [_number(node, p, column) for p in fmt[2:].split(",")]
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] not in (32, 64, 128, 256)):
            raise _malformed(node, column, "is not decimal(precision, scale[, 32|64|128|256])")
        p, s = parts[0], parts[1]
        if s < 0:
            raise UnsupportedFeatureError(f"column {column!r}: Arrow decimal({p}, {s}) has a negative "
                                          "scale, which Parquet cannot store")
        return DataType("decimal", precision=p, scale=s, byte_width=None if p <= 18 else decimal_byte_width(p))
    if fmt in ("tts", "ttm"):
        return DataType("time", unit="ms")
    if fmt in ("ttu", "ttn"):
        return DataType("time", unit=fmt[2] + "s")
    if fmt.startswith("ts") and len(fmt) >= 4 and fmt[3] == ":" and fmt[2] in "smun":
        unit = {"s": "ms", "m": "ms", "u": "us", "n": "ns"}[fmt[2]]
        return DataType("timestamp", unit=unit, tz="UTC" if fmt[4:] else None)
    if fmt == "tin":
        return DataType("interval", byte_width=12)
    return _nested_type(node, column)


def _number(node: SchemaNode, text: str, column: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise _malformed(node, column, f"has {text!r} where a number belongs") from None


def _malformed(node: SchemaNode, column: str, what: str) -> ParquetFormatError:
    return ParquetFormatError(f"column {column!r}: malformed Arrow schema: {describe_format(node.format)} "
                              f"{what}")


def _nested_type(node: SchemaNode, column: str) -> DataType:
    fmt = node.format
    if (fmt in ("+l", "+L", "+m") or fmt.startswith("+w:")) and len(node.children) != 1:
        raise _malformed(node, column, f"has {len(node.children)} children, not 1")
    if fmt == "+m" and (node.children[0].format != "+s" or len(node.children[0].children) != 2):
        raise _malformed(node, column, "entries are not a struct of key and value")
    if fmt.startswith("+w:") and _number(node, fmt[3:], column) < 0:
        raise _malformed(node, column, "has a negative list size")
    if fmt == "+s":
        return DataType("struct", fields=tuple(field_from_node(c) for c in node.children))
    if fmt in ("+l", "+L") or fmt.startswith("+w:"):
        child = node.children[0]
        return DataType("list", fields=(Field("element", type_from_node(child, f"{column}.element"),
                                              bool(child.flags & FLAG_NULLABLE), field_id=_field_id(child)),))
    if fmt == "+m":
        key, value = node.children[0].children
        return DataType("map", fields=(
            Field("key", type_from_node(key, f"{column}.key"), False, field_id=_field_id(key)),
            Field("value", type_from_node(value, f"{column}.value"), bool(value.flags & FLAG_NULLABLE),
                  field_id=_field_id(value))))
    raise _refuse(node, column)
