"""Counting sequences 0, 1, 2 ... shared read-only, and their bit-packed bytes.

A column of distinct values (ids, timestamps, random doubles) written with a
dictionary has its entries in order of first appearance, so its dictionary
indices are 0, 1, 2 ... n-1: the values are the dictionary itself.  Decoders
recognise such pages from their packed bytes (:func:`packed_counting`, one byte
comparison instead of an unpack) and hand back :func:`counting`, which later
stages recognise by :func:`is_counting` without looking at the values (no range
check, no gather).

Both caches grow on demand and are bounded (:data:`MAX_COUNT`): longer
sequences are not cached (the callers then take their general path).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.bitpack import pack_bits

__all__ = ["MAX_COUNT", "counting", "is_counting", "packed_counting"]

#: The longest counting sequence cached (int32: 4 bytes a value; packed: w bits a value).
MAX_COUNT = 1 << 22

_LOCK = threading.Lock()
_COUNT: npt.NDArray[np.int32] = np.arange(0, dtype=np.int32)
_PACKED: dict[int, npt.NDArray[np.uint8]] = {}


def _grown(n: int) -> int:
    size = 1 << 14
    while size < n:
        size <<= 1
    return min(size, MAX_COUNT)


def counting(n: int) -> npt.NDArray[np.int32] | None:
    """A read-only int32 view of ``0 .. n-1`` (shared), or None past :data:`MAX_COUNT`."""
    global _COUNT
    if n > MAX_COUNT:
        return None
    base = _COUNT
    if base.size < n:
        with _LOCK:
            base = _COUNT
            if base.size < n:
                base = np.arange(_grown(n), dtype=np.int32)
                base.flags.writeable = False
                _COUNT = base
    return base[:n]


def is_counting(idx: Any) -> bool:
    """Whether *idx* is a view :func:`counting` gave (so holds ``0 .. len-1``)."""
    # a view of the shared array, unit stride, and (its values being their positions) starting
    # at its first entry
    return (type(idx) is np.ndarray and idx.base is _COUNT and idx.strides == (4,)
            and (idx.size == 0 or idx[0] == 0))


def packed_counting(w: int, n: int) -> npt.NDArray[np.uint8] | None:
    """The LSB-first *w*-bit packed bytes of ``0 .. m-1`` for some ``m >= n`` (shared,
    read-only; value ``v`` of a multiple of 8 starts at byte ``v * w // 8``), or None
    when ``n`` exceeds ``2 ** w`` or :data:`MAX_COUNT`."""
    if not 0 < w <= 32 or n > (1 << w) or n > MAX_COUNT:
        return None
    got = _PACKED.get(w)
    if got is not None and got.size * 8 >= n * w:
        return got
    with _LOCK:
        got = _PACKED.get(w)
        if got is None or got.size * 8 < n * w:
            m = min(_grown(n), 1 << w)
            got = pack_bits(np.arange(m, dtype=np.uint64), w, validate=False)
            got.flags.writeable = False
            _PACKED[w] = got
    return got
