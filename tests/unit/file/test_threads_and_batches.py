"""Threads and streaming batches: same results as a sequential whole read, and lazy.

* ``use_threads=True`` and ``False`` give the same tables and the same errors
  over the whole conformance corpus;
* ``iter_batches`` gives, for random batch sizes, the rows of the whole read
  in batches of pyarrow's sizes (they run across row groups), flat and
  nested, with and without dictionaries kept;
* the first batch of a large row group reads about one page per column
  (a source wrapper counts the bytes read), proven without timing.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.file import chunk_reader, scan
from parquet_core.table.arrays import Table
from tests._support.corpus import corpus_dir


@pytest.fixture(autouse=True)
def _threads_even_for_small_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """These files are small: without this, reads would skip the pool (scan.THREAD_MIN_BYTES,
    scan.THREAD_MIN_CHUNK_BYTES)."""
    monkeypatch.setattr(scan, "THREAD_MIN_BYTES", 0)
    monkeypatch.setattr(scan, "THREAD_MIN_CHUNK_BYTES", 0)


def test_small_reads_skip_the_pool_and_large_ones_use_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan, "THREAD_MIN_BYTES", 1 << 20)
    monkeypatch.setattr(scan, "THREAD_MIN_CHUNK_BYTES", 0)
    used: list[int] = []
    real = scan.decode_pool

    def counting_pool():  # type: ignore[no-untyped-def]
        used.append(1)
        return real()
    monkeypatch.setattr(scan, "decode_pool", counting_pool)
    rng = np.random.default_rng(3)
    small, large = io.BytesIO(), io.BytesIO()
    pq.write_table(pa.table({"a": rng.random(1000), "b": rng.random(1000)}), small, row_group_size=500)
    big = pa.table({"a": rng.random(200_000), "b": rng.random(200_000)})
    pq.write_table(big, large, row_group_size=100_000, compression="none")
    assert pc.read_table(small.getvalue(), use_threads=True).to_arrow().equals(
        pq.read_table(io.BytesIO(small.getvalue())))
    assert not used
    assert pc.read_table(large.getvalue(), use_threads=True).to_arrow().equals(big)
    assert used


def test_many_small_chunks_skip_the_pool_and_large_chunks_use_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # the same bytes in 80 chunks of ~40 kB (fixed per-chunk costs hold the GIL: the pool
    # would not pay) and in 2 chunks of 1.6 MB
    monkeypatch.setattr(scan, "THREAD_MIN_BYTES", 1 << 20)
    monkeypatch.setattr(scan, "THREAD_MIN_CHUNK_BYTES", 1 << 20)
    used: list[int] = []
    real = scan.decode_pool

    def counting_pool():  # type: ignore[no-untyped-def]
        used.append(1)
        return real()
    monkeypatch.setattr(scan, "decode_pool", counting_pool)
    rng = np.random.default_rng(5)
    wide = pa.table({f"c{i:02d}": rng.random(5000) for i in range(80)})
    tall = pa.table({"a": rng.random(200_000), "b": rng.random(200_000)})
    for t, pooled in ((wide, False), (tall, True)):
        buf = io.BytesIO()
        pq.write_table(t, buf, compression="none", use_dictionary=False)
        used.clear()
        assert pc.read_table(buf.getvalue(), use_threads=True).to_arrow().equals(t)
        assert bool(used) == pooled


#: Files whose values take gigabytes (read in a subprocess by their own conformance test).
_HUGE = {"large_string_map.brotli.parquet"}


def _corpus_files() -> list[Path]:
    d = corpus_dir()
    if not d.is_dir():
        return []
    return sorted(p for p in d.iterdir() if p.suffix == ".parquet" and p.name not in _HUGE)


def _outcome(path: Path, use_threads: bool) -> object:
    try:
        t = pc.read_table(str(path), use_threads=use_threads)
    except Exception as exc:   # the error must be the same too
        return ("error", type(exc).__name__, str(exc), tuple(getattr(exc, "__notes__", ())))
    return ("table", t.schema, repr(t.to_pylist()))   # repr: NaN equals itself


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: p.name)
def test_threads_give_the_sequential_result(path: Path) -> None:
    assert _outcome(path, True) == _outcome(path, False)


def test_threads_raise_the_first_error_in_column_order() -> None:
    """Two damaged columns: both modes name the first one."""
    n = 50_000
    buf = io.BytesIO()
    pq.write_table(pa.table({"a": np.arange(n), "b": np.arange(n) * 2, "c": np.arange(n) * 3}), buf,
                   compression="none", use_dictionary=False, write_statistics=False,
                   write_page_index=False)
    data = bytearray(buf.getvalue())
    meta = pq.ParquetFile(io.BytesIO(bytes(data))).metadata
    for col in (1, 2):    # break the CRC-free page bodies' headers: overwrite the first page header
        start = meta.row_group(0).column(col).data_page_offset
        data[start:start + 8] = b"\xff" * 8
    errors = []
    for threads in (False, True):
        with pytest.raises(pc.ParquetError) as info:
            pc.read_table(bytes(data), use_threads=threads)
        errors.append((type(info.value), str(info.value), info.value.__notes__))
    assert errors[0] == errors[1]
    assert any("column b" in note for note in errors[0][2])


# -- streaming ----------------------------------------------------------------------------
def _nested_table(rng: np.random.Generator, n: int) -> pa.Table:
    ints = pa.array(rng.integers(0, 100, n), mask=rng.random(n) < 0.2)
    words = pa.array([None if r < 0.1 else f"w{int(r * 40)}" for r in rng.random(n)])
    lists = pa.array([None if rng.random() < 0.1 else list(rng.integers(0, 9, rng.integers(0, 4)))
                      for _ in range(n)], type=pa.list_(pa.int64()))
    structs = pa.array([None if rng.random() < 0.1 else
                        {"x": int(rng.integers(0, 5)), "tags": ["t"] * int(rng.integers(0, 3))}
                        for _ in range(n)],
                       type=pa.struct([("x", pa.int32()), ("tags", pa.list_(pa.string()))]))
    maps = pa.array([None if rng.random() < 0.1 else [(f"k{j}", j) for j in range(int(rng.integers(0, 3)))]
                     for _ in range(n)], type=pa.map_(pa.string(), pa.int64()))
    return pa.table({"i": ints, "s": words, "l": lists, "st": structs, "m": maps})


def _write(table: pa.Table, rg: int, page_rows: int, **kw: object) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=rg, data_page_size=64, write_batch_size=page_rows,
                   **kw)  # type: ignore[arg-type]
    return buf.getvalue()


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), n=st.integers(0, 400), rg=st.integers(1, 150),
       page_rows=st.integers(1, 60), batch=st.integers(1, 300), threads=st.booleans(),
       v2=st.booleans())
def test_batches_equal_the_whole_read(seed: int, n: int, rg: int, page_rows: int, batch: int,
                                      threads: bool, v2: bool) -> None:
    table = _nested_table(np.random.default_rng(seed), n)
    data = _write(table, rg, page_rows, data_page_version="2.0" if v2 else "1.0")
    pf = pc.ParquetFile(data)
    batches = list(pf.iter_batches(batch_size=batch, use_threads=threads))
    theirs = list(pq.ParquetFile(io.BytesIO(data)).iter_batches(batch_size=batch))
    assert [b.num_rows for b in batches] == [b.num_rows for b in theirs]
    rows = [r for b in batches for r in b.to_pylist()]
    assert rows == table.to_pylist()
    if batches:
        assert batches[0].schema == pf.read().schema


@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), n=st.integers(1, 300), batch=st.integers(1, 200),
       groups=st.lists(st.integers(0, 3), max_size=4))
def test_batches_of_some_row_groups_and_columns(seed: int, n: int, batch: int, groups: list[int]) -> None:
    table = _nested_table(np.random.default_rng(seed), n)
    data = _write(table, max(n // 4, 1), 7)
    pf = pc.ParquetFile(data)
    groups = [g for g in groups if g < pf.num_row_groups]
    got = list(pf.iter_batches(batch_size=batch, columns=["m", "i", "st.tags"], row_groups=groups))
    theirs = pq.ParquetFile(io.BytesIO(data)).iter_batches(batch_size=batch, columns=["m", "i", "st.tags"],
                                                           row_groups=groups)
    assert [r for b in got for r in b.to_pylist()] == [r for b in theirs for r in b.to_pylist()]


def test_batches_keep_dictionaries_and_filters() -> None:
    rng = np.random.default_rng(5)
    table = _nested_table(rng, 3000)
    data = _write(table, 1000, 100)
    pf = pc.ParquetFile(data, read_dictionary=["s"])
    batches = list(pf.iter_batches(batch_size=700))
    whole = pf.read()
    assert Table.concat(batches).to_pylist() == whole.to_pylist()
    assert type(batches[0].column("s")) is type(whole.column("s"))
    filt = [("i", ">", 50)]
    got = [r for b in pf.iter_batches(batch_size=333, filters=filt) for r in b.to_pylist()]
    assert got == pf.read(filters=filt).to_pylist()


class _CountingSource:
    """A random-access source counting the bytes read through it."""

    def __init__(self, data: bytes) -> None:
        self._buf = memoryview(data)
        self.size = len(data)
        self.bytes_read = 0

    def read_at(self, offset: int, size: int) -> memoryview:
        if offset < 0 or size < 0 or offset + size > self.size:
            raise pc.ParquetFormatError("read outside the file")
        self.bytes_read += size
        return self._buf[offset:offset + size]

    def close(self) -> None:
        pass


@pytest.mark.parametrize("read_ahead", [4096, chunk_reader.READ_AHEAD])
def test_first_batch_reads_about_one_page_per_column(monkeypatch: pytest.MonkeyPatch, read_ahead: int) -> None:
    monkeypatch.setattr(chunk_reader, "READ_AHEAD", read_ahead)
    n = 400_000
    rng = np.random.default_rng(1)
    table = pa.table({"a": rng.integers(0, 2**40, n), "b": rng.random(n), "c": pa.array(rng.integers(0, 9, n),
                                                                                         mask=rng.random(n) < .3)})
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="none", use_dictionary=False, row_group_size=n,
                   data_page_size=16 * 1024, write_page_index=False)
    data = buf.getvalue()
    src = _CountingSource(data)
    pf = pc.ParquetFile(src)
    src.bytes_read = 0
    first = next(pf.iter_batches(batch_size=1000, use_threads=False))
    assert first.to_pylist() == table.slice(0, 1000).to_pylist()
    meta = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0)
    largest_page = max(16 * 1024 + 512, 1000 * 8 + 512)
    bound = sum(min(meta.column(i).total_compressed_size, max(read_ahead, largest_page) + largest_page)
                for i in range(3))
    assert src.bytes_read <= bound
    assert src.bytes_read < meta.total_byte_size / 5   # not the row group


def test_threads_through_datasets(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    for i in range(3):
        pq.write_table(_nested_table(rng, 200), tmp_path / f"part-{i}.parquet", row_group_size=70)
    one = pc.read_table(str(tmp_path), use_threads=False)
    many = pc.read_table(str(tmp_path), use_threads=True)
    assert one.to_pylist() == many.to_pylist()
    ds = pc.ParquetDataset(str(tmp_path))
    got = [r for b in ds.iter_batches(batch_size=90, use_threads=True) for r in b.to_pylist()]
    assert got == one.to_pylist()


def test_a_forked_child_reads_with_threads() -> None:
    """The shared pool's threads do not survive fork: the child must get its own pool."""
    import multiprocessing as mp

    data = _write(_nested_table(np.random.default_rng(2), 300), 50, 10)
    want = pc.read_table(data, use_threads=True).to_pylist()    # the parent's pool exists now
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as pool:
        got = pool.apply_async(_read_in_child, (data,)).get(timeout=120)
    assert got == want


def _read_in_child(data: bytes) -> list[dict[str, object]]:
    return pc.read_table(data, use_threads=True).to_pylist()


@settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), n=st.integers(1, 400), page_rows=st.integers(1, 50),
       lo=st.integers(0, 99), width=st.integers(0, 30), threads=st.booleans())
def test_filtered_nested_reads_through_page_indexes(seed: int, n: int, page_rows: int, lo: int, width: int,
                                                    threads: bool) -> None:
    """Candidate rows gathered leaf by leaf (struct leaves page by page, lists whole) as pyarrow filters."""
    rng = np.random.default_rng(seed)
    table = _nested_table(rng, n).append_column("k", pa.array(np.sort(rng.integers(0, 100, n))))
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=max(n // 2, 1), data_page_size=64, write_batch_size=page_rows,
                   write_page_index=True)
    data = buf.getvalue()
    filt = [("k", ">=", lo), ("k", "<=", lo + width)]
    got = pc.read_table(data, filters=filt, use_threads=threads)
    want = pq.read_table(io.BytesIO(data), filters=filt)
    assert got.to_pylist() == want.to_pylist()
    batches = pc.ParquetFile(data).iter_batches(batch_size=37, filters=filt, columns=["st", "k"])
    assert [r for b in batches for r in b.to_pylist()] == want.select(["st", "k"]).to_pylist()


# -- the lazy page walk against the whole-chunk walk -------------------------------------------
def _pages_summary(pages: object) -> list[tuple[object, ...]]:
    out = []
    for p in pages:  # type: ignore[attr-defined]
        body = getattr(p, "body", None)
        if body is None:
            body = bytes(p.repetition_levels) + bytes(p.definition_levels) + bytes(p.values)
        out.append((type(p).__name__, p.num_values, p.ordinal, p.offset, bytes(body)))
    return out


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), n=st.integers(0, 300), page_rows=st.integers(1, 50),
       read_ahead=st.sampled_from([1, 7, 64, 300, 4096]), codec=st.sampled_from(["none", "snappy", "zstd"]),
       v2=st.booleans(), mutate=st.integers(-1, 10_000))
def test_lazy_page_walk_matches_the_whole_chunk_walk(seed: int, n: int, page_rows: int, read_ahead: int,
                                                     codec: str, v2: bool, mutate: int) -> None:
    table = _nested_table(np.random.default_rng(seed), n)
    data = bytearray(_write(table, max(n, 1), page_rows, compression=codec,
                            data_page_version="2.0" if v2 else "1.0"))
    if mutate >= 0:   # damage one byte of the data, never the footer
        meta_len = int.from_bytes(data[-8:-4], "little")
        body = len(data) - 8 - meta_len - 4
        if body > 0:
            data[4 + mutate % body] ^= 0x5A
    pf = pc.ParquetFile(bytes(data))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(chunk_reader, "READ_AHEAD", read_ahead)
        for rg in range(pf.num_row_groups):
            for leaf in range(len(pf.schema_descriptor)):
                reader = pf.column_chunk(rg, leaf)
                try:
                    whole = _pages_summary(reader.pages())
                except pc.ParquetError:
                    whole = None
                try:
                    lazy = _pages_summary(reader.iter_pages_lazily())
                except pc.ParquetError:
                    lazy = None
                if whole is not None and lazy is not None:
                    assert lazy == whole
                elif mutate < 0:
                    assert lazy == whole    # undamaged: both walks succeed
