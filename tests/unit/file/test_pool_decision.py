"""When a read uses the decode pool, and for which tasks (decisions, never timings).

* ``iter_batches(use_threads=True)`` asks :func:`parquet_core.file.scan.worth_threads` as
  a whole read does: a small file's batches never touch the pool;
* with the pool, each leaf decodes one piece ahead of the batches: a task per piece (and
  one finding its chunk's end), the next asked for only when a piece is taken, none left
  running when the caller stops early;
* errors still come in leaf order, and the batches are pyarrow's.
"""

from __future__ import annotations

import gc
import io
import os
import threading
import time
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.file import batches, scan


class _CountingPool:
    """The decode pool, counting the tasks handed to it."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool
        self.submitted = 0

    def submit(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        self.submitted += 1
        return self.pool.submit(fn, *args, **kwargs)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> _CountingPool:
    spy = _CountingPool(scan.decode_pool())
    monkeypatch.setattr(scan, "decode_pool", lambda: spy)
    return spy


def _file(table: pa.Table, **kw: Any) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return buf.getvalue()


def _batches(data: bytes, size: int, threads: bool) -> pa.Table:
    return pa.Table.from_batches([b.to_arrow().to_batches()[0] for b in
                                  pc.ParquetFile(data).iter_batches(batch_size=size, use_threads=threads)])


def test_small_file_batches_skip_the_pool(counting: _CountingPool) -> None:
    rng = np.random.default_rng(1)
    t = pa.table({"a": rng.integers(0, 5, 30_000), "b": rng.random(30_000), "s": [f"v{i % 7}" for i in range(30_000)]})
    data = _file(t, row_group_size=10_000)
    assert not scan.worth_threads(pc.ParquetFile(data)._context(), pc.ParquetFile(data).columns.select(None), [0, 1, 2])
    got = _batches(data, 1000, True)
    assert counting.submitted == 0
    assert got.equals(pq.read_table(io.BytesIO(data)))


class _FuturesPool(_CountingPool):
    """... keeping the Futures too."""

    def __init__(self, pool: Any) -> None:
        super().__init__(pool)
        self.futures: list[Any] = []

    def submit(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        fut = super().submit(fn, *args, **kwargs)
        self.futures.append(fut)
        return fut


@pytest.fixture
def futures(monkeypatch: pytest.MonkeyPatch) -> _FuturesPool:
    spy = _FuturesPool(scan.decode_pool())
    monkeypatch.setattr(scan, "decode_pool", lambda: spy)
    monkeypatch.setattr(scan, "THREAD_MIN_BYTES", 0)
    monkeypatch.setattr(scan, "THREAD_MIN_CHUNK_BYTES", 0)
    return spy


def _paged(n: int) -> tuple[pa.Table, bytes]:
    """Three leaves of random doubles in pages of 64 KiB (8192 values, pages that are not
    joined ahead: see column.reader.iter_chunk_pieces), so that threaded batches decode
    pieces of batches.AHEAD_MIN_LEVELS levels (8 pages)."""
    rng = np.random.default_rng(2)
    t = pa.table({"a": rng.random(n), "b": rng.random(n), "c": rng.random(n)})
    data = _file(t, row_group_size=n, data_page_size=1 << 16, compression="none", use_dictionary=False,
                 write_statistics=False)
    assert len(pc.ParquetFile(data).page_headers(0, "a")) == n // 8192
    return t, data


def test_threaded_batches_decode_one_piece_ahead(futures: _FuturesPool) -> None:
    pieces = 4
    t, data = _paged(pieces * batches.AHEAD_MIN_LEVELS)
    it = pc.ParquetFile(data).iter_batches(batch_size=1000, use_threads=True)
    first = next(it)
    # each leaf: its first piece, and the next one asked for when the first was taken
    assert futures.submitted == 6
    rest = list(it)
    # a task per piece, and one per leaf finding its chunk's end (and checking its rows)
    assert futures.submitted == 3 * (pieces + 1)
    assert pa.Table.from_batches([b.to_arrow().to_batches()[0] for b in [first] + rest]).equals(t)


@pytest.mark.parametrize("how", ["close", "drop"])
def test_stopping_early_leaves_no_task_decoding(futures: _FuturesPool, how: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    fetch = batches._Ahead._fetch

    def slow_fetch(self: Any) -> Any:      # the next pieces are still decoding when the caller stops
        time.sleep(0.05)
        return fetch(self)

    monkeypatch.setattr(batches._Ahead, "_fetch", slow_fetch)
    _, data = _paged(4 * batches.AHEAD_MIN_LEVELS)
    it = pc.ParquetFile(data).iter_batches(batch_size=8192, use_threads=True)
    for _ in range(9):          # into the second piece of each leaf
        next(it)
    assert 6 <= futures.submitted <= 9
    if how == "close":
        it.close()
    else:
        del it
        gc.collect()
    assert all(f.done() for f in futures.futures)     # cancelled, or run to its end
    assert futures.submitted <= 9     # and nothing asked for after


def test_threaded_batches_raise_the_first_error_in_leaf_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan, "THREAD_MIN_BYTES", 0)
    monkeypatch.setattr(scan, "THREAD_MIN_CHUNK_BYTES", 0)
    n = 50_000
    buf = io.BytesIO()
    pq.write_table(pa.table({"a": np.arange(n), "b": np.arange(n) * 2, "c": np.arange(n) * 3}), buf,
                   compression="none", use_dictionary=False, write_statistics=False, write_page_index=False,
                   data_page_size=1 << 14)
    data = bytearray(buf.getvalue())
    pf = pc.ParquetFile(bytes(data))
    for col in ("b", "c"):      # a later page header of b and c broken: a batch after the first fails
        offset = pf.page_headers(0, col)[5].offset
        data[offset:offset + 8] = b"\xff" * 8
    errors = []
    for threads in (False, True):
        with pytest.raises(pc.ParquetError) as info:
            for _ in pc.ParquetFile(bytes(data)).iter_batches(batch_size=4096, use_threads=threads):
                pass
        errors.append((type(info.value), str(info.value), info.value.__notes__))
    assert errors[0] == errors[1]
    assert any("column b" in note for note in errors[0][2])


def _runs(rng: np.random.Generator, n: int, card: int) -> np.ndarray:
    """Codes 0..card-1 in runs of 1-60 (the taxi-like columns of issue 32's benchmark)."""
    lengths = rng.integers(1, 61, n // 20 + 1)
    return np.repeat(rng.integers(0, card, len(lengths)), lengths)[:n]


def test_whole_read_decisions_on_the_benchmark_shapes(counting: _CountingPool) -> None:
    """Issue 32's taxi-like table (300,000 rows, 11 dictionary columns of short runs: 1.2 MB
    decoded, its decode mostly a run walk that holds the GIL; on the pool 0.95-1.03x of one
    thread) and its timestamps (2 DELTA_BINARY_PACKED columns, 0.9 MB, a 5 ms read) run on
    the calling thread; a table of 2 MB plain chunks goes to the pool."""
    n = 300_000
    rng = np.random.default_rng(4)
    taxi = pa.table({f"c{i}": _runs(rng, n, card).astype(np.int64 if i % 2 else np.int32)
                     for i, card in enumerate((3, 7, 6, 2, 265, 265, 5, 8, 3, 3, 4))})
    ts = pa.table({"ts": np.cumsum(rng.integers(900_000, 1_100_000, n)),
                   "counter": np.cumsum(rng.integers(0, 50, n)).astype(np.int32)})
    plain = pa.table({"a": rng.random(n), "b": rng.random(n)})
    cases = [(taxi, {}, False),
             (ts, {"use_dictionary": False, "column_encoding": {"ts": "DELTA_BINARY_PACKED",
                                                                "counter": "DELTA_BINARY_PACKED"}}, False),
             (plain, {"use_dictionary": False, "compression": "none"}, True)]
    for table, opts, pooled in cases:
        data = _file(table, **opts)
        counting.submitted = 0
        assert pc.read_table(data).to_arrow().equals(table)
        assert (counting.submitted > 0) == pooled
        counting.submitted = 0
        for _ in pc.ParquetFile(data).iter_batches(batch_size=65536):
            pass
        assert (counting.submitted > 0) == pooled


@pytest.mark.parametrize("groups", [1, 3])
def test_delta_binary_packed_bytes_do_not_count_toward_the_pool(counting: _CountingPool,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                groups: int) -> None:
    """A whole read whose bytes are DELTA_BINARY_PACKED chunks (their decoding holds the GIL)
    stays on the calling thread however big; the same values PLAIN, or beside a plain column
    that is big enough on its own, go to the pool."""
    for name in ("THREAD_MIN_BYTES", "THREAD_MIN_CHUNK_BYTES", "THREAD_MIN_GROUP_CHUNK_BYTES"):
        monkeypatch.setattr(scan, name, 1 << 10)
    monkeypatch.setattr(scan, "TASK_MIN_BYTES", 1)     # (small tasks are not batched together)
    n = 30_000
    rng = np.random.default_rng(6)
    ts = pa.table({"ts": np.cumsum(rng.integers(900_000, 1_100_000, n)),
                   "counter": np.cumsum(rng.integers(0, 50, n))})
    both = {"ts": "DELTA_BINARY_PACKED", "counter": "DELTA_BINARY_PACKED"}
    mixed = ts.append_column("plain", pa.array(rng.random(n)))
    cases = [(ts, both, False), (ts, {}, True), (mixed, both, True)]
    for table, encodings, pooled in cases:
        data = _file(table, use_dictionary=False, column_encoding=encodings or None,
                     compression="none", row_group_size=-(-n // groups))
        counting.submitted = 0
        assert pc.read_table(data).to_arrow().equals(table)
        assert (counting.submitted > 0) == pooled, (sorted(encodings), pooled)


def test_threaded_batches_of_few_bytes_a_value_skip_the_pool(futures: _FuturesPool) -> None:
    """Past scan.worth_threads (forced here), batches.worth_ahead keeps on the calling thread
    the chunks of short runs of dictionary codes (under a byte a value: their decode mostly
    holds the GIL) and a single leaf; plain doubles (8 bytes a value) go to the pool."""
    n = 100_000
    rng = np.random.default_rng(5)
    runs = pa.table({f"c{i}": _runs(rng, n, card) for i, card in enumerate((3, 7, 265, 5))})
    doubles = pa.table({"a": rng.random(n), "b": rng.random(n)})
    for table, pooled in ((runs, False), (doubles, True), (doubles.select(["a"]), False)):
        data = _file(table)
        futures.submitted = 0
        assert _batches(data, 8192, True).equals(table)
        assert (futures.submitted > 0) == pooled


# ---------------------------------------------------------------- several row groups (pool_plan)

class _Decodes:
    """``scan.decode_chunks`` calls of a read: (row groups, leaf, on a pool thread)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[tuple[int, ...], int, bool]] = []
        real = scan.decode_chunks

        def spy(ctx: Any, groups: Any, leaf: int, *args: Any) -> Any:
            pooled = threading.current_thread().name.startswith("parquet_core-decode")
            self.calls.append((tuple(groups), leaf, pooled))
            return real(ctx, groups, leaf, *args)

        monkeypatch.setattr(scan, "decode_chunks", spy)


def _ints(cols: int, rows: int, seed: int = 5) -> pa.Table:
    rng = np.random.default_rng(seed)
    return pa.table({f"c{i:02d}": rng.integers(-2**62, 2**62, rows) for i in range(cols)})


_PLAIN = {"use_dictionary": False, "compression": "none", "write_statistics": False}


def test_row_groups_of_mid_sized_chunks_pool_one_task_per_leaf(monkeypatch: pytest.MonkeyPatch) -> None:
    """12 leaves x 4 row groups of 400 kB chunks (under THREAD_MIN_CHUNK_BYTES, which kept such
    reads on the calling thread; the taxi table in 1 Mi-row groups is this shape): pooled, one
    task per leaf over the four row groups, as the one-thread read decodes them."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)     # each leaf under a share of the read
    t = _ints(12, 200_000)
    data = _file(t, row_group_size=50_000, **_PLAIN)
    spy = _Decodes(monkeypatch)
    assert pc.read_table(data).to_arrow().equals(t)
    assert sorted((g, leaf) for g, leaf, _ in spy.calls) == [((0, 1, 2, 3), leaf) for leaf in range(12)]
    assert any(pooled for _, _, pooled in spy.calls)
    ctx = pc.ParquetFile(data)._context()
    assert scan.pool_plan(ctx, pc.ParquetFile(data).columns.select(None), [0, 1, 2, 3]) == (True, frozenset())


def test_row_groups_of_small_chunks_stay_on_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same bytes in 32 row groups (50 kB chunks: each chunk's fixed costs, which hold
    the GIL, weigh as much as its values; the taxi table in 128 Ki-row groups): inline."""
    t = _ints(12, 200_000)
    data = _file(t, row_group_size=6_250, **_PLAIN)
    spy = _Decodes(monkeypatch)
    assert pc.read_table(data).to_arrow().equals(t)
    assert len(spy.calls) == 12 and not any(pooled for _, _, pooled in spy.calls)


def test_a_leaf_bigger_than_a_worker_share_is_decoded_per_row_group(monkeypatch: pytest.MonkeyPatch) -> None:
    """A leaf holding more than the read's bytes over the workers cannot be balanced as one
    task: it gets a task per row group, the other leaves one each."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    rng = np.random.default_rng(6)
    n = 200_000
    text = rng.integers(0, 2**62, (n, 6)).tobytes().hex()
    t = _ints(4, n).append_column("big", pa.array([text[i * 96:(i + 1) * 96] for i in range(n)]))
    data = _file(t, row_group_size=50_000, **_PLAIN)
    spy = _Decodes(monkeypatch)
    assert pc.read_table(data).to_arrow().equals(t)
    assert sorted((g, leaf) for g, leaf, _ in spy.calls) == \
        sorted([((0, 1, 2, 3), leaf) for leaf in range(4)] + [((rg,), 4) for rg in range(4)])
    assert any(pooled for _, _, pooled in spy.calls)


def test_pooled_leaf_tasks_raise_the_one_thread_error() -> None:
    """A broken page in the third row group of one leaf: the threaded read (one task per
    leaf over the row groups) raises the error the one-thread read raises, naming it."""
    t = _ints(12, 200_000)
    data = bytearray(_file(t, row_group_size=50_000, data_page_size=1 << 16, **_PLAIN))
    pf = pc.ParquetFile(bytes(data))
    offset = pf.page_headers(2, "c07")[1].offset
    data[offset:offset + 8] = b"\xff" * 8
    errors = []
    for threads in (False, True):
        with pytest.raises(pc.ParquetError) as info:
            pc.read_table(bytes(data), use_threads=threads)
        errors.append((type(info.value), str(info.value), getattr(info.value, "__notes__", None)))
    assert errors[0] == errors[1]
    assert "c07" in str(errors[0])


def test_a_fixed_width_chunk_is_split_only_into_big_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 32's timestamps table at 1,000,000 rows (DELTA_BINARY_PACKED, a 2.3 MB and a
    0.8 MB chunk): pooled a task per chunk, not split into page ranges (ranges under
    RANGE_MIN_FIXED_BYTES: their join copies what the arena would have taken in place).
    (Its encoding's bytes count toward the pool here: the default keeps it inline, see
    test_delta_binary_packed_bytes_do_not_count_toward_the_pool.)"""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(scan, "_GIL_BOUND_ENCODINGS", frozenset())
    n = 1_000_000
    rng = np.random.default_rng(7)
    t = pa.table({"ts": np.cumsum(rng.integers(900_000, 1_100_000, n)),
                  "counter": np.cumsum(rng.integers(0, 50, n)).astype(np.int32)})
    data = _file(t, use_dictionary=False, column_encoding={"ts": "DELTA_BINARY_PACKED",
                                                           "counter": "DELTA_BINARY_PACKED"})
    split: list[int] = []
    real = scan.page_ranges
    monkeypatch.setattr(scan, "page_ranges", lambda *a: split.append(a[2]) or real(*a))
    spy = _Decodes(monkeypatch)
    assert pc.read_table(data).to_arrow().equals(t)
    assert split == [] and sorted(leaf for _, leaf, _ in spy.calls) == [0, 1]
    assert all(pooled for _, _, pooled in spy.calls)
