"""The Arrow mapping handles every TypeId, both ways (parquet_core -> Arrow -> parquet_core).

The expected Arrow types are pyarrow's own for each Parquet type (what
``pyarrow.parquet`` reads the type as); the way back is ``schema_from_arrow``.
"""

from __future__ import annotations

import pytest

pa = pytest.importorskip("pyarrow")

from parquet_core.errors import UnsupportedFeatureError  # noqa: E402
from parquet_core.interop.arrow import schema_from_arrow  # noqa: E402
from parquet_core.interop.arrow_types import arrow_type  # noqa: E402
from parquet_core.schema.types import TypeId as T  # noqa: E402

from tests._support.type_samples import SAMPLES  # noqa: E402

_JSON = pa.json_() if hasattr(pa, "json_") else pa.string()
_UUID = pa.uuid() if hasattr(pa, "uuid") else pa.binary(16)
_I32 = pa.field("element", pa.int32())

#: TypeId -> (Arrow type of its sample, TypeId it reads back as); None: no Arrow type.
ARROW = {
    T.NULL: (pa.null(), T.NULL), T.BOOL: (pa.bool_(), T.BOOL),
    T.INT8: (pa.int8(), T.INT8), T.INT16: (pa.int16(), T.INT16), T.INT32: (pa.int32(), T.INT32),
    T.INT64: (pa.int64(), T.INT64), T.UINT8: (pa.uint8(), T.UINT8), T.UINT16: (pa.uint16(), T.UINT16),
    T.UINT32: (pa.uint32(), T.UINT32), T.UINT64: (pa.uint64(), T.UINT64),
    T.FLOAT16: (pa.float16(), T.FLOAT16), T.FLOAT32: (pa.float32(), T.FLOAT32),
    T.FLOAT64: (pa.float64(), T.FLOAT64), T.DATE: (pa.date32(), T.DATE),
    T.TIME: (pa.time64("us"), T.TIME), T.TIMESTAMP: (pa.timestamp("ms", tz="UTC"), T.TIMESTAMP),
    T.INT96: (pa.timestamp("ns"), T.TIMESTAMP), T.DECIMAL: (pa.decimal128(9, 2), T.DECIMAL),
    T.STRING: (pa.string(), T.STRING),
    T.JSON: (_JSON, T.JSON if hasattr(pa, "json_") else T.STRING),
    T.ENUM: (pa.string(), T.STRING), T.BINARY: (pa.binary(), T.BINARY), T.BSON: (pa.binary(), T.BINARY),
    T.GEOMETRY: (pa.binary(), T.BINARY), T.GEOGRAPHY: (pa.binary(), T.BINARY),
    T.FIXED_SIZE_BINARY: (pa.binary(5), T.FIXED_SIZE_BINARY),
    T.UUID: (_UUID, T.UUID if hasattr(pa, "uuid") else T.FIXED_SIZE_BINARY),
    T.INTERVAL: (pa.binary(12), T.FIXED_SIZE_BINARY),
    T.LIST: (pa.list_(_I32), T.LIST),
    T.MAP: (pa.map_(pa.field("key", pa.string(), nullable=False), pa.field("value", pa.float64())), T.MAP),
    T.STRUCT: (pa.struct([_I32]), T.STRUCT),
    T.VARIANT: (pa.struct([pa.field("metadata", pa.binary(), nullable=False),
                           pa.field("value", pa.binary())]), T.STRUCT),
    T.NESTED: None,
}


def test_every_type_id_has_a_row() -> None:
    assert set(ARROW) == set(T)


@pytest.mark.parametrize("tid", list(T), ids=str)
def test_arrow_both_ways(tid: T) -> None:
    dt = SAMPLES[tid][0]
    if ARROW[tid] is None:
        with pytest.raises(UnsupportedFeatureError, match="no Arrow type"):
            arrow_type(dt)
        return
    want, back = ARROW[tid]
    got = arrow_type(dt)
    assert got == want
    assert schema_from_arrow(pa.schema([pa.field("c", got)])).field(0).type.id is back
