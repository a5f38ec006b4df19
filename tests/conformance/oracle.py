"""Compare parquet_core's values with an oracle's (pyarrow), value by value.

Both sides are turned into comparable Python values: temporal values become
integer counts of the column's unit (so nanoseconds and out-of-range values
compare exactly), floats compare with NaN == NaN, half floats as floats.
"""

from __future__ import annotations

import datetime as dt
import math
import uuid
from decimal import Decimal
from typing import Any

import pyarrow as pa

import parquet_core as pc

_PER_S = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
_EPOCH = dt.datetime(1970, 1, 1)


def ours_canonical(value: Any, unit: str | None) -> Any:
    """Canonical form of one parquet_core Python value."""
    if isinstance(value, pc.RawTemporal):
        return value.to(unit) if unit else value.value
    if isinstance(value, dt.datetime):
        naive = value.replace(tzinfo=None) if value.tzinfo else value
        us = (naive - _EPOCH) // dt.timedelta(microseconds=1)
        ns = us * 1000 + getattr(value, "nanosecond", 0)   # pc.NanoDatetime carries ns
        return ns * _PER_S[unit] // 1_000_000_000 if unit else us
    if isinstance(value, dt.time) and unit:
        us = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
        ns = us * 1000 + getattr(value, "nanosecond", 0)
        return ns * _PER_S[unit] // 1_000_000_000
    if isinstance(value, pc.Interval):
        return bytes(memoryview(bytearray(
            value.months.to_bytes(4, "little") + value.days.to_bytes(4, "little")
            + value.milliseconds.to_bytes(4, "little"))))
    if isinstance(value, uuid.UUID):
        return value.bytes
    return value


def arrow_canonical(column: pa.ChunkedArray) -> tuple[list[Any], str | None]:
    """Canonical values of a pyarrow column and the temporal unit used."""
    t = column.type
    if isinstance(t, pa.BaseExtensionType):
        column = pa.chunked_array([c.storage for c in column.chunks], type=t.storage_type)
        t = t.storage_type
    if pa.types.is_timestamp(t) or pa.types.is_time64(t):
        return column.cast(pa.int64()).to_pylist(), t.unit
    if pa.types.is_time32(t):
        return column.cast(pa.int32()).to_pylist(), t.unit
    return column.to_pylist(), None


def values_equal(a: Any, b: Any) -> bool:
    """Equality with NaN == NaN and Decimal/float care."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return a == b
    return a == b and type(a) is type(b) or (a == b and {type(a), type(b)} <= {int, bool}) or a == b


def assert_column_matches(ours: pc.Array, theirs: pa.ChunkedArray, where: str) -> None:
    """Assert equal length and equal values at every position."""
    expected, unit = arrow_canonical(theirs)
    got = [ours_canonical(v, unit) for v in ours.to_pylist()]
    assert len(got) == len(expected), f"{where}: {len(got)} values, oracle has {len(expected)}"
    bad = [i for i, (a, b) in enumerate(zip(got, expected)) if not values_equal(a, b)]
    assert not bad, (f"{where}: {len(bad)} mismatches, first at row {bad[0]}: "
                     f"ours={got[bad[0]]!r} oracle={expected[bad[0]]!r}")


def deep_equal(a: Any, b: Any) -> bool:
    """Equality of nested Python values (lists, dicts, (key, value) tuples) with NaN == NaN."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, dict)) or isinstance(b, (list, tuple, dict)):
        return False
    return values_equal(ours_canonical(a, None), ours_canonical(b, None))


def assert_nested_matches(ours: list[Any], theirs: list[Any], where: str) -> None:
    """Assert two lists of nested Python values are equal, naming the first differing row."""
    assert len(ours) == len(theirs), f"{where}: {len(ours)} rows, oracle has {len(theirs)}"
    bad = [i for i, (a, b) in enumerate(zip(ours, theirs)) if not deep_equal(a, b)]
    assert not bad, (f"{where}: {len(bad)} mismatches, first at row {bad[0]}: "
                     f"ours={ours[bad[0]]!r} oracle={theirs[bad[0]]!r}")
