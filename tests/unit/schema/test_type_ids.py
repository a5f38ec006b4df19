"""Every TypeId is handled by each central mapping.

Each table below is written out by hand from the format / the foreign type
system's documentation, with one row per TypeId: adding a TypeId member
without handling it (and without adding its row here) fails these tests.
"""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc
from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import ParquetError, UnsupportedFeatureError
from parquet_core.schema.nested import ShapeKind
from parquet_core.schema.types import DataType, Field, TypeId, unhandled_type
from parquet_core.table.arrays import Array, empty_array
from parquet_core.table.assemble import empty_column
from tests._support.type_samples import SAMPLES

T = TypeId


def test_every_type_id_has_a_sample() -> None:
    assert set(SAMPLES) == set(TypeId)


@pytest.mark.parametrize("tid", list(TypeId), ids=str)
def test_identity_and_str(tid: TypeId) -> None:
    dt, text = SAMPLES[tid]
    assert dt.id is tid
    assert dt.name == tid.value and type(dt.name) is str
    assert DataType(tid, **{k: getattr(dt, k) for k in ("unit", "tz", "precision", "scale",
                                                           "byte_width", "crs", "fields")}) == dt
    assert str(dt) == text


def test_unknown_name_fails_when_made() -> None:
    with pytest.raises(ValueError, match="unknown DataType name"):
        DataType("decimal128")


def test_predicates_agree_with_the_ids() -> None:
    ints = {T.INT8, T.INT16, T.INT32, T.INT64, T.UINT8, T.UINT16, T.UINT32, T.UINT64}
    for tid, (dt, _) in SAMPLES.items():
        assert dt.is_integer == (tid in ints)
        assert dt.is_nested == (tid in {T.LIST, T.MAP, T.STRUCT, T.VARIANT})
        assert dt.is_text == (tid in {T.STRING, T.JSON, T.ENUM})


def test_unhandled_type_is_loud() -> None:
    with pytest.raises(UnsupportedFeatureError,
                       match=r"somewhere: no case for type nested \(TypeId.NESTED\)"):
        unhandled_type(DataType("nested"), "somewhere")
    assert issubclass(UnsupportedFeatureError, ParquetError)


# numpy storage of each flat type (the types module's table), None for the group types
STORAGE: dict[TypeId, "tuple[str, tuple[int, ...]] | str | None"] = {
    T.NULL: ("int8", (0,)), T.BOOL: ("bool", (0,)),
    T.INT8: ("int8", (0,)), T.INT16: ("int16", (0,)), T.INT32: ("int32", (0,)), T.INT64: ("int64", (0,)),
    T.UINT8: ("uint8", (0,)), T.UINT16: ("uint16", (0,)), T.UINT32: ("uint32", (0,)),
    T.UINT64: ("uint64", (0,)),
    T.FLOAT16: ("float16", (0,)), T.FLOAT32: ("float32", (0,)), T.FLOAT64: ("float64", (0,)),
    T.DATE: ("int32", (0,)), T.TIME: ("int64", (0,)), T.TIMESTAMP: ("int64", (0,)),
    T.INT96: ("uint8", (0, 12)), T.DECIMAL: ("int64", (0,)),
    T.STRING: "bytes", T.JSON: "bytes", T.ENUM: "bytes", T.BINARY: "bytes", T.BSON: "bytes",
    T.GEOMETRY: "bytes", T.GEOGRAPHY: "bytes",
    T.FIXED_SIZE_BINARY: ("uint8", (0, 5)), T.UUID: ("uint8", (0, 16)), T.INTERVAL: ("uint8", (0, 12)),
    T.LIST: None, T.MAP: None, T.STRUCT: None, T.VARIANT: None, T.NESTED: None,
}


@pytest.mark.parametrize("tid", list(TypeId), ids=str)
def test_numpy_storage(tid: TypeId) -> None:
    assert set(STORAGE) == set(TypeId)
    dt = SAMPLES[tid][0]
    want = STORAGE[tid]
    if tid is T.NESTED:
        for make in (empty_array, empty_column):
            with pytest.raises(UnsupportedFeatureError, match="nested"):
                make(Field("c", dt))
        with pytest.raises(UnsupportedFeatureError):
            Array(dt, np.zeros(0, np.int64))
        return
    if want is None:
        arr = empty_column(Field("c", dt))
        assert arr.type == dt and len(arr) == 0
        assert arr.to_pylist() == []
        with pytest.raises(UnsupportedFeatureError):
            empty_array(Field("c", dt))
        return
    arr = empty_array(Field("c", dt))
    if want == "bytes":
        assert isinstance(arr.values, ByteArrays)
    else:
        assert (arr.values.dtype.name, arr.values.shape) == want
    assert arr.to_pylist() == []


def test_shape_kinds_are_an_enum() -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    import io

    import pyarrow as pa

    buf = io.BytesIO()
    pq.write_table(pa.table({"l": [[1]], "m": pa.array([[("a", 1)]], pa.map_(pa.string(), pa.int64())),
                             "s": [{"x": 1}], "f": [1.0]}), buf)
    pf = pc.ParquetFile(io.BytesIO(buf.getvalue()))
    kinds = {name: shape.kind for name, shape in pf.columns.shapes.items()}
    assert kinds == {"l": ShapeKind.LIST, "m": ShapeKind.MAP, "s": ShapeKind.STRUCT, "f": ShapeKind.LEAF}
    assert all(type(k) is ShapeKind for k in kinds.values())
    assert ShapeKind.LEAF == "leaf"   # a str enum: old string comparisons still hold
