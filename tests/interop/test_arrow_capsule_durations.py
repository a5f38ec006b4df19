"""Issue 31: durations and the canonical extension types through the capsule interface.

Oracle: pyarrow.  A table handed over only as Arrow capsules (no pyarrow object reaches
us) and written by us reads back in pyarrow as pyarrow's own file of the same table does:
durations as durations (int64 plus ``ARROW:schema``, which we encode without pyarrow),
zone names kept, ``arrow.uuid`` / ``arrow.json`` as Parquet's UUID / JSON logical types.
"""

from __future__ import annotations

import io
import uuid

import pytest

import parquet_core as pc
from parquet_core.errors import UnsupportedFeatureError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")


class Exported:
    """Hands pyarrow's capsules over, so that only the capsule path can be used."""

    def __init__(self, obj):
        self._obj = obj

    def __arrow_c_stream__(self, requested_schema=None):
        return self._obj.__arrow_c_stream__(requested_schema)


class ExportedArray:
    def __init__(self, obj):
        self._obj = obj

    def __arrow_c_array__(self, requested_schema=None):
        return self._obj.__arrow_c_array__(requested_schema)


def _ours(data, **kw):
    buf = io.BytesIO()
    pc.write_table(data, buf, **kw)
    return buf.getvalue()


def _theirs(table, **kw):
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return buf.getvalue()


def _durations():
    return pa.table({
        "s": pa.array([1, None, -3], pa.duration("s")),
        "ms": pa.array([1, None, 2**40], pa.duration("ms")),
        "us": pa.array([0, 5, None], pa.duration("us")),
        "ns": pa.array([None, -(2**62), 7], pa.duration("ns")),
        "oslo": pa.array([1, None, 3], pa.timestamp("ms", tz="Europe/Oslo")),
        "nested": pa.array([[1, None], None, []], pa.list_(pa.duration("us"))),
        "st": pa.array([{"d": 1}, None, {"d": None}], pa.struct([("d", pa.duration("ns"))])),
    })


@pytest.mark.parametrize("wrap", [Exported, ExportedArray], ids=["stream", "array"])
def test_durations_read_back_as_pyarrows_file_does(wrap):
    table = _durations()
    data = table.to_batches()[0] if wrap is ExportedArray else table
    ours, theirs = _ours(wrap(data)), _theirs(table)
    got, want = pq.read_table(io.BytesIO(ours)), pq.read_table(io.BytesIO(theirs))
    assert got.schema.equals(want.schema) and got.equals(want)
    # and through us: to_arrow and to_pandas give pyarrow's
    assert pc.read_table(io.BytesIO(ours)).to_arrow().equals(want)
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(ours)).to_pandas(), want.to_pandas())


def test_streamed_batches_keep_the_schema():
    table = _durations()
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=1))
    ours = _ours(Exported(reader), row_group_size=2)
    assert pq.read_table(io.BytesIO(ours)).equals(table)


def test_store_schema_false_refuses_a_duration_from_capsules():
    with pytest.raises(pc.ParquetError, match=r"store_schema=True"):
        _ours(Exported(pa.table({"d": pa.array([1], pa.duration("s"))})), store_schema=False)


def test_a_lone_duration_column_is_refused():
    with pytest.raises(UnsupportedFeatureError, match="duration"):
        pc.write_table({"d": ExportedArray(pa.array([1, 2], pa.duration("ms")))}, io.BytesIO())


def test_uuid_and_json_extensions_become_parquet_logical_types():
    u = [uuid.uuid4().bytes, None, uuid.uuid4().bytes]
    table = pa.table({"u": pa.array(u, pa.uuid()), "j": pa.array(['{"a": 1}', None, "[]"], pa.json_())})
    ours, theirs = _ours(Exported(table)), _theirs(table)
    ours_schema = pq.read_metadata(io.BytesIO(ours)).schema
    theirs_schema = pq.read_metadata(io.BytesIO(theirs)).schema
    for i in range(2):
        assert str(ours_schema.column(i).logical_type) == str(theirs_schema.column(i).logical_type)
    assert str(ours_schema.column(0).logical_type) == "UUID"
    assert str(ours_schema.column(1).logical_type) == "JSON"
    assert pq.read_table(io.BytesIO(ours)).equals(pq.read_table(io.BytesIO(theirs)))


@pytest.mark.parametrize("array, name", [
    (pa.array([1, 0, None], pa.bool8()), "arrow.bool8"),
    (pa.ExtensionArray.from_storage(pa.opaque(pa.binary(), "geometry", "postgis"),
                                    pa.array([b"x"], pa.binary())), "arrow.opaque"),
    (pa.ExtensionArray.from_storage(pa.uuid(), pa.array([b"\x01" * 16], pa.binary(16))).cast(pa.binary(16)),
     None),
])
def test_other_extensions_are_refused_by_name(array, name):
    table = pa.table({"c": array})
    if name is None:   # plain storage: no extension at all
        assert pq.read_table(io.BytesIO(_ours(Exported(table)))).equals(table)
        return
    with pytest.raises(UnsupportedFeatureError, match=name):
        _ours(Exported(table))


def test_durations_and_zones_leave_through_the_capsules_as_they_came():
    """Export: a duration column (int64 count + ARROW:schema) leaves as a duration and a
    zone other than UTC keeps its name, for pyarrow and polars alike (oracle: the table
    pyarrow started from; polars' own schema)."""
    import datetime as dt

    pl = pytest.importorskip("polars")
    t = pa.table({"d": pa.array([1, None, 3], pa.duration("ms")),
                  "ts": pa.array([dt.datetime(2024, 1, 1), None, dt.datetime(2024, 6, 1)],
                                 pa.timestamp("us", tz="Europe/Oslo")),
                  "x": [1, 2, 3]})
    ours = pc.as_table(Exported(t))
    assert pa.table(ours).equals(t)
    schema = pl.DataFrame(ours).schema
    assert schema["d"] == pl.Duration("ms")
    assert schema["ts"] == pl.Datetime("us", "Europe/Oslo")
    # and through a file written by pyarrow
    buf = io.BytesIO()
    pq.write_table(t, buf)
    assert pa.table(pc.read_table(io.BytesIO(buf.getvalue()))).equals(t)
