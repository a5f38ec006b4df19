"""The file type of each table type under the format options (facts measured with pyarrow 26;
``tests/interop/test_writer_format_options.py`` checks them against pyarrow's files)."""

from __future__ import annotations

import pytest

import parquet_core as pc
from parquet_core.schema.file_types import file_schema, file_type, spark_field_name

NS, US, MS = pc.timestamp("ns"), pc.timestamp("us"), pc.timestamp("ms")


@pytest.mark.parametrize("dt, options, expected", [
    (pc.uint32(), dict(version="1.0"), pc.int64()),
    (pc.uint32(), dict(version="2.4"), pc.uint32()),
    (pc.uint16(), dict(version="1.0"), pc.uint16()),
    (NS, dict(version="2.4"), US),
    (NS, dict(version="1.0"), US),
    (NS, dict(version="2.6"), NS),
    (pc.timestamp("ns", utc=True), dict(version="2.4"), pc.timestamp("us", utc=True)),
    (NS, dict(coerce_timestamps="ms"), MS),
    (MS, dict(coerce_timestamps="us"), US),
    (NS, dict(coerce_timestamps="ms", int96_timestamps=True), NS),
    (NS, dict(version="1.0", int96_timestamps=True), NS),
    (pc.time64("ns"), dict(version="1.0"), pc.time64("ns")),
    (pc.list_(NS), dict(version="2.4"), pc.list_(US)),
    (pc.map_(pc.uint32(), NS), dict(version="1.0"), pc.map_(pc.int64(), US)),
])
def test_file_type(dt, options, expected):
    assert file_type(dt, **options) == expected


def test_unchanged_types_are_the_same_objects():
    dt = pc.struct([pc.field("a", pc.int64()), pc.field("b", pc.string())])
    assert file_type(dt, version="1.0") is dt


def test_spark_names_top_level_only():
    schema = pc.schema([pc.field("a b", pc.struct([pc.field("c d", pc.int32())])), pc.field("x=1;y", pc.int8())])
    out = file_schema(schema, flavor="spark")
    assert out.names == ["a_b", "x_1_y"]
    assert out.field(0).type.fields[0].name == "c d"
    assert spark_field_name(" ,;{}()\n\t=") == "_" * 10
    assert file_schema(schema).names == schema.names


def test_spark_name_collision_is_refused():
    with pytest.raises(ValueError, match="'a b'"):
        file_schema(pc.schema([pc.field("a b", pc.int8()), pc.field("a_b", pc.int8())]), flavor="spark")
