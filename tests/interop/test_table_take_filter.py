"""``Table.take`` / ``Table.filter`` and ``pc.as_table`` against pyarrow's own on random tables."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc

pa = pytest.importorskip("pyarrow")

_rows = st.integers(min_value=0, max_value=30)


@st.composite
def tables(draw):
    n = draw(_rows)
    ints = draw(st.lists(st.one_of(st.none(), st.integers(-2**63, 2**63 - 1)), min_size=n, max_size=n))
    texts = draw(st.lists(st.one_of(st.none(), st.text(max_size=5)), min_size=n, max_size=n))
    lists = draw(st.lists(st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-5, 5)), max_size=3)),
                          min_size=n, max_size=n))
    return pa.table({"i": pa.array(ints, pa.int64()), "s": pa.array(texts, pa.string()),
                     "l": pa.array(lists, pa.list_(pa.int64()))})


@settings(max_examples=60, deadline=None)
@given(tables(), st.data())
def test_take_matches_pyarrow(arrow, data):
    ours = pc.as_table(arrow)
    n = arrow.num_rows
    idx = data.draw(st.lists(st.integers(0, n - 1), max_size=40)) if n else []
    got = ours.take(np.array(idx, dtype=np.int64))
    assert got.num_rows == len(idx)
    assert got.to_pylist() == arrow.take(pa.array(idx, pa.int64())).to_pylist()


@settings(max_examples=60, deadline=None)
@given(tables(), st.data())
def test_filter_matches_pyarrow(arrow, data):
    ours = pc.as_table(arrow)
    mask = data.draw(st.lists(st.booleans(), min_size=arrow.num_rows, max_size=arrow.num_rows))
    got = ours.filter(np.array(mask, dtype=bool))
    assert got.to_pylist() == arrow.filter(pa.array(mask, pa.bool_())).to_pylist()


def test_take_and_filter_refuse_bad_arguments():
    t = pc.as_table({"a": [1, 2, 3]})
    with pytest.raises(IndexError):
        t.take([3])
    with pytest.raises(IndexError):
        t.take([-1])
    with pytest.raises(TypeError):
        t.take([0.5])
    with pytest.raises(TypeError):
        t.filter([1, 0, 1])
    with pytest.raises(ValueError):
        t.filter(np.array([True, False]))
    assert t.take([]).num_rows == 0 and t.take([]).schema == t.schema
    assert t.filter(np.zeros(3, bool)).to_pylist() == []


def test_as_table_casts_foreign_inputs_to_a_schema():
    schema = pc.schema([pc.field("a", pc.int32()), pc.field("s", pc.string())])
    arrow = pa.table({"a": pa.array([1, None], pa.int64()), "s": ["x", None]})
    from_arrow = pc.as_table(arrow, schema)
    from_columns = pc.as_table({"a": arrow.column("a").combine_chunks(), "s": arrow.column("s")}, schema)
    for t in (from_arrow, from_columns):
        assert t.schema == schema
        assert t.to_pylist() == arrow.to_pylist()
