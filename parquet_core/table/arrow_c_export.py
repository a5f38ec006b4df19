"""Tables and arrays as Arrow C Data Interface nodes (the data behind ``__arrow_c_*__``).

Each column becomes a :class:`~parquet_core.arrow_c.SchemaNode` (from
:mod:`parquet_core.schema.arrow_format`) and an
:class:`~parquet_core.arrow_c.ArrayNode` whose buffers are our numpy buffers
wherever Arrow's layout is ours: fixed-width numbers, dates, times,
timestamps, fixed-size binary, the bytes of strings and binaries, 64-bit
offsets.  What Arrow lays out differently is built once here: validity and
boolean bitmaps (Arrow packs bits), 32-bit offsets (ours are 64-bit; a
column whose offsets need 64 bits is exported as ``large_utf8`` /
``large_binary`` / ``large_list`` instead), decimals as 16- or 32-byte
little-endian words, INT96 as ``timestamp[ns]`` (``[us]`` when a value lies
outside the nanosecond range, as :func:`parquet_core.interop.arrow.array_to_arrow`).
A :class:`~parquet_core.table.dictionary.DictionaryArray` of strings or
binaries is exported as a dictionary array (int32 indices into the
dictionaries of its runs, concatenated).

A table is one record batch: a struct array of its columns; the table's
key/value metadata (but ``ARROW:schema``, which only pyarrow decodes) is the
schema's metadata.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.arrow_c.export import ArrayNode, SchemaNode, export_array, export_schema, export_stream
from parquet_core.metadata.arrow_ipc import schema_field_facts
from parquet_core.schema.arrow_format import field_node, flat_format
from parquet_core.schema.temporal import int96_to_epoch, int96_to_ns
from parquet_core.schema.types import DataType, Field, TypeId
from parquet_core.table.arrays import Array, Table
from parquet_core.table.decimal_words import decimal_le_rows
from parquet_core.table.dictionary import DictionaryArray
from parquet_core.table.nested import ListArray, MapArray, StructArray

__all__ = ["export_column", "export_table", "table_schema_node", "column_capsules", "table_capsules",
           "table_stream_capsule", "table_schema_capsule"]

_INT32_MAX = 2**31 - 1
_ARROW_SCHEMA = b"ARROW:schema"


def _validity(arr: Array) -> tuple[np.ndarray | None, int]:
    """Arrow's validity bitmap (None when no nulls) and the null count."""
    if arr.validity is None:
        return None, 0
    nulls = len(arr.validity) - int(np.count_nonzero(arr.validity))
    if nulls == 0:
        return None, 0
    return np.packbits(arr.validity, bitorder="little"), nulls


def _offsets(offsets: np.ndarray) -> tuple[np.ndarray, bool]:
    """32-bit offsets when they fit (a copy), else ours as they are; and "large"."""
    if len(offsets) == 0 or int(offsets[-1]) <= _INT32_MAX:
        return offsets.astype(np.int32), False
    return np.ascontiguousarray(offsets, dtype=np.int64), True


def _bytes(values: ByteArrays) -> tuple[list[np.ndarray], bool]:
    offsets, large = _offsets(values.offsets)
    return [offsets, np.ascontiguousarray(values.data)], large


def _int96(arr: Array) -> tuple[str, np.ndarray]:
    values = int96_to_ns(arr.values, arr.validity)
    if values is not None:
        return "tsn:", values
    values, ok = int96_to_epoch(arr.values, "ns")
    if ok[arr.validity if arr.validity is not None else slice(None)].all():
        return "tsn:", values
    # outside timestamp[ns]'s years: microseconds, as array_to_arrow does
    values, _ = int96_to_epoch(arr.values, "us")
    return "tsu:", values


def _dictionary(arr: DictionaryArray, field: Field, node: SchemaNode, bitmap: Any,
                nulls: int) -> tuple[SchemaNode, ArrayNode]:
    dicts = [r.dictionary for r in arr.runs]
    shift = np.cumsum([0] + [len(d) for d in dicts[:-1]])
    indices = np.concatenate([r.indices.astype(np.int32) + np.int32(s) for r, s in zip(arr.runs, shift)])
    entries = ByteArrays.concat(dicts)
    buffers, large = _bytes(entries)
    value_format = node.format.upper() if large else node.format
    # an extension type describes the values; a field id the field
    meta = node.metadata or {}
    value_meta = {k: v for k, v in meta.items() if k.startswith(b"ARROW:extension:")} or None
    field_meta = {k: v for k, v in meta.items() if not k.startswith(b"ARROW:extension:")} or None
    value_node = SchemaNode(value_format, "", 0, value_meta)
    index_node = SchemaNode("i", field.name, node.flags, field_meta, dictionary=value_node)
    return index_node, ArrayNode(len(arr), nulls, [bitmap, np.ascontiguousarray(indices)],
                                 dictionary=ArrayNode(len(entries), 0, [None] + buffers))


def export_column(arr: Array, field: Field) -> tuple[SchemaNode, ArrayNode]:
    """The Arrow schema and array of one column (*field* gives its name and nullability)."""
    node = field_node(field)
    n, dt = len(arr), field.type
    if dt.id is TypeId.NULL:
        return node, ArrayNode(n, n, [])
    bitmap, nulls = _validity(arr)
    if dt.is_nested:
        return _nested(arr, field, node, bitmap, nulls)
    if isinstance(arr, DictionaryArray) and isinstance(arr.values, ByteArrays):
        return _dictionary(arr, field, node, bitmap, nulls)
    values = arr.values
    if isinstance(values, ByteArrays):
        if dt.id is TypeId.DECIMAL:
            return _decimal(arr, node, bitmap, nulls)
        buffers, large = _bytes(values)
        if large:
            node.format = node.format.upper()
        return node, ArrayNode(n, nulls, [bitmap] + buffers)
    if dt.id is TypeId.BOOL:
        return node, ArrayNode(n, nulls, [bitmap, np.packbits(values, bitorder="little")])
    if dt.id is TypeId.DECIMAL:
        return _decimal(arr, node, bitmap, nulls)
    if dt.id is TypeId.INT96:
        node.format, values = _int96(arr)
        return node, ArrayNode(n, nulls, [bitmap, np.ascontiguousarray(values, dtype=np.int64)])
    if values.ndim == 2:      # fixed-size binary, uuid, interval: the rows back to back
        return node, ArrayNode(n, nulls, [bitmap, np.ascontiguousarray(values).reshape(-1)])
    flat_format(dt)           # refuses a type with no Arrow counterpart
    return node, ArrayNode(n, nulls, [bitmap, np.ascontiguousarray(values)])


def _decimal(arr: Array, node: SchemaNode, bitmap: Any, nulls: int) -> tuple[SchemaNode, ArrayNode]:
    width = 32 if node.format.endswith(",256") else 16
    rows = decimal_le_rows(arr.values, len(arr), width, arr.type)
    return node, ArrayNode(len(arr), nulls, [bitmap, rows.reshape(-1)])


def _nested(arr: Array, field: Field, node: SchemaNode, bitmap: Any,
            nulls: int) -> tuple[SchemaNode, ArrayNode]:
    n = len(arr)
    if isinstance(arr, StructArray):
        kids = [export_column(c, f) for c, f in zip(arr.values, field.type.fields)]
        node.children = [k[0] for k in kids]
        return node, ArrayNode(n, nulls, [bitmap], [k[1] for k in kids])
    if not isinstance(arr, ListArray):
        raise TypeError(f"column {field.name!r}: a {field.type} column needs a nested array, "
                        f"got {type(arr).__name__}")
    offsets, large = _offsets(arr.offsets)
    if isinstance(arr, MapArray):
        entries: StructArray = arr.values
        key_f, value_f = field.type.fields
        key = entries.values[0]
        # Arrow maps cannot hold null keys nor 64-bit offsets: a list of key/value structs then
        as_list = key_f.nullable or large or (key.validity is not None and not key.validity.all())
        if as_list:
            key_f = Field(key_f.name, key_f.type, True, field_id=key_f.field_id)
        entries_type = DataType("struct", fields=(key_f, value_f))
        # a map's entries named after its field, as pyarrow.parquet's reader names them
        child_schema, child_array = export_column(entries, Field("key_value" if as_list else field.name,
                                                                 entries_type, False))
        node.format = ("+L" if large else "+l") if as_list else "+m"
        node.children = [child_schema]
        return node, ArrayNode(n, nulls, [bitmap, offsets], [child_array])
    child_schema, child_array = export_column(arr.values, field.type.fields[0])
    if large:
        node.format = "+L"
    node.children = [child_schema]
    return node, ArrayNode(n, nulls, [bitmap, offsets], [child_array])


def table_schema_node(table: Table, columns: list[SchemaNode]) -> SchemaNode:
    metadata = {k: v for k, v in (table.metadata or {}).items() if k != _ARROW_SCHEMA}
    return SchemaNode("+s", "", 0, metadata or None, columns)


def export_table(table: Table) -> tuple[SchemaNode, ArrayNode]:
    """A table as one record batch: the struct schema and the struct array of its columns."""
    pairs = [export_column(c, f) for c, f in zip(table.columns, table.schema)]
    _restore_arrow_types(table, [p[0] for p in pairs])
    return table_schema_node(table, [p[0] for p in pairs]), \
        ArrayNode(table.num_rows, 0, [None], [p[1] for p in pairs])


_DURATION = {"s": "tDs", "ms": "tDm", "us": "tDu", "ns": "tDn"}


def _restore_arrow_types(table: Table, nodes: list[SchemaNode]) -> None:
    """Arrow types our type system keeps only in ``ARROW:schema`` (a duration is its int64
    count; a timestamp zone other than UTC is UTC plus the zone's name there): give the
    exported top-level columns their Arrow type back, so a duration leaves as a duration
    rather than quietly as an int64.  Only where the recorded field matches the column
    (same name and position, int64 storage)."""
    encoded = (table.metadata or {}).get(_ARROW_SCHEMA)
    if not encoded:
        return
    facts = schema_field_facts(encoded)
    if not facts or len(facts) != len(nodes):
        return
    for fact, node, field in zip(facts, nodes, table.schema):
        if fact.name != field.name or fact.dictionary:
            continue
        if fact.kind == "duration" and fact.unit in _DURATION and field.type.id is TypeId.INT64:
            node.format = _DURATION[fact.unit]
        elif (fact.kind == "timestamp" and fact.tz and node.format.startswith("ts")
              and node.format.endswith(":UTC") and fact.tz not in ("UTC", "+00:00")):
            node.format = node.format[:node.format.index(":") + 1] + fact.tz


def column_capsules(arr: Array) -> tuple[object, object]:
    """``(arrow_schema, arrow_array)`` capsules of one column (a nullable field named "")."""
    schema, array = export_column(arr, Field("", arr.type, nullable=True))
    return export_schema(schema), export_array(array)


def table_capsules(table: Table) -> tuple[object, object]:
    """``(arrow_schema, arrow_array)`` capsules of the table as one record batch."""
    schema, array = export_table(table)
    return export_schema(schema), export_array(array)


def table_schema_capsule(table: Table) -> object:
    """An ``arrow_schema`` capsule of the table's record batch type."""
    return export_schema(export_table(table)[0])


def table_stream_capsule(table: Table) -> object:
    """An ``arrow_array_stream`` capsule: the table as one record batch."""
    schema, array = export_table(table)
    return export_stream(schema, iter([array]))
