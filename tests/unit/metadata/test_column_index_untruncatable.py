"""A page maximum that no shorter upper bound exists for (all 0xFF past the truncation length)
is written whole in the column index, as the spec's truncation rule allows and pyarrow reads."""

from __future__ import annotations

import io

import pytest

import parquet_core as pc

pq = pytest.importorskip("pyarrow.parquet")


def test_untruncatable_max_is_kept_whole() -> None:
    top = b"\xff" * 100
    table = pc.Table.from_pydict({"b": [b"\x00", top]})
    buf = io.BytesIO()
    pc.write_table(table, buf, write_page_index=True, column_index_truncate_length=8, use_dictionary=False)
    data = buf.getvalue()
    index = pc.ParquetFile(io.BytesIO(data)).column_index(0, "b")
    assert index is not None
    assert list(index.max_values) == [top] and list(index.min_values) == [b"\x00"]
    # pyarrow reads the file and its page index back
    meta = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0)
    assert meta.has_column_index
    assert pq.read_table(io.BytesIO(data)).column("b").to_pylist() == [b"\x00", top]
