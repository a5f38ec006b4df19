"""Dictionary-index pages of narrow bit widths expanded straight into dictionary values
(``rle_hybrid.expand_dictionary_index_values``, issue 32: their narrow codes taken from
the dictionary): pages built from the spec's
grammar (RLE runs of 8-40 and 64+ values, bit-packed runs of 1-8 and 64+ groups, a last
body cut short), so the expected values are
the generated indices looked up in the dictionary; pages the path does not take, or
whose indices leave the dictionary, give None (the index path then checks them); files
with skewed low-cardinality columns written by pyarrow read equal to pyarrow."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.encodings import rle_hybrid
from parquet_core.encodings.rle_hybrid import expand_dictionary_index_values, scan_dictionary_indices
from tests._support.rle_reference import runny_codes
from tests._support.rle_reference import skewed_index_page as _page
from tests.unit.encodings.golden import pack_lsb, uleb


def _scan(pages: list[tuple[bytes, int, list[int]]]) -> list:
    scanned = [scan_dictionary_indices(buf, count) for buf, count, _ in pages]
    assert all(type(s[2]) is rle_hybrid._Walked for s in scanned)
    return scanned


@pytest.mark.parametrize("w", [1, 2, 3, 4])
@pytest.mark.parametrize("npages", [1, 4])
def test_pages_give_the_dictionary_values_of_their_indices(w, npages) -> None:
    rng = np.random.default_rng(10 * w + npages)
    pages = [_page(rng, w, int(rng.integers(20, 70)), cut_last=bool(k % 2))
             for k in range(npages)]
    dictionary = rng.random(1 << w)
    got = expand_dictionary_index_values(_scan(pages), dictionary)
    expected = [dictionary[i] for _, _, values in pages for i in values]
    assert got is not None and got.dtype == dictionary.dtype
    assert got.tolist() == expected


def _alternating(w: int, rle_value: int, packed: list[int]) -> tuple[bytes, int, list[int]]:
    """12 runs: RLE runs of 10 copies of *rle_value*, bit-packed runs of *packed* (8)."""
    buf = bytearray([w])
    values: list[int] = []
    for r in range(12):
        if r % 2 == 0:
            buf += uleb(10 << 1) + bytes([rle_value])
            values += [rle_value] * 10
        else:
            buf += uleb(1 << 1 | 1) + pack_lsb(packed, w)
            values += packed
    return bytes(buf), len(values), values


@pytest.mark.parametrize("rle_value, packed", [
    (5, [0, 1, 2, 3, 4, 0, 1, 2]),     # an RLE value outside a 5-entry dictionary
    (1, [0, 1, 2, 3, 4, 5, 1, 2]),     # a bit-packed one
])
def test_an_index_outside_the_dictionary_gives_none(rle_value, packed) -> None:
    dictionary = np.arange(5, dtype=np.int64)
    page = _alternating(3, rle_value, packed)
    assert expand_dictionary_index_values(_scan([page]), dictionary) is None
    # inside: the values
    good = _alternating(3, 1, [0, 1, 2, 3, 4, 0, 1, 2])
    assert expand_dictionary_index_values(_scan([good]), dictionary).tolist() == good[2]


def test_other_widths_run_loop_pages_and_rows_give_values_too() -> None:
    # the narrow codes serve any width up to 16 bits, pages of few runs, several widths
    # in one run of pages and dictionaries of rows (FLBA); expected: numpy's own take
    rng = np.random.default_rng(1)
    wide = _page(rng, 5, 30)
    d = rng.random(32)
    assert expand_dictionary_index_values(_scan([wide]), d).tolist() == d[wide[2]].tolist()
    two = [_page(rng, 2, 30), _page(rng, 3, 30)]        # two widths in one run of pages
    d = rng.random(8)
    got = expand_dictionary_index_values(_scan(two), d)
    assert got.tolist() == d[two[0][2] + two[1][2]].tolist()
    few = scan_dictionary_indices(bytes([2]) + uleb(20 << 1) + b"\x01", 20)   # one run
    d = rng.random(4)
    assert expand_dictionary_index_values([few], d).tolist() == [d[1]] * 20
    narrow = _page(rng, 2, 30)
    rows = rng.random((4, 2))
    assert np.array_equal(expand_dictionary_index_values(_scan([narrow]), rows), rows[narrow[2]])


def test_pages_the_path_does_not_take_give_none() -> None:
    rng = np.random.default_rng(2)
    wide = _page(rng, 17, 30)       # over 16 bits: the index path
    assert expand_dictionary_index_values(_scan([wide]), rng.random(1 << 17)) is None
    assert expand_dictionary_index_values(_scan([_page(rng, 2, 30)]), rng.random(0)) is None


def _runny(rng: np.random.Generator, rows: int, card: int) -> np.ndarray:
    return runny_codes(rng, rows, card)


def test_low_cardinality_columns_read_equal_to_pyarrow(tmp_path) -> None:
    rng = np.random.default_rng(5)
    rows = 60_000
    t = pa.table({
        "i32": (_runny(rng, rows, 3) + 1).astype(np.int32),
        "i64": _runny(rng, rows, 7).astype(np.int64),
        "f64": _runny(rng, rows, 13) * 0.25,
        "flag": _runny(rng, rows, 2).astype(np.bool_),
        "opt": pa.array(_runny(rng, rows, 5), mask=rng.random(rows) < 0.2),
    })
    path = str(tmp_path / "t.parquet")
    pq.write_table(t, path, use_dictionary=True, data_page_size=1 << 13)
    expected = pq.read_table(path)
    assert pc.read_table(path, use_threads=False).to_arrow().equals(expected)
    got = pa.concat_tables(b.to_arrow() for b in pc.ParquetFile(path).iter_batches(batch_size=5000))
    assert got.equals(expected)
