"""Table.concat against pyarrow.concat_tables, written by us and read back by pyarrow.

Random flat tables (integers of every width, floats, strings, binary, null
columns, nulls, missing columns) are concatenated with each promote option.
When pyarrow accepts, our result written with ``pc.write_table`` and read by
pyarrow must equal pyarrow's own result (types and values; nullability is a
documented difference, see parquet_core/table/concat.py).  When pyarrow
refuses, we must refuse with ParquetSchemaError, and the reverse.
"""

from __future__ import annotations

import io
import math

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

_INT_RANGES = {
    "int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
    "int64": (-2**63, 2**63 - 1), "uint8": (0, 2**8 - 1), "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1),
}
_TYPES = list(_INT_RANGES) + ["float16", "float32", "float64", "string", "binary", "null"]
_PA = {"float16": pa.float16(), "float32": pa.float32(), "float64": pa.float64(),
       "string": pa.string(), "binary": pa.binary(), "null": pa.null(),
       **{k: getattr(pa, k)() for k in _INT_RANGES}}
_PC = {"float16": pc.float16(), "float32": pc.float32(), "float64": pc.float64(),
       "string": pc.string(), "binary": pc.binary(), "null": pc.null(),
       **{k: getattr(pc, k)() for k in _INT_RANGES}}


def _values(tname: str) -> st.SearchStrategy:
    if tname == "null":
        return st.none()
    if tname in _INT_RANGES:
        lo, hi = _INT_RANGES[tname]
        # small values, the extremes, and the edge of exact float64 integers
        edges = [v for v in (lo, hi, 2**53, 2**53 + 1, -2**53 - 1, 2**63) if lo <= v <= hi]
        return st.one_of(st.integers(-100, 100).filter(lambda v: lo <= v <= hi),
                         st.sampled_from(edges), st.none())
    if tname.startswith("float"):
        # halves are exact in every float width
        return st.one_of(st.integers(-2000, 2000).map(lambda v: v / 2), st.none())
    if tname == "string":
        return st.one_of(st.text(max_size=4), st.none())
    return st.one_of(st.binary(max_size=4), st.none())


@st.composite
def _table(draw: st.DrawFn) -> dict:
    n = draw(st.integers(0, 4))
    names = draw(st.lists(st.sampled_from("abcd"), min_size=1, max_size=4, unique=True))
    # few types per name, so that matching and mismatching pairs are both common
    cols = {}
    for name in names:
        tname = draw(st.sampled_from(_TYPES))
        cols[name] = (tname, draw(st.lists(_values(tname), min_size=n, max_size=n)))
    return cols


def _ours(cols: dict) -> pc.Table:
    from parquet_core.interop.ingest import as_table

    schema = pc.schema([pc.field(k, _PC[t]) for k, (t, _) in cols.items()])
    return as_table({k: v for k, (_, v) in cols.items()}, schema)


def _theirs(cols: dict):
    return pa.table({k: pa.array(v, _PA[t]) for k, (t, v) in cols.items()})


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))
        for x, y in zip(a, b))


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_table(), min_size=2, max_size=3), st.sampled_from(["none", "default", "permissive"]))
def test_concat_matches_pyarrow(specs, promote):
    ours = [_ours(c) for c in specs]
    theirs = [_theirs(c) for c in specs]
    try:
        expected = pa.concat_tables(theirs, promote_options=promote)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        event(f"{promote}: refused")
        with pytest.raises(pc.ParquetSchemaError):
            pc.Table.concat(ours, promote_options=promote)
        return
    event(f"{promote}: accepted")
    got = pc.Table.concat(ours, promote_options=promote)
    sink = io.BytesIO()
    pc.write_table(got, sink)
    back = pq.read_table(io.BytesIO(sink.getvalue()))
    assert back.column_names == expected.column_names
    assert [f.type for f in back.schema] == [f.type for f in expected.schema]
    for name in expected.column_names:
        assert _same(back.column(name).to_pylist(), expected.column(name).to_pylist()), name
    # what the table shows in memory is what the file holds
    for name in expected.column_names:
        assert _same(got.column(name).to_pylist(), expected.column(name).to_pylist()), name
