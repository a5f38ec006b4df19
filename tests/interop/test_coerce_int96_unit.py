"""Issue 31: pyarrow's ``coerce_int96_timestamp_unit`` honoured on reading.

Oracle: ``pq.read_table(f, coerce_int96_timestamp_unit=unit)`` on INT96 files
pyarrow writes (with and without ``ARROW:schema``), including dates outside
the years 1677-2262 that only the coarser units reach.
"""

from __future__ import annotations

import datetime as dt
import io

import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _file(store_schema):
    t = pa.table({
        "ts": pa.array([dt.datetime(2020, 1, 1, 1, 2, 3, 456789), None, dt.datetime(1, 1, 1),
                        dt.datetime(9999, 12, 31, 23, 59, 59, 999999), dt.datetime(1969, 12, 31, 23, 59, 59, 999)],
                       pa.timestamp("us")),
        "i": [1, 2, 3, 4, 5],
    })
    buf = io.BytesIO()
    pq.write_table(t, buf, use_deprecated_int96_timestamps=True, store_schema=store_schema, row_group_size=2)
    return buf.getvalue()


@pytest.mark.parametrize("store_schema", [False, True])
@pytest.mark.parametrize("unit", ["s", "ms", "us"])
def test_int96_read_in_pyarrows_unit(unit, store_schema):
    data = _file(store_schema)
    want = pq.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit)
    assert pc.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit).to_arrow().equals(want)
    pf = pc.ParquetFile(io.BytesIO(data), coerce_int96_timestamp_unit=unit)
    assert pf.read_row_group(1).to_arrow().equals(want.slice(2, 2))
    batches = [b.to_arrow() for b in pf.iter_batches(batch_size=3)]
    assert pa.concat_tables(batches).equals(want)
    filtered = pc.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit, filters=[("i", ">", 2)])
    assert filtered.to_arrow().equals(pq.read_table(io.BytesIO(data), coerce_int96_timestamp_unit=unit,
                                                    filters=[("i", ">", 2)]))


def test_an_unknown_unit_is_refused_naming_the_option():
    with pytest.raises(ValueError, match="coerce_int96_timestamp_unit"):
        pc.read_table(io.BytesIO(_file(False)), coerce_int96_timestamp_unit="m")


def test_default_keeps_nanoseconds_as_pyarrow():
    t = pa.table({"ts": pa.array([dt.datetime(2020, 1, 1, 1, 2, 3, 456789), None], pa.timestamp("us"))})
    buf = io.BytesIO()
    pq.write_table(t, buf, use_deprecated_int96_timestamps=True, store_schema=False)
    for unit in (None, "ns"):
        want = pq.read_table(io.BytesIO(buf.getvalue()), coerce_int96_timestamp_unit=unit)
        got = pc.read_table(io.BytesIO(buf.getvalue()), coerce_int96_timestamp_unit=unit).to_arrow()
        assert got.equals(want) and want.schema.field("ts").type == pa.timestamp("ns")
