"""The decoded values of a read's fixed-width dictionary columns in one allocation
(``column.outputs``, issue 32, the taxi-like read): files written by pyarrow, read
equal to pyarrow's read; the planned columns share one buffer, the others do not;
the arena's size follows the values decoded, not the counts in the metadata."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.column.outputs import ARENA_COLUMN_MIN_BYTES, ARENA_MIN_BYTES, OutputArena, output_array, serving
from tests._support.output_arena import root_base, unplanned_columns

ROWS = 300_000      # 3 planned 8-byte columns + 2 of 4 bytes: 9.6 MB, over ARENA_MIN_BYTES


def _table(rng: np.random.Generator) -> pa.Table:
    return pa.table({
        "i32": rng.integers(-50, 50, ROWS).astype(np.int32),
        "i64": rng.integers(0, 300, ROWS) * 10**12,
        "f64": rng.integers(0, 8, ROWS) * 0.5,
        "f32": (rng.integers(0, 20, ROWS) * 0.25).astype(np.float32),
        **unplanned_columns(rng, ROWS),
    })


def test_planned_columns_share_one_buffer_and_equal_pyarrow(tmp_path) -> None:
    table = _table(np.random.default_rng(7))
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, use_dictionary=["i32", "i64", "f64", "f32", "wide", "opt", "s"])
    for threads in (False, True):
        ours = pc.read_table(path, use_threads=threads)
        assert ours.to_arrow().equals(pq.read_table(path)), threads
        bases = {name: root_base(ours.column(name).values) for name in ("i32", "i64", "f64", "f32", "wide")}
        arena = bases["i32"]
        assert all(b is arena for b in bases.values()), threads
        # exactly the planned columns' bytes (each slice 64-byte aligned)
        assert arena.nbytes == ROWS * (4 + 8 + 8 + 4 + 8) + 5 * 64
        for name in ("opt", "plain"):
            assert root_base(ours.column(name).values) is not arena


def test_small_columns_are_not_planned(tmp_path) -> None:
    rng = np.random.default_rng(10)
    rows = (ARENA_COLUMN_MIN_BYTES // 8) - 1000       # each column just under the minimum
    table = pa.table({f"c{i}": rng.integers(0, 5, rows) for i in range(40)})     # 40 MB in all
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path)
    ours = pc.read_table(path, use_threads=False)
    assert ours.to_arrow().equals(pq.read_table(path))
    assert root_base(ours.column("c0").values) is not root_base(ours.column("c1").values)


def test_small_reads_and_single_columns_allocate_their_own(tmp_path) -> None:
    table = _table(np.random.default_rng(8))
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path)
    one = pc.read_table(path, columns=["i64"], use_threads=False)    # 2.4 MB
    assert ROWS * 8 < ARENA_MIN_BYTES
    assert one.to_arrow().equals(pq.read_table(path, columns=["i64"]))
    assert root_base(one.column("i64").values).nbytes == ROWS * 8


def test_dictionary_fallback_to_plain_still_equal(tmp_path) -> None:
    # dictionaries that fill up mid-chunk: the planned slice is not taken by those columns
    rng = np.random.default_rng(9)
    table = pa.table({name: rng.integers(0, 1 << 40, ROWS) for name in ("a", "b", "c")})
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, dictionary_pagesize_limit=1 << 12, data_page_size=1 << 14)
    assert pc.read_table(path, use_threads=False).to_arrow().equals(pq.read_table(path))


def test_arena_takes_exact_lengths_and_is_sized_by_the_first_real_column() -> None:
    arena = OutputArena(1000, [8, 4, 8])
    i64, i32 = np.dtype(np.int64), np.dtype(np.int32)
    assert arena.take(999, i64) is None and arena.take(0, i64) is None
    a = arena.take(1000, i64)
    b = arena.take(1000, i32)
    c = arena.take(1000, i64)
    assert a is not None and b is not None and c is not None
    assert arena.take(1000, i64) is None        # no room left: the caller allocates
    a[:] = 1
    b[:] = 2
    c[:] = 3
    assert (a == 1).all() and (b == 2).all() and (c == 3).all()     # no overlap
    assert root_base(a).nbytes == 1000 * 20 + 3 * 64
    for x in (a, b, c):
        assert x.ctypes.data % 64 == 0


def test_one_slice_per_leaf_and_none_outside_serving() -> None:
    assert output_array(1000, np.dtype(np.int64)) is None
    arena = OutputArena(1000, [8, 8])
    with serving(arena):
        assert output_array(999, np.dtype(np.int64)) is None       # not the planned length
        assert output_array(1000, np.dtype(np.int64)) is not None
        assert output_array(1000, np.dtype(np.int64)) is None      # this leaf had its slice
    assert output_array(1000, np.dtype(np.int64)) is None


@pytest.mark.parametrize("claimed", [10**9, 2**31 - 1])
def test_claimed_rows_do_not_size_the_arena(claimed: int) -> None:
    # a footer claiming more rows than the pages hold: no column asks for that length,
    # so nothing that large is allocated
    arena = OutputArena(claimed, [8] * 10)
    assert arena.take(1000, np.dtype(np.int64)) is None
    assert arena._buf is None


def _money(rng: np.random.Generator, rows: int, lo: int, hi: int) -> pa.Array:
    """decimal128(15, 2) values (pyarrow stores them as FIXED_LEN_BYTE_ARRAY(7))."""
    cents = rng.integers(lo, hi, rows)
    words = np.empty((rows, 2), dtype="<i8")
    words[:, 0] = cents
    words[:, 1] = cents >> 63       # the sign, extended
    return pa.Array.from_buffers(pa.decimal128(15, 2), rows, [None, pa.py_buffer(words)])


def test_fixed_len_byte_array_columns_share_the_arena(tmp_path) -> None:
    rng = np.random.default_rng(11)
    rows = ROWS
    table = pa.table({"qty": _money(rng, rows, 1, 51), "tax": _money(rng, rows, 0, 9),
                      "i64": rng.integers(0, 300, rows) * 10**12})
    assert table.schema.field("qty").type == pa.decimal128(15, 2)
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path)
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).physical_type == "FIXED_LEN_BYTE_ARRAY"
    ours = pc.read_table(path, use_threads=False)
    assert ours.to_arrow().equals(pq.read_table(path))
    bases = [root_base(ours.column(name).values) for name in ("qty", "tax", "i64")]
    assert bases[0] is bases[1] is bases[2]
    assert bases[0].nbytes == rows * (7 + 7 + 8) + 3 * 64


def test_threaded_read_of_one_row_group_uses_the_arena(tmp_path) -> None:
    # big enough for the pool (chunks of ~1.8 MB: a 100,000-entry dictionary and 17-bit
    # indices), one row group: the planned columns' values (3.7 MB each) still land in one
    # allocation; equal to pyarrow's read
    rng = np.random.default_rng(12)
    rows = 460_000
    table = pa.table({f"c{i}": rng.integers(0, 100_000, rows) * (i + 1) for i in range(6)})
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path)
    ours = pc.read_table(path, use_threads=True)
    assert ours.to_arrow().equals(pq.read_table(path))
    bases = [root_base(ours.column(f"c{i}").values) for i in range(6)]
    assert all(b is bases[0] for b in bases)
