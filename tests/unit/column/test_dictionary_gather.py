"""Dictionary gathers of many values go through numpy's index type a block at a time
(``column.reader._gather_in_blocks``, issue 32): columns written by pyarrow, read
whole and after a dictionary that fell back to PLAIN, equal to pyarrow's read."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.column import reader as column_reader

ROWS = 3 * column_reader._GATHER_BLOCK + 123     # several blocks and a short last one


def _words(keys: np.ndarray) -> bytes:
    w = np.empty((keys.size, 4), dtype=np.uint8)
    w[:, 0] = keys
    w[:, 1] = keys ^ 7
    w[:, 2] = 3
    w[:, 3] = keys
    return w.tobytes()


def _table(rng: np.random.Generator) -> pa.Table:
    return pa.table({
        "i32": rng.integers(-50, 50, ROWS).astype(np.int32),
        "i64": rng.integers(0, 300, ROWS) * 10**12,
        "f64": rng.integers(0, 8, ROWS) * 0.5,
        "f32": (rng.integers(0, 20, ROWS) * 0.25).astype(np.float32),
        "flba": pa.FixedSizeBinaryArray.from_buffers(
            pa.binary(4), ROWS, [None, pa.py_buffer(_words(rng.integers(0, 40, ROWS)))]),
        "opt": pa.array(rng.integers(0, 9, ROWS), mask=rng.random(ROWS) < 0.1),
    })


def test_large_dictionary_gathers_equal_pyarrow(tmp_path) -> None:
    assert ROWS >= 2 * column_reader._GATHER_BLOCK     # the block path runs
    t = _table(np.random.default_rng(7))
    path = str(tmp_path / "d.parquet")
    pq.write_table(t, path, use_dictionary=True, data_page_size=1 << 14)
    assert all("RLE_DICTIONARY" in pq.ParquetFile(path).metadata.row_group(0).column(i).encodings
               for i in range(t.num_columns))
    got = pc.read_table(path, use_threads=False).to_arrow()
    assert got.equals(pq.read_table(path))


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.int32])
def test_a_dictionary_that_falls_back_to_plain_gathers_into_the_shared_output(tmp_path, dtype) -> None:
    # few distinct values first (dictionary pages), then distinct ones: the dictionary
    # overflows its limit and the rest of the chunk is PLAIN; two runs, one output
    rng = np.random.default_rng(3)
    head = rng.integers(0, 30, ROWS)
    tail = np.arange(10**6, 10**6 + 40_000)
    col = np.concatenate([head, tail]).astype(dtype)
    t = pa.table({"v": col})
    path = str(tmp_path / "f.parquet")
    pq.write_table(t, path, use_dictionary=True, dictionary_pagesize_limit=1 << 12, data_page_size=1 << 14)
    encodings = pq.ParquetFile(path).metadata.row_group(0).column(0).encodings
    assert "PLAIN" in encodings and "RLE_DICTIONARY" in encodings
    got = pc.read_table(path, use_threads=False).to_arrow()
    assert got.equals(pq.read_table(path))


def test_the_block_gather_matches_numpy_take() -> None:
    rng = np.random.default_rng(1)
    idx = rng.integers(0, 1000, 2 * column_reader._GATHER_BLOCK + 5).astype(np.int32)
    for dictionary in (np.arange(1000, dtype=np.float64) / 3,
                       rng.integers(0, 255, (1000, 6)).astype(np.uint8)):
        got = column_reader._take_dictionary(dictionary, idx, None)
        assert np.array_equal(got, np.take(dictionary, idx, axis=0))
        out = np.empty_like(got)
        assert column_reader._take_dictionary(dictionary, idx, out) is out
        assert np.array_equal(out, got)


# ---- one-byte codes into a small dictionary, two values a gather (_gather_pairs)

@pytest.mark.parametrize("entries", [1, 2, 3, 7, 16])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.float32, np.int64, np.float64, "M8[us]"])
@pytest.mark.parametrize("extra", [0, 1])     # an even and an odd number of codes
def test_pair_gather_matches_numpy_take(entries, dtype, extra) -> None:
    rng = np.random.default_rng(entries)
    dictionary = rng.integers(-100, 100, entries).astype(np.int64).astype(dtype)
    n = 2 * column_reader._GATHER_BLOCK + 2 * 517 + extra    # several blocks, a short one
    codes = rng.integers(0, entries, n).astype(np.uint8)
    want = np.take(dictionary, codes.astype(np.intp))
    out = np.full(n, dictionary[0])
    assert column_reader._gather_pairs(dictionary, codes, out)
    assert out.tobytes() == want.tobytes()
    got = column_reader._take_dictionary(dictionary, codes, None)
    assert got.dtype == dictionary.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("case", ["17 entries", "uint16 codes", "2-d dictionary", "strided codes", "strided out",
                                  "out of another type"])
def test_pair_gather_refuses_what_it_does_not_serve(case) -> None:
    rng = np.random.default_rng(5)
    n = 1001
    dictionary = np.arange(16, dtype=np.float64)
    codes = rng.integers(0, 16, n).astype(np.uint8)
    out = np.zeros(n)
    if case == "17 entries":
        dictionary = np.arange(17, dtype=np.float64)
    elif case == "uint16 codes":
        codes = codes.astype(np.uint16)
    elif case == "2-d dictionary":
        dictionary = rng.integers(0, 255, (16, 3)).astype(np.uint8)
        out = np.zeros((n, 3), dtype=np.uint8)
    elif case == "strided codes":
        codes = rng.integers(0, 16, 2 * n).astype(np.uint8)[::2]
    elif case == "strided out":
        out = np.zeros(2 * n)[::2]
    else:
        out = np.zeros(n, dtype=np.float32)
    before = out.copy()
    assert not column_reader._gather_pairs(dictionary, codes, out)
    assert np.array_equal(out, before)      # nothing written
    got = column_reader._take_dictionary(dictionary, codes, None)
    assert np.array_equal(got, np.take(dictionary, codes.astype(np.intp), axis=0))


def test_small_dictionaries_of_a_pyarrow_file_read_two_values_a_gather(tmp_path, monkeypatch) -> None:
    # every column has a dictionary of at most 16 entries (one-byte codes): the pair gather
    # serves them all, the value-by-value block gather none
    # (runs of 1-19 equal values, short bit-packed and RLE runs: the narrow-code path)
    rng = np.random.default_rng(11)

    def runny(entries: int) -> np.ndarray:
        return np.repeat(rng.integers(0, entries, ROWS), rng.integers(1, 20, ROWS))[:ROWS]
    t = pa.table({
        "i32": (runny(7) - 3).astype(np.int32),
        "i64": runny(16) * 10**12,
        "f64": runny(5) * 0.5,
        "f32": (runny(2) * 0.25).astype(np.float32),
    })
    path = str(tmp_path / "small.parquet")
    pq.write_table(t, path, use_dictionary=True, data_page_size=1 << 14)

    def refuse(*_a: object) -> None:
        raise AssertionError("the value-by-value gather ran")
    monkeypatch.setattr(column_reader, "_gather_in_blocks", refuse)
    got = pc.read_table(path, use_threads=False).to_arrow()
    assert got.equals(pq.read_table(path))
