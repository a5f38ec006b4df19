"""The parquet-testing files with nested columns that the conformance tests read and rewrite."""

from __future__ import annotations

__all__ = ["NESTED_FILES"]

NESTED_FILES = [
    "datapage_v2.snappy.parquet", "list_columns.parquet", "map_no_value.parquet",
    "nested_lists.snappy.parquet", "nested_maps.snappy.parquet", "nested_structs.rust.parquet",
    "nonnullable.impala.parquet", "null_list.parquet", "nullable.impala.parquet",
    "nulls.snappy.parquet", "old_list_structure.parquet", "repeated_no_annotation.parquet",
    "repeated_primitive_no_list.parquet",
]
