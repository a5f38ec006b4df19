"""Bounds of floating-point columns whose ColumnOrder is IEEE_754_TOTAL_ORDER.

parquet.thrift ``ColumnOrder.IEEE_754_TOTAL_ORDER``: floats ordered by the
totalOrder predicate (-0 < +0, NaNs outside every number); min and max are the
smallest and largest non-NaN values, or NaNs when every value is NaN.  Keys:
the float's bits as a signed integer, with every bit but the sign flipped for
negative numbers, so that integer order is total order (one numpy operation
for a whole page).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parquet_core.constants import PhysicalType as P
from parquet_core.errors import quoted
from parquet_core.validation.context import Checker, ChunkState
from parquet_core.validation.rules import ERROR, rule

__all__ = ["uses_total_order", "compare_total_order", "TOTAL_ORDER"]

TOTAL_ORDER = rule("statistics.total-order-bound", ERROR, "parquet.thrift ColumnOrder.IEEE_754_TOTAL_ORDER",
                   "under IEEE_754_TOTAL_ORDER, min/max are the smallest/largest non-NaN values in total order "
                   "(-0 below +0), NaN only when every value is NaN")

_WIDTH = {2: ("<f2", "<i2"), 4: ("<f4", "<i4"), 8: ("<f8", "<i8")}


def uses_total_order(ck: Checker, ch: ChunkState) -> bool:
    orders = ck.raw.column_orders
    return (orders is not None and ch.col < len(orders) and orders[ch.col] is not None
            and getattr(orders[ch.col], "IEEE_754_TOTAL_ORDER", None) is not None)


def _keys(bits: np.ndarray) -> np.ndarray:
    b = bits.astype(np.int64)
    width = bits.dtype.itemsize * 8
    mask = (1 << (width - 1)) - 1
    return np.where(b < 0, b ^ mask, b)


def _as_floats(values: Any, desc: Any) -> np.ndarray:
    if desc.physical_type == P.FIXED_LEN_BYTE_ARRAY:   # FLOAT16
        return np.ascontiguousarray(values).view("<f2").ravel()
    return np.asarray(values)


def compare_total_order(ck: Checker, ch: ChunkState, lo_raw: bytes, hi_raw: bytes, values: Any, what: str,
                        where: dict[str, Any]) -> None:
    """Check one pair of bounds of a total-order column against its non-null values."""
    from parquet_core.validation.values import MAX_BELOW, MIN_ABOVE

    if len(lo_raw) not in _WIDTH or len(hi_raw) != len(lo_raw):
        return   # the width rule reports it
    ftype, itype = _WIDTH[len(lo_raw)]
    bounds = np.frombuffer(lo_raw + hi_raw, ftype)
    floats = _as_floats(values, ch.desc)
    numbers = floats[~np.isnan(floats)]
    if not len(numbers):
        return   # every value NaN (or none): NaN bounds are what the spec asks for
    if np.isnan(bounds).any():
        ck.report_chunk(TOTAL_ORDER, ch, f"{what}: a bound is NaN ({bounds.tolist()}) but {len(numbers)} values are "
                        "not", **where)
        return
    keys = _keys(numbers.astype(ftype).view(itype))
    lo_k, hi_k = _keys(bounds.view(itype))
    if lo_k > keys.min():
        ck.report_chunk(MIN_ABOVE, ch, f"{what}: expected min <= {quoted(numbers[keys.argmin()])} in total order, found "
                        f"{quoted(bounds[0])}", **where)
    if hi_k < keys.max():
        ck.report_chunk(MAX_BELOW, ch, f"{what}: expected max >= {quoted(numbers[keys.argmax()])} in total order, found "
                        f"{quoted(bounds[1])}", **where)
