"""A row group's flat leaves are sliced when their chunk is encoded, not all at once
(the write then holds one column's slice at a time: issue 32, write memory)."""

from __future__ import annotations

from unittest import mock

import pyarrow as pa

from parquet_core.interop.ingest import as_table
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.elements import schema_to_elements
from parquet_core.table.arrays import Array
from parquet_core.table.write_leaves import WriteLeaves


def test_flat_columns_sliced_only_when_their_thunk_runs() -> None:
    table = as_table(pa.table({"s": ["a", "bb", None, "ccc"], "i": [1, 2, 3, 4]}))
    descs = list(SchemaDescriptor(schema_to_elements(table.schema)))
    leaves = WriteLeaves(table, descs)
    real = Array.slice
    with mock.patch.object(Array, "slice", autospec=True, side_effect=real) as sliced:
        group = leaves.row_group(1, 3)
        assert sliced.call_count == 0
        data = group[0][1]()
        assert sliced.call_count == 1
    assert data.values.to_pylist() == [b"bb"] and list(data.def_levels) == [1, 0]
