"""Dictionary-index pages walked run by run (``rle_hybrid._walk_page``, issue 32) and
expanded together: streams built here from the spec's grammar (RLE runs of 8-40 and
64+ values, bit-packed runs of 1-8 and 64+ groups, empty runs, a last body cut short,
bytes after the runs), so the expected values are the generated ones; a damaged page
fails with the run loop's own message."""

from __future__ import annotations

import re

import numpy as np
import pytest

from parquet_core.encodings import rle_hybrid
from parquet_core.encodings.rle_hybrid import (
    decode_dictionary_indices,
    expand_dictionary_index_pages,
    scan_dictionary_indices,
)
from parquet_core.errors import ParquetFormatError
from tests._support.rle_reference import skewed_index_page as _page
from tests.unit.encodings.golden import pack_lsb, uleb


@pytest.mark.parametrize("w", [1, 2, 5, 8, 9, 13, 16, 17, 24, 31])
def test_pages_are_walked_and_expanded_together(w) -> None:
    rng = np.random.default_rng(w)
    pages = [_page(rng, w, int(rng.integers(20, 90)), cut_last=bool(k % 2),
                   trailing=b"\x03\xff" if k == 2 else b"") for k in range(5)]
    scanned, expected = [], []
    for buf, count, values in pages:
        assert decode_dictionary_indices(buf, count).tolist() == values
        s = scan_dictionary_indices(buf, count)
        assert type(s[2]) is rle_hybrid._Walked      # the per-run walk, not the run loop
        scanned.append(s)
        expected += values
    got = expand_dictionary_index_pages(scanned)
    assert got.dtype == np.int32
    assert got.tolist() == expected


@pytest.mark.parametrize("w", [1, 3, 9, 17])
def test_long_pages_are_walked_eight_runs_a_step(w) -> None:
    # pages far longer than eight of the largest runs with a one-byte header (the walk's
    # unrolled loop), meeting multi-byte headers (RLE runs of 64+ values, packed runs of
    # 64+ groups) inside it and near the end; expected values are the generated ones
    rng = np.random.default_rng(40 + w)
    pages = [_page(rng, w, 300, cut_last=bool(k % 2), trailing=b"\x03\xff" if k == 1 else b"")
             for k in range(3)]
    scanned, expected = [], []
    for buf, count, values in pages:
        assert len(buf) > 16 * (1 + 63 * w)
        s = scan_dictionary_indices(buf, count)
        assert type(s[2]) is rle_hybrid._Walked and s[2].longs
        scanned.append(s)
        expected += values
    # the walks pass the checks of the chunk (a wrong walk would fall back to the run loop,
    # which gives the right values: this asserts the walk itself)
    rle_hybrid._chunk_runs(scanned, w, 0)
    assert expand_dictionary_index_pages(scanned).tolist() == expected
    codes = rle_hybrid.expand_dictionary_index_codes(scanned, 1 << w)
    assert codes is None or codes.tolist() == expected


def test_a_page_ending_in_a_long_rle_run_is_walked() -> None:
    w = 9
    head = (uleb(1 << 1 | 1) + pack_lsb(list(range(8)), w)) * 10
    buf = bytes([w]) + head + uleb(300 << 1) + (511).to_bytes(2, "little")
    s = scan_dictionary_indices(buf, 280)
    assert type(s[2]) is rle_hybrid._Walked
    assert expand_dictionary_index_pages([s]).tolist() == list(range(8)) * 10 + [511] * 200


def test_pages_of_few_runs_take_the_run_loop() -> None:
    # one bit-packed run (unique values), or a handful: the single-page fast paths
    w = 11
    vals = list(range(0, 2000, 3))[:664]
    buf = bytes([w]) + uleb(83 << 1 | 1) + pack_lsb(vals, w)
    s = scan_dictionary_indices(buf, 664)
    assert type(s[2]) is not rle_hybrid._Walked
    assert expand_dictionary_index_pages([s]).tolist() == vals
    buf = bytes([w]) + uleb(5 << 1) + (7).to_bytes(2, "little") + uleb(1 << 1 | 1) + pack_lsb(vals[:8], w)
    s = scan_dictionary_indices(buf, 12)
    assert expand_dictionary_index_pages([s]).tolist() == [7] * 5 + vals[:7]


@pytest.mark.parametrize("buf, count, message", [
    # an RLE value of 3 bits in a 2-bit stream, between good runs
    (bytes([2]) + uleb(8 << 1) + b"\x01" + uleb(10 << 1) + b"\x04" + uleb(8 << 1) + b"\x02", 26,
     "does not fit in 2 bits"),
    # a bit-packed run of 2 groups with one group's bytes
    (bytes([4]) + uleb(8 << 1) + b"\x01" + uleb(2 << 1 | 1) + bytes(4), 24, "truncated"),
    # the data ends after 16 of 40 values
    (bytes([4]) + uleb(8 << 1) + b"\x01" + uleb(8 << 1) + b"\x02", 40, "ends after 16 of 40"),
    # a run header of six bytes
    (bytes([4]) + uleb(8 << 1) + b"\x01" + b"\x80" * 5 + b"\x01", 40, "longer than 5 bytes"),
    # an RLE value cut off at the end of the data (two value bytes at 9 bits)
    (bytes([9]) + uleb(8 << 1) + b"\x01\x00" + uleb(8 << 1) + b"\x01", 16, "ends after 8 of 16"),
])
def test_damaged_pages_fail_as_the_run_loop_does(buf, count, message) -> None:
    with pytest.raises(ParquetFormatError, match=message):
        decode_dictionary_indices(buf, count)
    with pytest.raises(ParquetFormatError, match=message):
        scan_dictionary_indices(buf, count)


def _runs_page(w: int, bad_value: int | None = None) -> tuple[bytes, int, list[int]]:
    """A page of 12 alternating RLE and bit-packed runs; the ninth run's RLE value is
    *bad_value* when given (wider than *w* bits: a damaged page)."""
    vb = (w + 7) // 8
    buf = bytearray([w])
    values: list[int] = []
    for r in range(12):
        if r % 2 == 0:
            v = (r * 3) % (1 << w)
            stored = bad_value if (bad_value is not None and r == 8) else v
            buf += uleb(10 << 1) + stored.to_bytes(vb, "little")
            values += [v] * 10
        else:
            vals = [(r + k) % (1 << w) for k in range(8)]
            buf += uleb(1 << 1 | 1) + pack_lsb(vals, w)
            values += vals
    return bytes(buf), len(values), values


@pytest.mark.parametrize("w", [3, 9, 17])
def test_a_wide_rle_value_in_a_walked_page_fails_when_expanded_naming_the_page(w) -> None:
    # the walk leaves the RLE values' width to the expansion of all pages (one check)
    good, count, values = _runs_page(w)
    bad, bad_count, _ = _runs_page(w, bad_value=1 << w)
    with pytest.raises(ParquetFormatError, match=f"does not fit in {w} bits"):
        decode_dictionary_indices(bad, bad_count)
    scanned = [scan_dictionary_indices(b, c) for b, c in [(good, count), (good, count), (bad, bad_count)]]
    assert all(type(s[2]) is rle_hybrid._Walked for s in scanned)
    assert expand_dictionary_index_pages(scanned[:2]).tolist() == values * 2
    with pytest.raises(ParquetFormatError, match=f"does not fit in {w} bits") as info:
        expand_dictionary_index_pages(scanned)
    assert info.value.page_index == 2
    with pytest.raises(ParquetFormatError, match=f"does not fit in {w} bits"):
        expand_dictionary_index_pages(scanned[2:])      # alone (a batch at a time)
    # the column reader names the page (its ordinal and offset)
    from parquet_core.column.reader import _expand_indices
    with pytest.raises(ParquetFormatError) as info:
        _expand_indices(scanned, [(0, 100), (1, 200), (2, 300)], 1 << w)
    assert getattr(info.value, "__notes__", []) == ["at page 2 (file offset 300)"]


def test_walked_runs_past_the_count_are_not_checked() -> None:
    # bytes after the runs used (here a damaged RLE value) are not the page's values
    w = 5
    good, count, values = _runs_page(w)
    tail = uleb(10 << 1) + bytes([0xFF])
    s = scan_dictionary_indices(good + tail, count)
    assert type(s[2]) is rle_hybrid._Walked
    assert expand_dictionary_index_pages([s]).tolist() == values


@pytest.mark.parametrize("w", [3, 9, 17])
@pytest.mark.parametrize("cut_last", [False, True])
def test_one_walked_page_expanded_alone(w, cut_last) -> None:
    # pages read a batch at a time are expanded one by one (the one-page shortcuts)
    rng = np.random.default_rng(100 + w)
    buf, count, values = _page(rng, w, 40, cut_last=cut_last)
    s = scan_dictionary_indices(buf, count)
    assert type(s[2]) is rle_hybrid._Walked
    assert expand_dictionary_index_pages([s]).tolist() == values
    assert decode_dictionary_indices(buf, count).tolist() == values


@pytest.mark.parametrize("damage, message", [
    ("truncated", "truncated"),         # the last bit-packed run loses bytes it needs
    ("short", "ends after"),            # the runs end before the count
    ("long_header", "longer than 5 bytes"),
])
def test_a_damaged_walked_page_is_checked_with_the_others_and_named(damage, message) -> None:
    # a walked page's cut and bounds are checked for all pages at once, when expanded
    # (issue 32): the error is the run loop's own and carries the page's position
    w = 5
    good, count, values = _runs_page(w)
    if damage == "truncated":
        bad, bad_count = good + uleb(2 << 1 | 1) + bytes(w), count + 16
    elif damage == "short":
        bad, bad_count = good, count + 3
    else:
        bad, bad_count = good + b"\x80" * 5 + b"\x01", count + 8
    with pytest.raises(ParquetFormatError, match=message):
        decode_dictionary_indices(bad, bad_count)
    scanned = [scan_dictionary_indices(b, c) for b, c in [(good, count), (bad, bad_count), (good, count)]]
    assert all(type(s[2]) is rle_hybrid._Walked for s in scanned)
    with pytest.raises(ParquetFormatError, match=message) as info:
        expand_dictionary_index_pages(scanned)
    assert info.value.page_index == 1
    with pytest.raises(ParquetFormatError, match=message) as info:
        expand_dictionary_index_pages([scanned[1]])      # alone (a batch at a time)
    assert info.value.page_index == 0
    assert expand_dictionary_index_pages([scanned[0], scanned[2]]).tolist() == values * 2


def test_the_first_damaged_walked_page_is_named() -> None:
    # page 1 has an RLE value too wide, page 2 ends early: page 1 is named
    w = 3
    good, count, _ = _runs_page(w)
    wide, wide_count, _ = _runs_page(w, bad_value=1 << w)
    scanned = [scan_dictionary_indices(b, c)
               for b, c in [(good, count), (wide, wide_count), (good, count + 3)]]
    with pytest.raises(ParquetFormatError, match="does not fit in 3 bits") as info:
        expand_dictionary_index_pages(scanned)
    assert info.value.page_index == 1


@pytest.mark.parametrize("damage, message", [
    ("long_header", "longer than 5 bytes"),
    ("wide", "does not fit in 2 bits"),
    ("short", "ends after"),
])
def test_damage_in_the_middle_of_a_long_page_is_named(damage, message) -> None:
    # a long page (the walk's eight-runs-a-step stretch) damaged after 1,000 good runs:
    # the run loop's own error, with the page's position, from the index and codes paths
    w = 2
    run = uleb(8 << 1) + b"\x01" + uleb(1 << 1 | 1) + pack_lsb([0, 1, 2, 3, 3, 2, 1, 0], w)
    bad = {"long_header": b"\x80" * 5 + b"\x01", "wide": uleb(8 << 1) + b"\x04",
           "short": uleb(8 << 1) + b"\x01"}[damage]
    page = bytes([w]) + run * 1000 + bad + run * 1000
    count = 16 * 2000 + 8 + (100 if damage == "short" else 0)    # "short": the runs end first
    assert len(page) > 8 * (1 + 63 * w) * 4
    with pytest.raises(ParquetFormatError, match=message):
        decode_dictionary_indices(page, count)
    good = bytes([w]) + run * 300
    try:
        scanned = [scan_dictionary_indices(good, 4800), scan_dictionary_indices(page, count)]
    except ParquetFormatError as exc:       # refused while scanned: the page is named at once
        assert re.search(message, str(exc))
        return
    for expand in (expand_dictionary_index_pages, lambda s: rle_hybrid.expand_dictionary_index_codes(s, 4)):
        with pytest.raises(ParquetFormatError, match=message) as info:
            expand(scanned)
        assert info.value.page_index == 1


# -- the walk's steps of _WALK_STEP runs (only each step's first offset kept) -----------------

def _short_run(w: int, k: int) -> tuple[bytes, list[int]]:
    """Run number *k* of a page of short runs: an RLE run of 3-9 copies or one bit-packed
    group, alternating (one-byte headers)."""
    top = (1 << w) - 1
    if k % 2:
        vals = [(k * 5 + i) & top for i in range(8)]
        return uleb(1 << 1 | 1) + pack_lsb(vals, w), vals
    v = (k * 3) & top
    n = 3 + k % 7
    return uleb(n << 1) + v.to_bytes((w + 7) // 8, "little"), [v] * n


def _long_run(w: int, k: int) -> tuple[bytes, list[int]]:
    """A run with a two-byte header: an RLE run of 70 copies or a bit-packed run of 64 groups."""
    top = (1 << w) - 1
    if k % 2:
        vals = [(k + 3 * i) & top for i in range(64 * 8)]
        return uleb(64 << 1 | 1) + pack_lsb(vals, w), vals
    v = (k * 7) & top
    return uleb(70 << 1) + v.to_bytes((w + 7) // 8, "little"), [v] * 70


def _step_page(w: int, runs: int, longs: set[int], cut: int | None = None, tail: bytes = b""
               ) -> tuple[bytes, int, list[int]]:
    """*runs* runs, those numbered in *longs* with two-byte headers; the data cut after run
    *cut*'s header when given (then the count is that of the runs before), *tail* after."""
    buf = bytearray([w])
    values: list[int] = []
    for k in range(runs):
        run, vals = _long_run(w, k) if k in longs else _short_run(w, k)
        if k == cut:
            buf += run[:2 if k in longs else 1]
            break
        buf += run
        values += vals
    return bytes(buf + tail), len(values), values


def _walk_runs(buf: bytes, count: int) -> int:
    s = scan_dictionary_indices(buf, count)
    return s[2].runs if type(s[2]) is rle_hybrid._Walked else -1


@pytest.mark.parametrize("w", [2, 3, 9])
@pytest.mark.parametrize("at", [0, 1, 14, 15, 16, 17, 30, 31, 32, 47])
def test_a_multi_byte_header_at_any_place_of_a_step(w, at) -> None:
    # run *at* has a two-byte header: inside a step, as its last run (15, 31, 47: the step
    # is walked again run by run so that the header is a run of its own), its first run
    # (16, 32), the page's first run; every run of the page is walked, in order
    step = rle_hybrid._WALK_STEP
    assert step == 16
    for runs in (at + 1, at + 2, at + 20, 3 * step + 5):
        if runs <= rle_hybrid._WALK_MIN_RUNS:
            continue
        buf, count, values = _step_page(w, runs, {at})
        assert decode_dictionary_indices(buf, count).tolist() == values
        assert _walk_runs(buf, count) == runs
        s = scan_dictionary_indices(buf, count)
        assert s[2].longs and s[2].longs[0][0] == at
        assert expand_dictionary_index_pages([s]).tolist() == values
        two = [scan_dictionary_indices(buf, count), scan_dictionary_indices(buf, count)]
        assert expand_dictionary_index_pages(two).tolist() == values * 2
        codes = rle_hybrid.expand_dictionary_index_codes(two, 1 << w)
        assert codes is None or codes.tolist() == values * 2


@pytest.mark.parametrize("w", [2, 9])
@pytest.mark.parametrize("at", [9, 15, 16, 31, 33])
def test_a_header_that_cannot_be_read_at_any_place_of_a_step(w, at) -> None:
    # a header of six bytes as run *at* (a step's last run, its first, inside one): the walk
    # stops before it; the values before it are the page's when the count ends there, and
    # the run loop's error when the count needs more
    buf, count, values = _step_page(w, at, set())
    damaged = buf + b"\x80" * 5 + b"\x01" + _short_run(w, 0)[0] * 40
    assert _walk_runs(damaged, count) == at
    s = scan_dictionary_indices(damaged, count)
    assert s[2].broken
    assert expand_dictionary_index_pages([s, s]).tolist() == values * 2
    with pytest.raises(ParquetFormatError, match="longer than 5 bytes"):
        decode_dictionary_indices(damaged, count + 1)
    s = scan_dictionary_indices(damaged, count + 1)
    with pytest.raises(ParquetFormatError, match="longer than 5 bytes") as info:
        expand_dictionary_index_pages([scan_dictionary_indices(buf, count), s])
    assert info.value.page_index == 1


@pytest.mark.parametrize("w", [2, 3, 9])
@pytest.mark.parametrize("runs", [16, 17, 31, 32, 33, 48])
@pytest.mark.parametrize("ending", ["whole", "cut_header", "tail"])
def test_pages_ending_at_any_place_of_a_step(w, runs, ending) -> None:
    # the data ends exactly after a step, inside one, after a lone header byte, or with
    # bytes after the runs used
    cut = runs - 1 if ending == "cut_header" else None
    tail = _short_run(w, 1)[0] * 3 if ending == "tail" else b""
    buf, count, values = _step_page(w, runs, {runs // 2} if runs > 20 else set(), cut, tail)
    assert decode_dictionary_indices(buf, count).tolist() == values
    s = scan_dictionary_indices(buf, count)
    assert s[2].runs == runs + (3 if ending == "tail" else 0)
    assert expand_dictionary_index_pages([s]).tolist() == values       # alone: in Python
    assert expand_dictionary_index_pages([s, s]).tolist() == values * 2
    codes = rle_hybrid.expand_dictionary_index_codes([s, s], 1 << w)
    assert codes is None or codes.tolist() == values * 2


@pytest.mark.parametrize("runs", [9, 16, 17, 40])
@pytest.mark.parametrize("w", [5, 12])
def test_pages_of_even_504_value_runs_at_any_number_of_steps(runs, w) -> None:
    # pyarrow's and parquet-mr's layout for distinct values (bit-packed runs of 63 groups,
    # header byte 0x7F, the last one shorter), whose header bytes the even-run path reads
    rng = np.random.default_rng(runs * w)
    values = rng.integers(0, 1 << w, runs * 504 - 100).tolist()
    buf = bytes([w])
    for k in range(runs):
        part = values[k * 504:(k + 1) * 504]
        groups = (len(part) + 7) // 8
        buf += uleb(groups << 1 | 1) + pack_lsb(part + [0] * (groups * 8 - len(part)), w)
    s = scan_dictionary_indices(buf, len(values))
    assert type(s[2]) is rle_hybrid._Walked and s[2].runs == runs
    assert rle_hybrid._even_layout(s[0], w, s[2], s[3]) is None or runs > 1
    assert expand_dictionary_index_pages([s]).tolist() == values
    assert expand_dictionary_index_pages([s, s]).tolist() == values * 2


@pytest.mark.parametrize("numpy_min", [0, 10_000])
@pytest.mark.parametrize("w", [1, 3, 9])
def test_the_runs_of_the_steps_are_found_alike_by_numpy_and_python(monkeypatch, numpy_min, w) -> None:
    # chunks of few steps are expanded in Python, others by numpy: both give every run of
    # every page (pages with multi-byte headers, bytes after the runs, a cut header)
    monkeypatch.setattr(rle_hybrid, "_OFFSETS_NUMPY_MIN", numpy_min)
    pages = [_step_page(w, 200 + 7 * k, {37, 150 + k}, tail=_short_run(w, 1)[0] if k == 2 else b"")
             for k in range(4)]
    pages.append(_step_page(w, 100, set(), cut=99))      # the data ends after a header
    scanned = [scan_dictionary_indices(buf, count) for buf, count, _ in pages]
    assert all(type(s[2]) is rle_hybrid._Walked for s in scanned)
    marks = sum(len(s[2].marks) for s in scanned)
    assert marks > 32 and sum(m >= 0 for s in scanned for m in s[2].marks) > 40
    # the walked runs pass the chunk's checks (a wrong offset would fall back to the run
    # loop, whose values are right: this asserts the offsets themselves), and both ways
    # give the same offsets
    joined, takes, tags, per_page = rle_hybrid._chunk_runs(scanned, w, 0)
    bases = np.cumsum([0] + [s[0].size + w for s in scanned[:-1]])
    walked = [(s[2], int(b)) for s, b in zip(scanned, bases)]
    got = rle_hybrid._walked_offsets(joined, w, walked)
    monkeypatch.setattr(rle_hybrid, "_OFFSETS_NUMPY_MIN", 10_000 - numpy_min)
    assert got.tolist() == rle_hybrid._walked_offsets(joined, w, walked).tolist()
    assert got.size == sum(s[2].runs for s in scanned)
    expected = [v for _, _, values in pages for v in values]
    assert expand_dictionary_index_pages(scanned).tolist() == expected
    codes = rle_hybrid.expand_dictionary_index_codes(scanned, 1 << w)
    assert codes is None or codes.tolist() == expected


@pytest.mark.parametrize("w", [2, 9])
@pytest.mark.parametrize("longs", [{5, 10, 15, 120, 125}, {1, 3, 5, 7, 9, 60, 150}, {40, 41, 42, 190}])
def test_short_stretches_between_multi_byte_headers_are_walked_run_by_run(w, longs) -> None:
    # after a stretch of few runs between two multi-byte headers the walk goes run by run
    # up to the next one (no step to raise and walk again), by steps again after a long
    # stretch; every run is walked, in order, and a header it cannot read still stops it
    buf, count, values = _step_page(w, 200, longs)
    s = scan_dictionary_indices(buf, count)
    assert s[2].runs == 200 and [i for i, _, _ in s[2].longs] == sorted(longs)
    assert expand_dictionary_index_pages([s]).tolist() == values
    assert expand_dictionary_index_pages([s, s]).tolist() == values * 2
    cut_at = max(sorted(longs)[2] + 1, 12)      # a header of six bytes after the third long run
    head, head_count, head_values = _step_page(w, cut_at, longs & set(range(cut_at)))
    bad = head + b"\x80" * 5 + b"\x01" + buf[len(head):]
    s = scan_dictionary_indices(bad, head_count)
    assert s[2].broken and s[2].runs == cut_at
    assert expand_dictionary_index_pages([s]).tolist() == head_values
    with pytest.raises(ParquetFormatError, match="longer than 5 bytes"):
        expand_dictionary_index_pages([scan_dictionary_indices(bad, head_count + 1)])
