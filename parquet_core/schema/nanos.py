"""Python values with nanosecond precision: what ``to_pylist`` returns below a microsecond.

``datetime`` stops at microseconds.  A nanosecond timestamp whose last three
digits are not zero comes back as a :class:`NanoDatetime` (a ``datetime``
subclass with a ``nanosecond`` attribute, 0..999), a nanosecond time as a
:class:`NanoTime`, and the difference of two such values as a
:class:`NanoTimedelta`.  They compare, sort, hash and subtract exactly,
with each other and with plain ``datetime`` / ``time`` / ``timedelta``
(those count as ``nanosecond == 0``).  A value whose nanosecond part is 0 is
always returned as the plain standard type, so ``NanoDatetime(...) +
timedelta`` may give a ``datetime``.

:class:`NanoTimedelta` is deliberately *not* a ``timedelta`` subclass:
``datetime + timedelta`` is computed in C from the base fields and would
drop the nanoseconds silently; as its own type, adding it to a ``datetime``
reaches :meth:`NanoTimedelta.__radd__`, which keeps them.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

__all__ = ["NanoDatetime", "NanoTime", "NanoTimedelta"]

_US = _dt.timedelta(microseconds=1)


def _check_ns(nanosecond: int) -> int:
    if not isinstance(nanosecond, int) or not 0 <= nanosecond < 1000:
        raise ValueError(f"nanosecond must be an int in 0..999, got {nanosecond!r}")
    return nanosecond


def _plain_dt(d: _dt.datetime) -> _dt.datetime:
    return _dt.datetime(d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond,
                        d.tzinfo, fold=d.fold)


def _with_ns(base: _dt.datetime, ns: int) -> _dt.datetime:
    """*base* plus *ns* nanoseconds (any int): a datetime, or a NanoDatetime below a microsecond."""
    carry, ns = divmod(ns, 1000)
    if carry:
        base = base + _dt.timedelta(microseconds=carry)
    return _plain_dt(base) if ns == 0 else NanoDatetime.from_datetime(base, ns)


class _NanoOrdering:
    """Equality and ordering shared by the two nanosecond types.

    A subclass defines ``_key(other)``: ``(self without nanoseconds, other
    without nanoseconds, other's nanoseconds)``, or None for a type it does
    not compare with; nanoseconds break ties of the standard values.
    """

    __slots__ = ()
    _ns: int

    def _key(self, other: Any) -> tuple[Any, Any, int] | None:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        k = self._key(other)
        return NotImplemented if k is None else (k[0] == k[1] and self._ns == k[2])

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def _cmp(self, key: tuple[Any, Any, int]) -> int:
        a, b, ns = key
        if a == b:
            return (self._ns > ns) - (self._ns < ns)
        return -1 if a < b else 1    # naive vs aware raises TypeError, as datetime does

    def __lt__(self, other: Any) -> bool:
        k = self._key(other)
        return NotImplemented if k is None else self._cmp(k) < 0

    def __le__(self, other: Any) -> bool:
        k = self._key(other)
        return NotImplemented if k is None else self._cmp(k) <= 0

    def __gt__(self, other: Any) -> bool:
        k = self._key(other)
        return NotImplemented if k is None else self._cmp(k) > 0

    def __ge__(self, other: Any) -> bool:
        k = self._key(other)
        return NotImplemented if k is None else self._cmp(k) >= 0


class NanoDatetime(_NanoOrdering, _dt.datetime):
    """A ``datetime`` with ``nanosecond`` (0..999) below its microsecond.

    Parameters are those of ``datetime``, plus keyword ``nanosecond``.
    """

    __slots__ = ("_ns",)
    _ns: int

    def __new__(cls, year: int, month: int, day: int, hour: int = 0, minute: int = 0,
                second: int = 0, microsecond: int = 0, tzinfo: _dt.tzinfo | None = None, *,
                fold: int = 0, nanosecond: int = 0) -> NanoDatetime:
        self = super().__new__(cls, year, month, day, hour, minute, second, microsecond, tzinfo,
                               fold=fold)
        self._ns = _check_ns(nanosecond)
        return self

    @classmethod
    def from_datetime(cls, base: _dt.datetime, nanosecond: int = 0) -> NanoDatetime:
        """Return *base* with *nanosecond* added below its microsecond."""
        return cls(base.year, base.month, base.day, base.hour, base.minute, base.second,
                   base.microsecond, base.tzinfo, fold=base.fold, nanosecond=nanosecond)

    @property
    def nanosecond(self) -> int:
        """Nanoseconds below the microsecond, 0..999."""
        return self._ns

    def to_datetime(self) -> _dt.datetime:
        """The plain ``datetime`` without the nanoseconds (truncated; you asked for it)."""
        return _plain_dt(self)

    # -- comparison -------------------------------------------------------
    def _key(self, other: Any) -> tuple[_dt.datetime, _dt.datetime, int] | None:
        if not isinstance(other, _dt.datetime):
            return None
        return _plain_dt(self), _plain_dt(other), getattr(other, "nanosecond", 0)

    def __hash__(self) -> int:
        base = _plain_dt(self)
        return hash(base) if self._ns == 0 else hash((base, self._ns))

    # -- arithmetic -------------------------------------------------------
    def __add__(self, other: Any) -> Any:
        if isinstance(other, NanoTimedelta):
            return _with_ns(_plain_dt(self) + other._td, self._ns + other._ns)
        if isinstance(other, _dt.timedelta):
            return _with_ns(_plain_dt(self) + other, self._ns)
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, _dt.datetime):
            return NanoTimedelta.of(_plain_dt(self) - _plain_dt(other),
                                    self._ns - getattr(other, "nanosecond", 0))
        if isinstance(other, NanoTimedelta):
            return _with_ns(_plain_dt(self) - other._td, self._ns - other._ns)
        if isinstance(other, _dt.timedelta):
            return _with_ns(_plain_dt(self) - other, self._ns)
        return NotImplemented

    def __rsub__(self, other: Any) -> Any:
        if isinstance(other, _dt.datetime):
            return NanoTimedelta.of(_plain_dt(other) - _plain_dt(self),
                                    getattr(other, "nanosecond", 0) - self._ns)
        return NotImplemented

    # -- methods that would otherwise drop the nanoseconds ----------------
    def replace(self, *args: Any, **kwargs: Any) -> Any:
        ns = kwargs.pop("nanosecond", self._ns)
        return _with_ns(_plain_dt(self).replace(*args, **kwargs), _check_ns(ns))

    def astimezone(self, tz: _dt.tzinfo | None = None) -> Any:
        return _with_ns(_plain_dt(self).astimezone(tz), self._ns)

    def time(self) -> Any:
        return NanoTime(self.hour, self.minute, self.second, self.microsecond, fold=self.fold,
                        nanosecond=self._ns) if self._ns else super().time()

    def timetz(self) -> Any:
        return NanoTime(self.hour, self.minute, self.second, self.microsecond, self.tzinfo,
                        fold=self.fold, nanosecond=self._ns) if self._ns else super().timetz()

    def isoformat(self, sep: str = "T", timespec: str = "auto") -> str:
        if timespec not in ("auto", "nanoseconds"):
            return _plain_dt(self).isoformat(sep, timespec)
        naive = _plain_dt(self).replace(tzinfo=None).isoformat(sep, "microseconds")
        full = _plain_dt(self).isoformat(sep, "microseconds")
        return f"{naive}{self._ns:03d}{full[len(naive):]}"

    def __str__(self) -> str:
        return self.isoformat(" ")

    def __repr__(self) -> str:
        base = repr(_plain_dt(self))
        return "parquet_core." + type(self).__name__ + base[base.index("("):-1] + \
            f", nanosecond={self._ns})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (NanoDatetime.from_datetime, (_plain_dt(self), self._ns))

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:   # (datetime's own would drop the nanoseconds)
        return self.__reduce__()


class NanoTime(_NanoOrdering, _dt.time):
    """A ``time`` of day with ``nanosecond`` (0..999) below its microsecond."""

    __slots__ = ("_ns",)
    _ns: int

    def __new__(cls, hour: int = 0, minute: int = 0, second: int = 0, microsecond: int = 0,
                tzinfo: _dt.tzinfo | None = None, *, fold: int = 0, nanosecond: int = 0) -> NanoTime:
        self = super().__new__(cls, hour, minute, second, microsecond, tzinfo, fold=fold)
        self._ns = _check_ns(nanosecond)
        return self

    @property
    def nanosecond(self) -> int:
        """Nanoseconds below the microsecond, 0..999."""
        return self._ns

    def _plain(self) -> _dt.time:
        return _dt.time(self.hour, self.minute, self.second, self.microsecond, self.tzinfo,
                        fold=self.fold)

    def _key(self, other: Any) -> tuple[_dt.time, _dt.time, int] | None:
        if not isinstance(other, _dt.time):
            return None
        plain = other._plain() if isinstance(other, NanoTime) else other
        return self._plain(), plain, getattr(other, "nanosecond", 0)

    def __hash__(self) -> int:
        return hash(self._plain()) if self._ns == 0 else hash((self._plain(), self._ns))

    def replace(self, *args: Any, **kwargs: Any) -> Any:
        ns = _check_ns(kwargs.pop("nanosecond", self._ns))
        t = self._plain().replace(*args, **kwargs)
        return t if ns == 0 else NanoTime(t.hour, t.minute, t.second, t.microsecond, t.tzinfo,
                                          fold=t.fold, nanosecond=ns)

    def isoformat(self, timespec: str = "auto") -> str:
        if timespec not in ("auto", "nanoseconds"):
            return self._plain().isoformat(timespec)
        naive = self._plain().replace(tzinfo=None).isoformat("microseconds")
        full = self._plain().isoformat("microseconds")
        return f"{naive}{self._ns:03d}{full[len(naive):]}"

    __str__ = isoformat

    def __repr__(self) -> str:
        base = repr(self._plain())
        return "parquet_core.NanoTime" + base[base.index("("):-1] + f", nanosecond={self._ns})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_make_time, (self._plain(), self._ns))

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:   # (time's own would drop the nanoseconds)
        return self.__reduce__()


def _make_time(base: _dt.time, ns: int) -> NanoTime:
    return NanoTime(base.hour, base.minute, base.second, base.microsecond, base.tzinfo,
                    fold=base.fold, nanosecond=ns)


class NanoTimedelta(_dt.timedelta):
    """A duration with nanosecond precision: a ``timedelta`` plus 0..999 ns.

    A ``timedelta`` subclass (as ``pandas.Timedelta`` is): ``days``,
    ``seconds`` and ``microseconds`` are the whole microseconds (rounded
    towards minus infinity) and :attr:`nanoseconds` the rest, so code that
    takes a ``timedelta`` takes it.  Made by subtracting :class:`NanoDatetime`
    values; compares with, adds to and subtracts from ``timedelta``,
    ``datetime`` and itself exactly.
    """

    __slots__ = ("_ns",)
    _ns: int

    def __new__(cls, days: int = 0, seconds: int = 0, microseconds: int = 0,
                nanoseconds: int = 0) -> NanoTimedelta:
        carry, ns = divmod(int(nanoseconds), 1000)
        td = _dt.timedelta(days=days, seconds=seconds, microseconds=microseconds + carry)
        return cls._make(td, ns)

    @classmethod
    def _make(cls, td: _dt.timedelta, ns: int) -> NanoTimedelta:
        self = super().__new__(cls, td.days, td.seconds, td.microseconds)
        self._ns = ns
        return self

    @classmethod
    def of(cls, td: _dt.timedelta, nanoseconds: int = 0) -> Any:
        """``td + nanoseconds``: a plain ``timedelta`` when whole microseconds, else a NanoTimedelta."""
        carry, ns = divmod(nanoseconds, 1000)
        td = _dt.timedelta(td.days, td.seconds, td.microseconds + carry)
        if ns == 0:
            return td
        return cls._make(td, ns)

    @property
    def _td(self) -> _dt.timedelta:
        return _dt.timedelta(self.days, self.seconds, self.microseconds)

    def __bool__(self) -> bool:
        return self.total_nanoseconds() != 0

    def __reduce__(self) -> Any:
        return (NanoTimedelta, (self.days, self.seconds, self.microseconds, self._ns))

    def __pos__(self) -> Any:
        return self

    @property
    def nanoseconds(self) -> int:
        """Nanoseconds below the microsecond, 0..999."""
        return self._ns

    def total_nanoseconds(self) -> int:
        """The exact duration as an integer count of nanoseconds."""
        return (self._td // _US) * 1000 + self._ns

    def total_seconds(self) -> float:
        """The duration in seconds, as a float (rounded, like ``timedelta.total_seconds``)."""
        return self.total_nanoseconds() / 1e9

    def to_timedelta(self) -> _dt.timedelta:
        """The ``timedelta`` part, without the nanoseconds (truncated towards minus infinity)."""
        return self._td

    @staticmethod
    def _ns_of(other: Any) -> int | None:
        if isinstance(other, NanoTimedelta):
            return other.total_nanoseconds()
        if isinstance(other, _dt.timedelta):
            return (other // _US) * 1000
        return None

    def __eq__(self, other: object) -> bool:
        o = self._ns_of(other)
        return NotImplemented if o is None else self.total_nanoseconds() == o

    def __ne__(self, other: object) -> bool:   # timedelta's own would compare microseconds only
        o = self._ns_of(other)
        return NotImplemented if o is None else self.total_nanoseconds() != o

    def __lt__(self, other: Any) -> bool:
        o = self._ns_of(other)
        return NotImplemented if o is None else self.total_nanoseconds() < o

    def __le__(self, other: Any) -> bool:
        o = self._ns_of(other)
        return NotImplemented if o is None else self.total_nanoseconds() <= o

    def __gt__(self, other: Any) -> bool:
        o = self._ns_of(other)
        return NotImplemented if o is None else self.total_nanoseconds() > o

    def __ge__(self, other: Any) -> bool:
        o = self._ns_of(other)
        return NotImplemented if o is None else self.total_nanoseconds() >= o

    def __hash__(self) -> int:
        return hash((self._td, self._ns))

    def __neg__(self) -> Any:
        return NanoTimedelta.of(-self._td, -self._ns)

    def __abs__(self) -> Any:
        return -self if self.total_nanoseconds() < 0 else self

    def __add__(self, other: Any) -> Any:
        if isinstance(other, NanoTimedelta):
            return NanoTimedelta.of(self._td + other._td, self._ns + other._ns)
        if isinstance(other, _dt.timedelta):
            return NanoTimedelta.of(self._td + other, self._ns)
        if isinstance(other, _dt.datetime):
            return _with_ns(_plain_dt(other) + self._td, getattr(other, "nanosecond", 0) + self._ns)
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, (NanoTimedelta, _dt.timedelta)):
            return self + (-other)
        return NotImplemented

    def __rsub__(self, other: Any) -> Any:
        if isinstance(other, (_dt.timedelta, _dt.datetime)):
            return other + (-self)
        return NotImplemented

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, int) and not isinstance(other, bool):
            return NanoTimedelta.of(_dt.timedelta(0), self.total_nanoseconds() * other)
        return NotImplemented

    __rmul__ = __mul__

    def __floordiv__(self, other: Any) -> Any:
        o = self._ns_of(other)
        if o is not None:
            return self.total_nanoseconds() // o
        return NotImplemented

    def __truediv__(self, other: Any) -> Any:
        o = self._ns_of(other)
        if o is not None:
            return self.total_nanoseconds() / o
        return NotImplemented

    def __mod__(self, other: Any) -> Any:
        o = self._ns_of(other)
        return NotImplemented if o is None else NanoTimedelta.of(_dt.timedelta(0), self.total_nanoseconds() % o)

    def __divmod__(self, other: Any) -> Any:
        o = self._ns_of(other)
        if o is None:
            return NotImplemented
        q, r = divmod(self.total_nanoseconds(), o)
        return q, NanoTimedelta.of(_dt.timedelta(0), r)

    # a timedelta on the left: its own operators would use the microseconds only
    def __rfloordiv__(self, other: Any) -> Any:
        o = self._ns_of(other)
        return NotImplemented if o is None else o // self.total_nanoseconds()

    def __rtruediv__(self, other: Any) -> Any:
        o = self._ns_of(other)
        return NotImplemented if o is None else o / self.total_nanoseconds()

    def __rmod__(self, other: Any) -> Any:
        o = self._ns_of(other)
        return NotImplemented if o is None else NanoTimedelta.of(_dt.timedelta(0), o % self.total_nanoseconds())

    def __repr__(self) -> str:
        return f"parquet_core.NanoTimedelta(nanoseconds={self.total_nanoseconds()})"

    def __str__(self) -> str:
        return f"{self._td}+{self._ns}ns"
