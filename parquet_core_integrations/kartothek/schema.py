"""The table schema: ``_common_metadata``, type normalization and ``pandas`` metadata.

``<uuid>/<table>/_common_metadata`` is a Parquet footer without row groups.
Its schema is the truth for the table's columns, their order and the types
of the partition columns (which the data files do not hold).  Kartothek
normalizes types before storing them: every signed integer becomes int64,
unsigned uint64, floats float64 (recursively inside lists); timestamps are
stored in microseconds.  Column order: partition keys first, then the other
columns sorted by name.  Every field is nullable.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

import parquet_core as pc
from parquet_core_integrations.kartothek import naming
from parquet_core_integrations.kartothek.errors import DatasetSchemaError, KartothekError
from parquet_core_integrations.kartothek.store import Store

__all__ = ["FLOAT_TYPES", "TableSchema", "load_schema", "normalize_type", "normalized_schema", "write_schema",
           "pandas_metadata", "is_index_column", "check_compatible"]

_INDEX_COLUMN = re.compile(r"__index_level_\d+__")
_INTS = frozenset([pc.TypeId.INT8, pc.TypeId.INT16, pc.TypeId.INT32, pc.TypeId.INT64])
_UINTS = frozenset([pc.TypeId.UINT8, pc.TypeId.UINT16, pc.TypeId.UINT32, pc.TypeId.UINT64])
FLOAT_TYPES = frozenset([pc.TypeId.FLOAT16, pc.TypeId.FLOAT32, pc.TypeId.FLOAT64])

_OBJECT = ("object", "object")
#: The one parquet_core -> pandas metadata table: ``(pandas_type, numpy_type)`` per type id,
#: as pyarrow writes them; types with parameters (timestamp, list, decimal) are built in
#: :func:`_pandas_types`.  Every TypeId but ``nested`` has an entry or a case there (a test
#: checks it).
_PANDAS: dict[pc.TypeId, tuple[str, str]] = {
    **{t: (t.value, t.value) for t in _INTS | _UINTS | FLOAT_TYPES},
    pc.TypeId.BOOL: ("bool", "bool"),
    pc.TypeId.STRING: ("unicode", "object"),
    pc.TypeId.BINARY: ("bytes", "object"),
    pc.TypeId.DATE: ("date", "object"),
    pc.TypeId.NULL: ("empty", "object"),
    # held by pandas as Python objects
    pc.TypeId.TIME: _OBJECT, pc.TypeId.INT96: _OBJECT, pc.TypeId.JSON: _OBJECT,
    pc.TypeId.ENUM: _OBJECT, pc.TypeId.BSON: _OBJECT, pc.TypeId.GEOMETRY: _OBJECT,
    pc.TypeId.GEOGRAPHY: _OBJECT, pc.TypeId.FIXED_SIZE_BINARY: _OBJECT, pc.TypeId.UUID: _OBJECT,
    pc.TypeId.INTERVAL: _OBJECT, pc.TypeId.STRUCT: _OBJECT, pc.TypeId.MAP: _OBJECT,
    pc.TypeId.VARIANT: _OBJECT,
}


def is_index_column(name: str) -> bool:
    """A pandas index stored as a column (``__index_level_N__``): never part of the table."""
    return bool(_INDEX_COLUMN.fullmatch(name))


class TableSchema:
    """The schema of one table, from ``_common_metadata``."""

    def __init__(self, schema: pc.Schema, pandas: dict[str, Any] | None) -> None:
        self.schema = schema
        self.pandas = pandas

    @property
    def names(self) -> list[str]:
        return self.schema.names

    def field(self, name: str) -> pc.Field:
        return self.schema.field(self.schema.names.index(name))

    def __contains__(self, name: str) -> bool:
        return name in self.schema.names


def load_schema(store: Store, uuid: str, table: str) -> TableSchema:
    key = naming.common_metadata_key(uuid, table)
    if not store.exists(key):
        raise KartothekError(f"dataset {uuid!r} has no table {table!r} ({key} is missing)")
    src = store.source(key)
    try:
        schema = pc.read_schema(src)
        meta = pc.read_metadata(src).metadata
    except pc.ParquetError as exc:
        raise KartothekError(f"{key}: cannot read the table schema: {exc}") from exc
    fields = [f for f in schema if not is_index_column(f.name)]
    pandas = None
    if b"pandas" in meta:
        try:
            pandas = json.loads(meta[b"pandas"].decode("utf-8"))
        except ValueError as exc:
            raise KartothekError(f"{key}: 'pandas' metadata is not JSON") from exc
    return TableSchema(pc.schema(fields), pandas)


def normalize_type(dt: pc.DataType) -> pc.DataType:
    """Kartothek's type normalization (ints to 64 bits, floats to double, timestamps to µs)."""
    if dt.id in _INTS:
        return pc.int64()
    if dt.id in _UINTS:
        return pc.uint64()
    if dt.id in FLOAT_TYPES:
        return pc.float64()
    if dt.id is pc.TypeId.TIMESTAMP:
        return pc.timestamp("us", utc=dt.tz is not None)
    if dt.id is pc.TypeId.LIST:
        return pc.list_(normalize_type(dt.fields[0].type))
    return dt


def normalized_schema(schema: pc.Schema, partition_on: list[str]) -> pc.Schema:
    """Partition keys first (in *partition_on* order), then the other columns by name, all nullable."""
    by_name = {f.name: f for f in schema if not is_index_column(f.name)}
    order = list(partition_on) + sorted(n for n in by_name if n not in partition_on)
    return pc.schema([pc.field(n, normalize_type(by_name[n].type)) for n in order])


def check_compatible(stored: pc.Schema, new: pc.Schema, where: str) -> pc.Schema:
    """The stored schema with null-typed columns filled from *new*; raise when they differ."""
    if stored.names != new.names:
        raise DatasetSchemaError(f"{where}: columns {new.names} do not match the table's {stored.names}")
    fields = []
    for old, cur in zip(stored, new):
        if old.type == cur.type or cur.type.id is pc.TypeId.NULL:
            fields.append(old)
        elif old.type.id is pc.TypeId.NULL:
            fields.append(cur)
        else:
            raise DatasetSchemaError(f"{where}: column {old.name!r} has type {cur.type}, "
                                     f"the table has {old.type}")
    return pc.schema(fields)


def _pandas_types(dt: pc.DataType) -> tuple[str, str, Any]:
    tid = dt.id
    if tid in _PANDAS:
        return (*_PANDAS[tid], None)
    if tid is pc.TypeId.TIMESTAMP:
        if dt.tz:
            return "datetimetz", "datetime64[ns]", {"timezone": dt.tz}
        return "datetime", "datetime64[ns]", None
    if tid is pc.TypeId.LIST:
        return f"list[{_pandas_types(dt.fields[0].type)[0]}]", "object", None
    if tid is pc.TypeId.DECIMAL:
        return "decimal", "object", {"precision": dt.precision, "scale": dt.scale}
    raise DatasetSchemaError(f"a column of type {dt} cannot be stored in a Kartothek table")


def pandas_metadata(schema: pc.Schema, num_rows: int = 0) -> str:
    """The ``pandas`` key-value metadata pyarrow writes for a frame with a RangeIndex (sorted keys)."""
    columns = []
    for f in schema:
        pandas_type, numpy_type, meta = _pandas_types(f.type)
        columns.append({"field_name": f.name, "metadata": meta, "name": f.name,
                        "numpy_type": numpy_type, "pandas_type": pandas_type})
    doc = {
        "column_indexes": [{"field_name": None, "metadata": {"encoding": "UTF-8"}, "name": None,
                            "numpy_type": "object", "pandas_type": "unicode"}],
        "columns": columns,
        "creator": {"library": "parquet-core", "version": pc.__version__},
        "index_columns": [{"kind": "range", "name": None, "start": 0, "step": 1, "stop": num_rows}],
        "pandas_version": "1.5.3",
    }
    return json.dumps(doc, sort_keys=True)


def write_schema(store: Store, uuid: str, table: str, schema: pc.Schema) -> None:
    """Write ``_common_metadata`` (zero row groups, ``pandas`` metadata, all fields nullable)."""
    schema = pc.schema([replace(f, nullable=True) if not f.nullable else f for f in schema])
    meta = {"pandas": pandas_metadata(schema)}

    def write(target: Any) -> None:
        pc.ParquetWriter(target, schema, key_value_metadata=meta).close()

    store.write_with(naming.common_metadata_key(uuid, table), write)
