"""Tables through our own Arrow capsules and back (no pyarrow): every type we hold,
nulls, slices, nested and dictionary columns come back equal."""

from __future__ import annotations

import datetime
import decimal

import numpy as np
import pytest

import parquet_core as pc
from parquet_core._kernels.binary import ByteArrays
from parquet_core.arrow_c import import_schema
from parquet_core.schema.types import DataType
from parquet_core.table.dictionary import DictionaryArray, DictionaryRun


class Stream:
    def __init__(self, table):
        self.table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self.table.__arrow_c_stream__()


def _table() -> "pc.Table":
    data = {
        "i8": [1, None, -3], "u64": np.array([0, 2**64 - 1, 5], np.uint64), "f": [1.5, None, -0.0],
        "b": [True, None, False], "s": ["x", None, "a longer string value"], "bin": [b"\x00", None, b""],
        "d": [decimal.Decimal("1.50"), None, decimal.Decimal("-2.25")],
        "big": [decimal.Decimal("123456789012345678901234.5"), None, decimal.Decimal("-1.0")],
        "date": [datetime.date(2020, 1, 1), None, datetime.date(1900, 1, 1)],
        "ts": [datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc), None,
               datetime.datetime(1969, 1, 1, tzinfo=datetime.timezone.utc)],
        "t": [datetime.time(1, 2, 3), None, datetime.time(23, 59)],
        "l": [[1, 2], None, []], "st": [{"a": 1, "b": "x"}, None, {"a": None, "b": "z"}],
        "m": [{"k": 1}, None, {}], "ll": [[[1], []], [None], None],
    }
    return pc.Table.from_pydict(data)


def test_round_trip_through_our_capsules():
    table = _table()
    back = pc.as_table(Stream(table))
    assert [(f.name, f.type, f.nullable) for f in back.schema] == \
        [(f.name, f.type, f.nullable) for f in table.schema]
    assert back.to_pydict() == table.to_pydict()


@pytest.mark.parametrize("start, stop", [(0, 0), (1, 3), (2, 3)])
def test_round_trip_of_slices(start, stop):
    table = _table().slice(start, stop)
    assert pc.as_table(Stream(table)).to_pydict() == table.to_pydict()


def test_fixed_width_types_round_trip():
    uuid = pc.Array(DataType("uuid", byte_width=16), np.arange(32, dtype=np.uint8).reshape(2, 16))
    fixed = pc.Array(DataType("fixed_size_binary", byte_width=3), np.ones((2, 3), np.uint8),
                     np.array([True, False]))
    json = pc.Array(DataType("json"), ByteArrays.from_pylist([b'{"a": 1}', b"[]"]))
    table = pc.Table(pc.schema([pc.field("u", uuid.type), pc.field("f", fixed.type), pc.field("j", json.type)]),
                     [uuid, fixed, json])
    back = pc.as_table(Stream(table))
    assert [f.type for f in back.schema] == [f.type for f in table.schema]
    assert back.to_pydict() == table.to_pydict()


def test_dictionary_columns_keep_their_dictionaries():
    runs = [DictionaryRun(ByteArrays.from_pylist([b"a", b"b"]), np.array([1, 0, 0], np.int32)),
            DictionaryRun(ByteArrays.from_pylist([b"z"]), np.array([0, 0], np.int32))]
    col = DictionaryArray(DataType("string"), runs, np.array([True, True, False, True, True]))
    table = pc.Table(pc.schema([pc.field("c", pc.string())]), [col])
    node = import_schema(table.__arrow_c_schema__()).children[0]
    assert node.format == "i" and node.dictionary is not None and node.dictionary.format == "u"
    back = pc.as_table(Stream(table)).column("c")
    assert isinstance(back, DictionaryArray)
    assert back.to_pylist() == ["b", "a", None, "z", "z"]


def test_empty_and_zero_column_tables():
    empty = _table().slice(0, 0)
    back = pc.as_table(Stream(empty))
    assert back.num_rows == 0 and back.column_names == empty.column_names
    none = pc.Table(pc.schema([]), [], 4)
    assert pc.as_table(Stream(none)).num_rows == 4
