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
