"""The read options that change the types of what is read, with pyarrow's meaning.

* ``coerce_int96_timestamp_unit``: INT96 values, at any depth (inside lists, maps
  and structs too), become timestamps of that unit (:func:`coerce_int96`);
* ``binary_type`` / ``list_type``: the Arrow types ``to_arrow()`` gives binary
  (and string) and list columns of a file without ``ARROW:schema``
  (:func:`arrow_key_values`: an ``ARROW:schema`` entry naming them, added to the
  table's key/values, which is what ``to_arrow`` restores types from).

Every read of :class:`~parquet_core.ParquetFile` (``read``, ``read_row_group(s)``,
``iter_batches``) and so of a dataset passes its result through :func:`apply_read_types`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from parquet_core.errors import UnsupportedFeatureError
from parquet_core.schema.temporal import int96_to_unit, int96_unit_problem
from parquet_core.schema.types import DataType, Field, Schema, TypeId
from parquet_core.table.arrays import Array, Table
from parquet_core.table.infer import fill_nulls
from parquet_core.table.nested import ListArray, StructArray

__all__ = ["apply_read_types", "coerce_int96", "coerce_int96_schema", "arrow_key_values", "typed_schema",
           "KeyedSchema"]

_ARROW_SCHEMA = b"ARROW:schema"


def _has_int96(dt: DataType) -> bool:
    # a variant's members are its own encoding, never coerced
    return dt.id is TypeId.INT96 or (dt.id is not TypeId.VARIANT and any(_has_int96(f.type) for f in dt.fields))


def _coerced_type(dt: DataType, unit: str) -> DataType:
    if dt.id is TypeId.INT96:
        return DataType("timestamp", unit=unit)
    if not dt.fields or not _has_int96(dt):
        return dt
    return replace(dt, fields=tuple(replace(f, type=_coerced_type(f.type, unit)) for f in dt.fields))


def _coerce_array(arr: Array, unit: str, column: str) -> Array:
    """*arr* with every INT96 value below it as a timestamp of *unit* (the same object when none)."""
    dt = arr.type
    if not _has_int96(dt):
        return arr
    if dt.id is TypeId.INT96:
        values, bad = int96_to_unit(arr.values, unit, arr.validity)   # sub-unit digits floored, as pyarrow
        if arr.validity is not None:
            bad &= arr.validity
        if bad.any():
            problem = int96_unit_problem(arr.values, int(np.argmax(bad)), unit)
            raise UnsupportedFeatureError(
                f"coerce_int96_timestamp_unit={unit!r}: column {column!r} holds {problem}; "
                f"{'read it with a coarser unit, or ' if unit in ('us', 'ns') else ''}"
                "read it without the option (INT96 values as stored)")
        return Array(_coerced_type(dt, unit), fill_nulls(values, arr.validity), arr.validity)
    if isinstance(arr, ListArray):          # lists and maps: one child
        child = _coerce_array(arr.values, unit, f"{column}.{dt.fields[0].name}" if dt.id is TypeId.LIST
                              else column)
        offsets = arr.offsets
        assert offsets is not None   # a list's own offsets (Array.offsets is None for flat arrays)
        return type(arr)(_coerced_type(dt, unit), offsets, child, arr.validity)
    if isinstance(arr, StructArray):
        kids = [_coerce_array(c, unit, f"{column}.{f.name}") for c, f in zip(arr.values, dt.fields)]
        return StructArray(_coerced_type(dt, unit), kids, arr.length, arr.validity, arr.column)
    raise UnsupportedFeatureError(
        f"coerce_int96_timestamp_unit cannot coerce the INT96 values inside a {dt} column")


def coerce_int96_schema(schema: Schema, unit: str | None) -> Schema:
    """*schema* as :func:`coerce_int96` makes a table of it (pyarrow's ``schema_arrow`` with
    the option)."""
    if unit is None or not any(_has_int96(f.type) for f in schema):
        return schema
    return Schema([replace(f, type=_coerced_type(f.type, unit)) if _has_int96(f.type) else f for f in schema])


def coerce_int96(table: Table, unit: str | None) -> Table:
    """*table* with its INT96 values (top-level columns and nested ones) as timestamps of *unit*
    (None: unchanged, pyarrow's ``"ns"``)."""
    if unit is None or not any(_has_int96(f.type) for f in table.schema):
        return table
    fields, cols = [], []
    for f, c in zip(table.schema, table.columns):
        if _has_int96(f.type):
            c = _coerce_array(c, unit, f.name)
            f = Field(f.name, c.type, f.nullable, f.path, f.field_id)
        fields.append(f)
        cols.append(c)
    return Table(Schema(fields), cols, table.num_rows, metadata=table.metadata)


def arrow_key_values(schema: Schema, key_values: Any, binary: str | None, lists: str | None) -> Any:
    """The file's *key_values*, plus, for ``binary_type`` / ``list_type`` (*binary*, *lists*:
    ``ReaderOptions``' names) on a file without ``ARROW:schema``, one naming those Arrow types
    for the columns of *schema* (what ``to_arrow`` restores), as pyarrow reads such a file."""
    if binary is None and lists is None:
        return key_values
    if _ARROW_SCHEMA in (key_values or {}):
        # the recorded types win, but for string and binary dictionaries, which pyarrow
        # reads as the large or view type binary_type asks (keeping no dictionary)
        encoded = key_values[_ARROW_SCHEMA]
        if binary in ("large_binary", "binary_view") and isinstance(encoded, (bytes, str)):
            from parquet_core.metadata.arrow_ipc import widen_dictionary_fields

            widened = widen_dictionary_fields(encoded, binary)
            if widened is not None:
                return {**key_values, _ARROW_SCHEMA: widened}
        return key_values
    from parquet_core.metadata.arrow_ipc_write import encode_schema_nodes
    from parquet_core.schema.arrow_format import field_node

    wide = {"large_binary": {"z": "Z", "u": "U"}, "binary_view": {"z": "vz", "u": "vu"}}

    def retype(node: Any) -> Any:
        if node.format in ("z", "u") and binary is not None and not node.metadata:
            node.format = wide[binary][node.format]   # strings too, as pyarrow applies binary_type to them
        if node.format == "+l" and lists is not None and node.name != "":
            node.format = "+L"
        for child in node.children:
            retype(child)
        return node

    try:
        encoded = encode_schema_nodes([retype(field_node(f)) for f in schema], None)
    except UnsupportedFeatureError:
        return key_values
    return {**(key_values or {}), _ARROW_SCHEMA: encoded}


class KeyedSchema(Schema):
    """A table schema carrying key/value ``metadata`` (what ``to_arrow`` restores the
    ``ARROW:schema`` types from), as a file's schema does."""

    __slots__ = ("metadata",)

    def __init__(self, fields: list[Field], metadata: Any) -> None:
        super().__init__(fields)
        self.metadata = metadata


def typed_schema(schema: Schema, key_values: Any, options: Any) -> Schema:
    """A file's table *schema* (footer *key_values*) as :func:`apply_read_types` makes a table of
    it under *options*: pyarrow's ``ParquetFile.schema_arrow`` with the read-type options."""
    coerced = coerce_int96_schema(schema, options.coerce_int96_timestamp_unit)
    kv = arrow_key_values(coerced, key_values, options.binary_type, options.list_type)
    return KeyedSchema(coerced.fields, kv)


def apply_read_types(table: Table, key_values: Any, options: Any) -> Table:
    """*table* as read from a file with footer *key_values* under *options* (a ReaderOptions):
    INT96 coerced, and its key/values those ``to_arrow`` gives pyarrow's types from."""
    table = coerce_int96(table, options.coerce_int96_timestamp_unit)
    # the footer's pairs as they are: a key/value entry may have no value (None), which
    # replace_schema_metadata (text or bytes in) would refuse
    kv = arrow_key_values(table.schema, key_values, options.binary_type, options.list_type)
    return Table(table.schema, table.columns, table.num_rows, metadata=kv)
