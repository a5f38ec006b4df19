"""Dictionary indices of several pages expanded together, against page-by-page decoding.

Streams are built here run by run (RLE runs, bit-packed runs, a last bit-packed
run cut short of its bytes as writers may leave it, trailing bytes after the
runs), so the expected values are the generated ones.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.encodings.rle_hybrid import (
    decode_dictionary_indices,
    expand_dictionary_index_pages,
    scan_dictionary_indices,
)
from parquet_core.errors import ParquetFormatError
from tests.unit.encodings.golden import pack_lsb, uleb


_pack = pack_lsb


@st.composite
def index_pages(draw, w=None):
    """(stream, count, expected values) of one page."""
    w = draw(st.integers(0, 31)) if w is None else w
    top = (1 << w) - 1
    buf = bytearray([w])
    values: list[int] = []
    runs = draw(st.lists(st.tuples(st.booleans(), st.integers(0, 40)), min_size=1, max_size=6))
    for packed, n in runs:
        if packed:
            groups = (n + 7) // 8
            vals = draw(st.lists(st.integers(0, top), min_size=groups * 8, max_size=groups * 8))
            buf += uleb((groups << 1) | 1) + _pack(vals, w)
            values += vals
        else:
            v = draw(st.integers(0, top))
            buf += uleb(n << 1) + v.to_bytes((w + 7) // 8, "little")
            values += [v] * n
    count = draw(st.integers(0, len(values)))
    if draw(st.booleans()) and runs[-1][0] and count == len(values) and count:
        # cut the last bit-packed body to the bytes its used values need
        cut = draw(st.integers(1, 8))
        count = max(len(values) - cut, 0)
        groups = (runs[-1][1] + 7) // 8
        used_in_last = count - (len(values) - groups * 8)
        if used_in_last > 0:
            spare = groups * w - (used_in_last * w + 7) // 8
            buf = buf[:len(buf) - spare]
    buf += draw(st.binary(max_size=4))   # bytes after the runs are not values
    if w == 0:
        values = [0] * len(values)
    return bytes(buf), count, values[:count]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 31).flatmap(lambda w: st.lists(index_pages(w), min_size=1, max_size=6)) |
       st.lists(index_pages(), min_size=1, max_size=6))
def test_pages_expanded_together_equal_page_by_page(pages) -> None:
    scanned, expected = [], []
    for buf, count, values in pages:
        single = decode_dictionary_indices(buf, count)
        assert single.tolist() == values
        s = scan_dictionary_indices(buf, count)
        if s is None:
            assert count == 0
            continue
        scanned.append(s)
        expected += values
    if scanned:
        got = expand_dictionary_index_pages(scanned)
        assert got.dtype == np.int32
        assert got.tolist() == expected


@settings(max_examples=200, deadline=None)
@given(index_pages(), st.integers(0, 200), st.integers(0, 255))
def test_scan_fails_where_page_decoding_fails(page, at, byte) -> None:
    buf, count, _ = page
    bad = bytearray(buf)
    if bad:
        bad[at % len(bad)] = byte
    for damaged in (bytes(bad), buf[:at % (len(buf) + 1)]):
        try:
            want = decode_dictionary_indices(damaged, count).tolist()
        except ParquetFormatError:
            try:
                s = scan_dictionary_indices(damaged, count)
            except ParquetFormatError:
                continue
            if s is not None:
                # the scan may leave a check (an RLE value wider than the page's bit width)
                # to the expansion, which must then refuse the page as the page decoder did
                with pytest.raises(ParquetFormatError):
                    expand_dictionary_index_pages([s])
            continue
        s = scan_dictionary_indices(damaged, count)
        if s is not None:
            assert expand_dictionary_index_pages([s]).tolist() == want


def test_thirty_two_bit_and_empty_pages_are_left_to_the_page_decoder() -> None:
    assert scan_dictionary_indices(b"\x20" + uleb(2) + bytes(4), 1) is None
    assert scan_dictionary_indices(b"", 0) is None
    with pytest.raises(ParquetFormatError):
        scan_dictionary_indices(b"", 3)
    with pytest.raises(ParquetFormatError):
        scan_dictionary_indices(b"\x21", 3)


def _taxi_page(rng: np.random.Generator, w: int, cycles: int, cut_last: bool) -> tuple[bytes, int, list[int]]:
    """A page like a skewed low-cardinality column's: bit-packed stretches of 3-8
    groups alternating with RLE runs of 8-40 (issue 32), values of *w* bits; the
    last run bit-packed and, if *cut_last*, cut to the bytes its used values need."""
    top = (1 << w) - 1
    buf = bytearray([w])
    values: list[int] = []
    for _ in range(cycles):
        n = int(rng.integers(8, 41))
        v = int(rng.integers(0, top + 1))
        buf += uleb(n << 1) + v.to_bytes((w + 7) // 8, "little")
        values += [v] * n
        groups = int(rng.integers(3, 9))
        vals = rng.integers(0, top + 1, groups * 8).tolist()
        buf += uleb((groups << 1) | 1) + _pack(vals, w)
        values += vals
    count = len(values)
    if cut_last:
        count -= 5                       # the last group holds 3 used values
        buf = buf[:len(buf) - (groups * w - ((groups * 8 - 5) * w + 7) // 8)]
    return bytes(buf), count, values[:count]


@pytest.mark.parametrize("w", [2, 9, 13, 17])
def test_many_runs_over_several_pages_expand_together(w) -> None:
    # thousands of bit-packed bodies: the joined bodies take the vectorised window copy;
    # w = 9 and 13 read two-byte RLE values, w = 17 three-byte ones
    rng = np.random.default_rng(w)
    pages = [_taxi_page(rng, w, int(rng.integers(200, 400)), cut_last=bool(k % 2)) for k in range(5)]
    scanned, expected = [], []
    for buf, count, values in pages:
        assert decode_dictionary_indices(buf, count).tolist() == values
        scanned.append(scan_dictionary_indices(buf, count))
        expected += values
    assert expand_dictionary_index_pages(scanned).tolist() == expected


def _parquet_mr_page(rng: np.random.Generator, w: int, count: int, rle_every: int) -> tuple[bytes, int, list[int]]:
    """A page as parquet-mr writes dictionary indices: bit-packed runs of 63 groups (504
    values, a one-byte header), a short RLE run every *rle_every* packed runs, the last
    packed run cut to the bytes its used values need; values of *w* bits."""
    top = (1 << w) - 1
    buf = bytearray([w])
    values: list[int] = []
    k = 0
    while len(values) < count:
        k += 1
        if rle_every and k % rle_every == 0:
            v, n = int(rng.integers(0, top + 1)), int(rng.integers(8, 30))
            buf += uleb(n << 1) + v.to_bytes((w + 7) // 8, "little")
            values += [v] * n
            continue
        groups = min(63, (count - len(values) + 7) // 8)
        vals = rng.integers(0, top + 1, groups * 8).tolist()
        body = _pack(vals, w)
        used = min(groups * 8, count - len(values))
        buf += uleb((groups << 1) | 1) + body[:(used * w + 7) // 8]
        values += vals[:used]
    return bytes(buf), len(values), values


@pytest.mark.parametrize("gather", [False, True])
@pytest.mark.parametrize("w", [3, 8, 12, 17])
@pytest.mark.parametrize("rle_every", [0, 3])
def test_long_packed_runs_copied_slice_by_slice(monkeypatch, gather, w, rle_every) -> None:
    # bodies of 63 groups take the slice-by-slice copy (issue 32); the group gather
    # (forced by a huge threshold) gives the same values
    import parquet_core.encodings.rle_hybrid as rle

    if gather:
        monkeypatch.setattr(rle, "_SLICE_MIN_GROUPS", 10**9)
    rng = np.random.default_rng(w * 10 + rle_every)
    pages = [_parquet_mr_page(rng, w, int(rng.integers(1000, 5000)), rle_every) for _ in range(4)]
    scanned, expected = [], []
    for buf, count, values in pages:
        assert decode_dictionary_indices(buf, count).tolist() == values
        scanned.append(scan_dictionary_indices(buf, count))
        expected += values
    assert expand_dictionary_index_pages(scanned).tolist() == expected
    assert expand_dictionary_index_pages(scanned[:1]).tolist() == pages[0][2]


def test_two_byte_rle_value_cut_at_the_end_is_refused() -> None:
    # an RLE run of 10 values of 9 bits needs two value bytes; only one is there
    buf = bytes([9]) + uleb(10 << 1) + b"\x01"
    with pytest.raises(ParquetFormatError, match="ends after 0 of 10"):
        decode_dictionary_indices(buf, 10)
    with pytest.raises(ParquetFormatError, match="ends after 0 of 10"):
        scan_dictionary_indices(buf, 10)
    # 0x1FF fits in 9 bits, 0x200 does not
    assert decode_dictionary_indices(bytes([9]) + uleb(4 << 1) + b"\xff\x01", 4).tolist() == [511] * 4
    with pytest.raises(ParquetFormatError, match="does not fit in 9 bits"):
        decode_dictionary_indices(bytes([9]) + uleb(4 << 1) + b"\x00\x02", 4)


@pytest.mark.parametrize("w", [3, 12])
def test_pages_of_few_and_many_runs_interleaved_keep_their_order(w) -> None:
    # pages of a few runs (run tables gathered in Python) between pages walked run by
    # run (tables found with numpy) within one width: every page's values in page order
    rng = np.random.default_rng(100 + w)
    pages = []
    for k in range(7):
        if k % 3 == 1:
            pages.append(_taxi_page(rng, w, int(rng.integers(20, 40)), cut_last=bool(k % 2)))
        else:
            pages.append(_parquet_mr_page(rng, w, int(rng.integers(40, 1500)), rle_every=2))
    scanned, expected = [], []
    for buf, count, values in pages:
        assert decode_dictionary_indices(buf, count).tolist() == values
        scanned.append(scan_dictionary_indices(buf, count))
        expected += values
    kinds = {type(s[2]).__name__ for s in scanned}
    assert kinds == {"list", "_Walked"}, kinds
    assert expand_dictionary_index_pages(scanned).tolist() == expected
