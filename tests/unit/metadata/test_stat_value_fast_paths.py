"""decode_stat_value's fast paths (text, binary, bool, date) against the general path and pyarrow."""

from __future__ import annotations

import io
import struct

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.errors import ParquetFormatError
from parquet_core.metadata.statistics import _physical, decode_stat_value
from parquet_core.schema.pyvalues import py_values, to_storage


def _general(raw: bytes, desc):  # the path every other type takes
    return py_values(desc.data_type, to_storage(desc.data_type, _physical(raw, desc.physical_type)))[0]


def _descs():
    t = pa.table({"b": [True], "s": ["a"], "y": [b"x"], "d": pa.array([1], pa.date32())})
    sink = io.BytesIO()
    pq.write_table(t, sink)
    md = pc.read_metadata(io.BytesIO(sink.getvalue()))
    return {md.schema.column(j).dotted_path: md.schema.column(j) for j in range(md.num_columns)}


_D = _descs()


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=12))
def test_text_and_binary(raw: bytes) -> None:
    assert decode_stat_value(raw, _D["y"]) == _general(raw, _D["y"])
    try:
        want = ("ok", _general(raw, _D["s"]))
    except ParquetFormatError as exc:
        want = ("err", str(exc))
    try:
        got = ("ok", decode_stat_value(raw, _D["s"]))
    except ParquetFormatError as exc:
        got = ("err", str(exc))
    assert got == want


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 255))
def test_bool(b: int) -> None:
    got = decode_stat_value(bytes([b]), _D["b"])
    assert got == _general(bytes([b]), _D["b"]) and type(got) is bool


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(-2**31, 2**31 - 1), st.sampled_from([-719163, -719162, 2932896, 2932897, 0])))
def test_date(days: int) -> None:
    raw = struct.pack("<i", days)
    got = decode_stat_value(raw, _D["d"])
    want = _general(raw, _D["d"])
    assert got == want and type(got) is type(want)


def test_against_pyarrow() -> None:
    t = pa.table({"b": [True, False], "s": ["zeta", "alpha"], "y": [b"\x00\xff", b"\x01"],
                  "d": pa.array([-5000, 20000], pa.date32())})
    sink = io.BytesIO()
    pq.write_table(t, sink)
    md = pc.read_metadata(io.BytesIO(sink.getvalue()))
    ref = pq.read_metadata(io.BytesIO(sink.getvalue()))
    for j in range(4):
        a, b = md.row_group(0).column(j).statistics, ref.row_group(0).column(j).statistics
        assert (a.min, a.max) == (b.min, b.max)


def test_short_bool_is_refused() -> None:
    with pytest.raises(ParquetFormatError):
        decode_stat_value(b"", _D["b"])
