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
operations.  Byte arrays of mixed lengths run in lockstep, the stripes
grouped by stripe count and the tail steps masked (see
:func:`xxh64_byte_arrays`).
"""

from __future__ import annotations

from typing import Final, Literal, overload

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
#: package when it is installed.  A long value is a long sequential chain of
#: stripes that lockstep over values cannot shorten (numpy runs a stripe
#: round at roughly 0.5 GB/s, the C code at several GB/s), so from about 128
#: bytes on one C call per value is the faster of the two (measured with
#: ``benchmarks/bench_bloom.py``); the loop then visits long values only.
LONG_VALUE: Final = 128


def _rotl(x: U64, r: int) -> U64:
    """Rotate left by *r* bits, in place (returns *x*)."""
    high = x << np.uint64(r)
    x >>= np.uint64(64 - r)
    x |= high
    return x


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
    h = _rotl(v1.copy(), 1)
    h += _rotl(v2.copy(), 7)
    h += _rotl(v3.copy(), 12)
    h += _rotl(v4.copy(), 18)
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


def _lane64(block: npt.NDArray[np.uint8], start: int) -> U64:
    """Columns ``start:start+8`` of a 2-D byte array as one little-endian word per row."""
    return np.ascontiguousarray(block[:, start:start + 8]).view(np.dtype("<u8"))[:, 0]


def _lane32(block: npt.NDArray[np.uint8], start: int) -> npt.NDArray[np.uint32]:
    """Columns ``start:start+4`` of a 2-D byte array as one little-endian word per row."""
    return np.ascontiguousarray(block[:, start:start + 4]).view(np.dtype("<u4"))[:, 0]


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
        h = _mix8(h, _lane64(rows, pos).astype(np.uint64))
        pos += 8
    if pos + 4 <= w:
        h = _mix4(h, _lane32(rows, pos))
        pos += 4
    while pos < w:
        h = _mix1(h, rows[:, pos])
        pos += 1
    return _avalanche(h)


@overload
def _word_view(padded: npt.NDArray[np.uint8], size: Literal[8]) -> U64: ...


@overload
def _word_view(padded: npt.NDArray[np.uint8], size: Literal[4]) -> npt.NDArray[np.uint32]: ...


def _word_view(padded: npt.NDArray[np.uint8], size: Literal[4, 8]) -> U64 | npt.NDArray[np.uint32]:
    """A view whose element ``p`` is the little-endian word of *size* bytes starting at byte ``p``.

    Overlapping, unaligned elements (a byte stride of 1): gathering ``view[positions]``
    reads one word per value with no index per byte.
    """
    dtype = np.dtype("<u8" if size == 8 else "<u4")
    return np.ndarray(shape=(len(padded) - size + 1,), dtype=dtype, buffer=padded, offset=0,
                      strides=(1,))


def _subset(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.intp] | slice:
    """Indexes where *mask* holds, ascending (a plain slice when it holds everywhere)."""
    idx = np.flatnonzero(mask)
    return slice(None) if len(idx) == len(mask) else idx


def _stripes(u64_at: U64, starts: npt.NDArray[np.int64],
             nstripes: npt.NDArray[np.int64]) -> U64:
    """Stripe phase for values of at least 32 bytes, group by group.

    Values with the same stripe count ``c`` form a group.  A group's stripe
    words are gathered at once into a ``(k, 4c)`` matrix, row by row from
    the data (each row is one value's consecutive bytes), and the four
    accumulators of every value are one row of a ``(k, 4)`` array, so a stripe
    is one round on two ``(k, 4)`` arrays.  Returns the converged state, in
    the order of *starts*.
    """
    out = np.empty(len(starts), dtype=np.uint64)
    order = np.argsort(nstripes, kind="stable")  # groups are runs; positions ascend inside
    counts = np.bincount(nstripes)
    edge = 0
    # One iteration per distinct stripe count, then one per stripe of that count.
    for c in np.flatnonzero(counts).tolist():
        group = order[edge:edge + int(counts[c])]
        edge += int(counts[c])
        words = u64_at[starts[group][:, None] + np.arange(0, 32 * c, 8, dtype=np.int64)]
        words = words.astype(np.uint64, copy=False)
        acc = np.stack(_start(len(group)), axis=1)
        for s in range(c):
            acc = _round(acc, words[:, 4 * s:4 * s + 4])
        out[group] = _converge(acc[:, 0], acc[:, 1], acc[:, 2], acc[:, 3])
    return out


def _tail(h: U64, padded: npt.NDArray[np.uint8], u64_at: U64,
          u32_at: npt.NDArray[np.uint32], tail_at: npt.NDArray[np.int64],
          rest: npt.NDArray[np.int64]) -> U64:
    """Fold the last ``rest`` (0..31) bytes of every value, starting at ``tail_at``, into *h*.

    Seven possible steps, each applied to the values that need it (taken in
    their original order so the data is read front to back): up to three
    8-byte lanes, one 4-byte word, up to three single bytes.
    """
    for j in range(3):
        sel = _subset(rest >= 8 * (j + 1))
        h[sel] = _mix8(h[sel], u64_at[tail_at[sel] + 8 * j].astype(np.uint64, copy=False))
    sel = _subset((rest & 4) != 0)
    h[sel] = _mix4(h[sel], u32_at[tail_at[sel] + (rest[sel] & 24)])
    first = tail_at + (rest & 28)
    for j in range(3):
        sel = _subset((rest & 3) > j)
        h[sel] = _mix1(h[sel], padded[first[sel] + j])
    return h


def _hash_short_and_medium(data: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                           lens: npt.NDArray[np.int64]) -> U64:
    """XXH64 of the values ``data[starts[i]:starts[i] + lens[i]]``, all in lockstep."""
    n = len(starts)
    # 8 zero bytes of padding let a word be read at any byte of the data.
    padded = np.concatenate([data, np.zeros(8, dtype=np.uint8)])
    u64_at = _word_view(padded, 8)
    u32_at = _word_view(padded, 4)
    nstripes = lens >> 5
    h = np.full(n, P5, dtype=np.uint64)
    longer = np.flatnonzero(nstripes)
    if len(longer):
        h[longer] = _stripes(u64_at, starts[longer], nstripes[longer])
    h += lens.astype(np.uint64)
    return _avalanche(_tail(h, padded, u64_at, u32_at, starts + (nstripes << 5), lens & 31))


def xxh64_byte_arrays(values: ByteArrays) -> U64:
    """XXH64 of every value of a :class:`ByteArrays` (no length prefix).

    Values step through the algorithm together: first the 32-byte stripes,
    one group per stripe count (see :func:`_stripes`), then the tail of up to
    31 bytes, one masked step at a time (see :func:`_tail`).  Values of
    :data:`LONG_VALUE` bytes or more go to the ``xxhash`` package one by one
    when it is importable.
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    base = int(values.offsets[0])
    data = np.asarray(values.data[base:int(values.offsets[-1])], dtype=np.uint8)
    starts = np.asarray(values.offsets[:-1], dtype=np.int64) - base
    offsets = np.asarray(values.offsets, dtype=np.int64)
    lens = offsets[1:] - offsets[:-1]
    long_idx = np.flatnonzero(lens >= LONG_VALUE)
    single = _single_value_hasher() if len(long_idx) else None
    if single is None:
        return _hash_short_and_medium(data, starts, lens)
    out = np.empty(n, dtype=np.uint64)
    short_idx = np.flatnonzero(lens < LONG_VALUE)
    if len(short_idx):
        out[short_idx] = _hash_short_and_medium(data, starts[short_idx], lens[short_idx])
    buf = data.data
    # One C call per long value (see LONG_VALUE); the loop runs only over long values.
    out[long_idx] = [single(buf[s:s + k]) for s, k in zip(starts[long_idx].tolist(),
                                                         lens[long_idx].tolist())]
    return out


def _single_value_hasher():
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
