"""The ``pandas`` key/value metadata, in the JSON layout pyarrow writes and reads.

A DataFrame stored in Parquet keeps what Parquet types cannot say in one
JSON document under the footer key ``pandas``::

    {"index_columns": ["k"] | [{"kind": "range", "name", "start", "stop", "step"}],
     "column_indexes": [{"name", "field_name", "pandas_type", "numpy_type", "metadata"}],
     "columns": [{"name", "field_name", "pandas_type", "numpy_type", "metadata"}, ...],
     "attributes": {...}, "creator": {"library", "version"}, "pandas_version": "2.3.3"}

``columns`` lists the data columns and then the stored index levels;
``pandas_type`` is the logical type (``unicode``, ``datetimetz``,
``categorical``...), ``numpy_type`` the frame's dtype as text (``Int64``,
``datetime64[ns]``, the codes' dtype of a categorical), ``metadata`` the
extras (``timezone``, ``num_categories`` / ``ordered``, ``precision`` /
``scale``).  The keys, their order and the JSON spacing are pyarrow's, so
that either library reads what the other wrote.

Nothing here imports pandas or pyarrow.
"""

from __future__ import annotations

import datetime
import json
import math
from typing import Any

from parquet_core.metadata.arrow_ipc import FieldFacts
from parquet_core.schema.types import DataType, TypeId

__all__ = ["name_to_string", "tz_name", "pandas_type", "column_entry", "dumps", "loads"]

_LOGICAL = {
    TypeId.NULL: "empty", TypeId.BOOL: "bool", TypeId.INT8: "int8", TypeId.INT16: "int16",
    TypeId.INT32: "int32", TypeId.INT64: "int64", TypeId.UINT8: "uint8", TypeId.UINT16: "uint16",
    TypeId.UINT32: "uint32", TypeId.UINT64: "uint64", TypeId.FLOAT16: "float16",
    TypeId.FLOAT32: "float32", TypeId.FLOAT64: "float64", TypeId.DATE: "date", TypeId.TIME: "time",
    TypeId.BINARY: "bytes", TypeId.FIXED_SIZE_BINARY: "bytes", TypeId.STRING: "unicode",
    TypeId.DECIMAL: "decimal",
}


def name_to_string(name: Any) -> Any:
    """A column or index name as pyarrow records it: str kept, bytes decoded, a tuple
    (a MultiIndex column) as the text of its strings, None and NaN kept, else ``str``."""
    if isinstance(name, str):
        return name
    if isinstance(name, bytes):
        return name.decode("utf8")
    if isinstance(name, tuple):
        return str(tuple(name_to_string(part) for part in name))
    if isinstance(name, (list, dict, set)):
        raise TypeError(f"unsupported type for a MultiIndex level name: {type(name).__name__}")
    if name is None or (isinstance(name, float) and math.isnan(name)):
        return name
    return str(name)


def tz_name(tz: Any) -> str:
    """The text of a time zone as pyarrow writes it: the zone's key (``Europe/Oslo``),
    ``UTC``, or a fixed offset as ``+HH:MM``."""
    key = getattr(tz, "key", None) or getattr(tz, "zone", None)
    if isinstance(key, str):
        return key
    if tz is datetime.timezone.utc:
        return "UTC"
    if isinstance(tz, datetime.timezone):
        offset = tz.utcoffset(None)
        minutes = int(offset.total_seconds()) // 60
        sign = "-" if minutes < 0 else "+"
        return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    text = str(tz)
    if text in ("tzutc()", "UTC"):
        return "UTC"
    name = getattr(tz, "_filename", None)   # dateutil's tz.gettz("Europe/Oslo")
    if isinstance(name, str) and "zoneinfo" in name:
        return name.split("zoneinfo/", 1)[-1]
    return text


def pandas_type(dt: DataType, facts: FieldFacts | None) -> str:
    """The ``pandas_type`` pyarrow records for a column of Arrow type (*dt*, *facts*)."""
    if facts is not None and facts.dictionary:
        return "categorical"
    if facts is not None and facts.kind == "duration":
        return "object"
    if facts is not None and facts.extension is not None:
        return "object"
    tid = dt.id
    if tid is TypeId.TIMESTAMP:
        zoned = dt.tz is not None if facts is None else facts.tz is not None
        return "datetimetz" if zoned else "datetime"
    if tid is TypeId.LIST:
        child = facts.children[0] if facts is not None and facts.children else None
        return f"list[{pandas_type(dt.fields[0].type, child)}]"
    return _LOGICAL.get(tid, "object")


def column_entry(name: Any, field_name: str, logical: str, numpy_type: str,
                 metadata: dict[str, Any] | None) -> dict[str, Any]:
    """One entry of ``columns`` (or ``column_indexes``), keys in pyarrow's order."""
    return {"name": name, "field_name": field_name, "pandas_type": logical, "numpy_type": numpy_type,
            "metadata": metadata}


def dumps(index_columns: list[Any], column_indexes: list[dict[str, Any]], columns: list[dict[str, Any]],
          attributes: dict[str, Any], creator: dict[str, str], pandas_version: str) -> bytes:
    """The ``pandas`` value (UTF-8 JSON, pyarrow's key order and spacing)."""
    return json.dumps({"index_columns": index_columns, "column_indexes": column_indexes, "columns": columns,
                       "attributes": attributes, "creator": creator,
                       "pandas_version": pandas_version}).encode("utf8")


def loads(raw: bytes | str | None) -> dict[str, Any] | None:
    """The parsed ``pandas`` value, or None when absent or not a JSON object with
    ``columns`` and ``index_columns`` lists (pyarrow then ignores it too)."""
    if raw is None:
        return None
    try:
        meta = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(meta, dict) or not isinstance(meta.get("columns"), list) \
            or not isinstance(meta.get("index_columns"), list):
        return None
    return meta
