"""Nested corpus files read by parquet_core and written back: pyarrow reads the original's values.

Every nested file of the Apache corpus (``test_nested_corpus.NESTED_FILES``)
is read with our reader and written with our writer, once with the defaults
and once with data page v2, tiny pages and no dictionary; pyarrow's reading
of the copy must equal pyarrow's reading of the original, value for value,
and our reader must read the copy as it read the original.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import parquet_core as pc
from tests._support.nested_corpus import NESTED_FILES

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

#: Layouts that read differently on purpose (the file's legacy form is not kept):
#: a map without a value column reads as a list of keys, and is written as one,
#: so the copy is compared with our reading of the original.
_RESHAPED = {"map_no_value.parquet"}


@pytest.mark.parametrize("options", [{}, dict(data_page_version="2.0", data_page_size=8,
                                              use_dictionary=False, row_group_size=3)],
                         ids=["defaults", "v2_tiny_pages"])
@pytest.mark.parametrize("name", NESTED_FILES)
def test_rewritten_nested_file_reads_equal(corpus: Path, name: str, options: dict) -> None:
    original = pc.read_table(corpus / name)
    buf = io.BytesIO()
    pc.write_table(original, buf, **options)
    data = buf.getvalue()
    again = pc.read_table(data)
    assert again.to_pylist() == original.to_pylist()
    theirs = pq.read_table(corpus / name)
    copy = pq.read_table(io.BytesIO(data))
    assert copy.column_names == theirs.column_names
    expected = original.to_arrow() if name in _RESHAPED else theirs
    for col in theirs.column_names:
        a, b = copy.column(col).combine_chunks(), expected.column(col).combine_chunks()
        if a.type == b.type:
            assert a.equals(b), col      # exact, including timestamps Python cannot hold
        else:                            # element names or nullability flags differ
            assert a.to_pylist() == b.to_pylist(), col
