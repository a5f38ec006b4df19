"""Dictionary indices of several pages as narrow codes, every run one window copy
(``rle_hybrid.expand_dictionary_index_codes``, issue 32), against the general path:
each page decoded alone by ``decode_dictionary_indices`` (the run loop), whose
result was itself checked against the reference decoder of the spec's grammar.

Pages are built run by run from the grammar (RLE runs of 0-80 values and of 64+ with
two-byte headers, bit-packed runs of 0-9 groups and of 64+, a count that stops inside
any run, a last body cut to the bytes its used values need, bytes after the runs), so
walked pages (many runs) and run-loop pages (few) both occur, one bit width or several
per chunk.  The codes must equal the general path's indices, or be None exactly when an
index used is outside the dictionary (or the path does not apply); a damaged page must
fail (or give None) wherever the general path fails, naming the first failing page."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.encodings import rle_hybrid
from parquet_core.encodings.rle_hybrid import (
    decode_dictionary_indices,
    expand_dictionary_index_codes,
    scan_dictionary_indices,
)
from parquet_core.errors import ParquetFormatError
from tests._support.rle_reference import ref_decode
from tests._support.rle_reference import skewed_index_page as _skewed
from tests.unit.encodings.golden import pack_lsb, uleb

_WIDTHS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17]


@st.composite
def coded_page(draw, w: int) -> tuple[bytes, int]:
    """One page of dictionary indices of width *w* (the width byte first) and its count."""
    top = (1 << w) - 1
    vb = (w + 7) // 8
    buf = bytearray([w])
    total = 0
    last_packed = 0
    runs = draw(st.lists(st.tuples(st.booleans(), st.integers(0, 12)), min_size=1, max_size=40))
    for packed, size in runs:
        long = draw(st.integers(0, 19)) == 0        # now and then a run of 64+ (two-byte header)
        if packed:
            groups = 64 + size if long else size
            vals = draw(st.lists(st.integers(0, top), min_size=groups * 8, max_size=groups * 8)) \
                if groups <= 9 else np.random.default_rng(size).integers(0, top + 1, groups * 8).tolist()
            buf += uleb(groups << 1 | 1) + pack_lsb(vals, w)
            total += groups * 8
            last_packed = groups
        else:
            n = 64 + 7 * size if long else draw(st.integers(0, 80))
            buf += uleb(n << 1) + draw(st.integers(0, top)).to_bytes(vb, "little")
            total += n
            last_packed = 0
    count = draw(st.integers(0, total))
    if last_packed and count == total and count and draw(st.booleans()):
        # the last body cut to the bytes of the values it gives
        drop = draw(st.integers(1, 7))
        count -= drop
        keep = last_packed * 8 - drop
        buf = buf[:len(buf) - (last_packed * w - (keep * w + 7) // 8)]
    buf += draw(st.binary(max_size=3))     # bytes after the runs are not values
    return bytes(buf), count


@st.composite
def chunks(draw) -> tuple[list[tuple[bytes, int]], int]:
    """Pages of one chunk (mostly one bit width, sometimes several) and a dictionary size."""
    w = draw(st.sampled_from(_WIDTHS))
    widths = draw(st.lists(st.sampled_from([w, max(w - 1, 0), w + 1]) if draw(st.booleans())
                           else st.just(w), min_size=1, max_size=4))
    pages = [draw(coded_page(x)) for x in widths]
    top = 1 << max(widths)
    size = draw(st.one_of(st.just(top), st.integers(1, top + 2)))
    return pages, size


def _general(pages: list[tuple[bytes, int]]) -> tuple[list[int], int | None]:
    """The general path: each page decoded alone; the indices, and the position among the
    scanned pages of the first page it refuses (None: all accepted)."""
    out: list[int] = []
    k = 0
    for buf, count in pages:
        if not count:
            continue
        try:
            got = decode_dictionary_indices(buf, count).tolist()
        except ParquetFormatError:
            return out, k
        assert got == (ref_decode(buf[1:], buf[0], count) if buf[0] else [0] * count)
        out += got
        k += 1
    return out, None


def _check(pages: list[tuple[bytes, int]], size: int) -> None:
    """The codes of *pages* for a dictionary of *size* entries against the general path."""
    expected, bad = _general(pages)
    scanned = []
    for buf, count in pages:
        try:
            s = scan_dictionary_indices(buf, count)
        except ParquetFormatError:
            # refused while scanned (the reader names this page at once)
            assert bad is not None
            return
        if s is not None:
            scanned.append(s)
        else:
            assert count == 0 or buf[0] == 32
    if not scanned:
        return
    try:
        codes = expand_dictionary_index_codes(scanned, size)
    except ParquetFormatError as exc:
        assert bad is not None, "a page the general path accepts was refused"
        assert exc.page_index == bad
        return
    if codes is None:
        # refused: an index used outside the dictionary, a damaged page, or a chunk the
        # path leaves to the index path (over 16 bits, long runs, a large dictionary)
        widths = max(s[1] for s in scanned)
        applies = widths <= 16 and not (widths > 8 and min(size, 1 << widths) > 4096)
        runs = sum(s[2].runs if type(s[2]) is rle_hybrid._Walked else len(s[2]) // 2 for s in scanned)
        long_runs = sum(s[3] for s in scanned) > 128 * runs
        assert bad is not None or not applies or long_runs or max(expected, default=0) >= size
        return
    assert bad is None, "a page the general path refuses gave values"
    assert max(expected, default=0) < size
    assert codes.dtype == (np.uint8 if max(s[1] for s in scanned) <= 8 else np.uint16)
    assert codes.tolist() == expected


@settings(max_examples=400, deadline=None)
@given(chunks())
def test_codes_equal_the_general_path_or_refuse_what_it_refuses(chunk) -> None:
    _check(*chunk)


@settings(max_examples=300, deadline=None)
@given(chunks(), st.integers(0, 10_000), st.integers(0, 255), st.booleans())
def test_a_damaged_page_is_refused_as_the_general_path_refuses_it(chunk, at, byte, truncate) -> None:
    pages, size = chunk
    k = at % len(pages)
    buf, count = pages[k]
    damaged = buf[:at % (len(buf) + 1)] if truncate else \
        buf[:at % len(buf)] + bytes([byte]) + buf[at % len(buf) + 1:]
    pages = pages[:k] + [(damaged, count)] + pages[k + 1:]
    _check(pages, size)


@pytest.mark.parametrize("w", [1, 2, 3, 4, 5, 8, 9, 12])
@pytest.mark.parametrize("cut_last", [False, True])
def test_skewed_pages_give_the_reference_indices(w, cut_last) -> None:
    # taxi-like pages (RLE runs of 8-40, bit-packed stretches of 1-8 groups, long runs
    # now and then): walked, expanded together, equal to the reference decoder
    rng = np.random.default_rng(w * 7 + cut_last)
    pages = [_skewed(rng, w, int(rng.integers(20, 60)), cut_last=cut_last and k % 2 == 0,
                     trailing=b"\x07\x01") for k in range(5)]
    scanned = [scan_dictionary_indices(buf, count) for buf, count, _ in pages]
    assert all(type(s[2]) is rle_hybrid._Walked for s in scanned)
    codes = expand_dictionary_index_codes(scanned, 1 << w)
    assert codes is not None and codes.dtype == (np.uint8 if w <= 8 else np.uint16)
    expected = [v for buf, count, _ in pages for v in ref_decode(buf[1:], w, count)]
    assert codes.tolist() == expected


def _runs(w: int, rle_value: int, packed: list[int], cycles: int = 12) -> tuple[bytes, int]:
    """RLE runs of 10 copies of *rle_value* alternating with one bit-packed group *packed*."""
    buf = bytearray([w])
    for _ in range(cycles):
        buf += uleb(10 << 1) + rle_value.to_bytes((w + 7) // 8, "little")
        buf += uleb(1 << 1 | 1) + pack_lsb(packed, w)
    return bytes(buf), 18 * cycles


@pytest.mark.parametrize("w, size", [(3, 5), (9, 300)])
def test_an_index_outside_the_dictionary_gives_none(w, size) -> None:
    good = [0, 1, 2, 3, 4, 0, 1, 2]
    for rle_value, packed in [(size, good), (1, good[:5] + [size] + good[6:]), (1, good)]:
        scanned = [scan_dictionary_indices(*_runs(w, rle_value, packed))]
        codes = expand_dictionary_index_codes(scanned, size)
        if rle_value == 1 and packed == good:
            assert codes is not None and codes.tolist() == ([1] * 10 + good) * 12
        else:
            assert codes is None


def test_an_rle_run_of_no_values_may_hold_any_value() -> None:
    # a run that gives no values is not an index (the general path never looks it up),
    # also where two-byte codes keep a fill row only for the dictionary's entries
    w, size = 9, 20
    buf = bytearray([w])
    for _ in range(12):
        buf += uleb(0) + (511).to_bytes(2, "little")        # an empty RLE run of 511
        buf += uleb(4 << 1) + (19).to_bytes(2, "little")
    scanned = [scan_dictionary_indices(bytes(buf), 48)]
    assert decode_dictionary_indices(bytes(buf), 48).tolist() == [19] * 48
    codes = expand_dictionary_index_codes(scanned, size)
    assert codes is not None and codes.tolist() == [19] * 48


def test_chunks_the_path_leaves_to_the_index_path() -> None:
    rng = np.random.default_rng(3)
    wide = [scan_dictionary_indices(buf, count) for buf, count, _ in [_skewed(rng, 17, 20)]]
    assert expand_dictionary_index_codes(wide, 1 << 17) is None              # over 16 bits
    two_byte = [scan_dictionary_indices(*_runs(13, 7, list(range(8))))]
    assert expand_dictionary_index_codes(two_byte, 5000) is None             # a large dictionary
    assert expand_dictionary_index_codes(two_byte, 4000).tolist() == ([7] * 10 + list(range(8))) * 12
    long = bytes([4]) + uleb(63 << 1 | 1) + bytes(63 * 4)                    # one run of 504
    assert expand_dictionary_index_codes([scan_dictionary_indices(long, 504)], 16) is None
    assert expand_dictionary_index_codes(wide, 0) is None


@pytest.mark.parametrize("damage, message", [
    ("truncated", "truncated"),
    ("short", "ends after"),
    ("wide", "does not fit in 3 bits"),
])
def test_a_damaged_page_among_others_is_named(damage, message) -> None:
    w = 3
    good, count = _runs(w, 1, [0, 1, 2, 3, 4, 5, 6, 7])
    if damage == "truncated":
        bad, bad_count = good + uleb(2 << 1 | 1) + bytes(w), count + 16
    elif damage == "short":
        bad, bad_count = good, count + 3
    else:
        bad, bad_count = _runs(w, 8, [0] * 8)
    with pytest.raises(ParquetFormatError, match=message):
        decode_dictionary_indices(bad, bad_count)
    scanned = [scan_dictionary_indices(b, c) for b, c in [(good, count), (good, count), (bad, bad_count)]]
    with pytest.raises(ParquetFormatError, match=message) as info:
        expand_dictionary_index_codes(scanned, 8)
    assert info.value.page_index == 2
