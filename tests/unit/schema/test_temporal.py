"""INT96 and temporal conversions keep values exact."""

from __future__ import annotations

import datetime as dt
import struct

import numpy as np

from parquet_core.schema.nanos import NanoDatetime, NanoTime, NanoTimedelta
from parquet_core.schema.temporal import JULIAN_EPOCH_DAY, RawTemporal, int96_to_epoch, int96_to_py, timestamps_to_py


def _int96(days: int, nanos: int) -> np.ndarray:
    return np.frombuffer(struct.pack("<qi", nanos, days), dtype=np.uint8).reshape(1, 12)


def test_int96_epoch_and_far_future() -> None:
    raw = np.concatenate([_int96(JULIAN_EPOCH_DAY, 1_000), _int96(JULIAN_EPOCH_DAY + 3_000_000, 0)])
    us, ok = int96_to_epoch(raw, "us")
    assert ok.tolist() == [True, True]
    assert us.tolist() == [1, 3_000_000 * 86_400_000_000]
    py = int96_to_py(raw)
    assert py[0] == dt.datetime(1970, 1, 1, 0, 0, 0, 1)
    assert isinstance(py[1], RawTemporal) and py[1].to("us") == 3_000_000 * 86_400_000_000


def test_int96_sub_microsecond_is_not_truncated() -> None:
    raw = _int96(JULIAN_EPOCH_DAY, 1_001)
    _, ok = int96_to_epoch(raw, "us")
    assert not ok[0]
    (v,) = int96_to_py(raw)
    assert isinstance(v, NanoDatetime)
    assert (v.to_datetime(), v.nanosecond) == (dt.datetime(1970, 1, 1, 0, 0, 0, 1), 1)


def test_timestamps_ns_exact_or_raw() -> None:
    vals = np.array([1_000, 1_001, -1_000], dtype=np.int64)
    out = timestamps_to_py(vals, "ns", "UTC")
    assert out[0] == dt.datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=dt.timezone.utc)
    assert isinstance(out[1], NanoDatetime) and out[1].nanosecond == 1
    assert out[1].to_datetime() == dt.datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=dt.timezone.utc)
    assert out[0] < out[1] and out[1] - out[0] == NanoTimedelta(nanoseconds=1)
    assert out[2] == dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc)


def test_timestamp_out_of_datetime_range() -> None:
    big = np.array([2**62], dtype=np.int64)
    (v,) = timestamps_to_py(big, "ms", None)
    assert isinstance(v, RawTemporal) and v.value == 2**62


def test_times_ns_below_a_microsecond_are_nanotime() -> None:
    from parquet_core.schema.temporal import times_to_py

    out = times_to_py(np.array([1_000, 1_001, 86_400 * 10**9 + 5], dtype=np.int64), "ns")
    assert out[0] == dt.time(0, 0, 0, 1) and type(out[0]) is dt.time
    assert isinstance(out[1], NanoTime) and out[1].nanosecond == 1 and out[1] > out[0]
    assert out[2] == RawTemporal(86_400 * 10**9 + 5, "ns", "time")


def _int96_many(days: np.ndarray, nanos: np.ndarray) -> np.ndarray:
    """(n, 12) INT96 bytes as the spec lays them out: nanos of the day (int64 LE), then the
    Julian day (int32 LE), written with struct, not with the code under test."""
    return np.frombuffer(b"".join(struct.pack("<qi", int(n), int(d)) for d, n in zip(days, nanos)),
                         dtype=np.uint8).reshape(-1, 12)


def test_int96_to_ns_matches_the_general_path_and_hand_values() -> None:
    from parquet_core.schema.temporal import int96_to_ns

    day = 86_400 * 10**9
    # 1970-01-01T00:00:00.000000001, 2000-01-01T12:00, 1900-01-01 (negative), 2262-04-11 edge band
    days = np.array([JULIAN_EPOCH_DAY, 2451545, 2415021, JULIAN_EPOCH_DAY + 106_750])
    nanos = np.array([1, day // 2, 0, day - 1])
    got = int96_to_ns(_int96_many(days, nanos))
    assert got is not None
    assert got.tolist() == [1, 946_728_000 * 10**9, -2_208_988_800 * 10**9, 106_750 * day + day - 1]
    ref, ok = int96_to_epoch(_int96_many(days, nanos), "ns")
    assert ok.all() and got.tolist() == ref.tolist()

    rng = np.random.default_rng(5)
    d = rng.integers(JULIAN_EPOCH_DAY - 106_750, JULIAN_EPOCH_DAY + 106_751, 2000)
    n = rng.integers(0, day, 2000)
    assert int96_to_ns(_int96_many(d, n)).tolist() == int96_to_epoch(_int96_many(d, n), "ns")[0].tolist()


def test_int96_to_ns_declines_what_it_cannot_do_exactly() -> None:
    from parquet_core.schema.temporal import int96_to_ns

    day = 86_400 * 10**9
    for days, nanos in [(JULIAN_EPOCH_DAY + 106_751, 0),      # past the safe band: general path
                        (JULIAN_EPOCH_DAY - 106_751, 0),
                        (JULIAN_EPOCH_DAY, -1),                  # nanos outside a day
                        (JULIAN_EPOCH_DAY, day)]:
        raw = _int96_many(np.array([JULIAN_EPOCH_DAY, days]), np.array([5, nanos]))
        assert int96_to_ns(raw) is None
        # the same value in a null slot does not count
        got = int96_to_ns(raw, np.array([True, False]))
        assert got is not None and got[0] == 5
    assert int96_to_ns(_int96_many(np.array([0]), np.array([0])), np.array([False])).tolist() == [0]
    assert int96_to_ns(np.zeros((0, 12), np.uint8)).tolist() == []
