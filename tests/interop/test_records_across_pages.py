"""Records that cross data page boundaries (v1 pages, as parquet-mr writes them).

pyarrow only ends a page between records, so these files are put together
here from Thrift structs: one list column whose level stream is cut into
pages at every possible place, including in the middle of a list.  The
records are known by construction and pyarrow must read them too.
"""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.constants import CompressionCodec, ConvertedType, Encoding, PageType, PhysicalType, Repetition
from parquet_core.encodings.rle_hybrid_encoder import encode_levels_v1
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize

pq = pytest.importorskip("pyarrow.parquet")

RECORDS = [[1, 2, 3, 4, 5], None, [], [None, 6], [7, 8, 9, 10], [11]]
# (repetition, definition) per level entry; the element is optional: 3 = value, 2 = null element,
# 1 = empty list, 0 = null list.
LEVELS = ([(0, 3)] + [(1, 3)] * 4 + [(0, 0), (0, 1), (0, 2), (1, 3), (0, 3)] + [(1, 3)] * 3 + [(0, 3)])
VALUES = [v for r in RECORDS if r for v in r if v is not None]


def _schema() -> list:
    return [
        pt.SchemaElement(name="m", num_children=1),
        pt.SchemaElement(name="a", repetition_type=Repetition.OPTIONAL, num_children=1,
                         converted_type=ConvertedType.LIST),
        pt.SchemaElement(name="list", repetition_type=Repetition.REPEATED, num_children=1),
        pt.SchemaElement(name="element", repetition_type=Repetition.OPTIONAL, type=PhysicalType.INT32),
    ]


def _page(levels: list[tuple[int, int]], values: list[int]) -> bytes:
    reps = np.array([r for r, _ in levels], dtype=np.int16)
    defs = np.array([d for _, d in levels], dtype=np.int16)
    body = encode_levels_v1(reps, 1) + encode_levels_v1(defs, 3) + np.array(values, dtype="<i4").tobytes()
    header = pt.PageHeader(
        type=PageType.DATA_PAGE, uncompressed_page_size=len(body), compressed_page_size=len(body),
        data_page_header=pt.DataPageHeader(num_values=len(levels), encoding=Encoding.PLAIN,
                                           definition_level_encoding=Encoding.RLE,
                                           repetition_level_encoding=Encoding.RLE))
    return serialize(header) + body


def build_file(cuts: list[int], levels: list[tuple[int, int]] = LEVELS) -> bytes:
    """A one-column file whose level stream is cut into v1 pages at the given entry positions."""
    bounds = [0] + cuts + [len(levels)]
    out = bytearray(b"PAR1")
    start = len(out)
    values = iter(VALUES)
    for a, b in zip(bounds, bounds[1:]):
        page_levels = levels[a:b]
        present = [next(values) for _, d in page_levels if d == 3]
        out += _page(page_levels, present)
    size = len(out) - start
    meta = pt.ColumnMetaData(
        type=PhysicalType.INT32, encodings=[Encoding.PLAIN, Encoding.RLE], path_in_schema=["a", "list", "element"],
        codec=CompressionCodec.UNCOMPRESSED, num_values=len(levels), total_uncompressed_size=size,
        total_compressed_size=size, data_page_offset=start)
    rg = pt.RowGroup(columns=[pt.ColumnChunk(file_offset=start, meta_data=meta)], total_byte_size=size,
                     num_rows=len(RECORDS))
    footer = serialize(pt.FileMetaData(version=1, schema=_schema(), num_rows=len(RECORDS), row_groups=[rg],
                                       created_by="parquet-core test (hand-built pages)"))
    return bytes(out) + footer + struct.pack("<I", len(footer)) + b"PAR1"


CUTS = [[], [2], [1, 4], [3, 6, 8], [5, 9], list(range(1, len(LEVELS)))]


@pytest.mark.parametrize("cuts", CUTS, ids=[str(c) for c in CUTS])
def test_records_split_across_pages(cuts: list[int]) -> None:
    data = build_file(cuts)
    pf = pc.ParquetFile(data)
    assert pf.metadata.row_group(0).num_rows == len(RECORDS)
    got = pc.read_table(data).column("a").to_pylist()
    assert got == RECORDS
    assert pq.read_table(io.BytesIO(data)).column("a").to_pylist() == RECORDS
    assert [b.column("a").to_pylist() for b in pf.iter_batches(batch_size=4)] == [RECORDS[:4], RECORDS[4:]]


def test_chunk_starting_mid_record_is_a_format_error() -> None:
    """A row group whose chunk starts with repetition level 1 cannot be assembled."""
    data = build_file([], [(1, 3)] + LEVELS[1:])
    with pytest.raises(pc.ParquetFormatError, match="record boundary") as info:
        pc.read_table(data)
    assert any("row group 0" in n for n in info.value.__notes__)
