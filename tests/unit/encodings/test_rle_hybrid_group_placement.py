"""The bit-packed values of dictionary-index pages placed among the RLE runs a group of 8
at a time (``rle_hybrid._place_groups``, issue 32): the output seen as overlapping
windows of 8 values, one element per group, instead of a mask over every value.  Pages
built from the spec's grammar (tests/_support/rle_reference.py), the expected values
from the reference decoder (one value at a time) looked up in the dictionary."""

from __future__ import annotations

import numpy as np
import pytest

from parquet_core.encodings import rle_hybrid
from parquet_core.encodings.rle_hybrid import (
    expand_dictionary_index_pages,
    expand_dictionary_index_values,
    scan_dictionary_indices,
)
from tests._support.rle_reference import ref_decode
from tests._support.rle_reference import skewed_index_page as _page


@pytest.fixture
def placed(monkeypatch):
    """The number of calls of ``_place_groups`` during the test."""
    calls = []
    real = rle_hybrid._place_groups

    def spy(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(rle_hybrid, "_place_groups", spy)
    return calls


def _reference(pages) -> list[int]:
    # each page's stream through the reference decoder (the width byte first)
    out: list[int] = []
    for buf, count, _ in pages:
        out += ref_decode(buf[1:], buf[0], count)
    return out


@pytest.mark.parametrize("dtype", ["i1", "<i2", "<i4", "<i8", "<f4", "<f8", "<c16", "M8[ns]"])
@pytest.mark.parametrize("w", [2, 3])
def test_dictionary_values_of_several_pages_with_cut_runs(dtype, w) -> None:
    rng = np.random.default_rng(w + len(dtype))
    # pages whose last run stops inside a group (split off before the placement)
    pages = [_page(rng, w, int(rng.integers(20, 60)), cut_last=k % 2 == 0) for k in range(4)]
    dictionary = (rng.integers(1, 100, 1 << w)).astype(dtype)
    scanned = [scan_dictionary_indices(buf, count) for buf, count, _ in pages]
    got = expand_dictionary_index_values(scanned, dictionary)
    assert got is not None and got.dtype == dictionary.dtype
    expected = dictionary[np.array(_reference(pages))]
    assert np.array_equal(got, expected)


@pytest.mark.parametrize("w", [5, 9, 13])
def test_indices_of_several_pages(w, placed) -> None:
    rng = np.random.default_rng(w)
    pages = [_page(rng, w, int(rng.integers(20, 60)), cut_last=k == 1) for k in range(3)]
    scanned = [scan_dictionary_indices(buf, count) for buf, count, _ in pages]
    got = expand_dictionary_index_pages(scanned)
    assert got.tolist() == _reference(pages)
    assert placed


def test_one_page_whose_last_group_is_cut_keeps_the_mask(placed) -> None:
    # one page: its final packed run's padding is sliced off, so not every group is
    # whole; the values are still the reference's
    rng = np.random.default_rng(7)
    buf, count, _ = _page(rng, 2, 40, cut_last=True)
    got = expand_dictionary_index_pages([scan_dictionary_indices(buf, count)])
    assert got.tolist() == _reference([(buf, count, None)])
    assert not placed


@pytest.mark.parametrize("dtype", ["u1", "<i4", "<f8", "<c16"])
def test_place_groups_against_a_mask(dtype) -> None:
    rng = np.random.default_rng(3)
    takes = np.array([8, 5, 16, 1, 24, 40, 8, 3, 8], dtype=np.int64)
    packed = np.array([True, False, True, False, True, False, True, False, True])
    groups = takes[packed] // 8
    total = int(takes.sum())
    base = rng.integers(0, 50, total).astype(dtype)
    unpacked = rng.integers(50, 100, int(takes[packed].sum())).astype(dtype)
    want = base.copy()
    want[np.repeat(packed, takes)] = unpacked
    out = base.copy()
    rle_hybrid._place_groups(out, takes, packed, groups, unpacked)
    assert np.array_equal(out, want)



def test_pages_of_one_value_each() -> None:
    # two pages of one index each (an empty RLE run of 6 value bytes' worth of empty runs,
    # then a bit-packed run of one group): the output is shorter than a group, so no window
    # of 8 values fits in it
    buf = b"\x01" + b"\x00" * 6 + b"\x03\x00"
    scanned = [scan_dictionary_indices(buf, 1) for _ in range(2)]
    assert expand_dictionary_index_pages(scanned).tolist() == _reference([(buf, 1, None)] * 2)
