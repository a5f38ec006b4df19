"""The ``ARROW:schema`` of a converted DataFrame, encoded by pyarrow when it is installed.

:mod:`parquet_core.interop.pandas_in` converts frames without pyarrow; this
module (imported only when pyarrow is) adds the Arrow schema pyarrow's
``from_pandas`` would have made -- zones, durations, dictionaries, seconds
-- so that pyarrow reads the file back to the same frame.
"""

from __future__ import annotations

import pyarrow as pa

from parquet_core.interop.arrow_metadata import encode_schema
from parquet_core.interop.arrow_types import arrow_type
from parquet_core.metadata.arrow_ipc import FieldFacts
from parquet_core.schema.types import DataType, Schema, TypeId

__all__ = ["encode_frame_schema"]

_INDEX = {8: pa.int8(), 16: pa.int16(), 32: pa.int32(), 64: pa.int64()}


def _type(dt: DataType, facts: FieldFacts | None) -> pa.DataType:
    if dt.id is TypeId.LIST:   # pandas lists convert to list<item>, as pyarrow's inference names it
        child = dt.fields[0]
        return pa.list_(pa.field("item", _type(child.type, None), nullable=child.nullable))
    if facts is None:
        return arrow_type(dt)
    if facts.dictionary:
        return pa.dictionary(_INDEX[facts.index_bits], arrow_type(dt), ordered=facts.ordered)
    if facts.kind == "duration":
        return pa.duration(facts.unit or "ns")
    if facts.kind == "timestamp":
        return pa.timestamp(facts.unit or dt.unit or "us", tz=facts.tz)
    return arrow_type(dt)


def encode_frame_schema(schema: Schema, facts: "list[FieldFacts | None]", pandas_json: bytes) -> bytes:
    """The ``ARROW:schema`` value for a frame's columns (every field nullable, as pyarrow)."""
    fields = [pa.field(f.name, _type(f.type, fa)) for f, fa in zip(schema, facts)]
    return encode_schema(pa.schema(fields, metadata={b"pandas": pandas_json}))
