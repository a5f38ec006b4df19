"""Schema tree and leaf descriptors built from flat SchemaElement lists."""

from __future__ import annotations

import pytest

from parquet_core.constants import ConvertedType, PhysicalType, Repetition
from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.tree import parse_schema_tree
from parquet_core.thrift import pt


def el(name, type=None, rep=Repetition.REQUIRED, children=None, **kw):
    return pt.SchemaElement(name=name, type=type, repetition_type=rep, num_children=children, **kw)


def test_levels_of_nested_paths() -> None:
    # message m { optional group a { repeated group b { optional int32 c; } } required int64 d; }
    elements = [
        el("m", children=2),
        el("a", rep=Repetition.OPTIONAL, children=1),
        el("b", rep=Repetition.REPEATED, children=1),
        el("c", PhysicalType.INT32, Repetition.OPTIONAL),
        el("d", PhysicalType.INT64),
    ]
    d = SchemaDescriptor(elements)
    c, dd = d.columns
    assert c.path == ("a", "b", "c")
    assert (c.max_definition_level, c.max_repetition_level) == (3, 1)
    assert (dd.max_definition_level, dd.max_repetition_level) == (0, 0)
    assert dd.is_flat and not c.is_flat
    assert d.index_of(("d",)) == 1


def test_same_leaf_name_in_two_groups_kept_apart() -> None:
    elements = [el("m", children=2), el("x", children=1), el("v", PhysicalType.INT32),
                el("y", children=1), el("v", PhysicalType.DOUBLE)]
    d = SchemaDescriptor(elements)
    assert [c.path for c in d] == [("x", "v"), ("y", "v")]
    assert d.column(d.index_of(("y", "v"))).physical_type == PhysicalType.DOUBLE


@pytest.mark.parametrize("elements, match", [
    ([], "empty"),
    ([el("m", children=3), el("a", PhysicalType.INT32)], "ends early"),
    ([el("m", children=1), el("a", PhysicalType.INT32), el("b", PhysicalType.INT32)], "not reachable"),
    ([el("m", children=-1)], "num_children"),
])
def test_malformed_schema_lists(elements, match) -> None:
    with pytest.raises(ParquetSchemaError, match=match):
        parse_schema_tree(elements)


def test_flba_without_length_rejected() -> None:
    with pytest.raises(ParquetSchemaError, match="type_length"):
        SchemaDescriptor([el("m", children=1), el("f", PhysicalType.FIXED_LEN_BYTE_ARRAY)])


def test_logical_type_contradicting_physical_type() -> None:
    bad = el("s", PhysicalType.INT32, converted_type=ConvertedType.UTF8)
    with pytest.raises(ParquetSchemaError, match="cannot annotate"):
        SchemaDescriptor([el("m", children=1), bad])


def test_converted_and_logical_mapping() -> None:
    lt = pt.LogicalType(TIMESTAMP=pt.TimestampType(isAdjustedToUTC=False,
                                                   unit=pt.TimeUnit(NANOS=pt.NanoSeconds())))
    elements = [
        el("m", children=5),
        el("ts", PhysicalType.INT64, logicalType=lt),
        el("legacy", PhysicalType.INT64, converted_type=ConvertedType.TIMESTAMP_MILLIS),
        el("u", PhysicalType.INT64, converted_type=ConvertedType.UINT_64),
        el("dec", PhysicalType.FIXED_LEN_BYTE_ARRAY, type_length=9,
           converted_type=ConvertedType.DECIMAL, precision=20, scale=3),
        el("unknown_member", PhysicalType.BYTE_ARRAY, logicalType=pt.LogicalType()),
    ]
    types = [str(c.data_type) for c in SchemaDescriptor(elements)]
    assert types == ["timestamp[ns]", "timestamp[ms, UTC]", "uint64", "decimal(20, 3)", "binary"]
