"""The FILE logical type on the schema side: factory, validation, elements, shapes."""

from __future__ import annotations

import pytest

import parquet_core as pc
from parquet_core.schema.elements import schema_to_elements
from parquet_core.schema.file_ref import FILE_MEMBERS, check_file_ref
from parquet_core.thrift import pt


def test_factory_defaults_to_the_six_spec_members_all_optional() -> None:
    dt = pc.file_ref()
    # LogicalTypes.md, FILE: the member table, in the spec's order
    assert [(f.name, f.type.name, f.nullable) for f in dt.fields] == [
        ("uri", "string", True), ("offset", "int64", True), ("size", "int64", True),
        ("content_type", "string", True), ("checksum", "string", True),
        ("inline", "binary", True)]
    assert dt.name == "struct" and dt.annotation == "file"
    assert dt != pc.struct([(f.name, f.type) for f in dt.fields])
    assert str(pc.file_ref(["inline"])) == "file_ref<inline: binary>"


@pytest.mark.parametrize("members, err", [
    (["uri", "mtime"], ValueError), (["uri", "uri"], ValueError), ([], ValueError),
    ("uri", TypeError)])
def test_factory_refuses_bad_members(members, err) -> None:
    with pytest.raises(err):
        pc.file_ref(members)


def test_check_refuses_required_or_mistyped_members() -> None:
    good = pc.file_ref(["uri", "size"])
    check_file_ref(good)
    from dataclasses import replace
    req = replace(good, fields=(pc.Field("uri", FILE_MEMBERS["uri"], False),))
    with pytest.raises(ValueError, match="nullable"):
        check_file_ref(req)
    typed = replace(good, fields=(pc.Field("size", pc.int32(), True),))
    with pytest.raises(ValueError, match="must be int64"):
        check_file_ref(typed)


def test_elements_carry_file_on_the_group_and_no_converted_type() -> None:
    els = schema_to_elements(pc.schema([pc.field("doc", pc.file_ref(["uri", "inline"]))]))
    group = els[1]
    assert group.num_children == 2 and group.type is None
    assert group.logicalType == pt.LogicalType(FILE=pt.FileType())
    assert group.converted_type is None
    assert [(e.name, e.repetition_type) for e in els[2:]] == [("uri", 1), ("inline", 1)]
    assert els[2].logicalType.STRING is not None and els[3].logicalType is None
