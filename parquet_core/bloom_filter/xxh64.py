"""XXH64 (seed 0) over whole numpy arrays of values, with no per-value Python loop.

Parquet Bloom filters hash every value with XXH64, seed 0, as defined by
the xxHash specification version 0.1.1.  One hash, written out for an input
of ``L`` bytes (all arithmetic on unsigned 64-bit words, wrapping)::

    L >= 32:  four accumulators  v1 = P1 + P2, v2 = P2, v3 = 0, v4 = -P1
              each whole 32-byte stripe feeds one 8-byte little-endian lane
              to each accumulator:   v = rotl(v + lane * P2, 31) * P1
              h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)
              then for each v:       h = (h ^ round(0, v)) * P1 + P4
    L < 32:   h = P5
    h += L
    the rest (L mod 32 bytes), front to back:
       each 8-byte lane x:   h = rotl(h ^ round(0, x), 27) * P1 + P4
       one 4-byte word  x:   h = rotl(h ^ (x * P1), 23) * P2 + P3
       each single byte x:   h = rotl(h ^ (x * P5), 11) * P1
    avalanche:  h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32

Every step works on one array holding the state of many values at once.
Values of one width share the same sequence of steps, so a fixed width
(INT32, INT64, INT96, FIXED_LEN_BYTE_ARRAY rows) is a straight line of array
operations.  Byte arrays of mixed lengths run in lockstep (see
:func:`xxh64_byte_arrays`).
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays

__all__ = ["xxh64_u32", "xxh64_u64", "xxh64_rows", "xxh64_byte_arrays", "xxh64_bytes"]

U64 = npt.NDArray[np.uint64]

# The five primes of the xxHash specification (64-bit variant).
P1: Final = np.uint64(0x9E3779B185EBCA87)
P2: Final = np.uint64(0xC2B2AE3D27D4EB4F)
P3: Final = np.uint64(0x165667B19E3779F9)
P4: Final = np.uint64(0x85EBCA77C2B2AE63)
P5: Final = np.uint64(0x27D4EB2F165667C5)
_MASK: Final = (1 << 64) - 1
# Initial accumulators of seed 0 (computed on Python ints: numpy warns when a scalar wraps).
_V1: Final = np.uint64((int(P1) + int(P2)) & _MASK)
_V4: Final = np.uint64(-int(P1) & _MASK)

#: Values at least this long are hashed one by one with the ``xxhash``
#: package when it is installed: a long value is a long sequential chain of
#: stripes, which lockstep over values cannot shorten, while one C call per
#: value costs little next to its bytes.
LONG_VALUE: Final = 512


def _rotl(x: U64, r: int) -> U64:
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def _round(acc: U64, lane: U64) -> U64:
    """One accumulator round: ``rotl(acc + lane * P2, 31) * P1`` (new array)."""
    t = lane * P2
    t += acc
    t = _rotl(t, 31)
    t *= P1
    return t


def _lane_round(lane: U64) -> U64:
    """``round(0, lane)``."""
    t = lane * P2
    t = _rotl(t, 31)
    t *= P1
    return t


def _mix8(h: U64, lane: U64) -> U64:
    """Fold one 8-byte tail lane into *h*."""
    h = h ^ _lane_round(lane)
    h = _rotl(h, 27)
    h *= P1
    h += P4
    return h


def _mix4(h: U64, word: npt.NDArray[np.uint32]) -> U64:
    """Fold one 4-byte tail word into *h*."""
    h = h ^ (word.astype(np.uint64) * P1)
    h = _rotl(h, 23)
    h *= P2
    h += P3
    return h


def _mix1(h: U64, byte: npt.NDArray[np.uint8]) -> U64:
    """Fold one tail byte into *h*."""
    h = h ^ (byte.astype(np.uint64) * P5)
    h = _rotl(h, 11)
    h *= P1
    return h


def _avalanche(h: U64) -> U64:
    h ^= h >> np.uint64(33)
    h *= P2
    h ^= h >> np.uint64(29)
    h *= P3
    h ^= h >> np.uint64(32)
    return h


def _converge(v1: U64, v2: U64, v3: U64, v4: U64) -> U64:
    """Merge the four stripe accumulators into one state."""
    h = _rotl(v1, 1) + _rotl(v2, 7)
    h += _rotl(v3, 12)
    h += _rotl(v4, 18)
    for v in (v1, v2, v3, v4):
        h ^= _lane_round(v)
        h *= P1
        h += P4
    return h


def _start(n: int) -> tuple[U64, U64, U64, U64]:
    """The four accumulators of seed 0, one slot per value."""
    return (np.full(n, _V1, dtype=np.uint64), np.full(n, P2, dtype=np.uint64),
            np.zeros(n, dtype=np.uint64), np.full(n, _V4, dtype=np.uint64))


def xxh64_u32(values: npt.ArrayLike) -> U64:
    """XXH64 of 4-byte values (INT32, FLOAT): any 4-byte dtype, hashed as its little-endian bytes."""
    arr = np.asarray(values)
    if arr.dtype.itemsize != 4:
        raise ValueError(f"expected 4-byte values, got dtype {arr.dtype}")
    word = np.ascontiguousarray(arr.reshape(-1).astype(arr.dtype.newbyteorder("<"), copy=False)).view("<u4")
    h = np.full(word.size, P5 + np.uint64(4), dtype=np.uint64)
    return _avalanche(_mix4(h, word))


def xxh64_u64(values: npt.ArrayLike) -> U64:
    """XXH64 of 8-byte values (INT64, DOUBLE): any 8-byte dtype, hashed as its little-endian bytes."""
    arr = np.asarray(values)
    if arr.dtype.itemsize != 8:
        raise ValueError(f"expected 8-byte values, got dtype {arr.dtype}")
    lane = np.ascontiguousarray(arr.reshape(-1).astype(arr.dtype.newbyteorder("<"), copy=False)).view("<u8")
    h = np.full(lane.size, P5 + np.uint64(8), dtype=np.uint64)
    return _avalanche(_mix8(h, lane.astype(np.uint64)))


def _lanes(block: npt.NDArray[np.uint8], start: int, size: int) -> npt.NDArray[np.generic]:
    """Columns ``start:start+size`` of a 2-D byte array as one little-endian word per row."""
    dtype = "<u8" if size == 8 else "<u4"
    return np.ascontiguousarray(block[:, start:start + size]).view(dtype)[:, 0]


def xxh64_rows(rows: npt.NDArray[np.uint8]) -> U64:
    """XXH64 of every row of an ``(n, w)`` uint8 array (INT96 with w = 12, FIXED_LEN_BYTE_ARRAY)."""
    rows = np.asarray(rows)
    if rows.ndim != 2 or rows.dtype != np.uint8:
        raise ValueError(f"expected a 2-D uint8 array of rows, got {rows.dtype} {rows.shape}")
    n, w = rows.shape
    stripes = w // 32
    if stripes:
        v1, v2, v3, v4 = _start(n)
        # One iteration per 32-byte stripe of the (common) width, not per value.
        for s in range(stripes):
            lanes = np.ascontiguousarray(rows[:, 32 * s:32 * s + 32]).view("<u8")
            v1 = _round(v1, lanes[:, 0])
            v2 = _round(v2, lanes[:, 1])
            v3 = _round(v3, lanes[:, 2])
            v4 = _round(v4, lanes[:, 3])
        h = _converge(v1, v2, v3, v4)
    else:
        h = np.full(n, P5, dtype=np.uint64)
    h += np.uint64(w)
    pos = 32 * stripes
    while pos + 8 <= w:
        h = _mix8(h, _lanes(rows, pos, 8).astype(np.uint64))
        pos += 8
    if pos + 4 <= w:
        h = _mix4(h, _lanes(rows, pos, 4))
        pos += 4
    while pos < w:
        h = _mix1(h, rows[:, pos])
        pos += 1
    return _avalanche(h)


def _windows(padded: npt.NDArray[np.uint8], positions: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """The 32 bytes starting at each position, as a contiguous ``(k, 32)`` array."""
    view = np.lib.stride_tricks.as_strided(padded, shape=(len(padded) - 31, 32), strides=(1, 1),
                                           writeable=False)
    return np.take(view, positions, axis=0)


def _stripes(padded: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
             nstripes: npt.NDArray[np.int64]) -> U64:
    """Stripe phase for values of at least 32 bytes, all stepped in lockstep.

    Values are sorted by stripe count, longest first, so the values still
    running at stripe ``s`` are always a prefix and no mask is needed.
    Returns the converged state, in the order of *starts*.
    """
    order = np.argsort(-nstripes, kind="stable")
    st = starts[order]
    counts = nstripes[order]
    v1, v2, v3, v4 = _start(len(order))
    # active[s] = how many values have more than s stripes.
    active = np.searchsorted(-counts, -np.arange(int(counts[0])), side="left")
    # One iteration per stripe position; each works on every value long enough.
    for s, k in enumerate(active.tolist()):
        lanes = _windows(padded, st[:k] + 32 * s).view("<u8")
        v1[:k] = _round(v1[:k], lanes[:, 0])
        v2[:k] = _round(v2[:k], lanes[:, 1])
        v3[:k] = _round(v3[:k], lanes[:, 2])
        v4[:k] = _round(v4[:k], lanes[:, 3])
    out = np.empty(len(order), dtype=np.uint64)
    out[order] = _converge(v1, v2, v3, v4)
    return out


def _hash_short_and_medium(data: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                           lens: npt.NDArray[np.int64]) -> U64:
    """XXH64 of the values ``data[starts[i]:starts[i] + lens[i]]``, all in lockstep."""
    n = len(starts)
    # 32 zero bytes of padding let every 32-byte window be read without bounds checks.
    padded = np.concatenate([data, np.zeros(32, dtype=np.uint8)])
    nstripes = lens >> 5
    h = np.full(n, P5, dtype=np.uint64)
    longer = np.flatnonzero(nstripes)
    if len(longer):
        h[longer] = _stripes(padded, starts[longer], nstripes[longer])
    h += lens.astype(np.uint64)
    rest = lens & 31
    tail = _windows(padded, starts + (nstripes << 5))  # (n, 32): the last rest bytes, then junk
    lanes8 = tail.view("<u8")
    for j in range(3):  # up to three 8-byte lanes
        take = rest >= 8 * (j + 1)
        h = np.where(take, _mix8(h, lanes8[:, j]), h)
    rows = np.arange(n)
    full8 = rest >> 3
    take = (rest & 4) != 0
    h = np.where(take, _mix4(h, tail.view("<u4")[rows, 2 * full8]), h)
    first_byte = rest & ~3
    for j in range(3):  # up to three single bytes
        take = (rest & 3) > j
        h = np.where(take, _mix1(h, tail[rows, np.minimum(first_byte + j, 31)]), h)
    return _avalanche(h)


def xxh64_byte_arrays(values: ByteArrays) -> U64:
    """XXH64 of every value of a :class:`ByteArrays` (no length prefix).

    All values step through the algorithm together: first the 32-byte stripes
    (values sorted by stripe count so the running ones form a prefix), then
    the tail of up to 31 bytes, read as one 32-byte window per value, where
    each of the seven possible tail steps is applied under a mask.  Values of
    :data:`LONG_VALUE` bytes or more go to the ``xxhash`` package one by one
    when it is importable.
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    base = int(values.offsets[0])
    data = np.asarray(values.data[base:int(values.offsets[-1])], dtype=np.uint8)
    starts = np.asarray(values.offsets[:-1], dtype=np.int64) - base
    lens = np.diff(np.asarray(values.offsets, dtype=np.int64))
    long_idx = np.flatnonzero(lens >= LONG_VALUE)
    single = _single_value_hasher() if len(long_idx) else None
    if single is None:
        return _hash_short_and_medium(data, starts, lens)
    out = np.empty(n, dtype=np.uint64)
    short_idx = np.flatnonzero(lens < LONG_VALUE)
    if len(short_idx):
        out[short_idx] = _hash_short_and_medium(data, starts[short_idx], lens[short_idx])
    buf = memoryview(data)
    # One C call per long value (see LONG_VALUE); the loop runs only over long values.
    out[long_idx] = [single(buf[s:s + k]) for s, k in zip(starts[long_idx].tolist(),
                                                         lens[long_idx].tolist())]
    return out


def _single_value_hasher():  # type: ignore[no-untyped-def]
    """``xxhash.xxh64_intdigest`` when the package is installed, else None."""
    try:
        import xxhash
    except ImportError:  # pragma: no cover - xxhash is a declared dependency
        return None
    return xxhash.xxh64_intdigest


def xxh64_bytes(value: bytes | bytearray | memoryview) -> int:
    """XXH64 of one byte string, as a Python int (a convenience for single lookups)."""
    raw = bytes(value)
    one = ByteArrays(np.array([0, len(raw)], dtype=np.int64), np.frombuffer(raw, dtype=np.uint8))
    return int(xxh64_byte_arrays(one)[0])
