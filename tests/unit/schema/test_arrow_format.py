"""Our types as Arrow C Data Interface format strings (the spec's table), and back."""

from __future__ import annotations

import pytest

import parquet_core as pc
from parquet_core.arrow_c import import_schema
from parquet_core.arrow_c.export import SchemaNode
from parquet_core.errors import UnsupportedFeatureError
from parquet_core.schema.arrow_format import field_node, schema_from_node, type_from_node
from parquet_core.schema.types import DataType, Field, TypeId

# expected formats: the "Data type description -- format strings" table of the C Data Interface
FORMATS = [
    (pc.null(), "n"), (pc.bool_(), "b"), (pc.int8(), "c"), (pc.uint8(), "C"), (pc.int16(), "s"),
    (pc.uint16(), "S"), (pc.int32(), "i"), (pc.uint32(), "I"), (pc.int64(), "l"), (pc.uint64(), "L"),
    (pc.float16(), "e"), (pc.float32(), "f"), (pc.float64(), "g"), (pc.string(), "u"), (pc.binary(), "z"),
    (pc.fixed_size_binary(5), "w:5"), (pc.date(), "tdD"), (pc.time("ms"), "ttm"), (pc.time("us"), "ttu"),
    (pc.time("ns"), "ttn"), (pc.timestamp("ms"), "tsm:"), (pc.timestamp("us", utc=True), "tsu:UTC"),
    (pc.timestamp("ns"), "tsn:"), (pc.decimal(10, 2), "d:10,2"), (pc.decimal(40, 5), "d:40,5,256"),
    (pc.uuid(), "w:16"), (pc.json_(), "u"),
]


@pytest.mark.parametrize("dt, fmt", FORMATS, ids=[f for _, f in FORMATS])
def test_flat_formats_and_back(dt, fmt):
    node = field_node(Field("c", dt))
    assert node.format == fmt
    assert type_from_node(node, "c") == (dt if dt.id is not TypeId.DECIMAL or (dt.precision or 0) <= 18
                                         else DataType("decimal", precision=dt.precision, scale=dt.scale,
                                                       byte_width=dt.byte_width))


def test_nested_schema_round_trips_through_a_capsule():
    schema = pc.schema([
        pc.field("l", pc.list_(pc.int32())),
        pc.field("m", pc.map_(pc.string(), pc.float64())),
        pc.field("s", pc.struct([pc.field("a", pc.int8(), nullable=False), pc.field("b", pc.string())])),
        pc.field("req", pc.int64(), nullable=False),
    ])
    node = import_schema(schema.__arrow_c_schema__())
    assert node.format == "+s" and [c.format for c in node.children] == ["+l", "+m", "+s", "l"]
    # named after the map's field, as in pyarrow's capsule of a table pq.read_table read
    # (tests/interop/test_map_entries_name.py compares with it)
    assert node.children[1].children[0].name == "m"
    assert [c.name for c in node.children[1].children[0].children] == ["key", "value"]
    back = schema_from_node(node)
    assert [(f.name, f.type, f.nullable) for f in back] == [(f.name, f.type, f.nullable) for f in schema]


def test_field_ids_travel_as_metadata():
    node = field_node(Field("x", pc.int32(), field_id=7))
    assert node.metadata == {b"PARQUET:field_id": b"7"}
    assert schema_from_node(SchemaNode("+s", "", 0, children=[node])).field("x").field_id == 7


@pytest.mark.parametrize("fmt, name", [("+ud:0,1", "dense_union"),
                                       ("+r", "run_end_encoded"), ("+vl", "list_view"),
                                       ("tiM", "month_interval"), ("tiD", "day_time_interval")])
def test_refused_types_are_named(fmt, name):
    with pytest.raises(UnsupportedFeatureError, match=name.replace("[", r"\[").replace("]", r"\]")):
        type_from_node(SchemaNode(fmt, "c"), "col")


def test_unknown_extension_types_are_refused():
    node = SchemaNode("z", "g", 2, {b"ARROW:extension:name": b"geoarrow.wkb"})
    with pytest.raises(UnsupportedFeatureError, match="geoarrow.wkb"):
        type_from_node(node, "g")


def test_durations_are_held_as_their_int64_count():
    """The unit lives in ARROW:schema, which the importer of a table attaches."""
    for fmt in ("tDs", "tDm", "tDu", "tDn"):
        assert str(type_from_node(SchemaNode(fmt, "c"), "col")) == "int64"
