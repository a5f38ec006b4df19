"""Convert between parquet_core and pyarrow tables, arrays and schemas, zero-copy where possible.

To Arrow: numeric buffers and byte-array offsets/data are handed to Arrow as
buffers; decimals of every storage become Arrow's little-endian rows in numpy.

From Arrow (:func:`table_from_arrow`, :func:`array_from_arrow`): numeric,
fixed-size and string data buffers become numpy views of Arrow's memory
(32-bit string offsets are widened to int64, a copy); validity bitmaps become
boolean masks; a null slot holding anything but zeros is copied and zeroed.
For the writer (``borrow=True``) two of those copies are left to the leaf
that encodes the column (:func:`parquet_core.table.write_leaves.flat_leaf`),
so a table is never converted whole at once: a flat string column keeps
Arrow's 32-bit offsets, and a decimal128/256 of precision <= 18 is the
strided int64 view of its low words.
Chunks are converted one by one and concatenated; string and binary
dictionary arrays become a :class:`~parquet_core.table.dictionary.DictionaryArray`
keeping each chunk's dictionary (written as the dictionary page, and given
back by :func:`array_to_arrow`), other dictionary arrays are decoded; view
types are cast to their large form, extension types (uuid, json) unwrapped.
Type mapping:

=====================================  =====================================
Arrow                                  parquet_core
=====================================  =====================================
bool, int*, uint*, float16/32/64       same name
string / large_string / string_view    string (UTF-8 checked when asked)
binary / large_binary / binary_view    binary
fixed_size_binary[w]                   fixed_size_binary[w]
decimal32/64/128/256(p, s)             decimal(p, s): int64 unscaled when
                                       p <= 18, else big-endian bytes of the
                                       fewest bytes holding p digits
date32 / date64                        date (date64 floored to whole days)
time32 / time64                        time in that unit (seconds -> ms)
timestamp(unit, tz)                    timestamp; s -> ms; any tz -> UTC
                                       (Arrow stores instants in UTC)
duration(unit)                         int64 (the unit is in ARROW:schema)
month_day_nano_interval                interval, when nanos are whole ms
null                                   null
uuid / json extension                  uuid / json
other extension types                  their storage (the type is in
                                       ARROW:schema)
=====================================  =====================================

A table converted from Arrow carries the footer key/values pyarrow writes
for it (``ARROW:schema``, then the schema's metadata) as its ``metadata``.

To Arrow, lists, maps and structs are built from their offsets, validity and
children (:mod:`parquet_core.interop.arrow_nested`).  From Arrow, lists
(plain, large, fixed-size), maps and structs are converted the same way,
through their buffers; unions and list views raise UnsupportedFeatureError.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import ParquetSchemaError, UnsupportedFeatureError
from parquet_core.interop.arrow_metadata import (
    field_id_of,
    restore_columns,
    schema_key_values,
    type_with_arrow_ids,
)
from parquet_core.interop.arrow_nested import nested_from_arrow, nested_to_arrow
from parquet_core.interop.arrow_types import arrow_type, schema_to_arrow
from parquet_core.schema.temporal import int96_to_epoch, int96_to_ns
from parquet_core.schema.types import DataType, Field, Schema, TypeId
from parquet_core.table.arrays import Array, Table
from parquet_core.table.decimal_words import decimal_le_rows
from parquet_core.table.dictionary import DictionaryArray, DictionaryRun
from parquet_core.table.infer import decimal_width, fill_nulls, schema_error
from parquet_core.table.utf8 import first_invalid_utf8

__all__ = ["arrow_type", "schema_from_arrow", "array_to_arrow", "table_to_arrow", "schema_to_arrow",
           "array_from_arrow", "table_from_arrow", "arrow_from_pandas"]

def _bitmap(validity: np.ndarray | None) -> pa.Buffer | None:
    if validity is None:
        return None
    return pa.py_buffer(np.packbits(validity, bitorder="little"))


def _binary(values: ByteArrays, n: int, validity: Any, typ: pa.DataType) -> pa.Array:
    first, last = int(values.offsets[0]), int(values.offsets[-1])
    data = values.data[first:last]
    if last - first >= 2**31 - 1:
        typ = pa.large_string() if pa.types.is_string(typ) else pa.large_binary()
        obuf = pa.py_buffer(np.ascontiguousarray(values.offsets - first, dtype=np.int64))
    elif last <= 2**31 - 1:
        # every offset fits int32 as it is: narrow, then rebase in int32 (a plain cast is about
        # three times as fast as numpy's mixed-type subtract below, a few us of every batch)
        narrow = values.offsets.astype(np.int32)
        if first:
            narrow -= np.int32(first)
        obuf = pa.py_buffer(narrow)
    else:   # rebase and narrow in one pass (every rebased offset fits int32 here)
        narrow = np.empty(len(values.offsets), dtype=np.int32)
        np.subtract(values.offsets, first, out=narrow, casting="unsafe")
        obuf = pa.py_buffer(narrow)
    return pa.Array.from_buffers(typ, n, [_bitmap(validity), obuf, pa.py_buffer(np.ascontiguousarray(data))])


def _decimal(arr: Array, typ: pa.DataType) -> pa.Array:
    # every storage (INT32, INT64, FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY) is turned into Arrow's
    # little-endian rows by numpy, never through a Python Decimal per value
    width = 32 if pa.types.is_decimal256(typ) else 16
    rows = decimal_le_rows(arr.values, len(arr), width, arr.type)
    return pa.Array.from_buffers(typ, len(arr), [_bitmap(arr.validity), pa.py_buffer(rows)])


def _dictionary_to_arrow(arr: DictionaryArray) -> pa.Array | pa.ChunkedArray:
    """One Arrow dictionary array per run (int32 indices): a chunked array for several."""
    typ = arrow_type(arr.type)
    chunks = []
    binary = isinstance(arr.values, ByteArrays)
    for run, valid in zip(arr.runs, arr.run_validity()):
        entries = (_binary(run.dictionary, len(run.dictionary), None, typ) if binary
                   else array_to_arrow(Array(arr.type, run.dictionary, None)))
        indices = pa.Array.from_buffers(pa.int32(), len(run.indices),
                                        [_bitmap(valid), pa.py_buffer(np.ascontiguousarray(run.indices))])
        chunks.append(pa.DictionaryArray.from_arrays(indices, entries))
    if len(chunks) == 1:
        return chunks[0]
    return pa.chunked_array(chunks, type=pa.dictionary(pa.int32(), typ))


#: (DataType, numpy dtype) -> the Arrow type that takes such values' buffer as it is, or
#: None (decided once per pair by the checks of :func:`array_to_arrow`; batches convert
#: the same columns over and over)
_AS_IS: dict[tuple[DataType, np.dtype], pa.DataType | None] = {}


def _as_is(dt: DataType, dtype: np.dtype) -> pa.DataType | None:
    key = (dt, dtype)
    try:
        return _AS_IS[key]
    except KeyError:
        pass
    typ: pa.DataType | None = None
    if not dt.is_nested and dt.id not in (TypeId.NULL, TypeId.DECIMAL, TypeId.INT96) and dtype.kind in "iuf":
        t = arrow_type(dt)
        if pa.types.is_primitive(t) and not pa.types.is_boolean(t) and \
                t.bit_width == dtype.itemsize * 8 and (dtype.kind == "f") == pa.types.is_floating(t):
            typ = t
    if len(_AS_IS) < 1024:
        _AS_IS[key] = typ
    return typ


def array_to_arrow(arr: Array) -> pa.Array:
    """Convert one :class:`Array` (nested ones with their children; a
    :class:`DictionaryArray` of several runs gives a ``ChunkedArray``)."""
    dt = arr.type
    values = arr.values
    if type(arr) is Array and type(values) is np.ndarray and values.ndim == 1:
        typ = _as_is(dt, values.dtype)
        if typ is not None:     # the fixed-width case below, its checks remembered
            return pa.Array.from_buffers(typ, len(values), [_bitmap(arr.validity),
                                                            pa.py_buffer(np.ascontiguousarray(values))])
    if isinstance(arr, DictionaryArray) and (isinstance(arr.values, ByteArrays)
                                             or (arr.requested and not dt.is_nested)):
        # flat non-binary dictionaries: the Hive partition columns pyarrow.parquet reads as
        # dictionary<int32, int32> (a file's numbers are never read dictionary-encoded)
        return _dictionary_to_arrow(arr)
    if dt.is_nested:
        return nested_to_arrow(arr, array_to_arrow)
    typ = arrow_type(dt)
    n = len(arr)
    mask = None if arr.validity is None else ~arr.validity
    if dt.id is TypeId.NULL:
        return pa.nulls(n)
    if isinstance(arr.values, ByteArrays):
        if dt.id is TypeId.DECIMAL:
            return _decimal(arr, typ)
        if isinstance(typ, pa.BaseExtensionType):
            storage = _binary(arr.values, n, arr.validity, typ.storage_type)
            return pa.ExtensionArray.from_storage(typ, storage)
        return _binary(arr.values, n, arr.validity, typ)
    if dt.id is TypeId.DECIMAL:
        return _decimal(arr, typ)
    if dt.id is TypeId.INT96:
        unit = "ns"
        values = int96_to_ns(arr.values, arr.validity)   # None: some value needs the checks below
        if values is None:
            values, ok = int96_to_epoch(arr.values, "ns")
            if not ok[arr.validity if arr.validity is not None else slice(None)].all():
                # Outside timestamp[ns]'s years 1677-2262: microseconds, dropping
                # sub-microsecond digits, as Spark's own INT96 reading does.
                values, _ = int96_to_epoch(arr.values, "us")
                unit = "us"
        return pa.Array.from_buffers(pa.timestamp(unit), n, [_bitmap(arr.validity),
                                                            pa.py_buffer(np.ascontiguousarray(values, np.int64))])
    if isinstance(arr.values, np.ndarray) and arr.values.ndim == 2:
        flat = np.ascontiguousarray(arr.values).reshape(-1)
        storage = pa.Array.from_buffers(pa.binary(arr.values.shape[1]), n,
                                        [_bitmap(arr.validity), pa.py_buffer(flat)])
        if isinstance(typ, pa.BaseExtensionType):
            return pa.ExtensionArray.from_storage(typ, storage)
        return storage
    values = arr.values
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "iuf" and \
            pa.types.is_primitive(typ) and not pa.types.is_boolean(typ) and \
            typ.bit_width == values.dtype.itemsize * 8 and \
            (values.dtype.kind == "f") == pa.types.is_floating(typ):
        # fixed-width numbers, dates, times, timestamps: Arrow takes numpy's buffer as it
        # is (no copy; pa.array would also import pandas to inspect its argument)
        data = np.ascontiguousarray(values)
        return pa.Array.from_buffers(typ, n, [_bitmap(arr.validity), pa.py_buffer(data)])
    return pa.array(values, type=typ, mask=mask)


def table_to_arrow(table: Table) -> pa.Table:
    """Convert a :class:`Table` (column names and order kept).

    A table whose metadata holds an ``ARROW:schema`` entry (one read from a
    file pyarrow or parquet_core wrote) gets back the Arrow types and field
    metadata it records where Parquet has no type of its own for them, and
    keeps the other keys as schema metadata, as ``pyarrow.parquet`` does
    (see :mod:`parquet_core.interop.arrow_metadata`).
    """
    columns = table.columns      # a new list each time it is asked for: once here
    if not columns:
        return pa.table({}).slice(0, 0)
    metadata = table.metadata
    plan = _PLANS.get(id(table.schema))
    if plan is not None and plan.schema is table.schema and plan.metadata == (metadata or {}) \
            and plan.same_fields(table.schema.fields):
        # a batch of a schema converted before (iter_batches): the plan's Arrow types and
        # schema, checked against this batch's columns, instead of working them out again
        arrays = plan.convert(columns)
        if arrays is not None:
            return pa.Table.from_arrays(arrays, schema=plan.arrow_schema)
    arrays = [array_to_arrow(c) for c in columns]

    def as_read(i: int) -> bool:
        # read_dictionary: pyarrow gives int32 indices, unordered, whatever was stored
        col = columns[i]
        return isinstance(col, DictionaryArray) and bool(col.requested)

    out, schema = restore_columns(table.schema.fields, arrays, metadata, as_read)
    if all(o is a for o, a in zip(out, arrays)):
        # nothing restored: the schema is a function of the fields, the footer's key/values,
        # each column's Arrow type and as_read, which the plan checks for the next batch
        if len(_PLANS) >= 16:
            _PLANS.clear()
        _PLANS[id(table.schema)] = _Plan(table.schema, metadata, columns, arrays, schema)
    return pa.Table.from_arrays(out, schema=schema)


class _Plan:
    """What :func:`table_to_arrow` worked out for one table of a schema and needs again for
    the next batch of it: each column's Arrow type and ``as_read``, the Arrow schema, and
    for each flat fixed-width column the numpy dtype whose buffer Arrow takes as it is.

    Only made when :func:`restore_columns` kept every array (nothing to restore), so the
    Arrow schema depends on nothing but what :meth:`convert` checks.  Every member is
    immutable or a private copy (the footer's key/values): nothing of one batch is kept
    for the next but types.  The strong reference to *schema* keeps its ``id`` (the key
    of :data:`_PLANS`) from being reused while the plan lives.
    """

    __slots__ = ("schema", "fields", "metadata", "kinds", "types", "arrow_schema")

    def __init__(self, schema: Schema, metadata: dict[bytes, bytes] | None, columns: list[Array],
                 arrays: list[Any], arrow_schema: pa.Schema) -> None:
        self.schema = schema
        # (a Schema's list of fields can be changed in place: its Field objects, immutable,
        # are compared one by one, by identity, which the references kept here make sound)
        self.fields = tuple(schema.fields)
        self.metadata = dict(metadata or {})
        self.arrow_schema = arrow_schema
        kinds: list[tuple[Any, ...]] = []
        for col in columns:
            values = col.values
            if type(col) is Array and type(values) is np.ndarray and values.ndim == 1 \
                    and _as_is(col.type, values.dtype) is not None:
                # (the column's own DataType object, the one its next batches share)
                kinds.append((col.type, values.dtype))
            else:
                kinds.append((None, isinstance(col, DictionaryArray) and bool(col.requested)))
        self.kinds = tuple(kinds)
        self.types = tuple(a.type for a in arrays)

    def same_fields(self, fields: list[Field]) -> bool:
        """True when *fields* are still the Field objects the plan was made with."""
        mine = self.fields
        return len(fields) == len(mine) and all(a is b for a, b in zip(fields, mine))

    def convert(self, columns: list[Array]) -> list[Any] | None:
        """*columns* converted, or None when one of them is not what the plan was made for
        (another Arrow type, dictionary requested or not): the caller converts afresh."""
        out = []
        for col, (dt, second), typ in zip(columns, self.kinds, self.types):
            values = col.values
            if dt is not None:
                if not (type(col) is Array and col.type is dt and type(values) is np.ndarray
                        and values.dtype == second and values.ndim == 1):
                    return None
                # array_to_arrow's fixed-width case, its checks done when the plan was made
                out.append(pa.Array.from_buffers(typ, len(values), [_bitmap(col.validity),
                                                                    pa.py_buffer(np.ascontiguousarray(values))]))
                continue
            if (isinstance(col, DictionaryArray) and bool(col.requested)) is not second:
                return None
            arr = array_to_arrow(col)
            if not arr.type.equals(typ, check_metadata=True):
                return None
            out.append(arr)
        return out


#: :class:`_Plan` by ``id`` of the :class:`Schema` it was made for (the batches of one read
#: share their schema object)
_PLANS: dict[int, _Plan] = {}


# ---------------------------------------------------------------- from Arrow

_NUMERIC_FROM = {
    pa.bool_(): TypeId.BOOL, pa.int8(): TypeId.INT8, pa.int16(): TypeId.INT16, pa.int32(): TypeId.INT32,
    pa.int64(): TypeId.INT64, pa.uint8(): TypeId.UINT8, pa.uint16(): TypeId.UINT16,
    pa.uint32(): TypeId.UINT32,
    pa.uint64(): TypeId.UINT64, pa.float16(): TypeId.FLOAT16, pa.float32(): TypeId.FLOAT32,
    pa.float64(): TypeId.FLOAT64,
}
_NP = {TypeId.INT8: "<i1", TypeId.INT16: "<i2", TypeId.INT32: "<i4", TypeId.INT64: "<i8", TypeId.UINT8: "<u1",
       TypeId.UINT16: "<u2", TypeId.UINT32: "<u4", TypeId.UINT64: "<u8", TypeId.FLOAT16: "<f2",
       TypeId.FLOAT32: "<f4",
       TypeId.FLOAT64: "<f8"}
_MS_PER_DAY = 86_400_000


def _NESTED(t: pa.DataType) -> bool:
    return bool(pa.types.is_struct(t) or pa.types.is_list(t) or pa.types.is_large_list(t)
                or pa.types.is_fixed_size_list(t) or pa.types.is_map(t))
_INT64_MAX = 2**63 - 1


def table_from_arrow(data: Any, *, validate_utf8: bool = True, borrow: bool = False) -> Table:
    """Convert a ``pyarrow.Table`` or ``RecordBatch`` (field names, order, nullability kept).

    *borrow* (the writer's ingest only) keeps two of Arrow's buffers as they are
    (see the module docstring): such a table's string offsets may be int32 and its
    decimals strided, which only the write path's leaves take.

    Raises
    ------
    UnsupportedFeatureError
        For Arrow types without a parquet_core counterpart (unions, list views, ...).
    ParquetSchemaError
        For duplicate names, nulls in a non-nullable field, invalid UTF-8
        (when *validate_utf8*), values out of range after a unit change.
    """
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    if not isinstance(data, pa.Table):
        raise TypeError(f"expected a pyarrow Table or RecordBatch, got {type(data).__name__}")
    names = data.schema.names
    if len(set(names)) != len(names):
        dup = next(n for i, n in enumerate(names) if n in names[:i])
        raise ParquetSchemaError(f"column {dup!r} appears more than once")
    fields, arrays = [], []
    for af, col in zip(data.schema, data.columns):
        arr = array_from_arrow(col, af.name, validate_utf8=validate_utf8, borrow=borrow)
        if not af.nullable and arr.validity is not None and not arr.validity.all():
            raise schema_error(af.name, int(np.argmax(~arr.validity)), "null in a non-nullable field")
        dt = type_with_arrow_ids(arr.type, af.type)
        fields.append(Field(af.name, dt, nullable=af.nullable, field_id=field_id_of(af)))
        arrays.append(arr)
    # the metadata: what a round trip needs (ARROW:schema, pandas...), written unless store_schema=False
    return Table(Schema(fields), arrays, data.num_rows, metadata=schema_key_values(data.schema))


def schema_from_arrow(schema: Any) -> Schema:
    """Convert a ``pyarrow.Schema`` to the :class:`Schema` its data is written with.

    The types come from converting an empty table of that schema, so they are
    exactly the ones :func:`table_from_arrow` gives its data (zoned
    timestamps become UTC-adjusted, ``date64`` becomes ``date``, dictionary
    columns their value type, ...).
    """
    if not isinstance(schema, pa.Schema):
        raise TypeError(f"expected a pyarrow Schema, got {type(schema).__name__}")
    # pa.nulls, unlike empty_table(), makes nested types with extension children
    empty = pa.Table.from_arrays([pa.nulls(0, f.type) for f in schema], schema=schema)
    return table_from_arrow(empty).schema


def array_from_arrow(arr: Any, name: str = "?", *, validate_utf8: bool = True,
                     borrow: bool = False) -> Array:
    """Convert a ``pyarrow.Array`` or ``ChunkedArray`` to an :class:`Array`.

    *name* only labels error messages; *borrow* as in :func:`table_from_arrow`.
    """
    if isinstance(arr, pa.ChunkedArray):
        chunks = arr.chunks or [pa.array([], type=arr.type)]
        # chunks are joined into new int64 offsets and contiguous values: nothing to borrow
        # (nor would 32-bit offsets shifted past 2 GiB of joined data stay exact)
        borrow = borrow and len(chunks) == 1
        return Array.concat([array_from_arrow(c, name, validate_utf8=validate_utf8, borrow=borrow)
                             for c in chunks])
    if not isinstance(arr, pa.Array):
        raise TypeError(f"expected a pyarrow Array, got {type(arr).__name__}")
    t = arr.type
    if isinstance(t, pa.BaseExtensionType):
        inner = array_from_arrow(arr.storage, name, validate_utf8=validate_utf8, borrow=borrow)
        ext = {"arrow.uuid": DataType("uuid", byte_width=16), "arrow.json": DataType("json")}
        dt = ext.get(t.extension_name)
        return inner if dt is None else Array(dt, inner.values, inner.validity)
    if pa.types.is_dictionary(t):
        kept = _dictionary_from(arr, name, validate_utf8)
        if kept is not None:
            return kept
        return array_from_arrow(arr.dictionary_decode(), name, validate_utf8=validate_utf8)
    if _is_view(t):
        wide = pa.large_string() if pa.types.is_string_view(t) else pa.large_binary()
        return array_from_arrow(arr.cast(wide), name, validate_utf8=validate_utf8)
    n, validity = len(arr), _validity(arr)
    if _NESTED(t):
        def child(c: pa.Array, child_name: str) -> Array:
            return array_from_arrow(c, child_name, validate_utf8=validate_utf8)

        return nested_from_arrow(arr, child, name, validity)
    if pa.types.is_null(t):
        return Array(DataType("null"), np.zeros(n, dtype=np.int8), np.zeros(n, dtype=bool))
    dt, values = _convert(arr, t, name, borrow)
    if dt.is_text and validate_utf8:
        row = first_invalid_utf8(values, validity)
        if row is not None:
            raise schema_error(name, row, "value is not valid UTF-8")
    return Array(dt, fill_nulls(values, validity), validity)


def _dictionary_from(arr: pa.DictionaryArray, name: str, validate_utf8: bool) -> DictionaryArray | None:
    """A string or binary dictionary array kept with its dictionary, as pyarrow writes it
    (other value types, and dictionaries holding a null entry, give None: decoded instead)."""
    vt = arr.type.value_type
    if not (pa.types.is_string(vt) or pa.types.is_large_string(vt) or pa.types.is_binary(vt)
            or pa.types.is_large_binary(vt)) or arr.dictionary.null_count:
        return None
    # every entry is written, used or not: check them all (UTF-8 included)
    entries = array_from_arrow(arr.dictionary, name, validate_utf8=validate_utf8)
    validity = _validity(arr)
    indices = arr.indices.fill_null(0).to_numpy().astype(np.int64, copy=False)
    if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= len(entries)):
        raise schema_error(name, None, f"dictionary index out of range for {len(entries)} entries")
    run = DictionaryRun(entries.values, indices.astype(np.int32))
    return DictionaryArray(entries.type, [run], validity)


def arrow_from_pandas(df: Any, schema: Schema | None = None) -> pa.Table | None:
    """``pa.Table.from_pandas(df)``, or ``None`` when pyarrow refuses it.

    The index is kept as pyarrow keeps it by default: a RangeIndex only in
    the ``pandas`` metadata, any other index as columns (``__index_level_N__``
    when unnamed).  With *schema*, the frame is converted to its Arrow types
    (:func:`schema_to_arrow`) as ``from_pandas(df, schema=...)`` does: only
    the schema's columns, the index among them if the schema names it.
    """
    try:
        if schema is None:
            return pa.Table.from_pandas(df)
        return pa.Table.from_pandas(df, schema=schema_to_arrow(schema), preserve_index=None)
    except (pa.ArrowException, ValueError, TypeError, KeyError, UnsupportedFeatureError):
        return None


def _is_view(t: pa.DataType) -> bool:
    return bool(getattr(pa.types, "is_string_view", lambda _: False)(t)
                or getattr(pa.types, "is_binary_view", lambda _: False)(t))


def _buffer(arr: pa.Array, index: int, dtype: str, per_slot: int = 1) -> np.ndarray:
    """numpy view of buffer *index* covering the array's slots (its offset applied)."""
    buf = arr.buffers()[index]
    start, count = arr.offset * per_slot, len(arr) * per_slot
    if buf is None or count == 0:
        return np.zeros(count, dtype=dtype)
    return np.frombuffer(buf, dtype=dtype, count=start + count)[start:]


def _bits(arr: pa.Array, index: int) -> np.ndarray:
    buf = arr.buffers()[index]
    n, off = len(arr), arr.offset
    if buf is None:
        return np.zeros(n, dtype=bool)
    raw = np.frombuffer(buf, dtype=np.uint8)
    return np.unpackbits(raw, count=off + n, bitorder="little")[off:].astype(bool)


def _validity(arr: pa.Array) -> np.ndarray | None:
    if arr.null_count == 0:
        return None
    return _bits(arr, 0)


def _convert(arr: pa.Array, t: pa.DataType, name: str, borrow: bool = False) -> tuple[DataType, Any]:
    """Type and storage of a flat, non-null-type array (nulls still hold filler; *borrow* as
    in :func:`table_from_arrow`)."""
    simple = _NUMERIC_FROM.get(t)
    if simple is TypeId.BOOL:
        return DataType("bool"), _bits(arr, 1)
    if simple is not None:
        return DataType(simple), _buffer(arr, 1, _NP[simple])
    if pa.types.is_string(t) or pa.types.is_binary(t) or pa.types.is_large_string(t) \
            or pa.types.is_large_binary(t):
        return _byte_arrays(arr, t, borrow)
    if pa.types.is_fixed_size_binary(t):
        w = t.byte_width
        return DataType("fixed_size_binary", byte_width=w), _buffer(arr, 1, "u1", w).reshape(-1, w)
    if pa.types.is_decimal(t):
        return _decimal_from(arr, t, borrow)
    return _temporal(arr, t, name)


def _byte_arrays(arr: pa.Array, t: pa.DataType, borrow: bool = False) -> tuple[DataType, Any]:
    large = pa.types.is_large_string(t) or pa.types.is_large_binary(t)
    buf = arr.buffers()[1]
    if buf is None:
        offsets = np.zeros(len(arr) + 1, dtype=np.int64)
    else:
        offsets = np.frombuffer(buf, dtype="<i8" if large else "<i4",
                                count=arr.offset + len(arr) + 1)[arr.offset:]
        if not borrow:
            offsets = offsets.astype(np.int64, copy=False)
    data_buf = arr.buffers()[2]
    data = np.zeros(0, np.uint8) if data_buf is None else np.frombuffer(data_buf, dtype=np.uint8)
    base = int(offsets[0])
    if base:  # a slice: re-base so offsets start at 0 (data stays a view)
        data = data[base:int(offsets[-1])]
        offsets = offsets - base
    text = pa.types.is_string(t) or pa.types.is_large_string(t)
    return DataType("string" if text else "binary"), ByteArrays(offsets, data)


def _decimal_from(arr: pa.Array, t: pa.DataType, borrow: bool = False) -> tuple[DataType, Any]:
    p, s, bw = t.precision, t.scale, t.byte_width
    if s < 0:
        raise UnsupportedFeatureError(f"Arrow {t} has a negative scale, which Parquet cannot store")
    if p <= 18 and borrow and bw >= 16:
        # the low words in place: every bw-byte row's first 8 bytes, a strided view
        return DataType("decimal", precision=p, scale=s), \
            _buffer(arr, 1, "<i8", bw // 8)[::bw // 8]
    raw = _buffer(arr, 1, "u1", bw).reshape(-1, bw)  # little-endian two's complement
    if p <= 18:
        # |value| < 10**18 < 2**63: the low 8 (or 4) bytes hold it exactly
        low = "<i4" if bw == 4 else "<i8"
        width = 4 if bw == 4 else 8
        values = np.ascontiguousarray(raw[:, :width]).view(low).reshape(-1).astype(np.int64)
        return DataType("decimal", precision=p, scale=s), values
    w = decimal_width(p)
    return DataType("decimal", precision=p, scale=s, byte_width=w), \
        np.ascontiguousarray(raw[:, ::-1][:, bw - w:])


def _temporal(arr: pa.Array, t: pa.DataType, name: str) -> tuple[DataType, Any]:
    if pa.types.is_date32(t):
        return DataType("date"), _buffer(arr, 1, "<i4")
    if pa.types.is_date64(t):
        return DataType("date"), (_buffer(arr, 1, "<i8") // _MS_PER_DAY).astype(np.int32)
    if pa.types.is_time32(t):
        v = _buffer(arr, 1, "<i4")
        return DataType("time", unit="ms"), (v * np.int32(1000) if t.unit == "s" else v)
    if pa.types.is_time64(t):
        return DataType("time", unit=t.unit), _buffer(arr, 1, "<i8")
    if pa.types.is_timestamp(t):
        v = _buffer(arr, 1, "<i8")
        unit = t.unit
        if unit == "s":
            bad = (v > _INT64_MAX // 1000) | (v < -(_INT64_MAX // 1000))
            if arr.null_count:
                bad &= _bits(arr, 0)
            if bad.any():
                raise schema_error(name, int(np.argmax(bad)), "seconds timestamp overflows milliseconds")
            v, unit = v * 1000, "ms"
        return DataType("timestamp", unit=unit, tz="UTC" if t.tz else None), v
    if pa.types.is_duration(t):
        # pyarrow stores durations as plain INT64 in their unit; ARROW:schema says the rest
        return DataType("int64"), _buffer(arr, 1, "<i8")
    if pa.types.is_interval(t):
        return _interval(arr, name)
    if pa.types.is_nested(t) or pa.types.is_union(t):
        raise UnsupportedFeatureError(f"column {name!r}: Arrow type {t} (union, list view) has no "
                                      "parquet_core type")
    raise UnsupportedFeatureError(f"column {name!r}: Arrow type {t} has no parquet_core type")


def _interval(arr: pa.Array, name: str) -> tuple[DataType, Any]:
    """month_day_nano (int32, int32, int64) -> Parquet INTERVAL (3 x uint32: months, days, ms)."""
    raw = np.ascontiguousarray(_buffer(arr, 1, "u1", 16).reshape(-1, 16))
    months = raw[:, 0:4].copy().view("<i4").reshape(-1).astype(np.int64)
    days = raw[:, 4:8].copy().view("<i4").reshape(-1).astype(np.int64)
    nanos = raw[:, 8:16].copy().view("<i8").reshape(-1)
    ms = nanos // 1_000_000
    bad = (months < 0) | (days < 0) | (nanos % 1_000_000 != 0) | (ms < 0) | (ms >= 2**32)
    if arr.null_count:
        bad &= _bits(arr, 0)
    if bad.any():
        raise schema_error(name, int(np.argmax(bad)),
                           "interval needs non-negative months, days and whole milliseconds below 2**32")
    out = np.stack([months, days, ms], axis=1).astype("<u4")
    return DataType("interval", byte_width=12), np.ascontiguousarray(out).view(np.uint8).reshape(-1, 12)
