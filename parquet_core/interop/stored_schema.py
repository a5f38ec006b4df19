"""The footer key/values that let a reader rebuild the Arrow and pandas types of written data.

Used by :class:`parquet_core.file.writer.ParquetWriter`; imports pyarrow
only when the data came from pyarrow (or a file holding ``ARROW:schema``).
The source is, in order of preference:

* the ``pyarrow.Schema`` the writer was created with;
* the first table written: a pyarrow Table or RecordBatch, or a
  :class:`Table` carrying ``metadata`` (one converted from pyarrow or
  pandas, or read from a file).

With ``store_schema=True`` (the default) the footer gets ``ARROW:schema``
and then the source's other keys (``pandas``...), as pyarrow writes them.
An ``ARROW:schema`` whose fields do not convert to exactly the written
schema (a subset read from a file, data cast to an explicit schema) is left
out rather than written stale, and so is one that cannot be checked because
pyarrow is missing.

With ``store_schema=False`` nothing of this is written, as in pyarrow, and a
column whose type only ``ARROW:schema`` could describe (a duration, an
extension type other than UUID and JSON) is refused: written alone, its
storage would read back as something else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from parquet_core.errors import ParquetError, ParquetSchemaError
from parquet_core.schema.types import Schema

__all__ = ["schema_key_values_of", "footer_key_values"]

_ARROW_SCHEMA = b"ARROW:schema"


def schema_key_values_of(source: Any) -> dict[bytes, bytes] | None:
    """The key/values *source* brings, or ``None`` when it brings nothing to keep.

    *source* is a ``pyarrow.Schema``, Table or RecordBatch, or an object with
    a ``metadata`` mapping of bytes (a :class:`parquet_core.Table`).
    """
    if type(source).__module__.split(".")[0] == "pyarrow":
        schema = getattr(source, "schema", source)
        from parquet_core.interop.arrow_metadata import schema_key_values

        return schema_key_values(schema)
    md = getattr(source, "metadata", None)
    return dict(md) if isinstance(md, Mapping) and md else None


def footer_key_values(source: Mapping[bytes, bytes] | None, schema: Schema,
                      store_schema: bool) -> dict[str, Any]:
    """The key/values to write for a table of *schema*.

    Values are ``str`` when they are UTF-8 (every value pyarrow writes is),
    else the raw ``bytes``.  ``ARROW:schema`` is kept only when its fields
    convert to exactly *schema*'s names, types and nullability: one left
    from data cast to another schema would describe types the file does not
    hold (the other keys, ``pandas`` included, are kept).

    Raises
    ------
    ParquetSchemaError
        With ``store_schema=False``, for a column whose type needs ``ARROW:schema``.
    """
    if not source:
        return {}
    encoded = source.get(_ARROW_SCHEMA)
    arrow = None if encoded is None else _decode(encoded)
    if not store_schema:
        if arrow is not None:
            from parquet_core.interop.arrow_metadata import unkept_type

            found = unkept_type(arrow)
            if found is not None:
                raise ParquetSchemaError(
                    f"column {found} cannot be stored without its Arrow schema (Parquet alone "
                    "would read it back as its storage type); write with store_schema=True")
        return {}
    out: dict[str, Any] = {}
    for k, v in source.items():
        if k == _ARROW_SCHEMA and (arrow is None or not _describes(arrow, schema)):
            continue
        out[_text(k)] = _text(v)
    return out


def _describes(arrow: Any, schema: Schema) -> bool:
    """True when Arrow schema *arrow* converts to *schema* (names, types, nullability)."""
    if arrow.names != schema.names:
        return False
    from parquet_core.interop.arrow import schema_from_arrow

    try:
        ours = schema_from_arrow(arrow)
    except ParquetError:
        return False
    return [(f.name, f.type, f.nullable) for f in ours] == [(f.name, f.type, f.nullable) for f in schema]


def _decode(encoded: bytes) -> Any:
    try:
        from parquet_core.interop.arrow_metadata import decode_schema
    except ImportError:
        return None
    return decode_schema(encoded)


def _text(b: bytes | str) -> Any:
    if isinstance(b, str):
        return b
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


