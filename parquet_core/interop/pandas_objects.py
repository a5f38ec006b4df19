"""Object columns for ``to_pandas()``: decimals and dates, made fast.

pandas holds decimals as ``decimal.Decimal`` and dates as ``datetime.date``
objects (what pyarrow's ``to_pandas`` gives), so one object per row is
unavoidable; what is avoidable is the work around it:

* the unscaled integers come from Arrow's little-endian rows built by numpy
  (:func:`~parquet_core.table.decimal_words.decimal_le_rows`, every Parquet
  storage), as one ``int64`` array whenever every value fits 64 bits (Python
  ``int`` per value only for the rows that do not);
* a ``Decimal`` is made as ``Decimal(unscaled) * Decimal("1E-scale")`` under
  an exact context (the product of an integer and a power of ten never
  rounds there): about half the cost of ``scaleb``, the same value and
  exponent;
* a column with few distinct values (at most a quarter of its rows, as
  money columns and dates often are) makes each distinct object once and
  shares it among its rows, as pyarrow's ``deduplicate_objects`` does for
  strings.  The objects are immutable, so sharing them is invisible.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal
from typing import Any

import numpy as np

from parquet_core.table.arrays import Array
from parquet_core.table.decimal_words import decimal_le_rows

__all__ = ["date_objects", "decimal_objects"]

#: the product of an unscaled integer and a power of ten is exact under this context
_EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)
#: columns shorter than this are converted value by value (nothing to share)
_SHARE_MIN_ROWS = 1024
#: rows of the sample that decides whether hashing the whole column may pay
_SAMPLE = 4096


def as_objects(items: list[Any]) -> np.ndarray:
    """A list as a 1-D object array (``np.fromiter``: ~8x faster than a slice assignment,
    which checks every item for being a sequence)."""
    return np.fromiter(items, dtype=object, count=len(items))


def _few_distinct(keys: np.ndarray) -> bool:
    """Whether at most about a quarter of *keys* may be distinct, judged on an evenly spread
    sample (a column of unique values is not hashed for nothing)."""
    n = keys.size
    if n < _SHARE_MIN_ROWS:
        return False
    sample = keys[::max(1, n // _SAMPLE)]
    return np.unique(sample).size <= sample.size // 2


def shared_objects(pd: Any, keys: np.ndarray, make: Callable[[np.ndarray], list[Any]]) -> np.ndarray:
    """An object array of ``make(keys)``, calling *make* once per distinct key when at most a
    quarter of the keys are distinct (the objects then shared by their rows)."""
    n = keys.size
    if _few_distinct(keys):
        codes, uniques = pd.factorize(keys)
        if len(uniques) <= n // 4:
            return as_objects(make(np.asarray(uniques)))[codes]
    return as_objects(make(keys))


def _decimals(ints: list[int], scale: int) -> list[Decimal]:
    with decimal.localcontext(_EXACT):
        if scale == 0:
            return list(map(Decimal, ints))
        step = Decimal(f"1E{-scale}")
        return [Decimal(v) * step for v in ints]


def decimal_objects(pd: Any, arr: Array) -> np.ndarray:
    """The ``Decimal`` of every row of a decimal column (null rows hold filler: the caller
    masks them), whatever its Parquet storage."""
    dt = arr.type
    n = len(arr)
    width = 16 if (dt.precision or 0) <= 38 else 32
    rows = decimal_le_rows(arr.values, n, width, dt)
    words = rows.view("<i8").reshape(n, width // 8)
    low = np.ascontiguousarray(words[:, 0])
    fits = (words[:, 1:] == (low >> 63)[:, None]).all(axis=1)
    scale = dt.scale or 0
    if fits.all():
        return shared_objects(pd, low, lambda k: _decimals(k.tolist(), scale))
    ints = low.tolist()
    for i in np.flatnonzero(~fits).tolist():     # wider than 64 bits: a Python int each
        ints[i] = int.from_bytes(rows[i].tobytes(), "little", signed=True)
    return as_objects(_decimals(ints, scale))


def date_objects(pd: Any, days: np.ndarray) -> np.ndarray:
    """``datetime.date`` of every day number (all inside ``datetime.date``'s range)."""
    return shared_objects(pd, np.asarray(days, dtype=np.int64),
                          lambda k: k.astype("datetime64[D]").astype(object).tolist())
