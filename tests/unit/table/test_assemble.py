"""Record assembly from hand-written levels (the level semantics of the format spec).

For ``optional group a (LIST) { repeated group list { optional int32 element } }``
the maximum definition level is 3 and the maximum repetition level 1: a null
list has definition level 0, an empty list 1, a null element 2, a value 3;
repetition level 0 starts a record and 1 continues the list.
"""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core.column.data import ColumnData
from parquet_core.constants import ConvertedType, PhysicalType, Repetition
from parquet_core.errors import ParquetFormatError
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.nested import build_shape
from parquet_core.table.assemble import assemble, empty_column
from parquet_core.table.nested import ListArray, StructArray
from parquet_core.thrift import pt

OPT, REP, REQ = Repetition.OPTIONAL, Repetition.REPEATED, Repetition.REQUIRED


def _el(name, rep, type=None, children=None, ct=None):
    return pt.SchemaElement(name=name, type=type, repetition_type=rep, num_children=children, converted_type=ct)


def _list_schema():
    d = SchemaDescriptor([_el("m", REQ, children=1), _el("a", OPT, children=1, ct=ConvertedType.LIST),
                          _el("list", REP, children=1), _el("element", OPT, PhysicalType.INT32)])
    return build_shape(d.root.children[0], d.leaf_of, lambda i: d.column(i).data_type), d


def _data(values, defs, reps):
    return ColumnData(np.asarray(values, dtype=np.int32), np.asarray(defs, dtype=np.int16),
                      np.asarray(reps, dtype=np.int16), len(defs))


def test_null_empty_null_element_and_values() -> None:
    shape, d = _list_schema()
    # records: None, [], [None, 7], [8]
    arr = assemble(shape, {0: _data([7, 8], [0, 1, 2, 3, 3], [0, 0, 0, 1, 0])}, d.columns)
    assert isinstance(arr, ListArray)
    assert arr.offsets.tolist() == [0, 0, 0, 2, 3]
    assert arr.validity.tolist() == [False, True, True, True]
    assert arr.values.validity.tolist() == [False, True, True]
    assert arr.to_pylist() == [None, [], [None, 7], [8]]
    assert arr.slice(2, 4).to_pylist() == [[None, 7], [8]]
    assert ListArray.concat([arr.slice(0, 2), arr.slice(2, 4)]).to_pylist() == arr.to_pylist()


def test_repeat_without_element_is_a_format_error() -> None:
    shape, d = _list_schema()
    with pytest.raises(ParquetFormatError, match="repeats"):
        assemble(shape, {0: _data([], [1, 1], [0, 1])}, d.columns)


def test_value_count_mismatch_is_a_format_error() -> None:
    shape, d = _list_schema()
    with pytest.raises(ParquetFormatError, match="pages hold"):
        assemble(shape, {0: _data([1, 2], [3], [0])}, d.columns)


def test_struct_children_disagreeing_on_slots_is_a_format_error() -> None:
    d = SchemaDescriptor([_el("m", REQ, children=1), _el("s", OPT, children=2),
                          _el("x", OPT, PhysicalType.INT32), _el("y", OPT, PhysicalType.INT32)])
    shape = build_shape(d.root.children[0], d.leaf_of, lambda i: d.column(i).data_type)
    x = ColumnData(np.asarray([1], np.int32), np.asarray([2, 0], np.int16), None, 2)
    y = ColumnData(np.asarray([1], np.int32), np.asarray([2], np.int16), None, 1)
    with pytest.raises(ParquetFormatError, match="slots"):
        assemble(shape, {0: x, 1: y}, d.columns)
    ok = assemble(shape, {0: x, 1: ColumnData(np.asarray([], np.int32), np.asarray([1, 0], np.int16), None, 2)},
                  d.columns)
    assert isinstance(ok, StructArray)
    assert ok.to_pylist() == [{"x": 1, "y": None}, None]


def test_empty_columns_of_nested_types() -> None:
    shape, _ = _list_schema()
    empty = empty_column(shape.as_field())
    assert len(empty) == 0 and empty.to_pylist() == []
