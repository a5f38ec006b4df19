"""Nanosecond Python values: exact, comparable, sortable, subtractable (pandas is the oracle)."""

from __future__ import annotations

import copy
import datetime as dt
import io
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import parquet_core as pc
from parquet_core.schema.nanos import NanoDatetime, NanoTime, NanoTimedelta

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

_NS = st.integers(-(2**62), 2**62)   # within datetime's years (1677..2262 for int64 ns)


def _roundtrip(values: list[int], tz: str | None = None) -> tuple[list, list]:
    table = pa.table({"ts": pa.array(values, pa.timestamp("ns", tz))})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    ours = pc.read_table(sink.getvalue()).column("ts").to_pylist()
    return ours, table.column("ts").to_pylist()          # pandas Timestamps


def _ns_since_epoch(v) -> int:
    epoch = dt.datetime(1970, 1, 1, tzinfo=v.tzinfo)
    return (v - epoch) // dt.timedelta(microseconds=1) * 1000 + getattr(v, "nanosecond", 0)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(_NS, min_size=2, max_size=8), st.sampled_from([None, "UTC"]))
def test_values_are_exact_sortable_and_subtract_like_pandas(values, tz):
    ours, theirs = _roundtrip(values, tz)
    assert [_ns_since_epoch(v) for v in ours] == [t.value for t in theirs]
    # no private wrapper within datetime's years
    assert all(isinstance(v, dt.datetime) for v in ours)
    assert [_ns_since_epoch(v) for v in sorted(ours)] == [t.value for t in sorted(theirs)]
    for a, b, ta, tb in zip(ours, ours[1:], theirs, theirs[1:]):
        d = a - b
        exact = d.total_nanoseconds() if isinstance(d, NanoTimedelta) else d // dt.timedelta(microseconds=1) * 1000
        assert exact == (ta - tb).value
        assert (a < b) == (ta < tb) and (a == b) == (ta == tb)
        # d + b, not b + d: a plain datetime's own + takes a timedelta subclass and drops
        # the nanoseconds (as with pandas.Timedelta); NanoTimedelta's + is exact
        assert d + b == a
    assert len({*ours}) == len({t.value for t in theirs})


def test_plain_datetime_when_whole_microseconds():
    ours, _ = _roundtrip([1_000, 1_500])
    assert type(ours[0]) is dt.datetime
    assert type(ours[1]) is NanoDatetime and ours[1].nanosecond == 500


def test_mixed_with_plain_datetime():
    a = NanoDatetime(2024, 1, 1, 0, 0, 0, 1, nanosecond=1)
    b = dt.datetime(2024, 1, 1, 0, 0, 0, 1)
    assert b < a and a > b and a != b and not (a == b)
    assert sorted([a, b]) == [b, a] and max(b, a) is a
    assert a - b == NanoTimedelta(nanoseconds=1)
    assert b - a == NanoTimedelta(nanoseconds=-1)
    assert (a - b) + b == a                         # NanoTimedelta + datetime keeps the ns
    # a plain datetime's own + takes any timedelta subclass and drops what is below the
    # microsecond, as it does for pandas.Timedelta: documented, and the same as pandas
    assert b + (a - b) == b + pd.Timedelta(1)
    assert a - (a - b) == b and type(a - (a - b)) is dt.datetime
    assert a + dt.timedelta(days=1) == NanoDatetime(2024, 1, 2, 0, 0, 0, 1, nanosecond=1)
    assert NanoDatetime(2024, 1, 1, nanosecond=0) == dt.datetime(2024, 1, 1)
    assert hash(NanoDatetime(2024, 1, 1, nanosecond=0)) == hash(dt.datetime(2024, 1, 1))


def test_reduce_without_a_protocol_rebuilds_the_value():
    # __reduce__ was __reduce_ex__ under a second name, so calling it (as copyreg-style
    # helpers do) failed for want of a protocol argument
    a = NanoDatetime(2024, 1, 2, 3, 4, 5, 123456, dt.timezone.utc, nanosecond=789)
    t = NanoTime(3, 4, 5, 123456, nanosecond=789)
    for v in (a, t):
        fn, args = v.__reduce__()
        back = fn(*args)
        assert back == v and back.nanosecond == 789 and type(back) is type(v)
        assert copy.deepcopy(v) == v and copy.deepcopy(v).nanosecond == 789


def test_text_repr_pickle_and_numpy_agree():
    a = NanoDatetime(2024, 1, 2, 3, 4, 5, 123456, dt.timezone.utc, nanosecond=789)
    assert a.isoformat() == "2024-01-02T03:04:05.123456789+00:00"
    assert str(a) == str(pd.Timestamp("2024-01-02 03:04:05.123456789", tz="UTC"))
    assert pickle.loads(pickle.dumps(a)) == a and pickle.loads(pickle.dumps(a)).nanosecond == 789
    assert "nanosecond=789" in repr(a)
    assert a.replace(tzinfo=None).nanosecond == 789
    t = a.time()
    assert isinstance(t, NanoTime) and t.isoformat() == "03:04:05.123456789"
    assert np.datetime64("2024-01-02T03:04:05.123456789") == \
        np.datetime64(a.replace(tzinfo=None).isoformat())


def test_nano_values_refuse_bad_nanoseconds():
    with pytest.raises(ValueError):
        NanoDatetime(2024, 1, 1, nanosecond=1000)
    with pytest.raises(ValueError):
        NanoTime(nanosecond=-1)


def test_outside_datetime_years_stays_raw():
    table = pa.table({"ts": pa.array([2**62], pa.timestamp("ms"))})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    (v,) = pc.read_table(sink.getvalue()).column("ts").to_pylist()
    assert isinstance(v, pc.RawTemporal) and v.value == 2**62


def test_values_read_write_back_unchanged():
    table = pa.table({"ts": pa.array([1, 1_700_000_000_123_456_789], pa.timestamp("ns")),
                      "tm": pa.array([1, 5_000_000_001], pa.time64("ns"))})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    values = pc.read_table(sink.getvalue()).to_pydict()
    out = io.BytesIO()
    pc.write_table(values, out)
    assert pq.read_table(io.BytesIO(out.getvalue())).equals(table)


def test_difference_is_a_timedelta_with_nanoseconds_like_pandas():
    pd = pytest.importorskip("pandas")
    a = NanoDatetime(2024, 1, 1, 0, 0, 0, 5, nanosecond=7)
    b = NanoDatetime(2024, 1, 1, nanosecond=3)
    d = a - b
    theirs = pd.Timestamp("2024-01-01 00:00:00.000005007") - pd.Timestamp("2024-01-01 00:00:00.000000003")
    assert isinstance(d, dt.timedelta) and isinstance(theirs, dt.timedelta)
    assert d.total_nanoseconds() == theirs.value
    # the timedelta fields hold the whole microseconds, as pandas' do
    assert (d.days, d.seconds, d.microseconds) == (theirs.days, theirs.seconds, theirs.microseconds)
    assert d.nanoseconds == theirs.nanoseconds == 4
    assert d > dt.timedelta(microseconds=5) and dt.timedelta(microseconds=5) < d
    assert d != dt.timedelta(microseconds=5)
    assert b + d == a and a - d == b
    assert pickle.loads(pickle.dumps(d)) == d and type(pickle.loads(pickle.dumps(d))) is NanoTimedelta
    assert bool(d) and not bool(NanoTimedelta())
    assert dt.timedelta(days=1) + d == NanoTimedelta(days=1, nanoseconds=5004)
