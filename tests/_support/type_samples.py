"""One representative DataType per TypeId, with its str() as the types module documents it
(written out by hand; shared by the TypeId coverage tests of schema, interop, Spark and Kartothek)."""

from __future__ import annotations

from parquet_core.schema.types import DataType, Field, TypeId

__all__ = ["SAMPLES"]

T = TypeId
_ELEM = Field("element", DataType("int32"))
_KEY = Field("key", DataType("string"), nullable=False)
_VALUE = Field("value", DataType("float64"))
_VARIANT_FIELDS = (Field("metadata", DataType("binary"), False), Field("value", DataType("binary")))

#: One representative DataType per TypeId, and its str() as the types module documents it.
SAMPLES: dict[TypeId, tuple[DataType, str]] = {
    T.NULL: (DataType("null"), "null"),
    T.BOOL: (DataType("bool"), "bool"),
    T.INT8: (DataType("int8"), "int8"),
    T.INT16: (DataType("int16"), "int16"),
    T.INT32: (DataType("int32"), "int32"),
    T.INT64: (DataType("int64"), "int64"),
    T.UINT8: (DataType("uint8"), "uint8"),
    T.UINT16: (DataType("uint16"), "uint16"),
    T.UINT32: (DataType("uint32"), "uint32"),
    T.UINT64: (DataType("uint64"), "uint64"),
    T.FLOAT16: (DataType("float16"), "float16"),
    T.FLOAT32: (DataType("float32"), "float32"),
    T.FLOAT64: (DataType("float64"), "float64"),
    T.DATE: (DataType("date"), "date"),
    T.TIME: (DataType("time", unit="us"), "time[us]"),
    T.TIMESTAMP: (DataType("timestamp", unit="ms", tz="UTC"), "timestamp[ms, UTC]"),
    T.INT96: (DataType("int96"), "int96"),
    T.DECIMAL: (DataType("decimal", precision=9, scale=2), "decimal(9, 2)"),
    T.STRING: (DataType("string"), "string"),
    T.JSON: (DataType("json"), "json"),
    T.ENUM: (DataType("enum"), "enum"),
    T.BINARY: (DataType("binary"), "binary"),
    T.BSON: (DataType("bson"), "bson"),
    T.GEOMETRY: (DataType("geometry", crs="OGC:CRS83"), "geometry(OGC:CRS83)"),
    T.GEOGRAPHY: (DataType("geography"), "geography"),
    T.FIXED_SIZE_BINARY: (DataType("fixed_size_binary", byte_width=5), "fixed_size_binary[5]"),
    T.UUID: (DataType("uuid", byte_width=16), "uuid"),
    T.INTERVAL: (DataType("interval", byte_width=12), "interval"),
    T.LIST: (DataType("list", fields=(_ELEM,)), "list<element: int32>"),
    T.MAP: (DataType("map", fields=(_KEY, _VALUE)), "map<string, float64>"),
    T.STRUCT: (DataType("struct", fields=(_ELEM,)), "struct<element: int32>"),
    T.VARIANT: (DataType("variant", fields=_VARIANT_FIELDS), "variant"),
    T.NESTED: (DataType("nested"), "nested"),
}
