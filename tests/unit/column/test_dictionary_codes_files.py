"""Files whose dictionary indices take the narrow-code path (issue 32): skewed
low-cardinality columns written by pyarrow (numbers and strings, with and without
nulls, several pages) read equal to pyarrow's read, whole and in batches; a page
damaged inside its index stream (an index past the dictionary, an RLE value wider
than the page's bit width) is refused with an error naming the file, the column
and the page, as the page-by-page path names it."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetFormatError
from parquet_core.page.reader import iter_pages
from tests._support.rle_reference import runny_codes
from tests.unit.encodings.golden import read_uleb


def _runny(rng: np.random.Generator, rows: int, card: int) -> np.ndarray:
    return runny_codes(rng, rows, card, skew=1.2)


def _table(rows: int = 40_000) -> pa.Table:
    rng = np.random.default_rng(32)
    flags = np.array(["N", "Y"])
    words = np.array(["cash", "card", "dispute", "no charge", "voided"])
    return pa.table({
        "vendor": (_runny(rng, rows, 3) + 1).astype(np.int32),
        "payment": _runny(rng, rows, 5).astype(np.int64),
        "extra": _runny(rng, rows, 8) * 0.5,
        "zone": (_runny(rng, rows, 265) + 1).astype(np.int32),         # 9-bit indices
        "flag": pa.array(flags[_runny(rng, rows, 2)]),
        "kind": pa.array(words[_runny(rng, rows, 5)]),                  # strings of several lengths
        "opt": pa.array(_runny(rng, rows, 6).astype(np.float64), mask=rng.random(rows) < 0.1),
    })


@pytest.mark.parametrize("compression", ["snappy", "none"])
def test_skewed_columns_read_equal_to_pyarrow(tmp_path, compression) -> None:
    path = str(tmp_path / "t.parquet")
    pq.write_table(_table(), path, compression=compression, data_page_size=1 << 13)
    expected = pq.read_table(path)
    assert pc.read_table(path, use_threads=False).to_arrow().equals(expected)
    for size in (8192, 5000):
        got = pa.concat_tables(b.to_arrow() for b in pc.ParquetFile(path).iter_batches(batch_size=size))
        assert got.equals(expected)


def _body_at(data: bytes, column: int, page: int) -> tuple[int, str]:
    """The file offset of the body of page *page* (the chunk's dictionary page is 0) of
    *column*'s chunk in an uncompressed file with one row group, and how an error
    names that page."""
    meta = pq.read_metadata(pa.BufferReader(data)).row_group(0).column(column)
    start = meta.dictionary_page_offset
    chunk = data[start:start + meta.total_compressed_size]
    pages = list(iter_pages(chunk, 0, meta.num_values, base_offset=start))
    body = bytes(pages[page].body)
    at = data.index(body, pages[page].offset)
    return at, f"at page {pages[page].ordinal} (file offset {pages[page].offset})"


def _first_run(data: bytes, at: int, packed: bool) -> int:
    """The offset of the first body byte (bit-packed) or value byte (RLE) of the first
    run of that kind in the index stream at *at* (width byte first)."""
    w = data[at]
    pos = at + 1
    while True:
        header, pos = read_uleb(data, pos)
        if bool(header & 1) == packed:
            return pos
        pos += (header >> 1) * w if header & 1 else (w + 7) // 8


@pytest.mark.parametrize("damage, message", [
    ("index", "dictionary index 7 out of range for a dictionary of 5 values"),
    ("rle_value", "RLE run value 255 does not fit in 3 bits"),
])
def test_a_damaged_index_page_is_named(tmp_path, damage, message) -> None:
    path = str(tmp_path / "t.parquet")
    t = _table()
    t = t.cast(pa.schema([pa.field(n, t.schema.field(n).type, nullable=False) if n != "opt"
                          else t.schema.field(n) for n in t.column_names]))
    pq.write_table(t, path, compression="none", data_page_size=1 << 13)
    data = bytearray((tmp_path / "t.parquet").read_bytes())
    column = t.column_names.index("payment")            # 5 entries: 3-bit indices
    at, where = _body_at(bytes(data), column, 2)
    assert data[at] == 3
    if damage == "index":
        data[_first_run(bytes(data), at, packed=True)] = 0xFF       # indices 7, 7, ...
    else:
        data[_first_run(bytes(data), at, packed=False)] = 0xFF      # an RLE value of 255
    (tmp_path / "bad.parquet").write_bytes(bytes(data))
    bad = str(tmp_path / "bad.parquet")
    for read in (lambda: pc.read_table(bad, use_threads=False),
                 lambda: pc.read_table(bad, columns=["payment"], use_threads=False),
                 lambda: list(pc.ParquetFile(bad).iter_batches(batch_size=4096))):
        with pytest.raises(ParquetFormatError, match=message) as info:
            read()
        text = str(info.value) + " ".join(getattr(info.value, "__notes__", []))
        assert "bad.parquet" in text and "payment" in text and where in text, text
    # the other columns are untouched
    assert pc.read_table(bad, columns=["vendor", "flag"]).to_arrow().equals(
        pq.read_table(path, columns=["vendor", "flag"]))
