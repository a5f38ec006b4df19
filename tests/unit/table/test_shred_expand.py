"""List expansion in the shredder and the record cuts of shredded leaves, read back by pyarrow.

The tables have what the expansion must get right: null lists whose offsets
still span child slots (Arrow allows it: those slots are never reached),
empty lists, null elements, lists under ended (null) parents, and a column
whose every row is null; each is written as one row group (the leaf's data
taken whole) and as several (the leaf cut at record boundaries), and
pyarrow's read of our file must equal the table.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc


def _nested(rows: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    n_items = rng.integers(0, 4, rows)
    items = int(n_items.sum())
    n_tags = rng.integers(0, 3, items)
    words = np.array(["a", "bb", "ccc", "", "dddd-eeee-ffff"])
    tag_values = pa.array(words[rng.integers(0, len(words), int(n_tags.sum()))],
                          mask=rng.random(int(n_tags.sum())) < 0.2)
    tags = pa.ListArray.from_arrays(np.concatenate(([0], np.cumsum(n_tags))).astype(np.int32), tag_values,
                                    mask=pa.array(rng.random(items) < 0.15))
    ids = pa.array(rng.integers(-50, 50, items), mask=rng.random(items) < 0.1)
    structs = pa.StructArray.from_arrays([ids, tags], ["id", "tags"], mask=pa.array(rng.random(items) < 0.1))
    # the null rows keep their items: their offsets span child slots no record reaches
    offsets = pa.array(np.concatenate(([0], np.cumsum(n_items))).astype(np.int32))
    mask = pa.array(rng.random(rows) < 0.2)
    nested = pa.ListArray.from_arrays(offsets, structs, mask=mask)
    all_null = pa.array([None] * rows, type=pa.list_(pa.int32()))
    flat_lists = pa.array([[i, i + 1] if i % 3 else [] for i in range(rows)], type=pa.list_(pa.int64()))
    return pa.table({"items": nested, "all_null": all_null, "flat": flat_lists})


@pytest.mark.parametrize("rows,seed,row_group_size", [(1, 0, None), (7, 1, None), (7, 1, 2), (500, 2, None),
                                                     (500, 2, 37), (3000, 3, None), (3000, 3, 1100)])
def test_nested_lists_read_back_by_pyarrow(tmp_path, rows: int, seed: int, row_group_size: int | None) -> None:
    table = _nested(rows, seed)
    path = str(tmp_path / "n.parquet")
    opts = {} if row_group_size is None else {"row_group_size": row_group_size}
    pc.write_table(table, path, use_threads=False, **opts)
    back = pq.read_table(path)
    assert back.equals(table)
    # each row group holds its own records' levels and values, no more: the level and
    # null counts of every chunk are those of pyarrow's file with the same row groups
    theirs = str(tmp_path / "pa.parquet")
    pq.write_table(table, theirs, **opts)
    ours_md, theirs_md = pq.ParquetFile(path).metadata, pq.ParquetFile(theirs).metadata
    assert ours_md.num_row_groups == theirs_md.num_row_groups
    for g in range(ours_md.num_row_groups):
        for c in range(ours_md.num_columns):
            a, b = ours_md.row_group(g).column(c), theirs_md.row_group(g).column(c)
            assert (a.num_values, a.statistics.null_count) == (b.num_values, b.statistics.null_count), (g, c)
