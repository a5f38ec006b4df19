"""Several row groups of one column (each chunk with its own dictionary) take the
narrow-code path as one row group does (issue 32: a taxi-like table in pyarrow's
1 Mi-row row groups cost ~40 % more than in one).  A pyarrow file of three row groups
reads equal to pyarrow through that path; an index damaged in the second row group
is still refused, naming that row group's page."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.column import reader as column_reader
from parquet_core.errors import ParquetFormatError
from parquet_core.page.reader import iter_pages
from tests._support.rle_reference import runny_codes
from tests.unit.encodings.golden import read_uleb

ROWS, GROUP = 90_000, 30_000


def _table() -> pa.Table:
    rng = np.random.default_rng(33)
    words = np.array(["cash", "card", "dispute", "no charge", "voided"])
    return pa.table({
        "vendor": (runny_codes(rng, ROWS, 3, skew=1.2) + 1).astype(np.int32),
        "payment": runny_codes(rng, ROWS, 5, skew=1.2).astype(np.int64),
        "zone": (runny_codes(rng, ROWS, 265, skew=1.2) + 1).astype(np.int32),     # 9-bit indices
        "extra": runny_codes(rng, ROWS, 8, skew=1.2) * 0.5,
        "kind": pa.array(words[runny_codes(rng, ROWS, 5, skew=1.2)]),
    })


def _spy(monkeypatch) -> list[bool]:
    """Whether each call of the codes path gave codes."""
    got: list[bool] = []
    real = column_reader.expand_dictionary_index_codes

    def spy(pages, size):
        out = real(pages, size)
        got.append(out is not None)
        return out
    monkeypatch.setattr(column_reader, "expand_dictionary_index_codes", spy)
    return got


@pytest.mark.parametrize("page_size", [1 << 13, 1 << 20])
def test_row_groups_read_equal_through_codes(tmp_path, monkeypatch, page_size) -> None:
    path = str(tmp_path / "t.parquet")
    pq.write_table(_table(), path, row_group_size=GROUP, data_page_size=page_size)
    assert pq.read_metadata(path).num_row_groups == 3
    expected = pq.read_table(path)
    got = _spy(monkeypatch)
    assert pc.read_table(path, use_threads=False).to_arrow().equals(expected)
    # every chunk of every column (5 columns x 3 row groups) as narrow codes
    assert got.count(True) == 15, got
    got.clear()
    assert pc.read_table(path, columns=["zone", "kind"], use_threads=True).to_arrow().equals(
        expected.select(["zone", "kind"]))
    assert got.count(True) == 6, got


def _second_group_page(data: bytes, column: int) -> tuple[int, str]:
    """The file offset of the first data page body of *column* in row group 1 of an
    uncompressed file, and how an error names that page."""
    meta = pq.read_metadata(pa.BufferReader(data)).row_group(1).column(column)
    start = meta.dictionary_page_offset
    chunk = data[start:start + meta.total_compressed_size]
    pages = list(iter_pages(chunk, 0, meta.num_values, base_offset=start))
    body = bytes(pages[1].body)
    at = data.index(body, pages[1].offset)
    return at, f"at page {pages[1].ordinal} (file offset {pages[1].offset})"


@pytest.mark.parametrize("packed, message", [
    (True, "dictionary index 7 out of range for a dictionary of 5 values"),
    (False, "RLE run value 255 does not fit in 3 bits"),
])
def test_a_bad_index_in_the_second_row_group_is_named(tmp_path, packed, message) -> None:
    path = tmp_path / "t.parquet"
    t = _table()
    t = t.cast(pa.schema([pa.field(n, t.schema.field(n).type, nullable=False) for n in t.column_names]))
    pq.write_table(t, str(path), compression="none", row_group_size=GROUP, data_page_size=1 << 13)
    data = bytearray(path.read_bytes())
    column = t.column_names.index("payment")        # 5 entries: 3-bit indices
    at, where = _second_group_page(bytes(data), column)
    assert data[at] == 3
    pos = at + 1
    while True:                                     # the first run of that kind
        header, pos = read_uleb(bytes(data), pos)
        if bool(header & 1) == packed:
            break
        pos += (header >> 1) * 3 if header & 1 else 1
    data[pos] = 0xFF                                # indices 7, 7, ... or an RLE value of 255
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(data))
    for columns in (None, ["payment"]):
        with pytest.raises(ParquetFormatError, match=message) as info:
            pc.read_table(str(bad), columns=columns, use_threads=False)
        text = str(info.value) + " ".join(getattr(info.value, "__notes__", []))
        assert "bad.parquet" in text and "payment" in text and where in text, text
