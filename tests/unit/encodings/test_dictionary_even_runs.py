"""Dictionary-index pages whose bit-packed runs all have one size (as pyarrow and
parquet-mr write the indices of distinct or high-cardinality values: runs of 504
values, header 0x7F): unpacked in place, and pages holding 0, 1, 2 ... recognised
from their bytes (``_kernels.counting``).  Streams are built here from the spec
(``golden``), so the expected values are the generated ones; files written by
pyarrow are compared with pyarrow's read.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core._kernels.counting import is_counting
from parquet_core.encodings.rle_hybrid import (
    decode_dictionary_indices,
    expand_dictionary_index_pages,
    scan_dictionary_indices,
)
from tests.unit.encodings.golden import pack_lsb, uleb


def _page(values: list[int], w: int, groups: int, cut: bool = False) -> bytes:
    """An index page: bit width byte, bit-packed runs of *groups* groups, the last run
    as long as the values left (its final group padded with zeros, or with *cut* only
    the bytes its values need)."""
    buf = bytearray([w])
    per = groups * 8
    for s in range(0, len(values), per):
        vals = values[s:s + per]
        g = (len(vals) + 7) // 8
        body = pack_lsb(vals + [0] * (g * 8 - len(vals)), w)
        if cut:
            body = body[:(len(vals) * w + 7) // 8]
        buf += uleb((g << 1) | 1) + body
    return bytes(buf)


def _expand(pages: list[tuple[bytes, int]]) -> np.ndarray:
    scanned = [scan_dictionary_indices(buf, n) for buf, n in pages]
    return expand_dictionary_index_pages(scanned)


@pytest.mark.parametrize("w,n,groups", [(15, 20000, 63), (5, 30, 1), (11, 2001, 20), (11, 2001, 63),
                                        (20, 5000, 17), (7, 128, 1), (31, 1000, 10)])
@pytest.mark.parametrize("cut", [False, True])
def test_a_counting_page_gives_the_shared_counting_view(w: int, n: int, groups: int, cut: bool) -> None:
    values = list(range(n))
    got = _expand([(_page(values, w, groups, cut), n)])
    assert got.dtype == np.int32 and got.tolist() == values
    runs = -(-n // (8 * groups))
    assert is_counting(got) == (runs > 8)     # pages of a few runs: the single-page paths


def test_counting_pages_continue_each_other() -> None:
    w, sizes = 16, [4000, 4000, 1600]        # runs of 160 values: 9+ runs a page (walked)
    pages, start = [], 0
    for size in sizes:
        pages.append((_page(list(range(start, start + size)), w, 20), size))
        start += size
    got = _expand(pages)
    assert is_counting(got) and got.tolist() == list(range(start))
    # a page restarting at 0 is not a continuation
    got = _expand([pages[0], (_page(list(range(4000)), w, 20), 4000)])
    assert not is_counting(got) and got.tolist() == list(range(4000)) * 2


def test_pages_not_starting_on_a_group_boundary() -> None:
    w = 12
    a, b = list(range(1001)), list(range(1001, 2000))
    got = _expand([(_page(a, w, 10), len(a)), (_page(b, w, 10), len(b))])
    assert got.tolist() == a + b


@pytest.mark.parametrize("bit", [0, 7, 8 * 945 + 3, 8 * 945 * 20 + 5, -3, -1])
def test_one_flipped_value_bit_is_seen(bit: int) -> None:
    # a counting page with one value bit flipped: in a full run, in the final run's whole
    # bytes, and in the last value's bits of its last (part-used) byte
    w, n, groups = 15, 20000, 63
    values = list(range(n))
    at = bit % (n * w)
    values[at // w] ^= 1 << (at % w)
    got = _expand([(_page(values, w, groups, cut=True), n)])
    assert not is_counting(got)
    assert got.tolist() == values
    assert got.tolist() == decode_dictionary_indices(_page(values, w, groups, cut=True), n).tolist()


def test_padding_bits_past_the_count_do_not_matter() -> None:
    w, n = 13, 1007          # the final run's last byte holds 3 value bits and 5 padding bits
    assert n * w % 8 == 3
    page = bytearray(_page(list(range(n)), w, 10, cut=True))
    page[-1] |= 0xF8
    got = _expand([(bytes(page), n)])
    assert is_counting(got) and got.tolist() == list(range(n))


@pytest.mark.parametrize("n", [7, 8, 9])
def test_few_values_and_odd_layouts_take_the_general_path(n: int) -> None:
    values = [3, 1, 4, 1, 5, 9, 2, 6, 5][:n]
    assert _expand([(_page(values, 4, 1), n)]).tolist() == values


# -- files written by pyarrow ------------------------------------------------------------

def _write(path: str, table: pa.Table, **kw) -> None:
    pq.write_table(table, path, use_dictionary=True, **kw)
    md = pq.ParquetFile(path).metadata
    assert all("RLE_DICTIONARY" in md.row_group(0).column(i).encodings for i in range(table.num_columns))


def test_distinct_and_high_cardinality_columns_equal_pyarrow(tmp_path) -> None:
    rng = np.random.default_rng(11)
    n = 30_000
    t = pa.table({
        "distinct": rng.random(n),                                   # indices 0, 1, 2 ...
        "ids": np.arange(n, dtype=np.int64) * 7,
        "repeated": rng.integers(0, 20_000, n).astype(np.int64),     # equal runs, other indices
        "opt": pa.array(rng.random(n), mask=rng.random(n) < 0.01),   # nulls: counting over the present
        "strings": pa.array([f"k{i:06d}" for i in range(n)]),
    })
    for i, kw in enumerate([{}, {"data_page_size": 1 << 13}, {"data_page_size": 1 << 13, "write_batch_size": 1001},
                            {"row_group_size": 7000}]):
        path = str(tmp_path / f"t{i}.parquet")
        _write(path, t, **kw)
        expected = pq.read_table(path)
        assert pc.read_table(path, use_threads=False).to_arrow().equals(expected)
        assert pc.read_table(path).to_arrow().equals(expected)
        keep = pc.read_table(path, use_threads=False, read_dictionary=["distinct", "ids"]).to_arrow()
        assert keep.equals(pq.read_table(path, read_dictionary=["distinct", "ids"]))


def test_values_of_a_counting_chunk_are_its_dictionary(tmp_path) -> None:
    # the values of a chunk of distinct values share the dictionary page's buffer (no copy),
    # and equal pyarrow's; reading twice gives independent arrays
    path = str(tmp_path / "d.parquet")
    _write(path, pa.table({"x": np.random.default_rng(2).random(5000)}))
    a = pc.read_table(path, use_threads=False).column("x").to_numpy()
    b = pc.read_table(path, use_threads=False).column("x").to_numpy()
    expected = pq.read_table(path).column("x").to_numpy()
    assert np.array_equal(a, expected) and np.array_equal(b, expected)
    assert not np.shares_memory(a, b)
