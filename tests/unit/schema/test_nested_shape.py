"""Logical shapes of nested fields: the LIST and MAP layouts and their backward-compatibility rules.

Each case is one of the schema examples of the format's LogicalTypes.md
("Nested Types", "Lists", "Maps" and their backward-compatibility rules),
with the type the text says it stands for.
"""

from __future__ import annotations

import pytest

from parquet_core.constants import ConvertedType, PhysicalType, Repetition
from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.nested import build_shape, prune_shape
from parquet_core.thrift import pt

REQ, OPT, REP = Repetition.REQUIRED, Repetition.OPTIONAL, Repetition.REPEATED
INT32, BINARY = PhysicalType.INT32, PhysicalType.BYTE_ARRAY
LIST, MAP, MKV, UTF8 = ConvertedType.LIST, ConvertedType.MAP, ConvertedType.MAP_KEY_VALUE, ConvertedType.UTF8


def leaf(name, ptype, rep=REQ, ct=None):
    return [pt.SchemaElement(name=name, type=ptype, repetition_type=rep, converted_type=ct)]


def group(name, rep, *children, ct=None, lt=None):
    head = pt.SchemaElement(name=name, repetition_type=rep, num_children=len(children),
                            converted_type=ct, logicalType=lt)
    return [head] + [e for c in children for e in c]


def shape_of(field):
    d = SchemaDescriptor(group("m", REQ, field))
    return build_shape(d.root.children[0], d.leaf_of, lambda i: d.column(i).data_type), d


def type_of(field) -> str:
    s, _ = shape_of(field)
    return f"{s.data_type}{'' if s.nullable else ' not null'}"


CASES = [
    # Unannotated repeated fields: required lists of required elements.
    (leaf("num", INT32, REP), "list<num: int32 not null> not null"),
    (group("my_list", REP, leaf("num", INT32), leaf("str", BINARY, OPT, UTF8)),
     "list<my_list: struct<num: int32 not null, str: string> not null> not null"),
    # The 3-level LIST.
    (group("my_list", REQ, group("list", REP, leaf("element", BINARY, OPT, UTF8)), ct=LIST),
     "list<element: string> not null"),
    (group("my_list", OPT, group("list", REP, leaf("element", BINARY, REQ, UTF8)), ct=LIST),
     "list<element: string not null>"),
    (group("array_of_arrays", OPT, group("list", REP, group("element", REQ, group(
        "list", REP, leaf("element", INT32)), ct=LIST)), ct=LIST),
     "list<element: list<element: int32 not null> not null>"),
    # Names are not enforced: a repeated group named "element" with one field is 3-level.
    (group("my_list", OPT, group("element", REP, leaf("str", BINARY, REQ, UTF8)), ct=LIST),
     "list<str: string not null>"),
    # Rule 1: a repeated primitive is the element.
    (group("my_list", OPT, leaf("element", INT32, REP), ct=LIST), "list<element: int32 not null>"),
    # Rule 2: a repeated group of several fields is the element.
    (group("my_list", OPT, group("element", REP, leaf("str", BINARY, REQ, UTF8), leaf("num", INT32)), ct=LIST),
     "list<element: struct<str: string not null, num: int32 not null> not null>"),
    # Rule 3: a repeated group whose only field is repeated is the element.
    (group("my_list", OPT, group("array", REP, leaf("array", INT32, REP), ct=LIST), ct=LIST),
     "list<array: list<array: int32 not null> not null>"),
    # Rule 4: "array" and "<name>_tuple" groups are one-field structs.
    (group("my_list", OPT, group("array", REP, leaf("str", BINARY, REQ, UTF8)), ct=LIST),
     "list<array: struct<str: string not null> not null>"),
    (group("my_list", OPT, group("my_list_tuple", REP, leaf("str", BINARY, REQ, UTF8)), ct=LIST),
     "list<my_list_tuple: struct<str: string not null> not null>"),
    # Rule 5: otherwise 3-level, the element keeps its repetition.
    (group("my_list", OPT, group("element", REP, leaf("str", BINARY, OPT, UTF8)), ct=LIST),
     "list<str: string>"),
    # Maps: standard, misnamed, MAP_KEY_VALUE, key not required, no value.
    (group("my_map", REQ, group("key_value", REP, leaf("key", BINARY, REQ, UTF8), leaf("value", INT32, OPT)),
           ct=MAP), "map<string, int32> not null"),
    (group("my_map", OPT, group("map", REP, leaf("str", BINARY, REQ, UTF8), leaf("num", INT32)), ct=MAP),
     "map<string, int32>"),
    (group("my_map", OPT, group("map", REP, leaf("key", BINARY, REQ, UTF8), leaf("value", INT32, OPT)), ct=MKV),
     "map<string, int32>"),
    (group("my_map", OPT, group("key_value", REP, leaf("key", BINARY, OPT, UTF8), leaf("value", BINARY, OPT)),
           ct=MAP), "map<string, binary>"),
    (group("my_map", REQ, group("key_value", REP, leaf("key", INT32)), ct=MAP), "list<key: int32 not null> not null"),
    # LIST given as a logical type rather than a converted type.
    (group("l", OPT, group("list", REP, leaf("element", INT32, OPT)), lt=pt.LogicalType(LIST=pt.ListType())),
     "list<element: int32>"),
    # A group without annotation is a struct.
    (group("s", OPT, leaf("a", INT32, OPT), group("t", REQ, leaf("b", INT32))),
     "struct<a: int32, t: struct<b: int32 not null> not null>"),
]


@pytest.mark.parametrize("field, expected", CASES, ids=[str(i) for i in range(len(CASES))])
def test_layouts_from_the_spec(field, expected) -> None:
    assert type_of(field) == expected


def test_map_keys_marked_optional_are_nullable_keys() -> None:
    s, _ = shape_of(group("m", OPT, group("key_value", REP, leaf("key", BINARY, OPT, UTF8),
                                          leaf("value", BINARY, OPT)), ct=MAP))
    assert s.data_type.fields[0].nullable and s.data_type.fields[1].nullable


def test_levels_of_a_three_level_list() -> None:
    s, d = shape_of(group("a", OPT, group("list", REP, leaf("element", INT32, OPT)), ct=LIST))
    assert (s.kind, s.def_level, s.elem_def, s.slot_def, s.slot_rep) == ("list", 1, 2, 0, 0)
    e = s.children[0]
    assert (e.kind, e.def_level, e.slot_def, e.slot_rep) == ("leaf", 3, 2, 1)
    assert d.column(e.column).max_definition_level == 3


@pytest.mark.parametrize("field", [
    group("bad", OPT, leaf("a", INT32, REP), leaf("b", INT32, REP), ct=LIST),
    group("bad", OPT, group("list", REQ, leaf("element", INT32)), ct=LIST),
    group("bad", OPT, leaf("kv", INT32, REP), ct=MAP),
    group("bad", OPT, group("kv", REP, leaf("k", INT32), leaf("v", INT32), leaf("w", INT32)), ct=MAP),
])
def test_malformed_layouts_raise_schema_errors(field) -> None:
    with pytest.raises(ParquetSchemaError):
        shape_of(field)


def test_prune_keeps_file_order_and_turns_half_maps_into_lists() -> None:
    s, d = shape_of(group("s", OPT, leaf("a", INT32), group("m", OPT, group(
        "key_value", REP, leaf("key", INT32), leaf("value", INT32, OPT)), ct=MAP)))
    a, key, value = s.leaves
    assert str(prune_shape(s, {a}).data_type) == "struct<a: int32 not null>"
    assert str(prune_shape(s, {key, a}).data_type) == \
        "struct<a: int32 not null, m: list<m: struct<key: int32 not null> not null>>"
    assert prune_shape(s, {a, key, value}) is s
    assert prune_shape(s, set()) is None
