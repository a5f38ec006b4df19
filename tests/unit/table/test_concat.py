"""Concatenating no tables gives an empty table of the given schema."""

from __future__ import annotations


import parquet_core as pc
from parquet_core.table.arrays import Table


def test_concat_of_nothing_keeps_the_schema():
    schema = pc.schema([pc.field("a", pc.int64()), pc.field("b", pc.string()),
                        pc.field("l", pc.list_(pc.int32()))])
    t = Table.concat([], schema)
    assert t.num_rows == 0 and t.column_names == ["a", "b", "l"]
    assert all(t.column(n).to_pylist() == [] for n in t.column_names)


def test_array_concat_refuses_a_list_beside_another_kind():
    from parquet_core.table.arrays import Array
    from parquet_core.table.ingest import as_array
    lists = as_array([[1, 2], None], "l", pc.field("l", pc.list_(pc.int64())))
    flat = as_array([1, 2], "f", pc.field("f", pc.int64()))
    with pytest.raises(TypeError, match="cannot concatenate a ListArray"):
        Array.concat([lists, flat])
    assert Array.concat([lists, lists]).to_pylist() == [[1, 2], None, [1, 2], None]


# --- concatenation with differing schemas; expected values come from pyarrow ---

import io  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from parquet_core.table.ingest import as_table  # noqa: E402

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _pair(t1, v1, t2, v2):
    ours = [as_table({"a": v1}, pc.schema([pc.field("a", t1)])),
            as_table({"a": v2}, pc.schema([pc.field("a", t2)]))]
    return ours


def _written(table):
    sink = io.BytesIO()
    pc.write_table(table, sink)
    return pq.read_table(io.BytesIO(sink.getvalue()))


def test_int64_and_double_no_longer_keep_int64():
    ours = _pair(pc.int64(), [1], pc.float64(), [1.5])
    with pytest.raises(pc.ParquetSchemaError, match=r"'a'.*int64.*float64"):
        Table.concat(ours)
    with pytest.raises(pc.ParquetSchemaError, match=r"'a'.*int64.*float64"):
        Table.concat(ours, promote_options="default")
    got = Table.concat(ours, promote_options="permissive")
    expected = pa.concat_tables([pa.table({"a": pa.array([1])}), pa.table({"a": pa.array([1.5])})],
                                promote_options="permissive")
    back = _written(got)
    assert back.schema.field("a").type == expected.schema.field("a").type == pa.float64()
    assert back.column("a").to_pylist() == expected.column("a").to_pylist() == [1.0, 1.5]


def test_columns_are_matched_by_name():
    a = as_table({"a": [1]})
    b = as_table({"b": [2]})
    with pytest.raises(pc.ParquetSchemaError, match="'a'"):
        Table.concat([a, b])
    got = Table.concat([a, b], promote_options="default")
    expected = pa.concat_tables([pa.table({"a": [1]}), pa.table({"b": [2]})], promote_options="default")
    assert got.column_names == expected.column_names
    assert got.to_pydict() == expected.to_pydict()
    # a reordered table is united by name, not position
    ab = as_table({"a": [1], "b": ["x"]})
    ba = as_table({"b": ["y"], "a": [2]})
    got = Table.concat([ab, ba], promote_options="default")
    assert got.to_pydict() == {"a": [1, 2], "b": ["x", "y"]}


def test_string_and_int_refused_like_pyarrow():
    ours = _pair(pc.string(), ["x"], pc.int64(), [1])
    for opt in ("none", "default", "permissive"):
        with pytest.raises(pc.ParquetSchemaError, match=r"'a'.*string.*int64"):
            Table.concat(ours, promote_options=opt)
        with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError)):
            pa.concat_tables([pa.table({"a": ["x"]}), pa.table({"a": [1]})], promote_options=opt)


def test_unknown_promote_option_is_a_value_error():
    t = as_table({"a": [1]})
    with pytest.raises(ValueError, match="promote_options"):
        Table.concat([t, t], promote_options="bogus")


@pytest.mark.parametrize("t1,v1,pt1,t2,v2,pt2", [
    (pc.timestamp("ms"), [1], pa.timestamp("ms"), pc.timestamp("ns"), [2], pa.timestamp("ns")),
    (pc.timestamp("us", utc=True), [1], pa.timestamp("us", "UTC"),
     pc.timestamp("ns", utc=True), [2], pa.timestamp("ns", "UTC")),
    (pc.time("ms"), [1], pa.time32("ms"), pc.time("us"), [2], pa.time64("us")),
    (pc.decimal(5, 2), [1], pa.decimal128(5, 2), pc.decimal(10, 3), [2], pa.decimal128(10, 3)),
    (pc.decimal(12, 2), [1], pa.decimal128(12, 2), pc.int32(), [7], pa.int32()),
    (pc.int8(), [-1], pa.int8(), pc.uint8(), [255], pa.uint8()),
    (pc.uint32(), [7], pa.uint32(), pc.int32(), [-7], pa.int32()),
    (pc.string(), ["x"], pa.string(), pc.binary(), [b"y"], pa.binary()),
    (pc.list_(pc.int32()), [[1, None], None], pa.list_(pa.int32()),
     pc.list_(pc.int64()), [[2**40]], pa.list_(pa.int64())),
])
def test_permissive_widening_matches_pyarrow(t1, v1, pt1, t2, v2, pt2):
    from decimal import Decimal

    def pyvals(vals, pt):
        return [Decimal(v) if pa.types.is_decimal(pt) else v for v in vals]

    expected = pa.concat_tables([pa.table({"a": pa.array(pyvals(v1, pt1), pt1)}),
                                 pa.table({"a": pa.array(pyvals(v2, pt2), pt2)})],
                                promote_options="permissive")
    ours = _pair(t1, pyvals(v1, pt1), t2, pyvals(v2, pt2))
    got = Table.concat(ours, promote_options="permissive")
    back = _written(got)
    assert back.column("a").to_pylist() == expected.column("a").to_pylist()
    assert str(back.schema.field("a").type).replace("element", "item") == \
        str(expected.schema.field("a").type)


@pytest.mark.parametrize("t1,v1,pt1,t2,v2,pt2", [
    (pc.timestamp("us"), [1], pa.timestamp("us"), pc.timestamp("us", utc=True), [2], pa.timestamp("us", "UTC")),
    (pc.decimal(5, 2), [1], pa.decimal128(5, 2), pc.int32(), [7], pa.int32()),
    (pc.bool_(), [True], pa.bool_(), pc.int8(), [1], pa.int8()),
    (pc.date(), [1], pa.date32(), pc.timestamp("us"), [1], pa.timestamp("us")),
    (pc.int64(), [2**53 + 1], pa.int64(), pc.float64(), [0.5], pa.float64()),
    (pc.uint64(), [2**63], pa.uint64(), pc.int64(), [1], pa.int64()),
])
def test_permissive_refusals_match_pyarrow(t1, v1, pt1, t2, v2, pt2):
    from decimal import Decimal

    conv = (lambda vals, pt: [Decimal(v) for v in vals] if pa.types.is_decimal(pt) else vals)
    with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError)):
        pa.concat_tables([pa.table({"a": pa.array(conv(v1, pt1), pt1)}),
                          pa.table({"a": pa.array(conv(v2, pt2), pt2)})], promote_options="permissive")
    with pytest.raises(pc.ParquetSchemaError, match="'a'"):
        Table.concat(_pair(t1, conv(v1, pt1), t2, conv(v2, pt2)), promote_options="permissive")


def test_struct_member_union_is_refused_clearly():
    # pyarrow unites struct members; we refuse (documented in table/concat.py)
    x = as_table({"s": [{"x": 1}]})
    y = as_table({"s": [{"y": 2}]})
    with pytest.raises(pc.ParquetSchemaError, match="struct members"):
        Table.concat([x, y], promote_options="default")


def test_missing_nested_column_fills_nulls():
    x = as_table({"s": [{"x": 1}], "a": [1]})
    y = as_table({"a": [2]})
    got = Table.concat([x, y], promote_options="default")
    assert got.to_pydict() == {"s": [{"x": 1}, None], "a": [1, 2]}


def test_merged_field_is_nullable_when_a_table_lacks_it():
    schema = pc.schema([pc.field("a", pc.int64(), nullable=False)])
    x = as_table({"a": [1]}, schema)
    got = Table.concat([x, as_table({"b": [1]})], promote_options="default")
    assert got.schema.field("a").nullable
    assert Table.concat([x, x], promote_options="default").schema.field("a").nullable is False


# --- a column's declared type always matches its buffer ---

@pytest.mark.parametrize("dt,values", [
    (pc.int64(), np.array([1.5])),
    (pc.int32(), np.array([1], dtype=np.int64)),
    (pc.uint8(), np.array([1], dtype=np.int8)),
    (pc.float32(), np.array([1.0])),
    (pc.string(), np.array([1])),
    (pc.timestamp("ns"), np.array([1], dtype=np.int32)),
    (pc.time("ms"), np.array([1], dtype=np.int64)),
    (pc.uuid(), np.zeros((1, 8), dtype=np.uint8)),
    (pc.bool_(), np.array([1], dtype=np.int8)),
])
def test_array_refuses_a_buffer_of_another_type(dt, values):
    with pytest.raises(pc.ParquetSchemaError, match=str(dt).split("[")[0]):
        pc.Array(dt, values)


def test_array_refuses_a_malformed_validity():
    with pytest.raises(pc.ParquetSchemaError, match="validity"):
        pc.Array(pc.int64(), np.array([1, 2]), np.array([1, 0]))
    with pytest.raises(pc.ParquetSchemaError, match="validity"):
        pc.Array(pc.int64(), np.array([1, 2]), np.array([True]))


def test_from_pydict_and_from_pylist_match_pyarrow():
    pa = pytest.importorskip("pyarrow")
    data = {"a": [1, None, 3], "s": ["x", "y", None]}
    t = pc.Table.from_pydict(data)
    assert t.to_pydict() == pa.Table.from_pydict(data).to_pydict()
    rows = [{"a": 1, "s": "x"}, {"a": 2}]
    assert pc.Table.from_pylist(rows).to_pylist() == pa.Table.from_pylist(rows).to_pylist()
    schema = pc.schema([pc.field("a", pc.int32())])
    assert pc.Table.from_pydict({"a": [1, 2]}, schema).schema == schema
    with pytest.raises(pc.ParquetSchemaError):
        pc.Table.from_pydict({"a": ["not a number"]}, schema)
    with pytest.raises(TypeError):
        pc.Table.from_pydict([1, 2])
