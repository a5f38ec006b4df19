"""The chunk check's one-compare test of repeated block heads (issue 32): when every page
of a chunk has the same number of full blocks and a block head (min-delta varint and
widths) fits one 8-byte word, each guessed block is checked by one masked compare with the
page's first head.  A block whose varint is longer, or whose widths differ, must make its
page a walked one; the values are the encoder's input."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core.encodings import delta_binary_packed as dbp
from parquet_core.encodings.delta_binary_packed import (
    delta_binary_packed_page_header,
    encode_delta_binary_packed,
    expand_held_delta_binary_packed_pages,
)
from tests.unit.encodings.golden import uleb as _uleb

COUNT = 128 * 12 + 1 + 40      # 12 full blocks and a partial one


def _page(kind: str, seed: int, dtype: type) -> np.ndarray:
    rng = np.random.default_rng(seed)
    deltas = rng.integers(1000, 1064, COUNT - 1)   # min delta: a 2-byte varint; width 6
    deltas[:4] = (1000, 1063, 1000, 1063)
    if kind == "longer varint":
        # block 5's min delta needs a 3-byte varint, its widths stay 6
        deltas[5 * 128:6 * 128] += 100_000
    elif kind == "other width":
        # one miniblock of block 7 spans 8 bits, its min delta keeps its varint length
        deltas[7 * 128 + 64:7 * 128 + 96] = rng.integers(1000, 1256, 32)
        deltas[7 * 128 + 64] = 1255
    elif kind == "continuation bit":
        # block 3's min delta: 2 bytes, but 1000 apart from the others (same length)
        deltas[3 * 128:4 * 128] += 1000
    return (np.int64(5_000_000) + np.concatenate(([0], np.cumsum(deltas)))).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["longer varint", "other width"])
def test_a_block_with_another_head_makes_its_page_walked(monkeypatch, kind, dtype) -> None:  # type: ignore[no-untyped-def]
    seen = []
    real = dbp._heads_repeat

    def spy(*a):  # type: ignore[no-untyped-def]
        got = real(*a)
        seen.append(got.tolist())
        return got
    monkeypatch.setattr(dbp, "_heads_repeat", spy)
    monkeypatch.setattr(dbp, "_steady_chunk", lambda *a: None)   # the general pass (the steady one: its own tests)
    kinds = ["uniform", kind, "continuation bit", "uniform"]
    values = [_page(k, i, dtype) for i, k in enumerate(kinds)]
    held = [delta_binary_packed_page_header(encode_delta_binary_packed(v, dtype), COUNT, dtype)
            for v in values]
    got = expand_held_delta_binary_packed_pages(held, dtype)
    assert seen == [[True, False, True, True]]
    assert got is not None and np.array_equal(got, np.concatenate(values))


def test_a_head_longer_than_a_word_takes_the_general_check(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # min deltas of 7-byte varints: the varint and 4 widths do not fit a word
    monkeypatch.setattr(dbp, "_heads_repeat", None)
    rng = np.random.default_rng(3)
    values = [np.cumsum(rng.integers(1 << 45, (1 << 45) + 64, COUNT)).astype(np.int64) for _ in range(3)]
    held = [delta_binary_packed_page_header(encode_delta_binary_packed(v, np.int64), COUNT, np.int64)
            for v in values]
    got = expand_held_delta_binary_packed_pages(held, np.int64)
    assert got is not None and np.array_equal(got, np.concatenate(values))


def _steady(count: int, seed: int, dtype: type) -> np.ndarray:
    rng = np.random.default_rng(seed)
    deltas = rng.integers(1000, 1064, count - 1)
    deltas[:2] = (1000, 1063)          # every miniblock spans width 6
    return (np.int64(-5_000_000) + np.concatenate(([0], np.cumsum(deltas)))).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("counts", [[128 * 12 + 1 + 40, 128 * 3 + 1 + 100, 1 + 70, 128 * 12 + 1, 128 * 2 + 1 + 33],
                                    [128 * 5 + 1, 128 * 5 + 1, 128 * 2 + 1]])
def test_uniform_pages_of_different_lengths_read_their_values_and_ends(monkeypatch, dtype, counts) -> None:  # type: ignore[no-untyped-def]
    # every page's full blocks repeat its first one: only first and partial blocks are read;
    # pages of 12, 3, 0 (a partial block alone) and 12 full blocks, partial blocks of 1..4
    # miniblocks, and one without a partial block; or no partial block at all
    calls = []
    real = dbp._uniform_pages

    def spy(*a):  # type: ignore[no-untyped-def]
        got = real(*a)
        calls.append(got is not None)
        return got
    monkeypatch.setattr(dbp, "_uniform_pages", spy)
    monkeypatch.setattr(dbp, "_steady_chunk", lambda *a: None)   # the general pass (the steady one: its own tests)
    values = [_steady(c, i, dtype) for i, c in enumerate(counts)]
    streams = [encode_delta_binary_packed(v, dtype) + b"\xAB" * i for i, v in enumerate(values)]
    held = [delta_binary_packed_page_header(s, c, dtype) for s, c in zip(streams, counts)]
    got, ends = expand_held_delta_binary_packed_pages(held, dtype, with_ends=True)
    assert calls == [True]
    assert np.array_equal(got, np.concatenate(values))
    # each stream ends where the encoder's bytes end (the filler after it is not read)
    assert ends.tolist() == [len(s) - i for i, s in enumerate(streams)]


def test_uniform_pages_refuse_a_cut_last_miniblock_like_the_page_by_page_read() -> None:
    # page 1's last used miniblock is cut short: its stream alone is refused, and the
    # chunk pass hands the pages back (None) rather than read padding as values
    counts = [128 * 4 + 1 + 100, 128 * 2 + 1 + 90]
    values = [_steady(c, i, np.int64) for i, c in enumerate(counts)]
    streams = [encode_delta_binary_packed(v, np.int64) for v in values]
    streams[1] = streams[1][:-30]
    with pytest.raises(dbp.ParquetFormatError, match="truncated"):
        dbp.decode_delta_binary_packed(streams[1], 0, np.int64, max_count=counts[1])
    held = [delta_binary_packed_page_header(s, c, np.int64) for s, c in zip(streams, counts)]
    assert expand_held_delta_binary_packed_pages(held, np.int64) is None


@pytest.mark.parametrize("seed", range(4))
def test_min_deltas_of_1_to_8_byte_varints_read_as_words(seed: int) -> None:
    # zigzag varints of every length up to 8 bytes, each followed by junk bytes (widths):
    # the word read masks off what follows; a 9-byte one takes the per-byte read
    rng = np.random.default_rng(seed)
    signed = rng.integers(-2**62, 2**62, 400, dtype=np.int64) >> rng.integers(0, 63, 400)
    signed[:3] = (0, -1, 2**27)
    if seed == 3:
        signed[7] = -2**62                  # zigzag needs 63 bits: a 9-byte varint
    zz = [(int(v) << 1) ^ -(int(v) < 0) for v in signed.tolist()]
    heads = [_uleb(z) for z in zz]
    junk = [bytes(rng.integers(128, 256, 4, dtype=np.uint8)) for _ in heads]
    raw = np.frombuffer(b"".join(h + j for h, j in zip(heads, junk)) + bytes(8), dtype=np.uint8)
    starts = np.cumsum([0] + [len(h) + 4 for h in heads])[:-1].astype(np.int64)
    ends = starts + np.array([len(h) for h in heads], dtype=np.int64)
    for udt in (np.uint64, np.uint32):
        got = dbp._min_deltas(raw, starts, ends, np.dtype(udt))
        assert got.tolist() == [v & (2**(8 * np.dtype(udt).itemsize) - 1) for v in signed.tolist()]


def test_chunks_joined_in_a_reused_buffer_read_their_own_values() -> None:
    # the joined pages of a chunk live in a per-thread buffer reused by the next chunk: a
    # small chunk after a big one (whose bytes are left behind it), each stream's last
    # miniblock cut to the bytes its values need, reads the values written, in two threads
    import threading
    dbp._scratch.__dict__.pop("buf", None)

    def chunk(seed: int, n_pages: int, count: int) -> tuple[list, np.ndarray]:
        vals = [_steady(count, seed + i, np.int64) for i in range(n_pages)]
        held = []
        for v in vals:
            s = encode_delta_binary_packed(v, np.int64)
            held.append(delta_binary_packed_page_header(s[:len(s) - 14], count, np.int64))
        return held, np.concatenate(vals)

    big = chunk(1, 6, 128 * 40 + 1 + 10)
    small = chunk(2, 2, 128 * 3 + 1 + 10)
    results = {}

    def run(name: str) -> None:
        results[name] = [np.array_equal(expand_held_delta_binary_packed_pages(h, np.int64), want)
                         for h, want in (big, small, big, small)]
    threads = [threading.Thread(target=run, args=(n,)) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    run("main")
    dbp._scratch.buf[:] = 0xFF        # stale bytes everywhere: the padding is zeroed again
    run("stale")
    assert results == {n: [True] * 4 for n in ("a", "b", "main", "stale")}
