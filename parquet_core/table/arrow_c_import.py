"""Arrow C Data Interface arrays as parquet_core arrays (what ``__arrow_c_*__`` producers give).

Types map as :mod:`parquet_core.schema.arrow_format` lists.  Buffers laid out
as ours (numbers, dates, times, timestamps in ms/us/ns, fixed-size binary,
64-bit offsets and the bytes of strings) become numpy views of the producer's
memory, kept alive (and released once) by
:mod:`parquet_core.arrow_c.consume`; the rest is converted: bitmaps to
boolean masks, 32-bit offsets widened, view types gathered into offsets and
bytes, decimals to our storage, seconds to milliseconds (refusing values
that overflow), ``date64`` floored to days, ``month_day_nano`` intervals to
Parquet's (refusing what it cannot hold).  Null slots holding anything but
zeros are zeroed (a copy), as our arrays require.  A dictionary of strings or
binaries stays a :class:`~parquet_core.table.dictionary.DictionaryArray`;
other dictionaries are decoded.

Record batches (struct arrays) become :class:`Table` s; a stream is read one
batch at a time (:func:`iter_stream`).
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core._kernels.runs import gather_runs
from parquet_core.arrow_c.consume import ImportedArray, StreamReader, import_array, import_schema
from parquet_core.arrow_c.export import SchemaNode
from parquet_core.errors import ParquetFormatError, ParquetSchemaError, UnsupportedFeatureError
from parquet_core.schema.arrow_format import describe_format, schema_from_node, type_from_node
from parquet_core.schema.types import DataType, Field, Schema
from parquet_core.table.arrays import Array, Table
from parquet_core.table.assemble import empty_column
from parquet_core.table.dictionary import DictionaryArray, DictionaryRun
from parquet_core.table.infer import fill_nulls, schema_error
from parquet_core.table.nested import ListArray, MapArray, StructArray
from parquet_core.table.select import take_array
from parquet_core.table.utf8 import first_invalid_utf8

__all__ = ["array_from_c", "table_from_batch", "iter_stream", "table_from_capsules", "column_from_capsules",
           "has_capsule"]

_NUMPY = {"c": "<i1", "C": "<u1", "s": "<i2", "S": "<u2", "i": "<i4", "I": "<u4", "l": "<i8", "L": "<u8",
          "e": "<f2", "f": "<f4", "g": "<f8", "tdD": "<i4", "ttm": "<i4", "ttu": "<i8", "ttn": "<i8",
          "tDs": "<i8", "tDm": "<i8", "tDu": "<i8", "tDn": "<i8"}
_INT64_MAX = 2**63 - 1
_MS_PER_DAY = 86_400_000


def has_capsule(obj: Any) -> bool:
    """True when *obj* exposes the Arrow PyCapsule interface for tables or arrays."""
    return hasattr(obj, "__arrow_c_stream__") or hasattr(obj, "__arrow_c_array__")


def _bits(arr: ImportedArray, index: int, start: int, n: int) -> np.ndarray:
    raw = arr.buffer(index, np.uint8, (start + n + 7) // 8)
    return np.unpackbits(raw, count=start + n, bitorder="little")[start:].astype(bool)


def _validity(arr: ImportedArray, start: int, n: int) -> np.ndarray | None:
    if arr.null_count == 0 or not arr.has_buffer(0) or n == 0:
        return None
    mask = _bits(arr, 0, start, n)
    return None if mask.all() else mask


def array_from_c(node: SchemaNode, arr: ImportedArray, name: str, *, pos: int = 0, n: int | None = None,
                 validate_utf8: bool = True) -> Array:
    """Slots ``pos .. pos + n`` (default: all) of an imported array as an :class:`Array`.

    Raises
    ------
    UnsupportedFeatureError
        For an Arrow type without a parquet_core counterpart (named).
    ParquetSchemaError
        For values our type cannot hold (named with the row), invalid UTF-8
        (when *validate_utf8*), nulls in a non-nullable child.
    """
    n = arr.length - pos if n is None else n
    if pos < 0 or n < 0 or pos + n > arr.length:   # buffers are only as long as length says
        raise ParquetFormatError(f"column {name!r}: malformed Arrow array: slots {pos}..{pos + n} of an "
                                 f"array of {arr.length}")
    start = arr.offset + pos          # index into this array's buffers
    dt = type_from_node(node, name)   # refuses what we cannot hold, naming the type
    if node.format == "n":
        return Array(dt, np.zeros(n, dtype=np.int8), np.zeros(n, dtype=bool))
    validity = _validity(arr, start, n)
    if node.dictionary is not None:
        return _dictionary(node, arr, name, start, n, validity, validate_utf8)
    if dt.is_nested:
        return _nested(node, dt, arr, name, start, n, validity, validate_utf8)
    values = _flat(node.format, dt, arr, name, start, n, validity)
    if dt.is_text and validate_utf8:
        row = first_invalid_utf8(values, validity)
        if row is not None:
            raise schema_error(name, row, "value is not valid UTF-8")
    return Array(dt, fill_nulls(values, validity), validity)


def _flat(fmt: str, dt: DataType, arr: ImportedArray, name: str, start: int, n: int,
          validity: np.ndarray | None) -> Any:
    if fmt == "b":
        return _bits(arr, 1, start, n)
    if fmt in _NUMPY:
        return arr.buffer(1, _NUMPY[fmt], start + n)[start:]
    if fmt in ("u", "z", "U", "Z"):
        return _byte_arrays(arr, start, n, "<i4" if fmt in ("u", "z") else "<i8")
    if fmt in ("vu", "vz"):
        return _views(arr, name, start, n, validity)
    if fmt.startswith("w:"):
        width = int(fmt[2:])
        return arr.buffer(1, np.uint8, (start + n) * width)[start * width:].reshape(n, width)
    if fmt.startswith("d:"):
        return _decimal(fmt, dt, arr, start, n)
    if fmt == "tdm":
        return (arr.buffer(1, "<i8", start + n)[start:] // _MS_PER_DAY).astype(np.int32)
    if fmt == "tts":
        return arr.buffer(1, "<i4", start + n)[start:] * np.int32(1000)
    if fmt.startswith("ts"):
        v = arr.buffer(1, "<i8", start + n)[start:]
        if fmt[2] == "s":
            bad = (v > _INT64_MAX // 1000) | (v < -(_INT64_MAX // 1000))
            if validity is not None:
                bad &= validity
            if bad.any():
                raise schema_error(name, int(np.argmax(bad)), "seconds timestamp overflows milliseconds")
            v = v * 1000
        return v
    if fmt == "tin":
        return _interval(arr, name, start, n, validity)
    raise UnsupportedFeatureError(f"column {name!r}: Arrow type {describe_format(fmt)} has no "
                                  "parquet_core type")


def _byte_arrays(arr: ImportedArray, start: int, n: int, offset_type: str) -> ByteArrays:
    offsets = arr.buffer(1, offset_type, start + n + 1)[start:] if (n or arr.has_buffer(1)) \
        else np.zeros(1, dtype=np.int64)
    offsets = offsets.astype(np.int64, copy=False)
    lo, hi = int(offsets[0]), int(offsets[-1])
    data = arr.buffer(2, np.uint8, hi)[lo:]
    return ByteArrays(offsets - lo if lo else offsets, data)


def _views(arr: ImportedArray, name: str, start: int, n: int, validity: np.ndarray | None) -> ByteArrays:
    """utf8_view / binary_view: 16-byte views (int32 length, then 12 inline bytes, or a
    4-byte prefix, int32 buffer index and int32 offset) gathered into offsets and bytes."""
    views = arr.buffer(1, np.uint8, (start + n) * 16)[start * 16:].reshape(n, 16)
    lengths = np.ascontiguousarray(views[:, 0:4]).view("<i4").reshape(-1).astype(np.int64)
    if validity is not None:   # what a null slot's view holds is not ours to read
        lengths = np.where(validity, lengths, 0)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    inline = lengths <= 12
    if inline.all():   # short strings only: each value's bytes are the head of its 12 inline bytes
        keep = np.arange(12)[None, :] < lengths[:, None]
        return ByteArrays(offsets, np.ascontiguousarray(views[:, 4:16][keep]))
    # one source: the views themselves (inline values), then every variadic data buffer
    n_data = max(arr.n_buffers - 3, 0)
    sizes = arr.buffer(arr.n_buffers - 1, "<i8", n_data) if n_data else np.zeros(0, np.int64)
    parts = [views.reshape(-1)] + [arr.buffer(2 + i, np.uint8, int(sizes[i])) for i in range(n_data)]
    bases = np.cumsum([0] + [len(p) for p in parts])
    buffer_index = np.ascontiguousarray(views[:, 8:12]).view("<i4").reshape(-1).astype(np.int64)
    buffer_offset = np.ascontiguousarray(views[:, 12:16]).view("<i4").reshape(-1).astype(np.int64)
    outside = ~inline & ((buffer_index < 0) | (buffer_index >= n_data) | (buffer_offset < 0))
    if not outside.any() and n_data:
        ends = buffer_offset + lengths
        outside = ~inline & (ends > sizes[np.clip(buffer_index, 0, n_data - 1)])
    if outside.any():
        raise ParquetFormatError(f"column {name!r}, row {int(np.argmax(outside))}: malformed Arrow view: "
                                 "it points outside its data buffers")
    starts = np.arange(n, dtype=np.int64) * 16 + 4
    if n_data:
        starts = np.where(inline, starts, bases[np.clip(buffer_index, 0, n_data - 1) + 1] + buffer_offset)
    source = np.concatenate(parts) if len(parts) > 1 else parts[0]
    return ByteArrays(offsets, gather_runs(source, starts, lengths, offsets))


def _decimal(fmt: str, dt: DataType, arr: ImportedArray, start: int, n: int) -> Any:
    parts = fmt[2:].split(",")
    width = (int(parts[2]) if len(parts) > 2 else 128) // 8
    raw = arr.buffer(1, np.uint8, (start + n) * width)[start * width:].reshape(n, width)
    if (dt.precision or 0) <= 18:   # |value| < 10**18: the low 8 (or 4) bytes hold it exactly
        low = 4 if width == 4 else 8
        return np.ascontiguousarray(raw[:, :low]).view(f"<i{low}").reshape(-1).astype(np.int64)
    w = dt.byte_width or width
    return np.ascontiguousarray(raw[:, ::-1][:, width - w:])


def _interval(arr: ImportedArray, name: str, start: int, n: int, validity: np.ndarray | None) -> np.ndarray:
    """month_day_nano (int32, int32, int64) as Parquet INTERVAL (3 x uint32: months, days, ms)."""
    raw = np.ascontiguousarray(arr.buffer(1, np.uint8, (start + n) * 16)[start * 16:].reshape(n, 16))
    months = raw[:, 0:4].copy().view("<i4").reshape(-1).astype(np.int64)
    days = raw[:, 4:8].copy().view("<i4").reshape(-1).astype(np.int64)
    nanos = raw[:, 8:16].copy().view("<i8").reshape(-1)
    ms = nanos // 1_000_000
    bad = (months < 0) | (days < 0) | (nanos % 1_000_000 != 0) | (ms < 0) | (ms >= 2**32)
    if validity is not None:
        bad &= validity
    if bad.any():
        raise schema_error(name, int(np.argmax(bad)),
                           "interval needs non-negative months, days and whole milliseconds below 2**32")
    out = np.stack([months, days, ms], axis=1).astype("<u4")
    return np.ascontiguousarray(out).view(np.uint8).reshape(-1, 12)


def _dictionary(node: SchemaNode, arr: ImportedArray, name: str, start: int, n: int,
                validity: np.ndarray | None, validate_utf8: bool) -> Array:
    if arr.dictionary is None or node.dictionary is None:
        raise ParquetFormatError(f"column {name!r}: malformed Arrow array: a dictionary type "
                                 "without its dictionary")
    entries = array_from_c(node.dictionary, arr.dictionary, name, validate_utf8=validate_utf8)
    indices = arr.buffer(1, _NUMPY[node.format], start + n)[start:].astype(np.int64)
    if validity is not None:
        indices = np.where(validity, indices, 0)
    if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= max(len(entries), 1)
                         or not len(entries)):
        raise schema_error(name, None, f"dictionary index out of range for {len(entries)} entries")
    if isinstance(entries.values, ByteArrays) and entries.validity is None and type(entries) is Array:
        return DictionaryArray(entries.type, [DictionaryRun(entries.values, indices.astype(np.int32))],
                               validity)
    # other value types (and dictionaries with null entries) are decoded
    decoded = take_array(entries, indices)
    if validity is None:
        return decoded
    mask = validity if decoded.validity is None else validity & decoded.validity
    return type(decoded)(decoded.type, fill_nulls(decoded.values, mask), mask) \
        if type(decoded) is Array else _with_validity(decoded, mask)


def _with_validity(arr: Array, mask: np.ndarray) -> Array:
    if isinstance(arr, StructArray):
        return StructArray(arr.type, arr.values, len(arr), mask)
    if isinstance(arr, ListArray):
        return type(arr)(arr.type, arr.offsets, arr.values, mask)
    return Array(arr.type, arr.values, mask)


def _check_required(child: Array, field: Field, name: str, parent_valid: np.ndarray | None) -> None:
    if field.nullable or child.validity is None:
        return
    bad = ~child.validity if parent_valid is None else (~child.validity & parent_valid)
    if bad.any():
        raise schema_error(name, int(np.argmax(bad)), "null in a non-nullable field")


def _list_offsets(node: SchemaNode, arr: ImportedArray, start: int, n: int) -> np.ndarray:
    if node.format.startswith("+w:"):
        size = int(node.format[3:])
        return (np.arange(n + 1, dtype=np.int64) + start) * size
    kind = "<i8" if node.format == "+L" else "<i4"
    if n == 0 and not arr.has_buffer(1):
        return np.zeros(1, dtype=np.int64)
    return arr.buffer(1, kind, start + n + 1)[start:].astype(np.int64)


def _nested(node: SchemaNode, dt: DataType, arr: ImportedArray, name: str, start: int, n: int,
            validity: np.ndarray | None, validate_utf8: bool) -> Array:
    if len(arr.children) != len(node.children):
        raise ParquetFormatError(f"column {name!r}: malformed Arrow array: {len(arr.children)} children "
                                 f"for a type with {len(node.children)}")
    if node.format == "+s":
        kids = []
        for child_node, child, f in zip(node.children, arr.children, dt.fields):
            kid = array_from_c(child_node, child, f"{name}.{f.name}", pos=start, n=n,
                               validate_utf8=validate_utf8)
            _check_required(kid, f, f"{name}.{f.name}", validity)
            kids.append(kid)
        return StructArray(dt, kids, n, validity)
    offsets = _list_offsets(node, arr, start, n)
    lo, hi = int(offsets[0]), int(offsets[-1])
    offsets = offsets - lo
    if validity is not None and (offsets[1:] != offsets[:-1])[~validity].any():
        # a null list spanning child slots: our lists span none (Arrow allows either)
        keep = np.repeat(validity, np.diff(offsets))
        child_full = array_from_c(node.children[0], arr.children[0], f"{name}.element", pos=lo, n=hi - lo,
                                  validate_utf8=validate_utf8)
        items = take_array(child_full, np.flatnonzero(keep))
        lengths = np.where(validity, np.diff(offsets), 0)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    else:
        items = array_from_c(node.children[0], arr.children[0], f"{name}.element", pos=lo, n=hi - lo,
                             validate_utf8=validate_utf8)
    if node.format == "+m":
        key_f = dt.fields[0]
        if not isinstance(items, StructArray) or len(items.values) != 2:
            raise ParquetFormatError(f"column {name!r}: malformed Arrow map: its entries are not "
                                     "key/value structs")
        _check_required(items.values[0], key_f, f"{name}.key", None)
        entries = StructArray(DataType("struct", fields=dt.fields), list(items.values), len(items))
        return MapArray(dt, offsets, entries, validity)
    _check_required(items, dt.fields[0], f"{name}.element", None)
    return ListArray(dt, offsets, items, validity)


def table_from_batch(schema: SchemaNode, batch: ImportedArray, fields: Schema | None = None, *,
                     validate_utf8: bool = True) -> Table:
    """One record batch (a struct array per *schema*) as a :class:`Table`."""
    fields = fields if fields is not None else schema_from_node(schema)
    names = fields.names
    if len(set(names)) != len(names):
        dup = next(x for i, x in enumerate(names) if x in names[:i])
        raise ParquetSchemaError(f"column {dup!r} appears more than once")
    if len(batch.children) != len(schema.children):
        raise ParquetFormatError(f"malformed Arrow record batch: {len(batch.children)} columns for a "
                                 f"schema of {len(schema.children)}")
    columns = []
    for child_node, child, f in zip(schema.children, batch.children, fields):
        col = array_from_c(child_node, child, f.name, pos=batch.offset, n=batch.length,
                           validate_utf8=validate_utf8)
        _check_required(col, f, f.name, None)
        columns.append(col)
    return Table(fields, columns, batch.length)


def _needs_arrow_schema(node: SchemaNode) -> bool:
    """True when *node* (or a child) has a type our Parquet types cannot say alone: a
    duration, or a time zone other than UTC."""
    fmt = node.format
    if fmt.startswith("tD") or (fmt.startswith("ts") and fmt[4:] not in ("", "UTC", "+00:00")):
        return True
    return any(_needs_arrow_schema(c) for c in node.children) or \
        (node.dictionary is not None and _needs_arrow_schema(node.dictionary))


def stream_key_values(schema: SchemaNode) -> dict[bytes, bytes] | None:
    """The footer key/values a table imported with *schema* brings: the schema's own
    metadata and, when a column needs it (:func:`_needs_arrow_schema`), the
    ``ARROW:schema`` pyarrow would write for it, encoded without pyarrow."""
    if not any(_needs_arrow_schema(c) for c in schema.children):
        return None
    from parquet_core.metadata.arrow_ipc_write import encode_schema_nodes

    meta = {k: v for k, v in (schema.metadata or {}).items() if k != b"ARROW:schema"}
    meta[b"ARROW:schema"] = encode_schema_nodes(schema.children, meta or None)
    return meta


def _with_key_values(table: Table, meta: dict[bytes, bytes] | None) -> Table:
    if meta is not None:
        table._metadata = dict(meta)
    return table


def iter_stream(obj: Any, *, validate_utf8: bool = True) -> tuple[Schema, Iterator[Table]]:
    """The schema of *obj*'s Arrow stream and an iterator of its batches as Tables, pulled
    from the producer one at a time (``__arrow_c_stream__``; an ``__arrow_c_array__``
    record batch gives one)."""
    if not hasattr(obj, "__arrow_c_stream__"):
        schema_capsule, array_capsule = obj.__arrow_c_array__()
        node = import_schema(schema_capsule)
        batch = import_array(array_capsule)
        fields = schema_from_node(node)
        meta = stream_key_values(node)
        return fields, iter([_with_key_values(table_from_batch(node, batch, fields, validate_utf8=validate_utf8),
                                              meta)])
    reader = StreamReader(obj.__arrow_c_stream__())
    fields = schema_from_node(reader.schema)
    meta = stream_key_values(reader.schema)

    def batches() -> Iterator[Table]:
        for batch in reader:
            yield _with_key_values(table_from_batch(reader.schema, batch, fields, validate_utf8=validate_utf8),
                                   meta)

    return fields, batches()


def table_from_capsules(obj: Any, *, validate_utf8: bool = True) -> Table:
    """All of *obj*'s Arrow data as one :class:`Table` (batches concatenated)."""
    fields, batches = iter_stream(obj, validate_utf8=validate_utf8)
    tables = list(batches)
    if len(tables) == 1:
        return tables[0]
    whole = Table.concat(tables, fields)
    return _with_key_values(whole, tables[0].metadata if tables else None)


def _refuse_lone(node: SchemaNode, name: str) -> None:
    """A lone column has no footer entry of its own to keep a duration's unit in."""
    if _needs_arrow_schema(node) and any(_durations(node)):
        raise UnsupportedFeatureError(
            f"column {name!r}: an Arrow duration given as a lone column would be stored as a plain "
            "int64 (its unit lives in the table's ARROW:schema); pass the whole table or stream "
            "(a polars DataFrame, a record batch), or cast it to an integer count first")


def _durations(node: SchemaNode) -> Iterator[bool]:
    yield node.format.startswith("tD")
    for c in node.children:
        yield from _durations(c)


def column_from_capsules(obj: Any, name: str, *, validate_utf8: bool = True) -> Array:
    """One column from an object exposing an Arrow array (``__arrow_c_array__``) or a
    stream of arrays (``__arrow_c_stream__``, e.g. a polars Series)."""
    if hasattr(obj, "__arrow_c_array__"):
        schema_capsule, array_capsule = obj.__arrow_c_array__()
        node = import_schema(schema_capsule)
        _refuse_lone(node, name)
        return array_from_c(node, import_array(array_capsule), name, validate_utf8=validate_utf8)
    reader = StreamReader(obj.__arrow_c_stream__())
    node = reader.schema
    _refuse_lone(node, name)
    parts = [array_from_c(node, chunk, name, validate_utf8=validate_utf8) for chunk in reader]
    if not parts:
        return empty_column(Field(name, type_from_node(node, name)))
    return Array.concat(parts)

