"""Predicates against pyarrow: the same rows, for random data and random predicates.

Our :func:`filter_mask` on a table must keep exactly the rows pyarrow's
``Table.filter`` keeps for the same expression (SQL nulls, IEEE NaN), over
every comparable type.  And pruning is sound: when :func:`may_match` says no
row of a chunk can match (bounds from the chunk's data), the exact filter
selects none of its rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.interop.arrow import table_from_arrow
from parquet_core.predicate import Bounds, filter_mask, may_match, negation_normal_form
from parquet_core.table.select import take_array
from tests._support.predicate_tables import TABLES, N, predicates
from tests._support.predicate_tables import to_arrow as _to_arrow

pa = pytest.importorskip("pyarrow")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data(), seed=st.integers(0, 3))
def test_same_rows_as_pyarrow(data, seed):
    at = TABLES[seed]
    expr = data.draw(predicates(at))
    ours = filter_mask(expr, table_from_arrow(at))
    want = at.append_column("_row", pa.array(np.arange(N))).filter(_to_arrow(expr, at.schema)).column("_row").to_pylist()
    assert np.flatnonzero(ours).tolist() == want, expr
    # negation normal form keeps the meaning
    assert np.array_equal(filter_mask(negation_normal_form(expr), table_from_arrow(at)), ours), expr


def _bounds(arr) -> Bounds:
    """Exact bounds of a chunk, found in the column's storage (as a writer's statistics would be)."""
    present = np.flatnonzero(arr.validity) if arr.validity is not None else np.arange(len(arr))
    nulls = len(arr) - present.size
    vals = take_array(arr, present)
    if arr.type.name in ("float32", "float64"):
        vals = take_array(vals, np.flatnonzero(~np.isnan(vals.values)))
    if len(vals) == 0:
        return Bounds(arr.type, None, None, nulls, len(arr))
    v = vals.values
    if isinstance(v, np.ndarray) and v.ndim == 1:
        lo, hi = int(np.argmin(v)), int(np.argmax(v))
    else:
        keys = vals.to_pylist() if arr.type.name == "decimal" else [bytes(x) for x in (
            v.to_pylist() if hasattr(v, "to_pylist") else v)]
        lo = min(range(len(keys)), key=keys.__getitem__)
        hi = max(range(len(keys)), key=keys.__getitem__)
    return Bounds(arr.type, take_array(vals, np.array([lo])).values, take_array(vals, np.array([hi])).values,
                  nulls, len(arr))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data(), seed=st.integers(0, 3), start=st.integers(0, N - 1), size=st.integers(1, 12))
def test_pruning_never_drops_a_matching_chunk(data, seed, start, size):
    at = TABLES[seed].slice(start, size)
    ours = table_from_arrow(at)
    expr = data.draw(predicates(TABLES[seed]))
    if not may_match(negation_normal_form(expr), lambda name: _bounds(ours.column(name))):
        assert not filter_mask(expr, ours).any(), expr


@pytest.mark.parametrize("filters", [[("s", "==", "bb")], [("s", "!=", "bb")], [("s", "<", 3)],
                                     [("s", ">=", "a"), ("i", ">", 1)]])
def test_comparisons_on_a_column_of_null_type_keep_no_row_like_pyarrow(tmp_path, filters):
    """An all-null column of Arrow's null type compared with any literal is null (SQL's
    unknown) in every row: pyarrow keeps no row; it used to raise ValueError here."""
    pq = pytest.importorskip("pyarrow.parquet")
    import parquet_core as pc

    path = tmp_path / "nulls.parquet"
    pq.write_table(pa.table({"s": pa.nulls(5), "i": list(range(5))}), path)
    expected = pq.read_table(path, filters=filters)
    got = pc.read_table(path, filters=filters)
    assert got.num_rows == expected.num_rows == 0
