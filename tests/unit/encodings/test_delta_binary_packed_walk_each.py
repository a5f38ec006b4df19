"""The page-by-page block walk of DELTA_BINARY_PACKED chunks (``_walk_each``: a few pages
whose block layouts change from block to block, as in the length streams of sorted
strings) against a reference walk written from the spec's layout, byte by byte, on
streams damaged at random; and the chunks that take it read from files others wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.encodings import delta_binary_packed as dbp
from parquet_core.encodings.delta_binary_packed import encode_delta_binary_packed


def _reference_walk(joined: bytes, pos: list[int], full: list[int], steps: int, n_mini: int,
                    group_bytes: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Each page's chain as the layout reads: a block is its min-delta varint (bytes up to
    the first one below 0x80), then n_mini width bytes (a slice: short at the buffer's
    end), then the bodies; a block starting past the buffer ends the walk (None).  Then
    the partial block's varint, measured up to one byte past 10, and its widths must fit."""
    size = len(joined)
    s_mat = np.empty((len(pos), steps + 1), dtype=np.int64)
    h_mat = np.empty((len(pos), steps + 1), dtype=np.int64)
    for i, (h, f) in enumerate(zip(pos, full)):
        starts, heads = [], []
        for _ in range(f):
            starts.append(h)
            if h >= size:
                return None
            while joined[h] >= 0x80:
                h += 1
                if h >= size:
                    return None
            h += 1
            heads.append(h)
            h += n_mini + sum(joined[h:h + n_mini]) * group_bytes
        e = h
        while e < size and e - h <= 10 and joined[e] >= 0x80:
            e += 1
        if e + 1 + n_mini > size:
            return None
        s_mat[i, :f], h_mat[i, :f] = starts, heads
        s_mat[i, f:], h_mat[i, f:] = h, e + 1
    return s_mat, h_mat


def _lengths_like(rng: np.random.Generator, n: int, kind: int) -> np.ndarray:
    """Values whose deltas change width from miniblock to miniblock (no page repeats its
    first block): lengths of sorted strings, spiky counters, or random values."""
    if kind == 0:
        return rng.integers(0, 60, n) + (rng.random(n) < 0.05) * rng.integers(0, 5000, n)
    if kind == 1:
        return np.cumsum(rng.integers(0, 10, n) * 10 ** rng.integers(0, 6, n))
    return rng.integers(-2**40, 2**40, n)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), layout=st.sampled_from([(128, 4), (256, 4), (64, 8), (32, 1), (128, 16)]),
       n_pages=st.integers(1, 5), dtype=st.sampled_from([np.int32, np.int64]),
       flips=st.integers(0, 4), cut=st.booleans(), run=st.integers(0, 13))
def test_walk_each_matches_the_reference_walk_on_damaged_chunks(seed: int, layout: tuple[int, int], n_pages: int,
                                                                dtype: Any, flips: int, cut: bool, run: int) -> None:
    rng = np.random.default_rng(seed)
    block_size, n_mini = layout
    vpm = block_size // n_mini
    bufs, pos, full = [], [], []
    at = 0
    for _ in range(n_pages):
        count = int(rng.integers(2, 3000))
        page = encode_delta_binary_packed(_lengths_like(rng, count, int(rng.integers(0, 3))).astype(dtype), dtype,
                                          block_size=block_size, miniblocks=n_mini)
        held = dbp.delta_binary_packed_page_header(page, count, dtype)
        assert held is not None
        bufs.append(np.frombuffer(page, dtype=np.uint8))
        pos.append(at + held[5])
        full.append((count - 1) // block_size)
        at += len(page)
    pad = int(rng.choice([0, 3, vpm * 8 + 64]))
    joined = np.concatenate(bufs + [np.zeros(pad, dtype=np.uint8)])
    steps = max(full)
    chains = None
    if run:
        # a min-delta varint grown to `run` bytes (10 accepted, longer ones refused later)
        # at one block start of the intact chain, the partial block's included
        chains = _reference_walk(joined.tobytes(), pos, full, steps, n_mini, vpm // 8)
    if run and chains is not None:      # (None: no padding after the last page)
        page = int(rng.integers(0, n_pages))
        at = int(chains[0][page, int(rng.integers(0, full[page] + 1))])
        joined[at:at + run - 1] |= 0x80
        joined[at + run - 1:at + run] &= 0x7F
    # damage anywhere past the first block start: varints, widths (above 64 too), bodies
    for _ in range(flips):
        joined[int(rng.integers(pos[0], joined.size))] = int(rng.integers(0, 256))
    if cut:
        joined = joined[:int(rng.integers(pos[-1], joined.size + 1))].copy()
    want = _reference_walk(joined.tobytes(), pos, full, steps, n_mini, vpm // 8)
    got = dbp._walk_each(joined, np.array(pos, dtype=np.int64), np.array(full, dtype=np.int64), steps,
                         n_mini, vpm // 8)
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_a_width_byte_past_the_buffer_is_refused_like_a_short_slice() -> None:
    # four miniblocks: the widths are added by four indexings; a block whose widths run
    # off the buffer's end is refused, as the reference (whose next start lies past it) is
    page = encode_delta_binary_packed(np.arange(2000, dtype=np.int64) ** 2 % 977, np.int64)
    held = dbp.delta_binary_packed_page_header(page, 2000, np.int64)
    assert held is not None
    joined = np.frombuffer(page, dtype=np.uint8)
    full = (2000 - 1) // 128
    s_mat, h_mat = dbp._walk_each(joined, np.array([held[5]]), np.array([full]), full, 4, 4)
    for k in (3, 9, 14):
        head = int(h_mat[0, k])
        for end in (head + 1, head + 3):         # the widths cut after 1 and 3 bytes
            part = joined[:end].copy()
            assert _reference_walk(part.tobytes(), [held[5]], [full], full, 4, 4) is None
            assert dbp._walk_each(part, np.array([held[5]]), np.array([full]), full, 4, 4) is None


def _spy_walk(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = dbp._walk_each

    def spy(*a: Any) -> Any:
        calls.append(1)
        return real(*a)
    monkeypatch.setattr(dbp, "_walk_each", spy)
    return calls


def _urls(n: int) -> list[str]:
    rng = np.random.default_rng(3)
    hosts = [f"https://h{h:02d}.example/p/{s}/" for h in range(20) for s in range(5)]
    return sorted(f"{hosts[int(h)]}item-{int(i)}.html" for h, i in zip(rng.integers(0, 100, n),
                                                                        rng.integers(0, 10**9, n)))


@pytest.mark.parametrize("case", ["int32", "int64", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"])
def test_pyarrow_files_whose_blocks_change_layout_read_as_pyarrow_reads_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    rng = np.random.default_rng(11)
    n = 60_000
    if case in ("int32", "int64"):
        col = pa.array(_lengths_like(rng, n, 0).astype(case))
        enc = "DELTA_BINARY_PACKED"
    else:
        col = pa.array(_urls(n))
        enc = case
    path = tmp_path / f"{case}.parquet"
    pq.write_table(pa.table({"c": col}), path, use_dictionary=False, column_encoding={"c": enc},
                   data_page_size=16 << 10, compression="none")
    calls = _spy_walk(monkeypatch)
    assert pc.read_table(str(path), use_threads=False).to_arrow().equals(pq.read_table(path))
    # DELTA_LENGTH_BYTE_ARRAY pages are decoded one by one (their lengths stream alone)
    assert bool(calls) == (case != "DELTA_LENGTH_BYTE_ARRAY")


@pytest.mark.parametrize("name", ["delta_binary_packed.parquet", "delta_byte_array.parquet",
                                  "delta_length_byte_array.parquet", "delta_encoding_optional_column.parquet",
                                  "delta_encoding_required_column.parquet"])
def test_corpus_delta_files_read_as_pyarrow_reads_them(corpus: Path, name: str) -> None:
    path = corpus / name
    assert pc.read_table(str(path), use_threads=False).to_arrow().equals(pq.read_table(path))


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), layout=st.sampled_from([(128, 4), (64, 8), (32, 1), (128, 16)]),
       n_pages=st.integers(1, 4), dtype=st.sampled_from([np.int32, np.int64]),
       flips=st.integers(0, 3), tail=st.sampled_from([0, 1, 50, 5000]), kind=st.integers(0, 3))
def test_streams_followed_by_other_bytes_read_as_page_by_page(seed: int, layout: tuple[int, int], n_pages: int,
                                                             dtype: Any, flips: int, tail: int, kind: int) -> None:
    """Pages holding a stream followed by other bytes (a DELTA_BYTE_ARRAY page: prefix lengths,
    then suffix lengths and data), of which only the part a stream can reach is joined: the
    values and stream ends match each page's own decode, damaged pages are refused (None,
    then each page's decode names the error), and intact ones are never refused."""
    rng = np.random.default_rng(seed)
    block_size, n_mini = layout
    pages, counts = [], []
    for _ in range(n_pages):
        count = int(rng.integers(2, 2000))
        vals = _lengths_like(rng, count, kind) if kind < 3 else rng.integers(0, 2, count)
        page = encode_delta_binary_packed(vals.astype(dtype), dtype, block_size=block_size, miniblocks=n_mini)
        pages.append(np.frombuffer(page + rng.integers(0, 256, tail, dtype=np.uint8).tobytes(), dtype=np.uint8).copy())
        counts.append(count)
    for _ in range(flips):
        p = int(rng.integers(0, n_pages))
        pages[p][int(rng.integers(0, pages[p].size))] = int(rng.integers(0, 256))
    try:
        held = [dbp.delta_binary_packed_page_header(p, c, dtype) for p, c in zip(pages, counts)]
    except pc.ParquetError:
        return          # a damaged header: refused before any joining
    want = []
    for p, c in zip(pages, counts):
        try:
            vals, end = dbp.decode_delta_binary_packed(p, 0, dtype, max_count=c)
            want.append((vals, end) if vals.size == c else None)
        except pc.ParquetError:
            want.append(None)
    if any(h is None for h in held):
        return
    got = dbp.expand_held_delta_binary_packed_pages(held, dtype, with_ends=True)
    if got is None:
        assert flips, "intact pages refused"
        return
    assert all(w is not None for w in want), "a page its own decode refuses was read"
    values, ends = got
    assert np.array_equal(values, np.concatenate([w[0] for w in want]))
    assert ends.tolist() == [w[1] for w in want]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(1, 4), cols=st.integers(1, 70_000),
       udt=st.sampled_from([np.uint32, np.uint64]), skip=st.integers(0, 3))
def test_running_sums_through_the_scratch_wrap_like_numpy(seed: int, rows: int, cols: int, udt: Any, skip: int) -> None:
    """The values' running sums, made in a reused scratch buffer and copied back (a strided
    view of a 2-D block too), equal numpy's, wrapping at the width; nothing else changes."""
    rng = np.random.default_rng(seed)
    block = rng.integers(0, np.iinfo(udt).max, (rows, cols + skip), dtype=udt, endpoint=True)
    want = block.copy()
    want[:, skip:] = np.cumsum(block[:, skip:], axis=1, dtype=udt)
    dbp._sum_in_place(block[:, skip:], udt)
    assert np.array_equal(block, want)
    flat = rng.integers(0, 1000, cols, dtype=udt)
    want1 = np.cumsum(flat, dtype=udt)
    dbp._sum_in_place(flat, udt)
    assert np.array_equal(flat, want1)
