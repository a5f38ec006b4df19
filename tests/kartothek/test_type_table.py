"""Kartothek's pandas metadata has a (pandas_type, numpy_type) for every TypeId but ``nested``.

The expected pairs are what pyarrow writes into the ``pandas`` metadata for
a column of each type (pyarrow's ``get_logical_type`` / numpy dtypes).
"""

from __future__ import annotations

import pytest

from parquet_core_integrations.kartothek.errors import DatasetSchemaError
from parquet_core_integrations.kartothek.schema import _pandas_types
from parquet_core import TypeId as T

from tests._support.type_samples import SAMPLES

PANDAS = {
    T.NULL: ("empty", "object"), T.BOOL: ("bool", "bool"),
    T.INT8: ("int8", "int8"), T.INT16: ("int16", "int16"), T.INT32: ("int32", "int32"),
    T.INT64: ("int64", "int64"), T.UINT8: ("uint8", "uint8"), T.UINT16: ("uint16", "uint16"),
    T.UINT32: ("uint32", "uint32"), T.UINT64: ("uint64", "uint64"),
    T.FLOAT16: ("float16", "float16"), T.FLOAT32: ("float32", "float32"), T.FLOAT64: ("float64", "float64"),
    T.DATE: ("date", "object"), T.TIMESTAMP: ("datetimetz", "datetime64[ns]"),
    T.DECIMAL: ("decimal", "object"), T.STRING: ("unicode", "object"), T.BINARY: ("bytes", "object"),
    T.LIST: ("list[int32]", "object"),
    T.TIME: ("object", "object"), T.INT96: ("object", "object"), T.JSON: ("object", "object"),
    T.ENUM: ("object", "object"), T.BSON: ("object", "object"), T.GEOMETRY: ("object", "object"),
    T.GEOGRAPHY: ("object", "object"), T.FIXED_SIZE_BINARY: ("object", "object"),
    T.UUID: ("object", "object"), T.INTERVAL: ("object", "object"), T.STRUCT: ("object", "object"),
    T.MAP: ("object", "object"), T.VARIANT: ("object", "object"),
    T.NESTED: None,
}


def test_every_type_id_has_a_row() -> None:
    assert set(PANDAS) == set(T)


@pytest.mark.parametrize("tid", list(T), ids=str)
def test_pandas_types(tid: T) -> None:
    dt = SAMPLES[tid][0]
    if PANDAS[tid] is None:
        with pytest.raises(DatasetSchemaError, match="nested"):
            _pandas_types(dt)
        return
    assert _pandas_types(dt)[:2] == PANDAS[tid]
