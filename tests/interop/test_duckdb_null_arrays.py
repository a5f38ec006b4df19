"""duckdb's NULL fixed-size arrays (issue 30, item 8).

duckdb writes a NULL ``FLOAT[3]`` as one level entry opening a null list and
two more repeating it, none defining an element.  duckdb reads such a file as a
NULL list; so must we (leniently; ``pc.check`` names it: tests/check/test_check_list_padding.py).
Expected values are duckdb's own read of the file.
"""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.table.list_padding import stray_repeats

duckdb = pytest.importorskip("duckdb")

QUERIES = {
    "flat": """SELECT i, CASE WHEN i % 3 = 0 THEN NULL
                            WHEN i % 3 = 1 THEN [i, NULL, i + 2]::FLOAT[3]
                            ELSE [i, i + 1, i + 2]::FLOAT[3] END AS v
               FROM range(2000) t(i)""",
    "nested": """SELECT i, CASE WHEN i % 3 = 0 THEN NULL ELSE [[i, i], [i, NULL]]::INT[2][2] END AS a,
                        CASE WHEN i % 2 = 0 THEN NULL ELSE [NULL, [1, 2, 3]::INT[3], [i, i, i]::INT[3]] END AS l,
                        {'s': CASE WHEN i % 2 = 0 THEN NULL ELSE [1, 2]::INT[2] END} AS st
                 FROM range(300) t(i)""",
}


def _write(tmp_path, name: str) -> str:
    path = str(tmp_path / f"{name}.parquet")
    duckdb.sql(f"COPY ({QUERIES[name]}) TO '{path}' (FORMAT parquet)")
    return path


def _duckdb_rows(path: str) -> list[dict]:
    rel = duckdb.sql(f"SELECT * FROM '{path}'")
    names = rel.columns
    return [dict(zip(names, row)) for row in rel.fetchall()]


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_null_fixed_size_arrays_read_as_duckdb_reads_them(tmp_path, name):
    path = _write(tmp_path, name)
    expected = _duckdb_rows(path)
    assert any(v is None for row in expected for k, v in row.items() if k != "i")
    assert pc.read_table(path).to_pylist() == expected
    with pc.ParquetFile(path) as pf:
        batches = [r for b in pf.iter_batches(batch_size=7) for r in b.to_pylist()]
    assert batches == expected
    # a column alone, and rows picked by a filter on another column
    col = "v" if name == "flat" else "a"
    assert pc.read_table(path, columns=[col]).to_pylist() == [{col: r[col]} for r in expected]
    assert pc.read_table(path, filters=[("i", ">", 250)]).to_pylist() == [r for r in expected if r["i"] > 250]


def test_other_repeats_without_an_element_are_still_refused():
    # optional group l (LIST) { repeated group list { optional int32 element } }: slots at
    # repetition level 0, the list null below definition level 1, elements at level 2.
    # [1, 2], then null + two padding entries
    reps = np.array([0, 1, 0, 1, 1])
    defs = np.array([3, 3, 0, 0, 0])
    assert stray_repeats(reps, defs, 0, 2, 1) == (2, -1)
    # a repeat defined below its element after a list that has one: no reading
    assert stray_repeats(np.array([0, 1]), np.array([3, 1]), 0, 2, 1) == (0, 1)
    # padding defined differently from the null list it follows: no reading either
    assert stray_repeats(np.array([0, 1]), np.array([0, 1]), 0, 2, 1) == (0, 1)
    # repeats of an empty list ([] is definition level 1): not duckdb's, refused
    assert stray_repeats(np.array([0, 1]), np.array([1, 1]), 0, 2, 1) == (0, 1)
