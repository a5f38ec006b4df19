"""Table.replace_schema_metadata behaves as pyarrow's (the same keys and values, a new table)."""

from __future__ import annotations

import pyarrow as pa

import parquet_core as pc


def test_replace_schema_metadata_matches_pyarrow() -> None:
    data = {"a": [1, 2, 3]}
    ours = pc.Table.from_pydict(data)
    theirs = pa.table(data)
    meta = {"k": "v", b"raw": b"\x00\x01"}
    got = ours.replace_schema_metadata(meta)
    assert got.metadata == theirs.replace_schema_metadata(meta).schema.metadata
    assert ours.metadata is None                      # the original is unchanged
    assert got.replace_schema_metadata(None).metadata == theirs.replace_schema_metadata(None).schema.metadata
    assert got.to_pydict() == data

