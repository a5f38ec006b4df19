"""Permissive concat of nested columns against pyarrow.concat_tables.

Inside lists, structs and maps a child widens exactly as at the top level,
and a value the wider type cannot hold (an int64 beyond +-2**53 becoming a
float64, a uint64 above the int64 maximum becoming an int64, a timestamp
overflowing the finer unit) is refused at every depth, as pyarrow's safe
cast refuses it.  Whatever pyarrow accepts must come out equal; whatever it
refuses we must refuse with ParquetSchemaError, and the reverse.
"""

from __future__ import annotations

import datetime as dt
import io

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from parquet_core.interop.arrow import table_from_arrow  # noqa: E402

_LEAVES = {
    "int32": pa.int32(), "int64": pa.int64(), "uint64": pa.uint64(),
    "float32": pa.float32(), "float64": pa.float64(),
    "ts_s": pa.timestamp("s"), "ts_ns": pa.timestamp("ns"),
}
_EDGES = {
    "int32": [-2**31, 2**31 - 1],
    "int64": [2**53, 2**53 + 1, -2**53, -2**53 - 1, 2**63 - 1],
    "uint64": [2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1],
}


def _leaf_values(name: str) -> st.SearchStrategy:
    if name.startswith("ts_"):
        base = dt.datetime(2000, 1, 1)
        # seconds far outside the nanosecond range overflow on widening to ns
        picks = [base, dt.datetime(2500, 1, 1)] if name == "ts_s" else [base]
        return st.one_of(st.sampled_from(picks), st.none())
    if name.startswith("float"):
        return st.one_of(st.integers(-50, 50).map(lambda v: v / 2), st.none())
    return st.one_of(st.integers(0, 50), st.sampled_from(_EDGES[name]), st.none())


_SHAPES = ["list", "struct", "map", "list_struct", "struct_list"]


def _wrap(shape: str, leaf):
    if shape == "list":
        return pa.list_(leaf)
    if shape == "struct":
        return pa.struct([("x", leaf)])
    if shape == "map":
        return pa.map_(pa.string(), leaf)
    if shape == "list_struct":
        return pa.list_(pa.struct([("x", leaf)]))
    return pa.struct([("x", pa.list_(leaf))])


def _value(shape: str, leaf: st.SearchStrategy) -> st.SearchStrategy:
    small = st.lists(leaf, max_size=3)
    if shape == "list":
        return st.one_of(small, st.none())
    if shape == "struct":
        return st.one_of(st.builds(lambda v: {"x": v}, leaf), st.none())
    if shape == "map":
        return st.one_of(st.lists(st.tuples(st.sampled_from("ab"), leaf), max_size=3), st.none())
    if shape == "list_struct":
        return st.one_of(st.lists(st.builds(lambda v: {"x": v}, leaf), max_size=3), st.none())
    return st.one_of(st.builds(lambda v: {"x": v}, st.one_of(small, st.none())), st.none())


@st.composite
def _table(draw: st.DrawFn, shape: str):
    leaf = draw(st.sampled_from(sorted(_LEAVES)))
    rows = draw(st.lists(_value(shape, _leaf_values(leaf)), max_size=4))
    return pa.table({"c": pa.array(rows, _wrap(shape, _LEAVES[leaf]))})


@st.composite
def _tables(draw: st.DrawFn):
    shape = draw(st.sampled_from(_SHAPES))
    return draw(st.lists(_table(shape), min_size=2, max_size=3))


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(_tables())
def test_nested_permissive_concat_matches_pyarrow(theirs):
    ours = [table_from_arrow(t) for t in theirs]
    try:
        expected = pa.concat_tables(theirs, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        event("refused")
        with pytest.raises(pc.ParquetSchemaError):
            pc.Table.concat(ours, promote_options="permissive")
        return
    event("accepted")
    got = pc.Table.concat(ours, promote_options="permissive")
    sink = io.BytesIO()
    pc.write_table(got, sink, store_schema=False)
    back = pq.read_table(io.BytesIO(sink.getvalue()))
    assert back.column("c").to_pylist() == expected.column("c").to_pylist()
    assert got.column("c").to_pylist() == expected.column("c").to_pylist()


_ROUNDING = [
    (pa.list_(pa.int64()), [[1, 2**53 + 1]], pa.list_(pa.float64()), [[0.5]]),
    (pa.struct([("x", pa.int64())]), [{"x": -2**53 - 1}], pa.struct([("x", pa.float32())]), [{"x": 0.5}]),
    (pa.map_(pa.string(), pa.int64()), [[("k", 2**60)]], pa.map_(pa.string(), pa.float64()), [[("k", 1.5)]]),
    (pa.list_(pa.uint64()), [[2**53 + 1]], pa.list_(pa.float64()), [[0.5]]),
    (pa.list_(pa.list_(pa.uint64())), [[[2**63]]], pa.list_(pa.list_(pa.int64())), [[[1]]]),
]


@pytest.mark.parametrize("ta, va, tb, vb", _ROUNDING)
def test_nested_widening_refuses_what_pyarrow_refuses(ta, va, tb, vb):
    theirs = [pa.table({"c": pa.array(va, ta)}), pa.table({"c": pa.array(vb, tb)})]
    with pytest.raises(pa.ArrowInvalid):
        pa.concat_tables(theirs, promote_options="permissive")
    with pytest.raises(pc.ParquetSchemaError, match="column 'c', row 0"):
        pc.Table.concat([table_from_arrow(t) for t in theirs], promote_options="permissive")
