"""Page indexes written by other implementations, checked against the pages actually in the file.

For every column chunk with an index:

* the OffsetIndex lists exactly the chunk's data pages (walked from their
  headers with the thrift decoder, dictionary pages skipped): same file
  offsets, same sizes (header included), rows that add up;
* the ColumnIndex agrees with pyarrow's reading of each page's rows: null
  counts, null pages, and bounds that bound the page's values (equal to
  them for types that are never truncated), and the boundary order holds.

Files: the parquet-testing page-index files (parquet-mr and parquet-cpp
wrote them), a pyarrow-written file with small pages, and one of ours.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.constants import PageType
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

CORPUS = ["alltypes_tiny_pages.parquet", "alltypes_tiny_pages_plain.parquet",
          "int32_with_null_pages.parquet", "fixed_length_byte_array.parquet"]


def _data_pages(path: Path, chunk) -> list[tuple[int, int, int]]:
    """(offset, bytes with header, values) of each data page, from the headers."""
    raw = Path(path).read_bytes()
    meta = chunk.meta
    pos = meta.dictionary_page_offset if meta.dictionary_page_offset is not None else meta.data_page_offset
    end = pos + meta.total_compressed_size
    out = []
    while pos < end:
        header, hlen = parse(raw, pt.PageHeader, offset=pos)
        size = hlen + header.compressed_page_size
        if header.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
            dph = header.data_page_header or header.data_page_header_v2
            out.append((pos, size, dph.num_values))
        pos += size
    return out


def _key(v):
    return (1, v.encode()) if isinstance(v, str) else (0, v)


def _check_file(path: Path) -> int:
    pf = pc.ParquetFile(path)
    md = pf.metadata
    checked = 0
    for rg in range(md.num_row_groups):
        nrows = md.row_group(rg).num_rows
        for ci_idx in range(md.num_columns):
            chunk = md.row_group(rg).column(ci_idx)
            oi = pf.offset_index(rg, ci_idx)
            ci = pf.column_index(rg, ci_idx)
            if oi is None:
                assert ci is None or chunk.raw.column_index_offset is not None
                continue
            pages = _data_pages(path, chunk)
            assert [(p.offset, p.compressed_page_size) for p in oi.page_locations] == \
                [(off, size) for off, size, _ in pages], f"{path.name} rg {rg} col {ci_idx}"
            ranges = oi.row_ranges(nrows)
            assert [e - s for s, e in ranges] == [nv for _, _, nv in pages]  # flat: a value slot per row
            if ci is None:
                continue
            name = chunk.path_in_schema
            column = pq.ParquetFile(path).read_row_group(rg, columns=[name]).column(0)
            if pa.types.is_dictionary(column.type):
                column = column.cast(column.type.value_type)
            values = column.to_pylist()
            assert ci.num_pages == oi.num_pages
            for i, (s, e) in enumerate(ranges):
                page = values[s:e]
                present = [v for v in page if v is not None and not (isinstance(v, float) and math.isnan(v))]
                nulls = sum(v is None for v in page)
                if ci.null_counts is not None:
                    assert ci.null_counts[i] == nulls, (path.name, name, i)
                assert ci.null_pages[i] == (nulls == len(page)), (path.name, name, i)
                if ci.null_pages[i] or ci.min_values[i] is None or not present:
                    continue
                lo, hi = ci.min_values[i], ci.max_values[i]
                if isinstance(lo, bytes) and isinstance(page[0], str):
                    present = [v.encode() for v in present]
                assert _key(lo) <= _key(min(present, key=_key)), (path.name, name, i)
                assert _key(hi) >= _key(max(present, key=_key)), (path.name, name, i)
                if not isinstance(lo, (bytes, str)):   # never truncated: exact
                    assert lo == min(present) and hi == max(present), (path.name, name, i)
            lows = [_key(v) for v, null in zip(ci.min_values, ci.null_pages) if not null and v is not None]
            highs = [_key(v) for v, null in zip(ci.max_values, ci.null_pages) if not null and v is not None]
            if ci.boundary_order == "ASCENDING":
                assert lows == sorted(lows) and highs == sorted(highs)
            elif ci.boundary_order == "DESCENDING":
                assert lows == sorted(lows, reverse=True) and highs == sorted(highs, reverse=True)
            checked += 1
    return checked


@pytest.mark.parametrize("name", CORPUS)
def test_corpus_page_indexes_match_the_pages(corpus, name):
    assert _check_file(corpus / name) > 0


@pytest.mark.parametrize("writer", ["pyarrow", "parquet_core"])
def test_written_page_indexes_match_the_pages(tmp_path, writer):
    rng = np.random.default_rng(3)
    n = 5000
    ints = np.sort(rng.integers(-1000, 1000, n))
    floats = rng.standard_normal(n)
    floats[::97] = np.nan
    strs = [None if k % 13 == 0 else f"name-{k:05d}" * (1 + k % 3) for k in rng.integers(0, 99999, n)]
    table = pa.table({"i": ints, "f": floats, "s": pa.array(strs),
                      "n": pa.array([None] * 1000 + list(range(n - 1000)), pa.int32())})
    path = tmp_path / f"{writer}.parquet"
    if writer == "pyarrow":
        pq.write_table(table, path, write_page_index=True, data_page_size=512, row_group_size=2000)
    else:
        pc.write_table(table, path, data_page_size=512, row_group_size=2000)
    assert _check_file(path) >= 8


def test_missing_or_hostile_index_offsets(tmp_path):
    path = tmp_path / "x.parquet"
    pc.write_table({"x": np.arange(100)}, path, write_page_index=False)
    pf = pc.ParquetFile(path)
    assert pf.column_index(0, "x") is None and pf.offset_index(0, "x") is None
    chunk = pf.metadata.row_group(0).column(0)
    chunk.raw.offset_index_offset, chunk.raw.offset_index_length = 10, 10**9
    with pytest.raises(pc.ParquetFormatError, match="does not fit the file"):
        pf.offset_index(0, "x")
    chunk.raw.offset_index_offset, chunk.raw.offset_index_length = 4, 20   # points into page data
    with pytest.raises(pc.ParquetFormatError):
        pf.offset_index(0, "x")
