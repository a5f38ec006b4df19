"""``iter_batches`` decodes a leaf whose chunk is one piece into that row group's output
arena (``column.outputs``, issue 32, the taxi-like ``iter_batches``): the batches equal
pyarrow's (row group and piece boundaries inside batches, nulls, dictionary and string
columns beside the planned ones); each row group's planned columns share one buffer, the
others do not; ``served`` hands a leaf's slice to that leaf only."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.column.outputs import OutputArena, output_array, served
from tests._support.output_arena import root_base, unplanned_columns

ROWS = 300_000      # per row group: 2 planned 8-byte columns + 1 of 4 bytes, over ARENA_MIN_BYTES
PLANNED = ("i32", "i64", "f64")


def _table(rng: np.random.Generator, rows: int) -> pa.Table:
    return pa.table({
        # 2-bit indices: each chunk ~75 KB, decoded as one piece (planned)
        "i32": rng.integers(-2, 2, rows).astype(np.int32),
        "i64": rng.integers(0, 4, rows) * 10**12,
        "f64": rng.integers(0, 4, rows) * 0.5,
        **unplanned_columns(rng, rows),
    })


@pytest.fixture(scope="module")
def two_groups(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("arena") / "t.parquet")
    table = _table(np.random.default_rng(11), 2 * ROWS)
    pq.write_table(table, path, row_group_size=ROWS,
                   use_dictionary=["i32", "i64", "f64", "wide", "opt", "s"])
    return path


@pytest.mark.parametrize("size", [8192, 65536, 70001])
def test_batches_equal_pyarrow_and_planned_columns_share_their_group_buffer(two_groups: str, size: int) -> None:
    ours = list(pc.ParquetFile(two_groups).iter_batches(batch_size=size, use_threads=False))
    theirs = list(pq.ParquetFile(two_groups).iter_batches(batch_size=size, use_threads=False))
    assert [b.num_rows for b in ours] == [b.num_rows for b in theirs]
    for a, b in zip(ours, theirs):
        assert a.to_arrow().equals(pa.Table.from_batches([b])), size
    first, last = ours[0], ours[-1]
    arena = root_base(first.column("i32").values)
    assert all(root_base(first.column(name).values) is arena for name in PLANNED)
    assert arena.nbytes == ROWS * (4 + 8 + 8) + 3 * 64      # the planned columns, exactly
    for name in ("opt", "plain", "wide"):
        assert root_base(first.column(name).values) is not arena
    if last.num_rows < ROWS and ROWS % size:     # the last batch is of the second row group
        other = root_base(last.column("i32").values)
        assert other is not arena and all(root_base(last.column(name).values) is other for name in PLANNED)


def test_threads_read_the_same(two_groups: str) -> None:
    ours = pc.ParquetFile(two_groups).iter_batches(batch_size=65536, use_threads=True)
    got = pa.concat_tables([b.to_arrow() for b in ours])
    assert got.equals(pq.read_table(two_groups))


def test_served_gives_one_slice_to_its_own_leaf() -> None:
    arena = OutputArena(100, [8, 8])
    i64 = np.dtype(np.int64)
    taken: list[object] = []

    def leaf(lengths: list[int]):
        for n in lengths:
            taken.append(output_array(n, i64))
            yield n

    a = served(leaf([100, 100]), arena)     # its first piece takes the slice, the second may not
    b = served(leaf([50, 100]), arena)
    assert next(a) == 100 and taken[-1] is not None
    assert output_array(100, i64) is None    # not served between steps
    assert next(b) == 50 and taken[-1] is None
    assert next(a) == 100 and taken[-1] is None     # a had its slice
    assert next(b) == 100 and taken[-1] is not None
    assert next(a, None) is None and next(b, None) is None
    assert output_array(100, i64) is None
    assert served(iter([1, 2]), None) is not None and list(served(iter([1, 2]), None)) == [1, 2]
