"""The footer key/values that let a reader rebuild the Arrow and pandas types of written data.

Used by :class:`parquet_core.file.writer.ParquetWriter`; imports pyarrow
only when the data came from pyarrow (or a file holding ``ARROW:schema``).
The source is, in order of preference:

* the ``pyarrow.Schema`` the writer was created with;
* the first table written: a pyarrow Table or RecordBatch, or a
  :class:`Table` carrying ``metadata`` (one converted from pyarrow or
  pandas, or read from a file).

With ``store_schema=True`` (the default) the footer gets ``ARROW:schema``
and then the source's other keys (``pandas``...), as pyarrow writes them.
An ``ARROW:schema`` whose fields do not convert to exactly the written
schema (a subset read from a file, data cast to an explicit schema) is left
out rather than written stale.  Without pyarrow the check reads the
schema's flatbuffer itself (:func:`describes_facts`: names, and types whose
values ours hold).

With ``store_schema=False`` nothing of this is written, as in pyarrow, and a
column whose type only ``ARROW:schema`` could describe (a duration, an
extension type other than UUID and JSON) is refused: written alone, its
storage would read back as something else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from parquet_core.errors import ParquetError, ParquetSchemaError
from parquet_core.metadata.arrow_ipc import FieldFacts, schema_field_facts
from parquet_core.schema.types import FLOAT_IDS, INTEGER_IDS, TEXT_IDS, DataType, Schema, TypeId
from parquet_core.table.arrays import narrowed_metadata

__all__ = ["schema_key_values_of", "footer_key_values", "key_values_of_columns"]

_ARROW_SCHEMA = b"ARROW:schema"


def schema_key_values_of(source: Any) -> dict[bytes, bytes] | None:
    """The key/values *source* brings, or ``None`` when it brings nothing to keep.

    *source* is a ``pyarrow.Schema``, Table or RecordBatch, or an object with
    a ``metadata`` mapping of bytes (a :class:`parquet_core.Table`).
    """
    if type(source).__module__.split(".")[0] == "pyarrow":
        schema = getattr(source, "schema", source)
        from parquet_core.interop.arrow_metadata import schema_key_values

        return schema_key_values(schema)
    md = getattr(source, "metadata", None)
    return dict(md) if isinstance(md, Mapping) and md else None


def footer_key_values(source: Mapping[bytes, bytes] | None, schema: Schema,
                      store_schema: bool) -> dict[str, Any]:
    """The key/values to write for a table of *schema*.

    Values are ``str`` when they are UTF-8 (every value pyarrow writes is),
    else the raw ``bytes``.  ``ARROW:schema`` is kept only when its fields
    convert to exactly *schema*'s names, types and nullability: one left
    from data cast to another schema would describe types the file does not
    hold (the other keys, ``pandas`` included, are kept).

    Raises
    ------
    ParquetSchemaError
        With ``store_schema=False``, for a column whose type needs ``ARROW:schema``.
    """
    if not source:
        return {}
    encoded = source.get(_ARROW_SCHEMA)
    arrow = None if encoded is None else _decode(encoded)
    if not store_schema:
        found = None
        if arrow is not None:
            from parquet_core.interop.arrow_metadata import unkept_type

            found = unkept_type(arrow)
        elif encoded is not None:
            found = unkept_facts(encoded)
        if found is not None:
            raise ParquetSchemaError(
                f"column {found} cannot be stored without its Arrow schema (Parquet alone "
                "would read it back as its storage type); write with store_schema=True")
        return {}
    out: dict[str, Any] = {}
    for k, v in source.items():
        if k == _ARROW_SCHEMA and not (_describes(arrow, schema) if arrow is not None
                                       else describes_facts(v, schema)):
            continue
        out[_text(k)] = _text(v)
    return out


def key_values_of_columns(metadata: Mapping[bytes, bytes] | None, names: list[str],
                          keep: list[str]) -> dict[bytes, bytes] | None:
    """A table's key/values for the columns *keep* of its *names* (``write_to_dataset``'s
    files, which leave the partition columns out): all of them when every column is kept;
    else the others as they are (``pandas`` too, as pyarrow keeps it) and ``ARROW:schema``
    with only the kept fields, each kept byte for byte (:func:`narrowed_metadata`; the
    same with and without pyarrow).  An ``ARROW:schema`` without each kept name exactly
    once is left out (it describes other columns)."""
    if not metadata:
        return None
    if list(keep) == list(names):
        return dict(metadata)
    return narrowed_metadata(metadata, list(keep))


def _describes(arrow: Any, schema: Schema) -> bool:
    """True when Arrow schema *arrow* converts to *schema* (names, types, nullability)."""
    if arrow.names != schema.names:
        return False
    from parquet_core.interop.arrow import schema_from_arrow

    try:
        ours = schema_from_arrow(arrow)
    except ParquetError:
        return False
    return [(f.name, f.type, f.nullable) for f in ours] == [(f.name, f.type, f.nullable) for f in schema]


_KINDS: dict[str, frozenset[TypeId]] = {
    "null": frozenset([TypeId.NULL]), "bool": frozenset([TypeId.BOOL]),
    "int": INTEGER_IDS, "float": FLOAT_IDS, "date": frozenset([TypeId.DATE]),
    "time": frozenset([TypeId.TIME]), "timestamp": frozenset([TypeId.TIMESTAMP, TypeId.INT96]),
    "duration": frozenset([TypeId.INT64]), "decimal": frozenset([TypeId.DECIMAL]),
    "utf8": TEXT_IDS, "large_utf8": TEXT_IDS, "utf8_view": TEXT_IDS,
    "binary": frozenset([TypeId.BINARY, TypeId.BSON, TypeId.GEOMETRY, TypeId.GEOGRAPHY]),
    "fixed_size_binary": frozenset([TypeId.FIXED_SIZE_BINARY, TypeId.UUID, TypeId.INTERVAL]),
    "interval": frozenset([TypeId.INTERVAL]), "struct": frozenset([TypeId.STRUCT, TypeId.VARIANT]),
    "map": frozenset([TypeId.MAP]),
}
for _k, _same in (("large_binary", "binary"), ("binary_view", "binary")):
    _KINDS[_k] = _KINDS[_same]
for _k in ("list", "large_list", "fixed_size_list", "list_view", "large_list_view"):
    _KINDS[_k] = frozenset([TypeId.LIST, TypeId.MAP])   # a map with nullable keys: list<key_value>


def _fits(facts: FieldFacts, dt: DataType) -> bool:
    if dt.id not in _KINDS.get(facts.kind, frozenset()):
        return False
    if facts.kind in ("int", "float") and facts.bits and _WIDTH.get(dt.id) not in (None, facts.bits):
        return False
    if dt.is_nested and dt.id is not TypeId.MAP:
        return len(facts.children) == len(dt.fields) and \
            all(_fits(c, f.type) for c, f in zip(facts.children, dt.fields))
    return True


_WIDTH = {TypeId.INT8: 8, TypeId.UINT8: 8, TypeId.INT16: 16, TypeId.UINT16: 16, TypeId.INT32: 32,
          TypeId.UINT32: 32, TypeId.INT64: 64, TypeId.UINT64: 64, TypeId.FLOAT16: 16, TypeId.FLOAT32: 32,
          TypeId.FLOAT64: 64}


def describes_facts(encoded: bytes, schema: Schema) -> bool:
    """Without pyarrow: True when the ``ARROW:schema`` value *encoded* has *schema*'s
    names and, field by field, Arrow types whose values our types hold (read by
    :mod:`parquet_core.metadata.arrow_ipc`)."""
    facts = schema_field_facts(encoded)
    if facts is None or [f.name for f in facts] != schema.names:
        return False
    return all(_fits(fa, f.type) for fa, f in zip(facts, schema))


def unkept_facts(encoded: bytes) -> str | None:
    """Without pyarrow: ``"<field>: <type>"`` for the first field of an ``ARROW:schema``
    that only it can describe (a duration, an extension other than UUID and JSON)."""
    def walk(fa: FieldFacts, where: str) -> str | None:
        if fa.kind == "duration":
            return f"{where}: duration[{fa.unit}]"
        if fa.extension is not None and fa.extension not in ("arrow.uuid", "arrow.json"):
            return f"{where}: extension<{fa.extension}>"
        for c in fa.children:
            found = walk(c, f"{where}.{c.name}")
            if found:
                return found
        return None

    for fa in schema_field_facts(encoded) or []:
        found = walk(fa, fa.name)
        if found:
            return found
    return None


def _decode(encoded: bytes) -> Any:
    try:
        from parquet_core.interop.arrow_metadata import decode_schema
    except ImportError:
        return None
    return decode_schema(encoded)


def _text(b: bytes | str) -> Any:
    if isinstance(b, str):
        return b
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


