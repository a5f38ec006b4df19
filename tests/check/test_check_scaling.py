"""``check`` scales like reading (issue 29, item 5): it was quadratic in the children of a
group (100k columns: 95 s) and, at ``level="data"``, in the pages of a chunk (40k pages:
50 s where ``read_table`` takes 0.2 s).  The times are compared with reading the same file
in this process (CPU time, so other jobs on the machine matter less), never with seconds."""

from __future__ import annotations

import io
import struct
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize
from tests._support.corpus import corpus_dir

pytestmark = pytest.mark.slow

#: check may cost this many times a read of the same file: about 1x and 7x now; 30x and
#: 100x or more before the fix
RATIO_WIDE, RATIO_PAGES = 5, 20


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _wide_footer(n: int) -> bytes:
    """A file of *n* INT32 columns and no row group (just the footer): cheap to build."""
    schema = [pt.SchemaElement(name="schema", num_children=n)]
    schema += [pt.SchemaElement(type=pt.Type.INT32, repetition_type=pt.FieldRepetitionType.OPTIONAL,
                                name=f"c{i}") for i in range(n)]
    footer = serialize(pt.FileMetaData(version=2, schema=schema, num_rows=0, row_groups=[], created_by="test"))
    return b"PAR1" + footer + struct.pack("<I", len(footer)) + b"PAR1"


def test_check_of_a_100k_column_footer_costs_about_a_read():
    small = _wide_footer(10)                        # warm up the imports
    pc.read_table(small), pc.check(small)
    data = _wide_footer(100_000)
    table = None

    def read_table():
        nonlocal table
        table = pc.read_table(data)
    read = _cpu(lambda: pc.read_metadata(data).schema) + _cpu(read_table)
    assert table.num_columns == 100_000
    report = None

    def run():
        nonlocal report
        report = pc.check(data)
    checked = _cpu(run)
    assert report.ok, report.findings[:5]
    assert checked <= RATIO_WIDE * read, f"check {checked:.2f} s CPU, read {read:.2f} s CPU"


def _many_pages(corpus_file) -> bytes:
    """~40k data pages in one chunk: the corpus's overflow_i16_page_cnt.parquet when present."""
    if corpus_file.is_file():
        return corpus_file.read_bytes()
    buf = io.BytesIO()
    pq.write_table(pa.table({"v": pa.array([i % 2 == 0 for i in range(40_000)])}), buf,
                   data_page_size=1, write_batch_size=1, use_dictionary=False, write_statistics=True)
    return buf.getvalue()


def test_data_level_check_of_40k_pages_costs_about_a_read():
    data = _many_pages(corpus_dir() / "overflow_i16_page_cnt.parquet")
    md = pc.read_metadata(data)
    assert md.row_group(0).column(0).num_values >= 40_000
    pc.read_table(data)                             # warm up
    read = _cpu(lambda: pc.read_table(data))
    report = None

    def run():
        nonlocal report
        report = pc.check(data, level="data")
    checked = _cpu(run)
    assert report.ok, report.findings[:5]
    assert checked <= RATIO_PAGES * read, f"check {checked:.2f} s CPU, read_table {read:.2f} s CPU"

