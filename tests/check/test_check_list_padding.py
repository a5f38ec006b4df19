"""Entries that repeat a list without defining an element (issue 30, item 8).

duckdb pads a NULL fixed-size array with such entries: read as the NULL list,
reported as ``values.null-list-padding`` (warning).  Any other such entry has
no reading: refused, and reported as ``values.repeat-without-element``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import parquet_core as pc
from tests.check.broken import edit_page, pyarrow_bytes
from tests.check.splitting import _decode, _encode


def test_duckdb_null_arrays_are_a_warning(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    path = str(tmp_path / "fsl.parquet")
    duckdb.sql(f"""COPY (SELECT i, CASE WHEN i % 4 = 0 THEN NULL ELSE [i, i + 1, i + 2]::FLOAT[3] END AS v
                         FROM range(100) t(i)) TO '{path}' (FORMAT parquet)""")
    report = pc.check(path)
    assert report.ok, str(report)
    found = [f for f in report.findings if f.rule == "values.null-list-padding"]
    assert [f.severity for f in found] == ["warning"] and found[0].column == "v.list.element"
    assert found[0].message.startswith("50 level entries repeat 'v.list'")   # 25 NULL rows, 2 each
    expected = duckdb.sql(f"SELECT v FROM '{path}'").fetchall()
    assert pc.read_table(path, columns=["v"]).column("v").to_pylist() == [r[0] for r in expected]


def test_a_repeat_below_the_element_of_a_list_that_has_one_is_an_error():
    # optional group l (LIST) { repeated group list { required int64 element } }: elements at
    # definition level 2.  Rows [[1, 2], [3]]; the entry of the 2 is lowered to level 1.
    table = pa.table({"l": pa.array([[1, 2], [3]], pa.list_(pa.field("element", pa.int64(), nullable=False)))})
    data = pyarrow_bytes(table, compression="none", use_dictionary=False, write_statistics=False,
                         data_page_version="1.0")

    def lower(h, stored):
        reps, defs, vals = _decode(stored, h.data_page_header.num_values)
        assert reps.tolist() == [0, 1, 0] and defs.tolist() == [2, 2, 2]
        new = _encode(reps, np.array([2, 1, 2]), vals[[0, 2]])
        h.uncompressed_page_size = len(new)
        return new

    bad = edit_page(data, 0, 0, 0, lower)
    report = pc.check(bad)
    found = [f for f in report.findings if f.rule == "values.repeat-without-element"]
    assert [f.severity for f in found] == ["error"], str(report)
    assert "level entry 1 repeats 'l.list'" in found[0].message
    assert not [f for f in report.findings if f.rule == "values.null-list-padding"]
    with pytest.raises(pc.ParquetFormatError, match="level entry 1 repeats"):
        pc.read_table(bad)
