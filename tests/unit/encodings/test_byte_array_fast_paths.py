"""BYTE_ARRAY fast paths pinned against independent pure-Python reference decoders.

Covers the multi-page PLAIN decoder (one lane walk over all pages, the
same-length strided path, the window copy of the values), the
DELTA_BYTE_ARRAY prefix doubling and ``ByteArrays.take``.  The references
below are written from the spec, one value at a time, and share no code with
the decoders.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core.encodings.delta_byte_array as dba
from parquet_core._kernels.binary import ByteArrays
from parquet_core.encodings.delta_binary_packed import encode_delta_binary_packed
from parquet_core.encodings.delta_byte_array import (
    decode_delta_byte_array,
    decode_delta_byte_arrays_multi,
)
from parquet_core.encodings.delta_length_byte_array import decode_delta_length_byte_arrays_multi
from parquet_core.encodings.delta_length_byte_array import encode_delta_length_byte_array
from parquet_core.encodings.plain import decode_plain_byte_array, decode_plain_byte_arrays_multi
from parquet_core.errors import ParquetFormatError


# -- references -------------------------------------------------------------------------

def ref_plain(buf: bytes, count: int) -> list[bytes]:
    """PLAIN BYTE_ARRAY: 4-byte little-endian length, then the bytes; one value at a time."""
    out, pos = [], 0
    for _ in range(count):
        if pos + 4 > len(buf):
            raise ValueError("truncated length")
        (n,) = struct.unpack_from("<I", buf, pos)
        if pos + 4 + n > len(buf):
            raise ValueError("value past the end")
        out.append(buf[pos + 4:pos + 4 + n])
        pos += 4 + n
    return out


def ref_front_coded(prefixes: list[int], suffixes: list[bytes]) -> list[bytes]:
    out: list[bytes] = []
    for p, s in zip(prefixes, suffixes):
        out.append((out[-1][:p] if out else b"") + s)
    return out


def plain_page(values: list[bytes]) -> bytes:
    return b"".join(struct.pack("<I", len(v)) + v for v in values)


# -- value generators -------------------------------------------------------------------

ALPHABETS = {
    "text": lambda rng, n: rng.integers(97, 123, n, dtype=np.uint8).tobytes(),
    "binary": lambda rng, n: rng.integers(0, 256, n, dtype=np.uint8).tobytes(),
    "zeros": lambda rng, n: rng.integers(0, 3, n, dtype=np.uint8).tobytes(),
    "utf8": lambda rng, n: ("é€漢😀" * (n // 4 + 1)).encode()[:n],
}


def make_values(seed: int, n: int, lo: int, hi: int, alphabet: str) -> list[bytes]:
    rng = np.random.default_rng(seed)
    lens = rng.integers(lo, hi + 1, n)
    data = ALPHABETS[alphabet](rng, int(lens.sum()))
    out, at = [], 0
    for ln in lens.tolist():
        out.append(data[at:at + ln])
        at += ln
    return out


page_shape = st.tuples(
    st.integers(0, 2**32 - 1),                       # seed
    st.sampled_from([0, 1, 2, 3, 50, 700, 2500]),    # values in the page
    st.sampled_from([(0, 0), (0, 3), (5, 5), (0, 24), (16, 16), (0, 80), (60, 200),
                     (100, 100), (0, 1000)]),        # length range (lo == hi: same length)
    st.sampled_from(sorted(ALPHABETS)),
    st.sampled_from([b"", b"", b"\x00\x00", b"\xff\xff\xff\xff\x07"]),   # trailing bytes
)


def build_pages(shapes: list[tuple]) -> tuple[list[bytes], list[int], list[bytes]]:
    bufs, counts, expect = [], [], []
    for seed, n, (lo, hi), alpha, tail in shapes:
        vals = make_values(seed, n, lo, hi, alpha)
        buf = plain_page(vals) + tail
        assert ref_plain(buf, n) == vals
        bufs.append(buf)
        counts.append(n)
        expect.extend(vals)
    return bufs, counts, expect


# -- PLAIN ------------------------------------------------------------------------------

@settings(max_examples=80, deadline=None)
@given(st.lists(page_shape, min_size=0, max_size=6))
def test_plain_multi_matches_reference(shapes: list[tuple]) -> None:
    bufs, counts, expect = build_pages(shapes)
    got = decode_plain_byte_arrays_multi(bufs, counts)
    assert got.to_pylist() == expect
    assert got.offsets[0] == 0 and got.offsets.size == len(expect) + 1


@settings(max_examples=60, deadline=None)
@given(page_shape)
def test_plain_single_page_matches_reference(shape: tuple) -> None:
    bufs, counts, expect = build_pages([shape])
    got, used = decode_plain_byte_array(bufs[0], counts[0])
    assert got.to_pylist() == expect
    assert used == len(plain_page(expect))


@pytest.mark.parametrize("lo,hi,alpha", [(0, 20, "text"), (12, 12, "text"), (0, 0, "text"),
                                         (0, 12, "zeros"), (30, 150, "binary"), (0, 6, "utf8")])
def test_plain_multi_many_pages_lane_walk(lo: int, hi: int, alpha: str) -> None:
    """pyarrow-like chunks: 20 pages of 3,000 values, enough for the lane walk."""
    shapes = [(seed, 3000, (lo, hi), alpha, b"") for seed in range(20)]
    bufs, counts, expect = build_pages(shapes)
    assert decode_plain_byte_arrays_multi(bufs, counts).to_pylist() == expect
    # memoryviews of one bigger buffer work as well
    big = b"junk" + b"".join(bufs)
    views, at = [], 4
    for b in bufs:
        views.append(memoryview(big)[at:at + len(b)])
        at += len(b)
    assert decode_plain_byte_arrays_multi(views, counts).to_pylist() == expect


def test_plain_multi_uniform_pages_of_different_widths() -> None:
    shapes = [(1, 3000, (8, 8), "text", b""), (2, 2, (0, 0), "text", b"\x01"),
              (3, 5000, (33, 33), "binary", b"")]
    bufs, counts, expect = build_pages(shapes)
    assert decode_plain_byte_arrays_multi(bufs, counts).to_pylist() == expect


def test_plain_multi_missed_lanes_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    import parquet_core.encodings.plain as plain
    shapes = [(seed, 3000, (0, 20), "text", b"") for seed in range(4)]
    bufs, counts, expect = build_pages(shapes)
    monkeypatch.setattr(plain, "_lane_walk", lambda *a: (np.arange(sum(counts), dtype=np.int64), False))
    assert decode_plain_byte_arrays_multi(bufs, counts).to_pylist() == expect


@pytest.mark.parametrize("n", [5, 3000])
def test_plain_multi_malformed_pages(n: int) -> None:
    good = [plain_page(make_values(p, n, 1, 9, "text")) for p in range(3)]
    counts = [n] * 3

    def bad(page: int, buf: bytes, count: int | None = None) -> None:
        bufs = list(good)
        bufs[page] = buf
        c = list(counts)
        if count is not None:
            c[page] = count
        with pytest.raises(ParquetFormatError, match=f"page {page}"):
            decode_plain_byte_arrays_multi(bufs, c)

    bad(1, good[1][:-1])                                   # truncated last value
    bad(2, good[2][:-3])                                   # truncated inside the value
    bad(0, good[0], n + 1)                                 # more values than present
    bad(1, good[1], -1)                                    # negative count
    neg = bytearray(good[1])
    neg[0:4] = struct.pack("<i", -5)                       # negative int32 length
    bad(1, bytes(neg))
    mid = bytearray(good[2])
    off = len(plain_page(make_values(2, n, 1, 9, "text")[: n // 2]))
    mid[off:off + 4] = b"\xff\xff\xff\x7f"                # a length in the middle
    bad(2, bytes(mid))
    with pytest.raises(ValueError):
        decode_plain_byte_arrays_multi(good, counts[:2])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=40), st.integers(0, 12)), max_size=4))
def test_plain_multi_garbage_raises_only_format_errors(pages: list[tuple[bytes, int]]) -> None:
    bufs = [b for b, _ in pages]
    counts = [c for _, c in pages]
    try:
        expect = [v for b, c in pages for v in ref_plain(b, c)]
    except ValueError:
        expect = None
    try:
        got = decode_plain_byte_arrays_multi(bufs, counts).to_pylist()
    except ParquetFormatError:
        assert expect is None
        return
    assert got == expect


def test_plain_multi_against_pyarrow(tmp_path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from parquet_core.page.model import DataPageV1, DataPageV2
    from parquet_core.page.reader import iter_pages
    vals = make_values(9, 30_000, 0, 30, "utf8")
    vals[100] = b"x" * 5000
    strs = [v.decode("utf-8", "replace") for v in vals]
    path = str(tmp_path / "p.parquet")
    table = pa.table({"s": pa.array(strs)},
                     schema=pa.schema([pa.field("s", pa.string(), nullable=False)]))
    pq.write_table(table, path, compression="none", use_dictionary=False,
                   data_page_size=32 * 1024)
    md = pq.ParquetFile(path).metadata.row_group(0).column(0)
    with open(path, "rb") as f:
        f.seek(md.data_page_offset)
        chunk = f.read(md.total_compressed_size)
    bufs, counts = [], []
    for page in iter_pages(chunk, 0, md.num_values):
        if isinstance(page, DataPageV1):
            bufs.append(page.body)
        elif isinstance(page, DataPageV2):
            bufs.append(page.values)
        else:
            continue
        counts.append(page.num_values)
    assert len(bufs) > 5
    got = decode_plain_byte_arrays_multi(bufs, counts)
    assert got.to_pylist() == [s.encode() for s in pq.read_table(path)["s"].to_pylist()]


# -- DELTA_BYTE_ARRAY -------------------------------------------------------------------

def front_coded_page(prefixes: list[int], suffixes: list[bytes]) -> bytes:
    return (encode_delta_binary_packed(np.array(prefixes, dtype=np.int64), np.int32)
            + encode_delta_length_byte_array(suffixes))


@st.composite
def front_coding(draw: st.DrawFn) -> tuple[list[int], list[bytes]]:
    """Arbitrary valid prefixes (not only the longest shared ones a writer picks)."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.sampled_from([1, 2, 5, 40, 300, 3000]))
    style = draw(st.sampled_from(["sorted", "random", "deep", "long", "empty", "same",
                                  "sparse", "sparse_chains"]))
    rng = np.random.default_rng(seed)
    prefixes, suffixes, prev = [], [], 0
    for i in range(n):
        if style == "sorted":
            p = 0 if i == 0 else int(rng.integers(max(0, prev - 4), prev + 1))
            s = rng.integers(97, 123, int(rng.integers(0, 6)), dtype=np.uint8).tobytes()
        elif style == "random":
            p = 0 if i == 0 else int(rng.integers(0, prev + 1))
            s = ALPHABETS["utf8"](rng, int(rng.integers(0, 12)))
        elif style == "deep":        # prefixes 0, 1, 2, ...: every value one deeper
            p = prev if i else 0
            s = bytes([i % 251])
        elif style == "long":
            p = 0 if i == 0 else int(rng.integers(0, prev + 1))
            s = rng.integers(0, 256, int(rng.integers(0, 300)), dtype=np.uint8).tobytes()
        elif style == "sparse":      # mostly unrelated values, a few short shared heads
            p = 0 if i == 0 or rng.random() < 0.8 else int(rng.integers(0, min(prev, 6) + 1))
            s = rng.integers(0, 256, int(rng.integers(0, 30)), dtype=np.uint8).tobytes()
        elif style == "sparse_chains":  # long suffixes, runs of 1..20 values sharing a head
            start_run = i == 0 or rng.random() < 0.1
            p = 0 if start_run else int(rng.integers(max(0, min(prev, 3) - 1), min(prev, 3) + 1))
            s = rng.integers(97, 123, int(rng.integers(10, 40)), dtype=np.uint8).tobytes()
        elif style == "empty":
            p = 0
            s = b""
        else:                        # same: every value equals the first
            p = prev if i else 0
            s = b"" if i else b"constant-value"
        prefixes.append(p)
        suffixes.append(s)
        prev = p + len(s)
    return prefixes, suffixes


@settings(max_examples=80, deadline=None)
@given(front_coding())
def test_delta_byte_array_matches_reference(case: tuple[list[int], list[bytes]]) -> None:
    prefixes, suffixes = case
    buf = front_coded_page(prefixes, suffixes)
    expect = ref_front_coded(prefixes, suffixes)
    assert decode_delta_byte_array(buf, len(prefixes)).to_pylist() == expect


@settings(max_examples=40, deadline=None)
@given(front_coding())
def test_delta_byte_array_column_layouts_still_match(case: tuple[list[int], list[bytes]]) -> None:
    """The layouts kept as the fallback of the prefix doubling."""
    prefixes, suffixes = case
    saved = dba._resolve_by_windows
    dba._resolve_by_windows = lambda *a: None
    try:
        got = decode_delta_byte_array(front_coded_page(prefixes, suffixes), len(prefixes))
    finally:
        dba._resolve_by_windows = saved
    assert got.to_pylist() == ref_front_coded(prefixes, suffixes)


def test_delta_byte_array_prefix_longer_than_previous_value() -> None:
    with pytest.raises(ParquetFormatError, match="previous value"):
        decode_delta_byte_array(front_coded_page([0, 2, 4], [b"ab", b"c", b"d"]), 3)
    with pytest.raises(ParquetFormatError, match="no predecessor"):
        decode_delta_byte_array(front_coded_page([1, 0], [b"ab", b"c"]), 2)


# -- ByteArrays.take ---------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 10, 1000]),
       st.sampled_from([(0, 0), (0, 8), (3, 3), (0, 30), (50, 150), (0, 2000)]),
       st.sampled_from([0, 1, 50, 20_000]))
def test_take_matches_python(seed: int, k: int, lens: tuple[int, int], m: int) -> None:
    values = make_values(seed, k, lens[0], lens[1], "utf8")
    idx = np.random.default_rng(seed + 1).integers(0, k, m)
    got = ByteArrays.from_pylist(values).take(idx)
    assert got.to_pylist() == [values[i] for i in idx.tolist()]


def test_take_from_a_large_source_few_indices() -> None:
    values = make_values(3, 50_000, 0, 40, "binary")
    idx = np.array([49_999, 0, 49_999, 12_345, 49_998], dtype=np.int32)
    got = ByteArrays.from_pylist(values).take(idx)
    assert got.to_pylist() == [values[i] for i in idx.tolist()]


def test_plain_multi_same_buffer_twice_and_out_of_order_views() -> None:
    """Views that overlap or go backwards in one buffer are copied, not walked in place."""
    shapes = [(seed, 2500, (0, 20), "text", b"") for seed in range(2)]
    bufs, counts, expect = build_pages(shapes)
    big = b"".join(bufs)
    first = memoryview(big)[:len(bufs[0])]
    second = memoryview(big)[len(bufs[0]):]
    vals0, vals1 = expect[:2500], expect[2500:]
    got = decode_plain_byte_arrays_multi([first, first, second], [2500, 2500, 2500])
    assert got.to_pylist() == vals0 + vals0 + vals1
    got = decode_plain_byte_arrays_multi([second, first], [2500, 2500])
    assert got.to_pylist() == vals1 + vals0


@settings(max_examples=30, deadline=None)
@given(st.lists(front_coding(), max_size=4))
def test_delta_multi_page_decoders(cases: list[tuple[list[int], list[bytes]]]) -> None:
    counts = [len(p) for p, _ in cases]
    dba_pages = [front_coded_page(p, s) for p, s in cases]
    expect = [v for p, s in cases for v in ref_front_coded(p, s)]
    assert decode_delta_byte_arrays_multi(dba_pages, counts).to_pylist() == expect
    dlba_pages = [encode_delta_length_byte_array(s) for _, s in cases]
    assert decode_delta_length_byte_arrays_multi(dlba_pages, counts).to_pylist() == \
        [v for _, s in cases for v in s]
    if len(cases) > 1:
        with pytest.raises(ParquetFormatError, match="page 1 of"):
            decode_delta_byte_arrays_multi([dba_pages[0], dba_pages[1][:3]], counts[:2])


# -- the low-byte lane walk -------------------------------------------------------------

def _long_mixed_values(seed: int, n: int, long_every: int, long_len: int) -> list[bytes]:
    """Short text with a value of ``long_len`` bytes (>= 256: low byte misleads) now and then."""
    vals = make_values(seed, n, 0, 30, "text")
    for i in range(long_every // 2, n, long_every):
        vals[i] = b"L" * long_len
    return vals


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([3000, 9000]),
       st.sampled_from([1, 7, 500, 2999, 10**9]),
       st.sampled_from([255, 256, 257, 300, 511, 512, 1000]), st.integers(1, 4))
def test_plain_multi_low_byte_walk_with_long_values(seed: int, n: int, long_every: int,
                                                    long_len: int, pages: int) -> None:
    """Lengths of 256 and more (whose low byte alone gives a wrong hop) still decode exactly."""
    bufs, counts, expect = [], [], []
    for p in range(pages):
        vals = _long_mixed_values(seed + p, n, long_every, long_len)
        assert ref_plain(plain_page(vals), n) == vals
        bufs.append(plain_page(vals))
        counts.append(n)
        expect.extend(vals)
    assert decode_plain_byte_arrays_multi(bufs, counts).to_pylist() == expect


@settings(max_examples=30, deadline=None)
@given(st.lists(page_shape, min_size=1, max_size=4))
def test_lane_walk_low_byte_matches_full_walk(shapes: list[tuple]) -> None:
    """The low-byte walk yields the same positions as the walk on full lengths (or both miss)."""
    import parquet_core.encodings.plain as plain
    bufs, counts, expect = build_pages(shapes)
    live = [(b, c) for b, c in zip(bufs, counts) if c > 0]
    if not live or sum(c for _, c in live) <= 2048:
        return
    big = np.frombuffer(b"".join(b for b, _ in live), dtype=np.uint8)
    sizes = np.array([len(b) for b, _ in live], dtype=np.int64)
    begin = np.zeros(sizes.size, dtype=np.int64)
    np.cumsum(sizes[:-1], out=begin[1:])
    cnt = np.array([c for _, c in live], dtype=np.int64)
    low = plain._lane_walk(big, big.size, begin, begin + sizes, cnt, low_byte=True)
    full = plain._lane_walk(big, big.size, begin, begin + sizes, cnt, low_byte=False)
    # the true value starts, from the reference walk
    truth = []
    for b0, (b, c) in zip(begin.tolist(), live):
        pos = 0
        for _ in range(c):
            truth.append(b0 + pos)
            pos += 4 + struct.unpack_from("<I", b, pos)[0]
    for got in (low, full):
        if got is not None and got[1]:
            assert got[0].tolist() == truth


@settings(max_examples=60, deadline=None)
@given(front_coding())
def test_delta_byte_array_sparse_path_matches_reference(case: tuple[list[int], list[bytes]]) -> None:
    """The sparse resolution on its own (no fallback), whenever it accepts the page."""
    prefixes, suffixes = case
    expect = ref_front_coded(prefixes, suffixes)
    sfx = ByteArrays.from_pylist(suffixes)
    pre = np.array(prefixes, dtype=np.int64)
    lengths = pre + sfx.lengths()
    offsets = np.zeros(pre.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    got = dba._resolve_sparse(pre, lengths, offsets, sfx.offsets, sfx.data)
    if got is not None:
        assert ByteArrays(offsets, got).to_pylist() == expect
    assert decode_delta_byte_array(front_coded_page(prefixes, suffixes), len(prefixes)
                                   ).to_pylist() == expect


def test_delta_byte_array_sparse_path_depth_limit() -> None:
    """Chains deeper than the round limit are handed to the doubling, with the same result."""
    n = 400
    prefixes = [0] + [2] * (n - 1)                    # every value shares 2 bytes with the last
    suffixes = [b"ab" + b"x" * 30] + [bytes([65 + i % 26]) * 30 for i in range(1, n)]
    sfx = ByteArrays.from_pylist(suffixes)
    pre = np.array(prefixes, dtype=np.int64)
    lengths = pre + sfx.lengths()
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    assert dba._resolve_sparse(pre, lengths, offsets, sfx.offsets, sfx.data) is None
    got = decode_delta_byte_array(front_coded_page(prefixes, suffixes), n).to_pylist()
    assert got == ref_front_coded(prefixes, suffixes)


def _lane_starts_reference(u32, size, last, total, begin, end, region_max, first_lane, page_begin):
    """The lane-start rule as first written (per hop: an explicit end test, a
    room-for-a-length test and a clamp to ``size + 1``): the leaner loop in
    ``plain._lane_starts`` must pick the same starts."""
    from parquet_core.encodings import plain
    lanes = begin.size
    window = int(min(region_max, max(16, 3 * (size / total) + 8)))
    cand = begin[:, None] + np.arange(window, dtype=np.int64)[None, :]
    alive = cand < end[:, None]
    q = hop1 = cand
    for k in range(plain._PLAUSIBLE_HOPS):
        at_end = q == size
        nxt = q + 4 + u32[np.minimum(q, last)]
        alive &= at_end | ((q <= last) & (nxt <= size))
        q = np.where(at_end, q, np.minimum(nxt, size + 1))
        if k == 0:
            hop1 = q
    rel = hop1 - begin[:, None]
    inside = rel < window
    row = np.arange(lanes)[:, None]
    chained = alive & inside & alive[row, np.where(inside, rel, 0)]
    pick = np.where(chained.any(axis=1, keepdims=True), chained, alive)
    starts = np.where(pick.any(axis=1), cand[np.arange(lanes), pick.argmax(axis=1)], begin)
    starts[first_lane] = page_begin
    return starts


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=60), min_size=3, max_size=400), st.integers(0, 2**32 - 1),
       st.integers(0, 3), st.lists(st.integers(1, 60), min_size=1, max_size=3))
def test_lane_starts_match_the_first_formulation(vals, seed, garble, page_counts) -> None:
    """On PLAIN pages (cut into pages of various sizes) and on partly garbled bytes
    (false starts, lengths past the end, values ending exactly at the end)."""
    from parquet_core.encodings import plain
    buf = bytearray(b"".join(struct.pack("<I", len(v)) + v for v in vals))
    rng = np.random.default_rng(seed)
    for _ in range(garble * 4):
        buf[int(rng.integers(0, len(buf)))] = int(rng.integers(0, 256))
    arr = np.frombuffer(bytes(buf), dtype=np.uint8)
    size = arr.size
    cuts = np.unique(np.clip(np.cumsum([len(buf) * c // 64 for c in page_counts]), 1, size - 1))
    page_begin = np.concatenate([[0], cuts]).astype(np.int64)
    page_end = np.append(page_begin[1:], size).astype(np.int64)
    total = len(vals)
    _, first_lane, _, begin, end, region = plain._lane_layout(size, page_begin, page_end, total)
    u32 = plain._u32_at_every_byte(arr, size)
    args = (u32, size, size - 4, total, begin, end, int(region.max()), first_lane, page_begin)
    assert np.array_equal(plain._lane_starts(*args), _lane_starts_reference(*args))


def test_lane_starts_match_the_first_formulation_on_chains_reaching_the_end() -> None:
    """Short pages whose last lane's chain reaches the page end within the plausibility
    hops (a position at the end must stay alive: the case a sloppy clamp loses)."""
    from parquet_core.encodings import plain
    for n in range(3, 12):
        for width in (10, 20, 40):
            arr = np.frombuffer(b"".join(struct.pack("<I", width) + bytes([97 + i]) * width
                                         for i in range(n)), dtype=np.uint8)
            size = arr.size
            page_begin, page_end = np.array([0]), np.array([size])
            _, first_lane, _, begin, end, region = plain._lane_layout(size, page_begin, page_end, n)
            args = (plain._u32_at_every_byte(arr, size), size, size - 4, n, begin, end,
                    int(region.max()), first_lane, page_begin)
            assert np.array_equal(plain._lane_starts(*args), _lane_starts_reference(*args)), (n, width)


def _outcome_multi(bufs: list[bytes], counts: list[int]) -> object:
    try:
        return decode_plain_byte_arrays_multi(bufs, counts).to_pylist()
    except ParquetFormatError as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=60, deadline=None)
@given(st.integers(49, 120), st.integers(0, 2**32 - 1), st.integers(0, 4), st.integers(0, 1 << 20))
def test_plain_multi_many_small_pages_in_lanes(pages: int, seed: int, damage: int, at: int) -> None:
    """Many pages of a few values each (a run of small files' string dictionaries): decoded by
    the lane walk (fewer calls than a scalar walk per page), with the values and the errors
    (damaged lengths, short pages, counts past a page) of the page-by-page scalar walk."""
    import parquet_core.encodings.plain as plain

    shapes = [(seed + p, 1 + (seed + p) % 7, (0, 9), "text", b"") for p in range(pages)]
    bufs, counts, expect = build_pages(shapes)
    page = at % pages
    if damage == 1:
        bufs[page] = bufs[page][:-1 - at % 3]                     # cut inside the last value
    elif damage == 2:
        raw = bytearray(bufs[page])
        raw[0:4] = struct.pack("<I", 2**31 + at % 7)                  # a first length past the page
        bufs[page] = bytes(raw)
    elif damage == 3:
        counts[page] += 1 + at % 2                                  # more values than present
    elif damage == 4 and len(bufs[page]) > 4:
        raw = bytearray(bufs[page])
        raw[4 + at % (len(raw) - 4)] ^= 0x5A                      # a value byte changed (still valid)
        bufs[page] = bytes(raw)
    walked: list[int] = []
    real = plain._lane_walk

    def spy(*args, **kwargs):   # type: ignore[no-untyped-def]
        walked.append(1)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(plain, "_lane_walk", spy)
        got = _outcome_multi(bufs, counts)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(plain, "_SCALAR_MAX_PAGES", 1 << 30)      # page by page
        scalar = _outcome_multi(bufs, counts)
    assert got == scalar
    if damage == 0:
        assert got == expect
    if damage in (0, 4):     # (a cut page or a count past it may fail the up-front size check)
        assert walked        # the lanes were tried
