"""Convert parquet_core tables, arrays and schemas to pyarrow, zero-copy where possible.

Numeric buffers and byte-array offsets/data are handed to Arrow as buffers;
only decimals stored as big-endian bytes go through Python ``Decimal``s.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import UnsupportedFeatureError
from parquet_core.schema.temporal import int96_to_epoch
from parquet_core.interop.arrow_types import arrow_type, schema_to_arrow
from parquet_core.table.arrays import Array, Table

__all__ = ["arrow_type", "array_to_arrow", "table_to_arrow", "schema_to_arrow"]

def _bitmap(validity: np.ndarray | None) -> pa.Buffer | None:
    if validity is None:
        return None
    return pa.py_buffer(np.packbits(validity, bitorder="little"))


def _binary(values: ByteArrays, n: int, validity: Any, typ: pa.DataType) -> pa.Array:
    offsets = values.offsets - values.offsets[0]
    data = values.data[int(values.offsets[0]):int(values.offsets[-1])]
    if int(offsets[-1]) >= 2**31 - 1:
        typ = pa.large_string() if pa.types.is_string(typ) else pa.large_binary()
        obuf = pa.py_buffer(np.ascontiguousarray(offsets, dtype=np.int64))
    else:
        obuf = pa.py_buffer(offsets.astype(np.int32))
    return pa.Array.from_buffers(typ, n, [_bitmap(validity), obuf, pa.py_buffer(np.ascontiguousarray(data))])


def _decimal(arr: Array, typ: pa.DataType) -> pa.Array:
    vals = arr.values
    if isinstance(vals, np.ndarray) and vals.ndim == 1 and pa.types.is_decimal128(typ):
        lo = vals.astype(np.int64)
        words = np.empty((len(lo), 2), dtype="<i8")
        words[:, 0] = lo
        words[:, 1] = np.where(lo < 0, -1, 0)
        return pa.Array.from_buffers(typ, len(lo), [_bitmap(arr.validity), pa.py_buffer(words)])
    return pa.array(arr.to_pylist(), type=typ)


def array_to_arrow(arr: Array) -> pa.Array:
    """Convert one :class:`Array`."""
    dt = arr.type
    typ = arrow_type(dt)
    n = len(arr)
    mask = None if arr.validity is None else ~arr.validity
    if dt.name == "null":
        return pa.nulls(n)
    if isinstance(arr.values, ByteArrays):
        if dt.name == "decimal":
            return _decimal(arr, typ)
        if isinstance(typ, pa.BaseExtensionType):
            storage = _binary(arr.values, n, arr.validity, typ.storage_type)
            return pa.ExtensionArray.from_storage(typ, storage)
        return _binary(arr.values, n, arr.validity, typ)
    if dt.name == "decimal":
        return _decimal(arr, typ)
    if dt.name == "int96":
        values, ok = int96_to_epoch(arr.values, "ns")
        unit = "ns"
        if not ok[arr.validity if arr.validity is not None else slice(None)].all():
            values, ok = int96_to_epoch(arr.values, "us")
            unit = "us"
            if not ok[arr.validity if arr.validity is not None else slice(None)].all():
                raise UnsupportedFeatureError("INT96 values do not fit an Arrow timestamp")
        return pa.array(values, type=pa.timestamp(unit), mask=mask)
    if isinstance(arr.values, np.ndarray) and arr.values.ndim == 2:
        flat = np.ascontiguousarray(arr.values).reshape(-1)
        storage = pa.Array.from_buffers(pa.binary(arr.values.shape[1]), n,
                                        [_bitmap(arr.validity), pa.py_buffer(flat)])
        if isinstance(typ, pa.BaseExtensionType):
            return pa.ExtensionArray.from_storage(typ, storage)
        return storage
    return pa.array(arr.values, type=typ, mask=mask)


def table_to_arrow(table: Table) -> pa.Table:
    """Convert a :class:`Table` (column names and order kept)."""
    arrays = [array_to_arrow(c) for c in table.columns]
    fields = [pa.field(f.name, a.type, nullable=f.nullable) for f, a in zip(table.schema, arrays)]
    if not arrays:
        return pa.table({}).slice(0, 0)
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))
