"""Spark ``StructType`` JSON as stored under ``org.apache.spark.sql.parquet.row.metadata``.

A field is ``{"name", "type", "nullable", "metadata"}``; a primitive type is
a string (``"string"``, ``"double"``, ``"decimal(10,2)"``...); complex types
are objects: ``struct`` (``fields``), ``array`` (``elementType``,
``containsNull``), ``map`` and ``udt`` (``class``, ``pyClass``,
``sqlType``).  Spark writes the JSON compactly (no whitespace); key order
inside the ``metadata`` objects is whatever the writer's maps produced, so
readers must not depend on it.

:func:`to_pc_type` maps a Spark type to the parquet_core type Spark's writer
would produce by default (timestamps are written as INT96 by the caller).
"""

from __future__ import annotations

import json
import re
from typing import Any

import parquet_core as pc
from parquet_core_integrations.spark_types import UnsupportedSparkType, spark_type_name
from parquet_core_integrations.xskipper.errors import XskipperFormatError

__all__ = ["ROW_METADATA_KEY", "SPARK_VERSION_KEY", "dumps", "parse_schema", "spark_type_of_pc", "to_pc_type"]

ROW_METADATA_KEY = "org.apache.spark.sql.parquet.row.metadata"
SPARK_VERSION_KEY = "org.apache.spark.version"

_PRIMITIVES = {
    "string": pc.string, "double": pc.float64, "float": pc.float32, "long": pc.int64,
    "integer": pc.int32, "short": pc.int16, "byte": pc.int8, "boolean": pc.bool_,
    "date": pc.date, "binary": pc.binary,
}
_DECIMAL = re.compile(r"^decimal\((\d+),\s*(-?\d+)\)$")


def dumps(obj: Any) -> str:
    """Compact JSON like Spark's (no spaces, non-ASCII kept)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def parse_schema(text: str | bytes) -> list[dict[str, Any]]:
    """The top-level fields of a Spark schema JSON, checked for shape."""
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise XskipperFormatError(f"Spark schema JSON does not parse: {exc}") from exc
    if not isinstance(obj, dict) or obj.get("type") != "struct" or not isinstance(obj.get("fields"), list):
        raise XskipperFormatError("Spark schema JSON is not a struct with a list of fields")
    for f in obj["fields"]:
        if not isinstance(f, dict) or not isinstance(f.get("name"), str) or "type" not in f:
            raise XskipperFormatError(f"Spark schema field without a name or type: {f!r}")
        if not isinstance(f.get("metadata", {}), dict):
            raise XskipperFormatError(f"Spark schema field {f['name']!r} has non-object metadata")
    return obj["fields"]


def to_pc_type(t: Any, where: str = "?") -> Any:
    """The parquet_core type Spark writes for Spark type *t* (UDTs by their ``sqlType``)."""
    if isinstance(t, str):
        if t in _PRIMITIVES:
            return _PRIMITIVES[t]()
        if t == "timestamp":
            return pc.timestamp("us", utc=True)
        m = _DECIMAL.match(t)
        if m:
            return pc.decimal(int(m.group(1)), int(m.group(2)))
        raise XskipperFormatError(f"unsupported Spark type {t!r} for {where}")
    if isinstance(t, dict):
        kind = t.get("type")
        if kind == "struct":
            return pc.struct([pc.field(f["name"], to_pc_type(f["type"], f"{where}.{f['name']}"),
                                       nullable=bool(f.get("nullable", True))) for f in t["fields"]])
        if kind == "array":
            elem = to_pc_type(t["elementType"], f"{where}.element")
            return pc.list_(pc.field("element", elem, nullable=bool(t.get("containsNull", True))))
        if kind == "udt":
            return to_pc_type(t.get("sqlType"), where)
    raise XskipperFormatError(f"unsupported Spark type {t!r} for {where}")


def spark_type_of_pc(dt: Any, where: str = "?") -> str:
    """The Spark type name of a parquet_core scalar type, as an xskipper store records it.

    The names come from the Spark adapter's mapping (:func:`parquet_core_integrations.spark_types.spark_type_name`,
    which needs no pyspark); xskipper's stores predate ``timestamp_ntz``, and Spark 3
    reads every Parquet timestamp as ``timestamp``, so both kinds are named that.
    """
    try:
        name = spark_type_name(dt, where)
    except UnsupportedSparkType as exc:
        raise XskipperFormatError(f"column {where!r} of type {dt} cannot be indexed ({exc})") from None
    return "timestamp" if name == "timestamp_ntz" else name
