"""table.promote.common_type: one lattice, three rules (pyarrow's unify_schemas is the oracle)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from parquet_core.schema.types import DataType
from parquet_core.table.promote import TypeMismatch, common_type

PAIRS = [("int8", "int32"), ("uint16", "uint8"), ("float32", "float64"), ("int8", "uint8"),
         ("int16", "float32"), ("null", "int64")]


def _arrow(name: str) -> pa.DataType:
    return {"null": pa.null()}.get(name) or getattr(pa, name)()


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_permissive_is_pyarrows_promotion(a: str, b: str) -> None:
    want = pa.unify_schemas([pa.schema([("c", _arrow(a))]), pa.schema([("c", _arrow(b))])],
                            promote_options="permissive").field("c").type
    names = {"double": "float64", "float": "float32", "halffloat": "float16"}
    assert common_type(DataType(a), DataType(b), "permissive") == DataType(names.get(str(want), str(want)))


def test_widen_stays_within_one_family() -> None:
    assert common_type(DataType("int8"), DataType("int64"), "widen") == DataType("int64")
    assert common_type(DataType("float64"), DataType("float32"), "widen") == DataType("float64")
    for a, b in [("int8", "uint8"), ("int16", "float32"), ("float16", "float32")]:
        with pytest.raises(TypeMismatch):
            common_type(DataType(a), DataType(b), "widen")


def test_default_only_joins_null() -> None:
    assert common_type(DataType("null"), DataType("string")) == DataType("string")
    with pytest.raises(TypeMismatch):
        common_type(DataType("int32"), DataType("int64"))
    with pytest.raises(ValueError):
        common_type(DataType("int32"), DataType("int64"), "lenient")
