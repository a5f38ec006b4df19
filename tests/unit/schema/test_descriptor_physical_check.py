"""The descriptor's physical-type check (a set lookup) refuses what the members' list refused."""

from __future__ import annotations

import pytest

from parquet_core.constants import PhysicalType
from parquet_core.errors import ParquetSchemaError
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.thrift import pt


def _schema(t):
    return [pt.SchemaElement(name="root", num_children=1),
            pt.SchemaElement(name="x", type=t, repetition_type=0)]


@pytest.mark.parametrize("t", list(PhysicalType))
def test_known_types_accepted(t) -> None:
    el = _schema(int(t))
    if t == PhysicalType.FIXED_LEN_BYTE_ARRAY:
        el[1].type_length = 4
    assert SchemaDescriptor(el).column(0).physical_type == int(t)


@pytest.mark.parametrize("t", [-1, 8, 99, 2**40, [1], "INT32"])
def test_unknown_types_refused(t) -> None:
    with pytest.raises(ParquetSchemaError, match="unknown physical type"):
        SchemaDescriptor(_schema(t))
