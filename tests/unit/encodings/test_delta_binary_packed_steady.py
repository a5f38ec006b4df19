"""DELTA_BINARY_PACKED chunks whose every page repeats its first block (issue 32: steady
timestamps and counters) decoded by the steady pass (``_steady_chunk``): a few numpy calls
per chunk (the lane kernel for the full blocks, one gathered unpack and running sum for the
partial blocks).  Files written by pyarrow
read back equal to pyarrow's read; hand-made streams equal to the values they encode, and
their ends; damaged streams never accepted when decoding each page on its own (the spec's
layout, ``decode_delta_binary_packed``) refuses them, nor decoded differently, and the same
values and ends as the general pass (the steady pass kept out)."""

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
from parquet_core.encodings.delta_binary_packed import (
    delta_binary_packed_page_header,
    encode_delta_binary_packed,
    expand_held_delta_binary_packed_pages,
)
from tests._support.dbp_streams import damage, held_with_reference


@pytest.fixture
def steady(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each chunk pass took the steady pass (its result was not None)."""
    seen: list[bool] = []
    real = dbp._steady_chunk

    def spy(*a: Any) -> Any:
        got = real(*a)
        seen.append(got is not None)
        return got
    monkeypatch.setattr(dbp, "_steady_chunk", spy)
    return seen


def _general(held: list[Any], dt: Any, **kw: Any) -> Any:
    """The chunk pass with the steady pass kept out."""
    real = dbp._steady_chunk
    dbp._steady_chunk = lambda *a: None  # type: ignore[assignment]
    try:
        return expand_held_delta_binary_packed_pages(held, dt, **kw)
    finally:
        dbp._steady_chunk = real  # type: ignore[assignment]


def _write(path: Path, values: Any, typ: pa.DataType, per_page: int = 2_000, **kw: Any) -> None:
    pq.write_table(pa.table({"x": pa.array(values, typ)}), path, use_dictionary=False,
                   column_encoding={"x": "DELTA_BINARY_PACKED"}, max_rows_per_page=per_page, **kw)


@pytest.mark.parametrize("name", ["timestamps", "counter-int32", "exact-pages", "short-pages"])
def test_pyarrow_files_read_equal_to_pyarrow(tmp_path: Path, steady: list[bool], name: str) -> None:
    rng = np.random.default_rng(7)
    typ: pa.DataType = pa.timestamp("us")
    per_page = 2_000
    if name == "counter-int32":
        values: Any = np.cumsum(rng.integers(0, 50, 9_001)).astype(np.int32)
        typ = pa.int32()
    elif name == "exact-pages":      # 20,001 values a page: no partial blocks at all
        values = 1_700_000_000_000_000 + np.cumsum(rng.integers(900_000, 1_100_000, 60_003))
        per_page = 20_001
    elif name == "short-pages":      # 300 values a page: one or two full blocks each
        values = 1_700_000_000_000_000 + np.cumsum(rng.integers(900_000, 1_100_000, 3_001))
        per_page = 300
    else:
        values = 1_700_000_000_000_000 + np.cumsum(rng.integers(900_000, 1_100_000, 12_345))
    path = tmp_path / "t.parquet"
    _write(path, values, typ, per_page, compression="SNAPPY")
    assert pc.read_table(str(path), use_threads=False).to_arrow().equals(pq.read_table(path))
    assert steady == [True]


def _one_width(count: int, seed: int, dtype: Any, lo: int = 1000, span: int = 64) -> np.ndarray:
    rng = np.random.default_rng(seed)
    deltas = rng.integers(lo, lo + span, count - 1)
    deltas[:2] = (lo, lo + span - 1)          # every miniblock spans one width
    return (np.int64(-5_000_000) + np.concatenate(([0], np.cumsum(deltas)))).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("counts", [[128 * 5 + 1, 128 * 5 + 1, 128 * 2 + 1],
                                    [128 * 12 + 1 + 40, 128 * 3 + 1 + 100, 128 * 12 + 1, 128 * 2 + 1 + 33,
                                     128 * 4 + 1 + 127]])
def test_pages_of_different_lengths_read_their_values_and_ends(steady: list[bool], dtype: Any,
                                                               counts: list[int]) -> None:
    # partial blocks of 1..4 used miniblocks, pages without one, filler after each stream
    values = [_one_width(c, i, dtype) for i, c in enumerate(counts)]
    streams = [encode_delta_binary_packed(v, dtype) + b"\xAB" * i for i, v in enumerate(values)]
    held = [delta_binary_packed_page_header(s, c, dtype) for s, c in zip(streams, counts)]
    got, ends = expand_held_delta_binary_packed_pages(held, dtype, with_ends=True)
    assert steady == [True]
    assert np.array_equal(got, np.concatenate(values))
    assert ends.tolist() == [len(s) - i for i, s in enumerate(streams)]


def test_partial_blocks_of_another_width_are_unpacked_by_width(steady: list[bool]) -> None:
    # the last deltas wider than the rest: the partial blocks' miniblocks are not of the
    # full blocks' width, and of several widths, and still read right
    counts = [128 * 3 + 1 + 70, 128 * 2 + 1 + 100]
    values = []
    for i, c in enumerate(counts):
        v = _one_width(c, i, np.int64).copy()
        v[-30:] += np.arange(30, dtype=np.int64) * 1_000_000
        values.append(v)
    streams = [encode_delta_binary_packed(v, np.int64) for v in values]
    held = [delta_binary_packed_page_header(s, c, np.int64) for s, c in zip(streams, counts)]
    assert np.array_equal(expand_held_delta_binary_packed_pages(held, np.int64), np.concatenate(values))
    assert steady == [True]


def test_a_cut_last_miniblock_is_refused_like_the_page_by_page_read(steady: list[bool]) -> None:
    counts = [128 * 4 + 1 + 100, 128 * 2 + 1 + 90]
    streams = [encode_delta_binary_packed(_one_width(c, i, np.int64), np.int64) for i, c in enumerate(counts)]
    streams[1] = streams[1][:-30]
    with pytest.raises(dbp.ParquetFormatError, match="truncated"):
        dbp.decode_delta_binary_packed(streams[1], 0, np.int64, max_count=counts[1])
    held = [delta_binary_packed_page_header(s, c, np.int64) for s, c in zip(streams, counts)]
    assert expand_held_delta_binary_packed_pages(held, np.int64) is None
    assert steady == [False]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), layout=st.sampled_from([(128, 4), (256, 4), (64, 2), (256, 8), (32, 1)]),
       n_pages=st.integers(1, 5), dt=st.sampled_from([np.int32, np.int64]),
       overwrite=st.sampled_from([0.0, 0.5, 1.0]), cut=st.sampled_from([0.0, 0.3]))
def test_damaged_steady_chunks_match_the_page_by_page_read_and_the_general_pass(
        seed: int, layout: tuple[int, int], n_pages: int, dt: Any, overwrite: float, cut: float) -> None:
    # pages of one width each (so the steady pass is tried), bytes overwritten anywhere
    # past the header (varints, widths, bodies) or cut short: values only where each
    # page alone decodes, and then those values; the same values and ends as the general pass
    rng = np.random.default_rng(seed)
    bs, nm = layout
    pages, counts = [], []
    for _ in range(n_pages):
        c = int(rng.integers(bs + 2, 5 * bs))
        w = int(rng.integers(2, 30 if dt is np.int32 else 50))
        gaps = (1 << w) + rng.integers(0, 1 << w, c)
        b = bytearray(encode_delta_binary_packed(np.cumsum(gaps).astype(dt), dt, block_size=bs, miniblocks=nm))
        pages.append(damage(rng, b, first=5, overwrite=overwrite, cut=cut))
        counts.append(c)
    found = held_with_reference(pages, counts, dt)
    if found is None:
        return
    held, ref = found
    got = expand_held_delta_binary_packed_pages(held, dt, with_ends=True)
    want = _general(held, dt, with_ends=True)
    if got is not None:
        assert ref is not None and np.array_equal(got[0], ref)
        if want is not None:
            assert np.array_equal(got[1], want[1])
    if overwrite == 0.0 and cut == 0.0:
        assert got is not None and want is not None


def test_the_steady_pass_takes_most_undamaged_chunks() -> None:
    # (the hypothesis test above checks every answer; this, that the pass is taken at all)
    rng = np.random.default_rng(3)
    taken = 0
    for it in range(60):
        bs, nm = [(128, 4), (256, 4), (64, 2)][it % 3]
        dt = [np.int32, np.int64][it % 2]
        pages, counts = [], []
        for _ in range(int(rng.integers(1, 5))):
            c = int(rng.integers(bs + 2, 5 * bs))
            w = int(rng.integers(2, 28))
            pages.append(encode_delta_binary_packed(np.cumsum((1 << w) + rng.integers(0, 1 << w, c)).astype(dt), dt,
                                                    block_size=bs, miniblocks=nm))
            counts.append(c)
        held = [delta_binary_packed_page_header(p, c, dt) for p, c in zip(pages, counts)]
        args: list[Any] = []
        real = dbp._steady_chunk

        def spy(*a: Any, _args: list[Any] = args, _real: Any = real) -> Any:
            got = _real(*a)
            _args.append(got is not None)
            return got
        dbp._steady_chunk = spy  # type: ignore[assignment]
        try:
            expand_held_delta_binary_packed_pages(held, dt)
        finally:
            dbp._steady_chunk = real  # type: ignore[assignment]
        taken += args == [True]
    assert taken >= 50


@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_full_blocks_cut_short_are_refused_like_the_page_by_page_read(steady: list[bool], dt: Any) -> None:
    # no partial block: the last full block's body is cut (its head is whole, so every
    # head repeats the first); the next page's bytes follow it in the joined chunk
    counts = [128 * 4 + 1, 128 * 3 + 1]
    streams = [encode_delta_binary_packed(_one_width(c, i, dt), dt) for i, c in enumerate(counts)]
    streams[0] = streams[0][:-10]
    with pytest.raises(dbp.ParquetFormatError, match="truncated"):
        dbp.decode_delta_binary_packed(streams[0], 0, dt, max_count=counts[0])
    held = [delta_binary_packed_page_header(s, c, dt) for s, c in zip(streams, counts)]
    assert expand_held_delta_binary_packed_pages(held, dt) is None
    assert steady == [False]


@pytest.mark.parametrize("extra", [6, 7, 8])
def test_a_long_partial_block_min_delta_varint_reads_right(extra: int) -> None:
    # the partial block's min delta written with `extra` redundant varint bytes (8..10
    # bytes long: a valid ULEB128); the page-by-page read accepts it, and so must the
    # chunk pass, with the same values (the steady pass leaves such a varint to the general one)
    count = 128 * 3 + 1 + 50
    values = _one_width(count, 5, np.int64)
    raw = encode_delta_binary_packed(values, np.int64)
    starts = dbp.delta_binary_packed_blocks(raw, 0)[4]
    at = int(starts[-1])
    n = 1
    while raw[at + n - 1] >= 0x80:
        n += 1
    groups = [b & 0x7F for b in raw[at:at + n]] + [0] * extra
    longer = bytes(g | 0x80 for g in groups[:-1]) + bytes([groups[-1]])
    stream = raw[:at] + longer + raw[at + n:]
    assert len(longer) <= 10
    ref = dbp.decode_delta_binary_packed(stream, 0, np.int64, max_count=count)[0]
    assert np.array_equal(ref, values)
    held = [delta_binary_packed_page_header(stream, count, np.int64)] * 2
    got = expand_held_delta_binary_packed_pages(held, np.int64)
    assert got is not None and np.array_equal(got, np.concatenate([values, values]))


@pytest.mark.parametrize("how", ["word-gather", "by-width"])
@pytest.mark.parametrize("jump", [1_000_000, 1 << 40, 1 << 58])
def test_partial_blocks_read_word_by_word_or_by_width(steady: list[bool], monkeypatch: pytest.MonkeyPatch,
                                                      how: str, jump: int) -> None:
    # the partial blocks' values read one word each (widths up to 57) or unpacked by width
    # (forced; and any width above 57: steps of 2**58 need 59 bits)
    if how == "by-width":
        monkeypatch.setattr(dbp, "_TAIL_GATHER_MAX", 0)
    counts = [128 * 3 + 1 + 70, 128 * 2 + 1 + 100, 128 * 4 + 1 + 33]
    values = []
    for i, c in enumerate(counts):
        v = _one_width(c, i, np.int64).copy()
        v[-20:] += np.cumsum(np.arange(20, dtype=np.int64) % 3 == 1) * np.int64(jump)
        values.append(v)
    streams = [encode_delta_binary_packed(v, np.int64) for v in values]
    want = np.concatenate([dbp.decode_delta_binary_packed(s, 0, np.int64, max_count=c)[0]
                           for s, c in zip(streams, counts)])
    assert np.array_equal(want, np.concatenate(values))
    held = [delta_binary_packed_page_header(s, c, np.int64) for s, c in zip(streams, counts)]
    assert np.array_equal(expand_held_delta_binary_packed_pages(held, np.int64), want)
    assert steady == [True]
