"""Exact temporal values and INT96 conversion.

Python's ``datetime`` covers years 1..9999 at microsecond resolution.  Parquet
can hold more: nanosecond timestamps and times, and INT96 values far outside
that range (Spark writes year 290000 happily).  :meth:`Array.to_pylist`
never truncates; it returns, per value:

=============================================  ===============================
value                                          Python object
=============================================  ===============================
whole microseconds, years 1..9999              ``datetime`` / ``time``
a sub-microsecond part, years 1..9999          :class:`NanoDatetime` /
                                               :class:`NanoTime` (subclasses
                                               with ``nanosecond``; they
                                               compare, sort and subtract
                                               exactly, see ``nanos.py``)
outside years 1..9999, or a time of day        :class:`RawTemporal`: the exact
outside 00:00..24:00                           integer count of ``unit``
=============================================  ===============================

INT96 layout (legacy Impala/Hive/Spark timestamps), 12 bytes per value::

    +-----------------------------+-------------------------+
    | nanoseconds within the day  | Julian day number       |
    | int64, little-endian        | int32, little-endian    |
    +-----------------------------+-------------------------+

Julian day 2440588 is 1970-01-01.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from parquet_core.schema.nanos import NanoDatetime, NanoTime

__all__ = ["RawTemporal", "int96_parts", "int96_to_epoch", "int96_to_ns", "int96_to_unit", "int96_unit_problem",
           "JULIAN_EPOCH_DAY"]

#: Julian day number of the Unix epoch, 1970-01-01.
JULIAN_EPOCH_DAY = 2440588
_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


@dataclass(frozen=True, slots=True)
class RawTemporal:
    """A timestamp or time held exactly as an integer count of ``unit``.

    Only for values no standard Python type holds: timestamps outside years
    1..9999 (e.g. INT96 from Spark in year 290000) and times of day outside
    00:00..24:00.  Sub-microsecond values within range are
    :class:`NanoDatetime` / :class:`NanoTime`.

    ``kind`` is ``"timestamp"`` (since the Unix epoch) or ``"time"`` (since
    midnight); ``tz`` is ``"UTC"`` for instants.
    """

    value: int
    unit: str
    kind: str = "timestamp"
    tz: str | None = None

    def to(self, unit: str) -> int:
        """Return the value in another unit (floor division when coarser)."""
        a, b = _PER_SECOND[self.unit], _PER_SECOND[unit]
        return self.value * b // a

    def __str__(self) -> str:
        return f"{self.kind}({self.value} {self.unit}{' ' + self.tz if self.tz else ''})"


_NS_PER_DAY = 86_400_000_000_000
#: Days either side of the epoch on which every nanosecond of the day fits in int64
#: (2**63 ns is about 106,751.99 days).
_NS_SAFE_DAYS = 106_750


#: One INT96 value as stored: nanoseconds of the day (8 bytes), then the Julian day (4 bytes),
#: both little-endian; a record view of (n, 12) bytes reads both fields without copying.
_INT96 = np.dtype([("nanos", "<i8"), ("days", "<i4")])


def _int96_records(raw: npt.NDArray[np.uint8]) -> npt.NDArray[np.void]:
    return np.ascontiguousarray(raw, dtype=np.uint8).reshape(-1).view(_INT96)


def int96_parts(raw: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Split (n, 12) INT96 bytes into (julian_day, nanos_of_day) int64 arrays."""
    rec = _int96_records(raw)
    return rec["days"].astype(np.int64), rec["nanos"].astype(np.int64)


def int96_to_ns(raw: npt.NDArray[np.uint8],
                valid: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.int64] | None:
    """INT96 as int64 nanoseconds since the epoch, or None when that is not exact for all.

    The common case of :func:`int96_to_epoch` with ``unit="ns"``, in one multiply-add:
    when every value (every one where *valid* is True; other slots get arbitrary
    numbers) lies within :data:`_NS_SAFE_DAYS` of the epoch and its nanosecond field
    within a day, ``(day - 2440588) * 86400e9 + nanos`` is the same number
    :func:`int96_to_epoch` computes and cannot overflow.  Otherwise None: the caller
    takes the general path.

    The output is the only array allocated (fresh allocations are a large part of
    the cost at this size): the checks are in-place passes and reductions over it
    and over the record view.
    """
    rec = _int96_records(raw)
    if valid is not None and len(rec) and not valid.any():
        return np.zeros(len(rec), dtype=np.int64)
    out = rec["days"].astype(np.int64)
    nanos = rec["nanos"]
    if len(out):
        # each range is one unsigned maximum: a value below the range wraps high
        out -= JULIAN_EPOCH_DAY - _NS_SAFE_DAYS
        if valid is None:
            days_ok = int(out.view(np.uint64).max()) <= 2 * _NS_SAFE_DAYS
            nanos_ok = days_ok and int(nanos.view(np.uint64).max()) < _NS_PER_DAY
        else:
            days_ok = int(np.max(out.view(np.uint64), where=valid, initial=0)) <= 2 * _NS_SAFE_DAYS
            nanos_ok = days_ok and int(np.max(nanos.view(np.uint64), where=valid, initial=0)) < _NS_PER_DAY
        if not nanos_ok:
            return None
        out -= _NS_SAFE_DAYS
    with np.errstate(over="ignore"):    # only in slots *valid* marks as null
        out *= _NS_PER_DAY
        out += nanos
    return out


def _wrap64(v: int) -> int:
    """Reduce a Python int to the int64 range with two's-complement wrap-around."""
    return ((v + 2**63) % 2**64) - 2**63


def int96_to_epoch(raw: npt.NDArray[np.uint8], unit: str = "us") -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Convert INT96 to int64 counts of *unit* since the epoch.

    Microseconds are computed as ``(day - 2440588) * 86400e6 + nanos // 1000``
    in wrapping int64 arithmetic.  This is the inverse of how Spark (and
    Hive/Impala) produce INT96 from an int64 microsecond count, including
    when that production overflowed: Spark writes year-290000 values by
    letting ``micros + epoch offset`` wrap, so wrapping back recovers the
    exact microsecond value instead of a garbage date.

    Returns the values and a mask, True where the value is exact in *unit*
    and fits in int64.
    """
    days, nanos = int96_parts(raw)
    rel = days - JULIAN_EPOCH_DAY
    with np.errstate(over="ignore"):
        us = rel * np.int64(86_400_000_000) + nanos // 1000
    sub = nanos % 1000
    if unit == "us":
        return us, sub == 0
    if unit == "ms":
        return us // 1000, (sub == 0) & (us % 1000 == 0)
    if unit == "s":
        return us // 1_000_000, (sub == 0) & (us % 1_000_000 == 0)
    limit = np.iinfo(np.int64).max // 1000 - 1
    ok = np.abs(us) <= limit
    with np.errstate(over="ignore"):
        ns = np.where(ok, us, 0) * 1000 + sub
    return ns, ok


def int96_to_unit(raw: npt.NDArray[np.uint8], unit: str, valid: npt.NDArray[np.bool_] | None = None,
                  ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """INT96 as int64 counts of *unit* (``"s"``, ``"ms"``, ``"us"`` or ``"ns"``) since the epoch,
    as pyarrow's ``coerce_int96_timestamp_unit`` reads them where that is exact:
    ``(day - 2440588) * units_per_day + nanos // nanos_per_unit``, the Julian day read
    unsigned, digits below the unit floored (a nanosecond count of a day or more carries
    into the next days).

    Unlike :func:`int96_to_epoch` nothing wraps.  Returns the values and a mask, True
    where no exact answer is given (those slots hold 0): the count does not fit int64
    (micro- and nanoseconds beyond about 292,000 and 292 years; every day fits in seconds
    and milliseconds), a negative nanosecond count (pyarrow reads it as a huge unsigned
    one), or Julian day 0 (which pyarrow reads as the epoch whatever the nanoseconds).
    :func:`int96_unit_problem` says which.  Slots *valid* marks False (nulls) may get any
    number and any mask bit.
    """
    fast = int96_to_ns(raw, valid)
    if fast is not None:
        # every value within ~292 years of the epoch and its nanoseconds within the day:
        # no day 0, no negative or carrying nanoseconds, no overflow, so the exact count
        # floored to the unit is pyarrow's number (one pass, no mask to compute)
        if unit != "ns":
            fast //= 1_000_000_000 // _PER_SECOND[unit]
        return fast, np.zeros(len(fast), dtype=np.bool_)
    rec = _int96_records(raw)
    days = rec["days"].view(np.uint32).astype(np.int64)
    nanos = rec["nanos"].astype(np.int64)
    per_day = 86_400 * _PER_SECOND[unit]
    rel = days - JULIAN_EPOCH_DAY
    sub = nanos // (1_000_000_000 // _PER_SECOND[unit])
    bad = (np.abs(rel) > np.iinfo(np.int64).max // per_day - 1) | (nanos < 0) | (days == 0)
    with np.errstate(over="ignore"):
        base = np.where(bad, 0, rel) * np.int64(per_day)
        out = base + np.where(bad, 0, sub)
    # the sum overflowed exactly when both terms share a sign the result lacks
    bad |= ((base >= 0) == (sub >= 0)) & ((out >= 0) != (base >= 0))
    out[bad] = 0
    return out, bad


def int96_unit_problem(raw: npt.NDArray[np.uint8], i: int, unit: str) -> str:
    """Why :func:`int96_to_unit` gives no value for INT96 *i* of *raw* (for an error message)."""
    rec = _int96_records(raw)[i]
    day, nanos = int(np.uint32(rec["days"].view(np.uint32))), int(rec["nanos"])
    where = f"the INT96 value of Julian day {day} and {nanos} nanoseconds"
    if day == 0:
        return f"{where}: day 0, which pyarrow reads as 1970-01-01 whatever the nanoseconds"
    if nanos < 0:
        return (f"{where}: a negative nanosecond count, which pyarrow reads as a huge unsigned one "
                "(Spark writes such bytes for instants whose INT96 encoding wrapped around)")
    return f"{where} is outside the int64 range of timestamp[{unit}] (pyarrow wraps it around)"


_EPOCH = _dt.datetime(1970, 1, 1)
_MIN_US = (_dt.datetime(1, 1, 1) - _EPOCH) // _dt.timedelta(microseconds=1)
_MAX_US = (_dt.datetime(9999, 12, 31, 23, 59, 59, 999999) - _EPOCH) // _dt.timedelta(microseconds=1)


def timestamps_to_py(values: npt.NDArray[np.int64], unit: str, tz: str | None) -> list[object]:
    """Turn epoch counts into ``datetime`` (NanoDatetime below a microsecond), or
    RawTemporal outside datetime's years."""
    vals = np.asarray(values, dtype=np.int64)
    per = _PER_SECOND[unit]
    sub = np.zeros(len(vals), dtype=np.int64)
    if per >= 1_000_000:
        div = per // 1_000_000
        us = vals // div
        sub = (vals % div) * (1000 // div)          # nanoseconds below the microsecond
        exact = np.ones(len(vals), dtype=bool)
    else:
        mul = 1_000_000 // per
        lim = np.iinfo(np.int64).max // mul
        exact = np.abs(vals) <= lim
        us = np.where(exact, vals, 0) * mul
    exact &= (us >= _MIN_US) & (us <= _MAX_US)
    objs = np.where(exact, us, 0).astype("datetime64[us]").astype(object).tolist()
    utc = _dt.timezone.utc if tz else None
    out: list[object] = []
    # Per-value loop: this is the edge conversion to Python objects.
    for v, e, ns, raw in zip(objs, exact.tolist(), sub.tolist(), vals.tolist()):
        if not e:
            out.append(RawTemporal(raw, unit, "timestamp", tz))
            continue
        if utc is not None:
            v = v.replace(tzinfo=utc)
        out.append(NanoDatetime.from_datetime(v, ns) if ns else v)
    return out


def times_to_py(values: npt.NDArray[np.int64], unit: str) -> list[object]:
    """Turn since-midnight counts into ``time`` (NanoTime below a microsecond), or
    RawTemporal outside a day."""
    per = _PER_SECOND[unit]
    out: list[object] = []
    for v in np.asarray(values, dtype=np.int64).tolist():
        if per < 1_000_000:
            us, ns = v * (1_000_000 // per), 0
        else:
            us, rem = divmod(v, per // 1_000_000)
            ns = rem * (1000 // (per // 1_000_000))
        if not 0 <= us < 86_400_000_000:
            out.append(RawTemporal(v, unit, "time"))
            continue
        s, micro = divmod(us, 1_000_000)
        h, s = divmod(s, 3600)
        m, s = divmod(s, 60)
        out.append(NanoTime(h, m, s, micro, nanosecond=ns) if ns else _dt.time(h, m, s, micro))
    return out


def int96_to_py(raw: npt.NDArray[np.uint8]) -> list[object]:
    """Turn INT96 values into naive ``datetime`` (NanoDatetime below a microsecond),
    or RawTemporal in nanoseconds outside datetime's years.

    Uses the same wrapping microsecond arithmetic as :func:`int96_to_epoch`.
    """
    days, nanos = int96_parts(raw)
    out: list[object] = []
    for d, n in zip(days.tolist(), nanos.tolist()):
        us = _wrap64((d - JULIAN_EPOCH_DAY) * 86_400_000_000 + n // 1000)
        sub = n % 1000
        if _MIN_US <= us <= _MAX_US:
            base = _EPOCH + _dt.timedelta(microseconds=us)
            out.append(NanoDatetime.from_datetime(base, sub) if sub else base)
        else:
            out.append(RawTemporal(us * 1000 + sub, "ns", "timestamp"))
    return out
