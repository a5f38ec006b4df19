"""PLAIN for every physical type; BYTE_ARRAY through both the scalar and the lane walk."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.constants import PhysicalType as PT
from parquet_core.encodings import plain
from parquet_core.encodings.plain import decode_plain, decode_plain_byte_array, encode_plain
from parquet_core.errors import ParquetFormatError


def plain_bytes(values: list[bytes]) -> bytes:
    return b"".join(struct.pack("<I", len(v)) + v for v in values)


# -- fixed-width types -----------------------------------------------------------------

def test_boolean_is_lsb_first() -> None:
    out = decode_plain(bytes([0b00000101, 0b1]), 9, PT.BOOLEAN)
    assert out.dtype == np.bool_
    assert out.tolist() == [True, False, True, False, False, False, False, False, True]


def test_numeric_types_are_little_endian_zero_copy() -> None:
    buf = np.frombuffer(struct.pack("<iiqdf", -1, 7, 2**40, 1.5, -2.0), dtype=np.uint8)
    assert decode_plain(buf[:8], 2, PT.INT32).tolist() == [-1, 7]
    i64 = decode_plain(buf[8:16], 1, PT.INT64)
    assert i64.tolist() == [2**40] and i64.dtype == np.dtype("<i8")
    assert np.shares_memory(i64, buf)
    assert decode_plain(buf[16:24], 1, PT.DOUBLE).tolist() == [1.5]
    assert decode_plain(buf[24:], 1, PT.FLOAT).tolist() == [-2.0]


def test_int96_and_fixed_len() -> None:
    raw = bytes(range(24))
    int96 = decode_plain(raw, 2, PT.INT96)
    assert int96.shape == (2, 12) and int96[1, 0] == 12
    flba = decode_plain(raw, 4, PT.FIXED_LEN_BYTE_ARRAY, 5)
    assert flba.shape == (4, 5) and flba[3].tolist() == [15, 16, 17, 18, 19]
    assert decode_plain(b"", 3, PT.FIXED_LEN_BYTE_ARRAY, 0).shape == (3, 0)


def test_trailing_bytes_are_ignored() -> None:
    assert decode_plain(struct.pack("<iii", 1, 2, 3), 2, PT.INT32).tolist() == [1, 2]


@pytest.mark.parametrize("pt,count,size,tl", [
    (PT.BOOLEAN, 9, 1, None),
    (PT.INT32, 2, 7, None),
    (PT.INT64, 1, 7, None),
    (PT.INT96, 1, 11, None),
    (PT.FLOAT, 1, 3, None),
    (PT.DOUBLE, 2, 15, None),
    (PT.FIXED_LEN_BYTE_ARRAY, 2, 9, 5),
    (PT.FIXED_LEN_BYTE_ARRAY, 1, 9, None),
    (PT.FIXED_LEN_BYTE_ARRAY, 1, 9, -1),
    (PT.BYTE_ARRAY, 1, 3, None),
    (PT.INT32, -1, 8, None),
    (99, 1, 8, None),
])
def test_malformed_fixed(pt: int, count: int, size: int, tl: int | None) -> None:
    with pytest.raises(ParquetFormatError):
        decode_plain(bytes(size), count, pt, tl)


@pytest.mark.parametrize("pt", [PT.BOOLEAN, PT.INT32, PT.INT64, PT.FLOAT, PT.DOUBLE])
def test_round_trip_numeric(pt: int) -> None:
    rng = np.random.default_rng(int(pt))
    vals = rng.integers(0, 2, 1000).astype(bool) if pt == PT.BOOLEAN else \
        (rng.standard_normal(1000) * 1e8).astype({PT.INT32: "<i4", PT.INT64: "<i8",
                                                   PT.FLOAT: "<f4", PT.DOUBLE: "<f8"}[pt])
    np.testing.assert_array_equal(decode_plain(encode_plain(vals, pt), 1000, pt), vals)


# -- BYTE_ARRAY --------------------------------------------------------------------------

def test_byte_array_small() -> None:
    buf = plain_bytes([b"hello", b"", b"w"])
    out, used = decode_plain_byte_array(buf + b"junk", 3)
    assert out.to_pylist() == [b"hello", b"", b"w"] and used == len(buf)
    assert decode_plain(buf, 3, PT.BYTE_ARRAY).offsets.tolist() == [0, 5, 5, 6]


def test_byte_array_empty() -> None:
    out, used = decode_plain_byte_array(b"", 0)
    assert len(out) == 0 and used == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=30), max_size=400))
def test_byte_array_round_trip_scalar_path(values: list[bytes]) -> None:
    assert decode_plain(encode_plain(values, PT.BYTE_ARRAY), len(values), PT.BYTE_ARRAY).to_pylist() \
        == values


def random_strings(rng: np.random.Generator, n: int, lo: int, hi: int, alphabet: tuple[int, int]
                   ) -> list[bytes]:
    lens = rng.integers(lo, hi + 1, n)
    data = rng.integers(alphabet[0], alphabet[1], int(lens.sum()), dtype=np.uint8).tobytes()
    out, at = [], 0
    for length in lens.tolist():
        out.append(data[at:at + length])
        at += length
    return out


@pytest.mark.parametrize("n,lo,hi,alphabet", [
    (20_000, 0, 20, (97, 123)),     # text
    (20_000, 5, 5, (97, 123)),      # constant length
    (20_000, 0, 0, (0, 1)),         # all empty: every offset looks like a valid start
    (20_000, 0, 12, (0, 3)),        # binary, zero-heavy: many false lane starts
    (8_000, 50, 200, (0, 256)),     # random binary, longer values
    (5_000, 0, 4, (0, 256)),        # tiny values
])
def test_byte_array_lane_walk(n: int, lo: int, hi: int, alphabet: tuple[int, int]) -> None:
    values = random_strings(np.random.default_rng(n + hi), n, lo, hi, alphabet)
    buf = plain_bytes(values)
    out, used = decode_plain_byte_array(buf, n)
    assert used == len(buf)
    assert out.to_pylist() == values


def test_byte_array_huge_value_spanning_regions() -> None:
    rng = np.random.default_rng(1)
    values = random_strings(rng, 10_000, 0, 10, (97, 123))
    values[4000] = b"\x00" * 200_000        # spans many lane regions
    values[7000] = b"\x05\x00\x00\x00" * 20_000
    out, _ = decode_plain_byte_array(plain_bytes(values), len(values))
    assert out.to_pylist() == values


def test_byte_array_trailing_garbage_after_count() -> None:
    values = random_strings(np.random.default_rng(2), 10_000, 0, 10, (97, 123))
    buf = plain_bytes(values) + bytes(np.random.default_rng(3).integers(0, 256, 50_000, dtype=np.uint8))
    out, used = decode_plain_byte_array(buf, len(values))
    assert out.to_pylist() == values and used == len(plain_bytes(values))


def test_byte_array_lanes_missed_are_recovered(monkeypatch: pytest.MonkeyPatch) -> None:
    # sabotage the lane walk: the final proof must catch it and fall back
    values = random_strings(np.random.default_rng(4), 10_000, 0, 10, (97, 123))
    monkeypatch.setattr(plain, "_lane_walk",
                        lambda arr, size, begin, end, counts: (np.arange(int(counts.sum()), dtype=np.int64), False))
    out, _ = decode_plain_byte_array(plain_bytes(values), len(values))
    assert out.to_pylist() == values


@pytest.mark.parametrize("n", [10, 10_000])
def test_byte_array_malformed(n: int) -> None:
    values = random_strings(np.random.default_rng(n), n, 1, 10, (97, 123))
    buf = bytearray(plain_bytes(values))
    with pytest.raises(ParquetFormatError):
        decode_plain_byte_array(bytes(buf), n + 1)            # more values than present
    with pytest.raises(ParquetFormatError):
        decode_plain_byte_array(bytes(buf[:-1]), n)           # last value truncated
    with pytest.raises(ParquetFormatError):
        decode_plain_byte_array(bytes(buf[:-len(values[-1]) - 2]), n)  # inside last length
    # a length in the middle runs past the end of the page
    off = len(plain_bytes(values[: n // 2]))
    buf[off:off + 4] = struct.pack("<I", 2**31)
    with pytest.raises(ParquetFormatError, match="runs past the end"):
        decode_plain_byte_array(bytes(buf), n)
    with pytest.raises(ParquetFormatError):
        decode_plain_byte_array(b"", -1)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=100), count=st.integers(0, 30))
def test_garbage_never_leaks_other_errors(data: bytes, count: int) -> None:
    try:
        out, used = decode_plain_byte_array(data, count)
    except ParquetFormatError:
        return
    assert len(out) == count and used <= len(data)


def _reference_lane_starts(buf: np.ndarray, size: int, total: int, begin: np.ndarray, end: np.ndarray,
                           region_max: int, first_lane: np.ndarray, page_begin: np.ndarray) -> list[int]:
    """The lane-start rule of ``plain._lane_starts`` lane by lane in Python: in a window at
    each region start, a position survives when it lies in the region and 4 hops from it
    stay in the buffer (a hop from the end stays there); the first survivor whose first
    hop lands on another survivor in the window wins, else the first survivor, else the
    region start; a page's first lane starts at the page start."""
    window = int(min(region_max, max(16, 3 * (size / total) + 8)))

    def hop(q: int) -> int:
        if q + 4 > size:
            return size + 1 if q < size else q      # no room for a length; the end stays
        return q + 4 + int.from_bytes(bytes(buf[q:q + 4]), "little")

    out = []
    for b, e in zip(begin.tolist(), end.tolist()):
        def survives(c: int, e: int = e) -> bool:
            if c >= e:
                return False
            q = c
            for _ in range(4):
                q = hop(q)
                if q > size:
                    return False
            return True
        alive = [c for c in range(b, b + window) if survives(c)]
        chained = [c for c in alive if hop(c) - b < window and hop(c) in alive]
        out.append(chained[0] if chained else alive[0] if alive else b)
    for lane, start in zip(first_lane.tolist(), page_begin.tolist()):
        out[lane] = start
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 40), st.sampled_from([(97, 123), (0, 3), (0, 256)])),
                min_size=1, max_size=3), st.integers(0, 2**32 - 1))
def test_lane_starts_follow_the_rule(pages: list[tuple[int, int, tuple[int, int]]], seed: int) -> None:
    """The vectorised lane starts (hops only from positions still alive, chained survivors
    found by a binary search) equal the rule applied lane by lane."""
    rng = np.random.default_rng(seed)
    bodies, counts = [], []
    for n, hi, alphabet in pages:
        vals = random_strings(rng, n, 0, hi, alphabet)
        bodies.append(plain_bytes(vals))
        counts.append(n)
    live = [i for i, c in enumerate(counts) if c and len(bodies[i]) >= 4]
    if not live:
        return
    arrs = [np.frombuffer(bodies[i], dtype=np.uint8) for i in live]
    big, page_begin, page_end = plain._join_pages(arrs)
    size = int(page_end[-1])
    total = sum(counts[i] for i in live)
    _, first_lane, _, begin, end, region = plain._lane_layout(size, page_begin, page_end, total)
    args = (total, begin, end, int(region.max()), first_lane, page_begin)
    got = plain._lane_starts(plain._u32_at_every_byte(big, size), size, size - 4, *args)
    assert got.tolist() == _reference_lane_starts(big, size, *args)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(2100, 4000), min_size=1, max_size=3), st.integers(0, 40),
       st.sampled_from([(97, 123), (0, 3), (0, 256)]), st.integers(0, 2**32 - 1),
       st.lists(st.tuples(st.integers(0, 2), st.one_of(st.floats(0, 1), st.sampled_from([-1, -2])),
                          st.sampled_from([0, 1, 255, 256, 2**16, 2**31 - 1, 2**31, 2**32 - 16,
                                           2**32 - 1])), max_size=3),
       st.integers(-1, 1))
def test_lane_walk_refuses_what_the_scalar_walk_refuses(
        sizes: list[int], hi: int, alphabet: tuple[int, int], seed: int,
        damage: list[tuple[int, float, int]], extra: int) -> None:
    """Pages with 4 bytes overwritten (at any byte, or the length of a page's last or
    next-to-last value: running past the page, "negative", zero, a byte more) or a count
    off by one: the lane walk gives the scalar walk's values, or both refuse, naming the
    same page."""
    rng = np.random.default_rng(seed)
    pages = [random_strings(rng, n, 0, hi, alphabet) for n in sizes]
    bodies = [bytearray(plain_bytes(vals)) for vals in pages]
    counts = list(sizes)
    counts[-1] += extra
    for page, where, value in damage:
        body = bodies[page % len(bodies)]
        if where < 0:       # the length of the last (-1) or next-to-last (-2) value
            vals = pages[page % len(bodies)]
            at = len(plain_bytes(vals[:len(vals) + int(where)]))
        else:
            at = int(where * (len(body) - 4))
        body[at:at + 4] = struct.pack("<I", value)
    bufs = [bytes(b) for b in bodies]

    def outcome() -> object:
        try:
            return plain.decode_plain_byte_arrays_multi(bufs, counts).to_pylist()
        except ParquetFormatError as exc:
            return ("error", str(exc).split(":")[0])
    fast = outcome()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(plain, "_lane_walk", lambda *a, **k: None)    # the scalar walk only
        assert fast == outcome()
