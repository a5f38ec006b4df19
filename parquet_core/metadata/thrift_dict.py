"""Plain-Python (JSON-ready) views of raw thrift structs, with enum names.

The footer, page headers and page indexes are thrift structs whose enum
fields are bare integers. :func:`thrift_to_dict` walks a struct by its
``thrift_spec`` and turns every enum field into its spec name (``"PLAIN"``,
``"SNAPPY"``, ``"DATA_PAGE_V2"``), unknown enum values into ``UNKNOWN(n)``,
and binary fields into text: UTF-8 when it decodes to printable text, else
``0x`` followed by hex digits. Unset optional fields are left out.
"""

from __future__ import annotations

from typing import Any

from parquet_core.constants import enum_name
from parquet_core.thrift import pt

__all__ = ["thrift_to_dict", "enum_name", "bytes_text", "plain_value"]

# Which thrift enum an i32 field holds, by (struct, field); a field name alone
# when it means the same enum in every struct.
_ENUM_BY_FIELD: dict[str, Any] = {
    "repetition_type": pt.FieldRepetitionType, "converted_type": pt.ConvertedType,
    "encoding": pt.Encoding, "definition_level_encoding": pt.Encoding,
    "repetition_level_encoding": pt.Encoding, "encodings": pt.Encoding,
    "codec": pt.CompressionCodec, "page_type": pt.PageType, "boundary_order": pt.BoundaryOrder,
    "edge_interpolation_algorithm": getattr(pt, "EdgeInterpolationAlgorithm", None),
}
_ENUM_BY_STRUCT_FIELD: dict[tuple[str, str], Any] = {
    ("PageHeader", "type"): pt.PageType,
    ("SchemaElement", "type"): pt.Type,
    ("ColumnMetaData", "type"): pt.Type,
}




def bytes_text(value: bytes | bytearray | memoryview) -> str:
    """UTF-8 text when the bytes are printable text, else ``0x`` and hex digits."""
    raw = bytes(value)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "0x" + raw.hex()
    return text if text.isprintable() else "0x" + raw.hex()


def _value(v: Any, enum: Any) -> Any:
    if v is None:
        return None
    if enum is not None and isinstance(v, int) and not isinstance(v, bool):
        return enum_name(enum, v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes_text(v)
    if isinstance(v, (list, tuple)):
        return [_value(x, enum) for x in v]
    if isinstance(v, dict):
        return {str(_value(k, None)): _value(x, None) for k, x in v.items()}
    if hasattr(type(v), "thrift_spec"):
        return thrift_to_dict(v)
    return v


def thrift_to_dict(obj: Any) -> dict[str, Any]:
    """Every set field of a thrift struct, recursively, with enum names and bytes as text.

    Parameters
    ----------
    obj:
        A generated thrift struct (``pt.FileMetaData``, ``pt.PageHeader``...).

    Returns
    -------
    dict
        Field name to value; nested structs become dicts, lists stay lists.
    """
    # a lazily decoded subclass (parquet_core.thrift.lazy_footer) names its generated class
    cls = getattr(type(obj), "THRIFT_NAME", None) or type(obj).__name__
    out: dict[str, Any] = {}
    for spec in type(obj).thrift_spec:
        if spec is None:
            continue
        name = spec[2]
        value = getattr(obj, name, None)
        if value is None:
            continue
        enum = _ENUM_BY_STRUCT_FIELD.get((cls, name), _ENUM_BY_FIELD.get(name))
        out[name] = _value(value, enum)
    return out


def plain_value(v: Any) -> Any:
    """A decoded value (statistics bound, dictionary entry) as JSON-ready Python.

    Numbers, strings, booleans and None stay; bytes become text (see
    :func:`bytes_text`); dates, times and decimals their ISO/decimal text;
    lists, tuples and dicts are converted item by item.
    """
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes_text(v)
    if isinstance(v, (list, tuple)):
        return [plain_value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): plain_value(x) for k, x in v.items()}
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return str(v)
