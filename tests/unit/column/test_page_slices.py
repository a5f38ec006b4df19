"""Big pages of flat columns are cut into small pages by iter_batches (issue 29).

The hybrid cutter is checked against streams built here by hand (the spec's
RLE / bit-packed runs), the batches against pyarrow's read of the same file,
and the memory with tracemalloc (a ratio to the page's decoded size).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.column.page_slices import HybridCutter
from parquet_core.encodings.rle_hybrid import decode_rle_hybrid
from parquet_core.errors import ParquetFormatError


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _rle(value: int, count: int, width: int) -> bytes:
    return _varint(count << 1) + value.to_bytes((width + 7) // 8, "little")


def _packed(values: list[int], width: int) -> bytes:
    """A bit-packed run (the spec: values packed from the least significant bit)."""
    assert len(values) % 8 == 0
    bits = np.array([(v >> i) & 1 for v in values for i in range(width)], dtype=np.uint8)
    return _varint((len(values) // 8) << 1 | 1) + np.packbits(bits, bitorder="little").tobytes()


@pytest.mark.parametrize("width", [1, 3, 8, 13])
def test_cutter_pieces_decode_to_the_stream(width: int) -> None:
    rng = np.random.default_rng(width)
    stream, expected = b"", []
    for _ in range(40):
        if rng.random() < 0.5:
            v, c = int(rng.integers(0, 1 << width)), int(rng.integers(1, 300))
            stream += _rle(v, c, width)
            expected += [v] * c
        else:
            vals = [int(x) for x in rng.integers(0, 1 << width, 8 * int(rng.integers(1, 20)))]
            stream += _packed(vals, width)
            expected += vals
    cut = HybridCutter(stream, width, "test")
    got: list[int] = []
    done = 0
    while done < len(expected):
        k = min(int(rng.integers(1, 50)), len(expected) - done)
        got += decode_rle_hybrid(cut.take(k), width, k).tolist()
        done += k
    assert got == expected


def test_cutter_refuses_a_stream_that_ends_early() -> None:
    cut = HybridCutter(_rle(1, 10, 1), 1, "definition levels of page 0")
    cut.take(10)
    with pytest.raises(ParquetFormatError, match="definition levels of page 0"):
        cut.take(1)


def _table(n: int) -> pa.Table:
    rng = np.random.default_rng(7)
    return pa.table({
        "i": pa.array(rng.integers(0, 50, n), mask=rng.random(n) < 0.3),
        "r": pa.array(rng.integers(0, 7, n)),
        "d": pa.array(rng.normal(size=n), mask=rng.random(n) < 0.1),
        "b": pa.array(rng.random(n) < 0.5, mask=rng.random(n) < 0.2),
        "f": pa.array(rng.random(n).astype(np.float32)),
        "s": pa.array(np.where(rng.random(n) < 0.5, "aa", "b")),
    })


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("dictionary", [True, False])
def test_batches_of_one_big_page_equal_pyarrow(tmp_path, version: str, dictionary: bool) -> None:
    n = 70_001
    path = tmp_path / "big.parquet"
    pc.write_table(_table(n), path, use_dictionary=dictionary, data_page_size=1 << 30,
                   data_page_row_count_limit=1 << 30, data_page_version=version,
                   column_encoding=None if dictionary or version == "1.0" else {"b": "RLE"})
    assert len(pc.ParquetFile(path).page_headers(0, 0)) <= 2     # one data page (and a dictionary)
    expected = pq.read_table(path)
    for batch_size in (1000, 4097, 30_000):
        got = pa.concat_tables(b.to_arrow() for b in pc.ParquetFile(path).iter_batches(batch_size=batch_size))
        assert got.equals(expected), batch_size


@pytest.mark.parametrize("dictionary", [True, False])
def test_iter_batches_memory_follows_the_batch_not_the_page(tmp_path, dictionary: bool) -> None:
    """One page of 2**21 optional int64 (16 MiB decoded, a few KB stored): iterating in
    batches of 10,000 rows holds a fraction of the page's decoded size for a dictionary
    page, about the decompressed page for a PLAIN one (whole, they held 1.6x and 1.75x it)."""
    n = 1 << 21
    vals = np.zeros(n, dtype=np.int64)
    vals[::100_000] = 5
    mask = np.zeros(n, dtype=bool)
    mask[3::200_000] = True
    path = tmp_path / "zeros.parquet"
    pc.write_table(pa.table({"x": pa.array(vals, mask=mask)}), path, use_dictionary=dictionary,
                   data_page_size=1 << 30, data_page_row_count_limit=1 << 30, compression="zstd",
                   data_page_version="2.0")
    pf = pc.ParquetFile(path)
    rows = 0
    tracemalloc.start()
    try:
        for b in pf.iter_batches(batch_size=10_000):
            rows += b.num_rows
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rows == n
    decoded = n * 8
    # the dictionary page's indices are cut; a PLAIN page's decompressed bytes stay held
    # (decompression is not streamed), what is decoded from them is cut
    assert peak < decoded * (0.1 if dictionary else 1.3), (peak, decoded)
