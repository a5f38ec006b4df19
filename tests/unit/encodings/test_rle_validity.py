"""The batched bit-width-1 level decoder against an independent reference.

``decode_validity`` must give, for every batch of level streams, either the
validity and per-page counts that decoding each stream on its own gives
(the reference below: a plain run-by-run decoder written for these tests;
the general decoder ``decode_hybrid`` is compared too), or ``None``; and it
may return ``None`` only for streams that are irregular (the general
decoder then raises, or the streams have bytes after their runs).  Streams
come from the writer's encoder at various null rates and page sizes, and
from hand-built run lists with every header size, zero-length runs, cut
final runs and trailing runs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_core.encodings import rle_validity
from parquet_core.encodings.rle_hybrid import decode_hybrid
from parquet_core.encodings.rle_hybrid_encoder import encode_levels_v2
from parquet_core.encodings.rle_validity import decode_validity
from parquet_core.errors import ParquetFormatError
from tests.unit.encodings.golden import uleb as _uleb


def _reference(stream: bytes, count: int) -> list[int] | None:
    """Run-by-run decoder of a bit-width-1 hybrid stream; None where the format is broken."""
    out: list[int] = []
    pos = 0
    while len(out) < count:
        header = 0
        shift = 0
        while True:
            if pos >= len(stream) or shift > 28:
                return None
            b = stream[pos]
            pos += 1
            header |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        n = header >> 1
        if header & 1:
            need = min(n * 8, count - len(out))
            nbytes = (need + 7) // 8
            if pos + nbytes > len(stream):
                return None
            for i in range(need):
                out.append((stream[pos + i // 8] >> (i % 8)) & 1)
            pos += n
        else:
            if pos >= len(stream) or stream[pos] > 1:
                return None
            out.extend([stream[pos]] * min(n, count - len(out)))
            pos += 1
    return out


def _general(stream: bytes, count: int) -> list[int] | None:
    try:
        return decode_hybrid(np.frombuffer(stream, dtype=np.uint8), 1, count)[0].tolist()
    except ParquetFormatError:
        return None


def _check(streams: list[bytes], counts: list[int], *, must_decode: bool) -> None:
    got = decode_validity(streams, counts)
    refs = [_reference(s, c) for s, c in zip(streams, counts)]
    for s, c, r in zip(streams, counts, refs):
        assert _general(s, c) == r
    if got is None:
        assert not must_decode, "a regular batch fell back to the general decoder"
        return
    valid, present = got
    assert all(r is not None for r in refs), "accepted a stream the general decoder rejects"
    flat = [v for r in refs for v in r]  # type: ignore[union-attr]
    assert valid.dtype == np.bool_ and valid.tolist() == [bool(v) for v in flat]
    assert present.tolist() == [sum(r) for r in refs]  # type: ignore[arg-type]


def _pages(rng: np.random.Generator, rate: float, sizes: list[int]) -> tuple[list[bytes], list[int]]:
    streams = []
    for n in sizes:
        valid = rng.random(n) >= rate
        streams.append(encode_levels_v2(valid.astype(np.int16), 1))
    return streams, sizes


@pytest.mark.parametrize("rate", [0.0, 0.001, 0.1, 0.5, 0.999, 1.0])
@pytest.mark.parametrize("size", [1, 7, 8, 9, 1000, 20000])
def test_writer_streams_at_every_null_rate(rate: float, size: int) -> None:
    rng = np.random.default_rng(int(rate * 1000) + size)
    streams, counts = _pages(rng, rate, [size] * 5)
    _check(streams, counts, must_decode=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rate=st.sampled_from([0.0, 0.001, 0.1, 0.5, 0.999, 1.0]),
       sizes=st.lists(st.integers(1, 20000), min_size=1, max_size=6))
def test_writer_streams_mixed_pages(seed: int, rate: float, sizes: list[int]) -> None:
    rng = np.random.default_rng(seed)
    streams, counts = _pages(rng, rate, sizes)
    _check(streams, counts, must_decode=True)


@st.composite
def run_lists(draw: st.DrawFn) -> tuple[bytes, int]:
    """A stream of hand-built runs (every header size, zero-length runs) and a count
    that uses all of it, or stops inside or between runs."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    nruns = draw(st.integers(1, 80))
    buf = bytearray()
    total = 0
    for _ in range(nruns):
        kind = rng.integers(0, 6)
        if kind == 0:
            n = int(rng.choice([0, 1, 63, 64, 8191, 8192, 20000]))
            buf += _uleb(n << 1) + bytes([int(rng.integers(0, 2))])
            total += n
        elif kind <= 2:
            n = int(rng.integers(1, 30))
            buf += _uleb(n << 1) + bytes([int(rng.integers(0, 2))])
            total += n
        else:
            g = int(rng.choice([0, 1, 2, 5, 63, 64, 70])) if kind == 3 else int(rng.integers(1, 4))
            buf += _uleb((g << 1) | 1) + rng.integers(0, 256, g, dtype=np.uint8).tobytes()
            total += 8 * g
    if total == 0:
        buf += b"\x02\x01"
        total = 1
    count = draw(st.sampled_from([total, max(1, total - 1), max(1, total // 2), 1]))
    return bytes(buf), count


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages=st.lists(run_lists(), min_size=1, max_size=5))
def test_hand_built_runs(pages: list[tuple[bytes, int]]) -> None:
    streams = [s for s, _ in pages]
    counts = [c for _, c in pages]
    # a stream's chain may skip the next stream's start only if it has bytes after
    # the runs it declares; these streams have none, so they must decode
    _check(streams, counts, must_decode=True)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rate=st.sampled_from([0.01, 0.1, 0.5, 0.9]),
       sizes=st.lists(st.integers(1, 3000), min_size=1, max_size=4),
       edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=4),
       cut=st.integers(0, 8))
def test_damaged_streams_decode_like_the_reference_or_fall_back(seed, rate, sizes, edits, cut) -> None:
    """Flipped bytes and truncated streams: never a different answer, never an accepted error."""
    rng = np.random.default_rng(seed)
    streams, counts = _pages(rng, rate, sizes)
    k = seed % len(streams)
    s = bytearray(streams[k])
    for at, value in edits:
        if s:
            s[at % len(s)] = value
    streams[k] = bytes(s[:max(0, len(s) - cut)])
    if not streams[k]:
        return
    _check(streams, counts, must_decode=False)


def test_irregular_streams_fall_back() -> None:
    ok = encode_levels_v2(np.array([1, 0, 1] * 30, dtype=np.int16), 1)
    # RLE value 2 does not fit in one bit
    assert decode_validity([ok, b"\x06\x02"], [90, 3]) is None
    # a run header longer than 5 bytes
    assert decode_validity([b"\x80\x80\x80\x80\x80\x80\x02\x01"], [1]) is None
    # a bit-packed body past the end of its stream
    assert decode_validity([b"\x05\xff"], [16]) is None
    # runs ending before the count
    assert decode_validity([b"\x06\x01"], [4]) is None
    # a byte after the runs of the first page reads as a header whose run covers the
    # second page's start: the batch falls back (the general decoder ignores the byte)
    assert decode_validity([b"\x06\x01\x05", b"\x06\x01"], [3, 3]) is None
    # a final bit-packed run declaring more groups than it holds, but enough for the count
    got = decode_validity([b"\x09\xff"], [8])
    assert got is not None and got[0].tolist() == [True] * 8


def test_no_pages_or_empty_pages_are_refused() -> None:
    assert decode_validity([], []) is None
    assert decode_validity([b""], [3]) is None
    assert decode_validity([b"\x02\x01"], [0]) is None


def test_fill_ranges_long_and_short() -> None:
    out = np.ones(5000, dtype=bool)
    starts = np.array([0, 10, 300, 4000], dtype=np.intp)
    lengths = np.array([3, 280, 1, 999], dtype=np.intp)
    rle_validity._fill_ranges(out, starts, lengths, False)
    ref = np.ones(5000, dtype=bool)
    for s, ln in zip(starts, lengths):
        ref[s:s + ln] = False
    assert np.array_equal(out, ref)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rate=st.sampled_from([0.01, 0.1, 0.5]),
       sizes=st.lists(st.integers(1, 1500), min_size=2, max_size=8),
       edit=st.none() | st.tuples(st.integers(0, 10**6), st.integers(0, 255)))
def test_side_by_side_walk_equals_pointer_doubling(seed, rate, sizes, edit) -> None:
    """Small streams are walked side by side; the result must be the doubling walk's."""
    rng = np.random.default_rng(seed)
    streams, counts = _pages(rng, rate, sizes)
    if edit is not None:
        k = seed % len(streams)
        s = bytearray(streams[k])
        s[edit[0] % len(s)] = edit[1]
        streams[k] = bytes(s)
    saved = rle_validity._LANES_MAX_BYTES
    try:
        rle_validity._LANES_MAX_BYTES = 1 << 30
        lanes = decode_validity(streams, counts)
        rle_validity._LANES_MAX_BYTES = 0
        doubling = decode_validity(streams, counts)
    finally:
        rle_validity._LANES_MAX_BYTES = saved
    assert (lanes is None) == (doubling is None)
    if lanes is not None:
        assert np.array_equal(lanes[0], doubling[0]) and np.array_equal(lanes[1], doubling[1])
    _check(streams, counts, must_decode=edit is None)


def test_a_six_byte_run_header_is_refused_on_every_path() -> None:
    # found by the damaged-stream test: the one-run fast path read the header with a 64-bit
    # varint reader and accepted what every other path (and the reference) refuses
    s = b"\x80\xff\xff\xbf\x80\x01\x01"
    assert _reference(s, 88) is None
    assert _general(s, 88) is None


@pytest.mark.parametrize("sizes", [[20000, 13, 777, 8, 4096], [20000], [9], [1]])
@pytest.mark.parametrize("dense_run", [0, 10**9])
@pytest.mark.parametrize("rate", [0.05, 0.1, 0.5])
def test_dense_and_sparse_bitmaps_agree_with_the_reference(monkeypatch, dense_run: int, rate: float,
                                                           sizes: list[int]) -> None:
    """Both ways of drawing the bitmap (per-slot index into the stream's bits for many
    short runs, one page or several; minority writes for long runs) give the reference's
    levels."""
    monkeypatch.setattr(rle_validity, "_DENSE_RUN", dense_run)
    rng = np.random.default_rng(int(rate * 100) + dense_run % 7 + len(sizes))
    streams, counts = _pages(rng, rate, sizes)
    _check(streams, counts, must_decode=True)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages=st.lists(st.tuples(st.binary(min_size=1, max_size=40), st.integers(1, 200)), min_size=1, max_size=1))
def test_one_short_run_page_decodes_like_the_reference_or_falls_back(pages) -> None:
    """The one-page path on arbitrary bytes: the reference's levels, or None only where
    the reference (the general decoder) refuses the stream or bytes follow its runs."""
    (stream, count), = pages
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rle_validity, "_DENSE_RUN", 10**9)
        got = decode_validity([stream], [count])
    ref = _reference(stream, count)
    assert _general(stream, count) == ref
    if got is None:
        return
    assert ref is not None, "accepted a stream the general decoder rejects"
    assert got[0].tolist() == [bool(v) for v in ref] and got[1].tolist() == [sum(ref)]


def test_pyarrow_levels_with_ten_percent_nulls_take_the_dense_path(monkeypatch) -> None:
    """pyarrow's definition levels of a column with ~10 % random nulls (short runs) are
    drawn by the dense bitmap and read back equal to pyarrow's own read."""
    import io

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import parquet_core as pc

    rng = np.random.default_rng(32)
    table = pa.table({"x": pa.array(rng.random(20000), mask=rng.random(20000) < 0.1),
                      "y": pa.array(rng.integers(0, 100, 20000).astype(np.int32), mask=rng.random(20000) < 0.1)})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    calls = []
    real = rle_validity._dense_bits
    monkeypatch.setattr(rle_validity, "_dense_bits", lambda *a: calls.append(1) or real(*a))
    got = pc.read_table(io.BytesIO(buf.getvalue()), use_threads=False).to_arrow()
    assert got.equals(pq.read_table(io.BytesIO(buf.getvalue())))
    assert len(calls) == 2
