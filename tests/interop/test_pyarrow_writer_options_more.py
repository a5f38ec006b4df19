"""Issue 31: pyarrow.parquet writer options we now honour, checked against pyarrow's files.

Oracle: the Parquet schema pyarrow writes for the same table and option
(``pq.read_metadata(f).schema``), and pyarrow reading our file.
"""

from __future__ import annotations

import datetime as dt
import io

import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _table():
    return pa.table({
        "l": pa.array([[1, None], None, []], pa.list_(pa.int64())),
        "ll": pa.array([[["a"]], None, [[]]], pa.list_(pa.list_(pa.string()))),
        "m": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int64())),
        "st": pa.array([{"x": [1]}, None, {"x": None}], pa.struct([("x", pa.list_(pa.int32()))])),
        "t_ms": pa.array([dt.time(1, 2, 3), None, dt.time(0)], pa.time32("ms")),
        "t_us": pa.array([dt.time(1, 2, 3, 4), None, dt.time(23, 59)], pa.time64("us")),
        "t_ns": pa.array([1, None, 86_399_999_999_999], pa.time64("ns")),
    })


def _text(data):
    """The Parquet schema of a file as pyarrow prints it (without the object's address)."""
    return str(pq.read_metadata(io.BytesIO(data)).schema).split(">", 1)[1]


def _schemas(**kw):
    ours, theirs = io.BytesIO(), io.BytesIO()
    pc.write_table(_table(), ours, **kw)
    pq.write_table(_table(), theirs, **kw)
    return ours.getvalue(), theirs.getvalue()


@pytest.mark.parametrize("kw", [
    {}, {"use_compliant_nested_type": False}, {"use_compliant_nested_type": True},
    {"write_time_adjusted_to_utc": True}, {"write_time_adjusted_to_utc": False},
    {"use_compliant_nested_type": False, "write_time_adjusted_to_utc": True},
], ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "defaults")
def test_parquet_schema_is_pyarrows(kw):
    ours, theirs = _schemas(**kw)
    assert _text(ours) == _text(theirs)
    # and both read back alike, through pyarrow and through us
    want = pq.read_table(io.BytesIO(theirs))
    assert pq.read_table(io.BytesIO(ours)).equals(want)
    assert pc.read_table(io.BytesIO(ours)).to_pydict() == pc.read_table(io.BytesIO(theirs)).to_pydict()


def test_map_entries_are_named_key_value_as_pyarrow():
    ours, _ = _schemas()
    schema = pq.read_metadata(io.BytesIO(ours)).schema
    assert [schema.column(i).path for i in (2, 3)] == ["m.key_value.key", "m.key_value.value"]


def test_parquet_writer_options_and_pyarrows_table_keyword():
    buf = io.BytesIO()
    with pc.ParquetWriter(buf, _table().schema, use_compliant_nested_type=False,
                          write_time_adjusted_to_utc=True) as w:
        w.write_table(table=_table().slice(0, 1))     # pyarrow's name of the argument
        w.write_table(_table().slice(1))              # ours, positional
    theirs = io.BytesIO()
    with pq.ParquetWriter(theirs, _table().schema, use_compliant_nested_type=False,
                          write_time_adjusted_to_utc=True) as w:
        w.write_table(table=_table())
    assert _text(buf.getvalue()) == _text(theirs.getvalue())
    assert pq.read_table(io.BytesIO(buf.getvalue())).equals(pq.read_table(io.BytesIO(theirs.getvalue())))


def test_write_table_refuses_both_names():
    with pc.ParquetWriter(io.BytesIO(), _table().schema) as w:
        with pytest.raises(TypeError, match="data and table"):
            w.write_table(_table(), table=_table())
