"""PLAIN encoding (Encoding.PLAIN = 0) for all eight physical types.

Spec: parquet-format ``Encodings.md``, "Plain: (PLAIN = 0)".  Values are
stored back to back, little endian::

    BOOLEAN        bit-packed LSB first, 1 bit per value (last byte padded)
    INT32 / FLOAT  | v0 (4) | v1 (4) | ...
    INT64 / DOUBLE | v0 (8) | v1 (8) | ...
    INT96          | v0 (12) | v1 (12) | ...
    FIXED_LEN_BYTE_ARRAY  | v0 (type_length) | v1 (type_length) | ...
    BYTE_ARRAY     | len0 (u32 LE) | bytes0 | len1 (u32 LE) | bytes1 | ...

Returned representations: BOOLEAN ``np.bool_``; INT32 ``<i4``; INT64 ``<i8``;
FLOAT ``<f4``; DOUBLE ``<f8`` (zero-copy, possibly read-only views of the
input); INT96 ``(n, 12)`` uint8 and FIXED_LEN_BYTE_ARRAY ``(n, type_length)``
uint8 (zero-copy views); BYTE_ARRAY a :class:`ByteArrays` (copied data).

BYTE_ARRAY is the one inherently sequential case: the start of value ``k+1``
is known only after reading the length of value ``k``.  The decoder avoids a
per-value Python loop with a *lane walk*:

1. the buffer is cut into ``T ~ sqrt(count)`` equal byte regions; each lane
   picks, in a small window at its region start, a position from which 4
   length hops stay inside the buffer, preferring one whose first hop lands
   on another such position in the window (true value starts chain to the
   next value; 4 bytes of text read as a length overshoot the page);
2. all lanes hop ``pos += 4 + u32le(buf[pos:pos+4])`` together, in batches
   of 4 numpy calls per hop with no per-hop checks (lanes just run on past
   their region; those positions are dropped); the position where lane ``t``
   leaves its region is the true chain's first position in region ``t + 1``
   *if* lane ``t`` itself was on the chain;
3. lanes are stitched: lane ``t + 1`` is accepted when it started at lane
   ``t``'s exit, or when its path passes through that exit (a false start
   that merged into the chain); the rare region that neither covers is
   re-walked with a scalar loop from the true entry;
4. a final vectorised check proves the chain (first start 0, every start
   equals the previous start + 4 + length, every value inside the buffer),
   so the heuristics in steps 1-3 only ever affect speed, never results;
   if it fails, the scalar loop re-decodes and raises the precise error.

Cost: ~hops-per-lane numpy steps plus linear numpy work, i.e. ~O(sqrt(n))
Python-level calls instead of n; about 4-7x the scalar loop for pages of
20k-1M short strings (see ``benchmarks/bench_encodings.py``).  Adversarial
pages (e.g. all-empty strings, where every offset looks like a valid start)
degrade to scalar speed, never worse than the scalar loop plus the attempt.

We first tried the textbook alternative (pointer-jumping tables ``J[p]`` for
every byte position, doubled to a stride S, then a scalar walk over anchors)
and measured it *slower* than a plain ``struct`` loop: every doubling is a
random gather over all B byte positions, while the chain only has ``count``
entries.  The lane walk touches each value O(1) times.  Small pages and
pages of long values (few values per byte) use the scalar loop, which is
already cheap per byte there.

The encoders (:func:`encode_plain`) live in
:mod:`parquet_core.encodings.plain_encoder` and are re-exported here.

Edge cases: ``count == 0`` reads nothing; a buffer shorter than the values
need, a length running past the end, or a FIXED_LEN_BYTE_ARRAY without a
non-negative type_length -> ParquetFormatError; bytes after the last value are
ignored (the page may be padded).
"""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core._kernels.bitpack import as_uint8
from parquet_core.constants import PhysicalType
from parquet_core.encodings.plain_encoder import encode_plain, encode_plain_byte_array
from parquet_core.errors import ParquetFormatError

__all__ = [
    "FIXED_WIDTH",
    "decode_plain",
    "decode_plain_byte_array",
    "encode_plain",
    "encode_plain_byte_array",
]

#: Bytes per value of the fixed-width numeric types.
FIXED_WIDTH: dict[int, int] = {
    PhysicalType.INT32: 4,
    PhysicalType.INT64: 8,
    PhysicalType.INT96: 12,
    PhysicalType.FLOAT: 4,
    PhysicalType.DOUBLE: 8,
}
_NUMERIC_DTYPE: dict[int, str] = {
    PhysicalType.INT32: "<i4",
    PhysicalType.INT64: "<i8",
    PhysicalType.FLOAT: "<f4",
    PhysicalType.DOUBLE: "<f8",
}

# Lane-walk tuning, measured on 3k-1M strings of 0-80 bytes: the walk costs
# ~hops * (numpy call overhead) + lanes * window work, minimised near
# lanes = sqrt(count); below ~2-3k values the scalar loop is as fast.
_SCALAR_MAX_COUNT = 2048         # small pages: the scalar loop wins outright
_SCALAR_MIN_AVG_BYTES = 256      # long values: the scalar loop is fast per byte
_PLAUSIBLE_HOPS = 4              # hops a lane start must survive


def _need(arr: npt.NDArray[np.uint8], nbytes: int, count: int, what: str) -> None:
    if nbytes > arr.size:
        raise ParquetFormatError(
            f"PLAIN {what}: {count} values need {nbytes} bytes, the page has {arr.size}")


def decode_plain(buf: Any, count: int, physical_type: int,
                 type_length: int | None = None) -> Any:
    """Decode ``count`` PLAIN values of ``physical_type`` from the start of ``buf``.

    Parameters
    ----------
    buf:
        Bytes-like or uint8 array holding the values section of a page.
    count:
        Number of (non-null) values to decode.
    physical_type:
        A :class:`~parquet_core.constants.PhysicalType` value.
    type_length:
        Byte width, required for FIXED_LEN_BYTE_ARRAY.

    Returns
    -------
    numpy.ndarray or ByteArrays
        See the module docstring for the representation of each type.
    """
    pt = physical_type
    if pt in _NUMERIC_DTYPE and count >= 0:
        # Zero-copy fast path for the common page buffers (no uint8 view first).
        if isinstance(buf, (bytes, bytearray)):
            nbytes = len(buf)
        elif isinstance(buf, memoryview) and buf.c_contiguous:
            nbytes = buf.nbytes
        else:
            nbytes = -1
        if nbytes >= 0:
            need = count * FIXED_WIDTH[pt]
            if need > nbytes:
                raise ParquetFormatError(
                    f"PLAIN {PhysicalType(pt).name}: {count} values need {need} bytes, "
                    f"the page has {nbytes}")
            return np.frombuffer(buf, dtype=_NUMERIC_DTYPE[pt], count=count)
    arr = as_uint8(buf)
    if count < 0:
        raise ParquetFormatError(f"PLAIN: negative value count {count}")
    if pt == PhysicalType.BOOLEAN:
        nbytes = (count + 7) >> 3
        _need(arr, nbytes, count, "BOOLEAN")
        return np.unpackbits(arr[:nbytes], count=count, bitorder="little").view(np.bool_)
    if pt in _NUMERIC_DTYPE:
        width = FIXED_WIDTH[pt]
        _need(arr, count * width, count, PhysicalType(pt).name)
        return np.frombuffer(arr, dtype=_NUMERIC_DTYPE[pt], count=count)
    if pt == PhysicalType.INT96:
        _need(arr, count * 12, count, "INT96")
        return arr[: count * 12].reshape(count, 12)
    if pt == PhysicalType.FIXED_LEN_BYTE_ARRAY:
        if type_length is None or type_length < 0:
            raise ParquetFormatError(
                f"PLAIN FIXED_LEN_BYTE_ARRAY needs a non-negative type_length, got {type_length}")
        _need(arr, count * type_length, count, "FIXED_LEN_BYTE_ARRAY")
        return arr[: count * type_length].reshape(count, type_length)
    if pt == PhysicalType.BYTE_ARRAY:
        return decode_plain_byte_array(arr, count)[0]
    raise ParquetFormatError(f"PLAIN: unknown physical type {physical_type}")


# --------------------------------------------------------------------------------------
# BYTE_ARRAY
# --------------------------------------------------------------------------------------

def _overrun(k: int, pos: int, length: int | None, size: int) -> ParquetFormatError:
    if length is None:
        return ParquetFormatError(
            f"PLAIN BYTE_ARRAY value {k}: its 4-byte length at byte {pos} runs past the "
            f"end of the page ({size} bytes)")
    return ParquetFormatError(
        f"PLAIN BYTE_ARRAY value {k} at byte {pos}: length {length} runs past the end "
        f"of the page ({size} bytes)")


def _scalar_walk(arr: npt.NDArray[np.uint8], pos: int, stop: int, count: int,
                 first_index: int) -> tuple[list[int], int]:
    """Hop from ``pos`` while ``pos < stop`` and fewer than ``count`` values were seen.

    Returns the visited value starts and the position after the last value.
    Kept as a Python loop because each step depends on the previous one;
    it only runs on small pages, long-value pages and re-walked regions.
    """
    size = arr.size
    unpack = struct.Struct("<I").unpack_from
    starts: list[int] = []
    append = starts.append
    k = first_index
    while pos < stop and len(starts) < count:
        if pos + 4 > size:
            raise _overrun(k, pos, None, size)
        (length,) = unpack(arr, pos)
        nxt = pos + 4 + length
        if nxt > size:
            raise _overrun(k, pos, length, size)
        append(pos)
        pos = nxt
        k += 1
    return starts, pos


def _lane_walk(arr: npt.NDArray[np.uint8], count: int) -> npt.NDArray[np.int64]:
    """Value starts of a PLAIN BYTE_ARRAY chain found with the lane walk.

    May return more than ``count`` starts (the tail of the page), or fewer
    when the page ends; results are verified by the caller.
    """
    size = arr.size
    last = size - 4                       # last position where a length can be read
    u32 = np.ndarray((size - 3,), dtype="<u4", buffer=arr, offset=0, strides=(1,))
    lanes = max(1, min(math.isqrt(count), size // 64))
    region = size // lanes
    begin = np.arange(lanes, dtype=np.int64) * region
    end = np.empty(lanes, dtype=np.int64)
    end[:-1] = begin[1:]
    end[-1] = size

    # 1. lane starts.  A window position "survives" if a few hops from it stay
    # in the buffer.  Survival alone is not enough: a false start just before
    # a length field (reading e.g. [char, len, 0, 0]) often lands on the true
    # chain later and then survives forever.  A true start's first hop lands
    # on the next value start, itself a survivor inside the window, while a
    # false start's hop (a length of >= 100 for text) leaves the window; so
    # prefer the first survivor whose first hop hits another survivor.
    avg = size / max(count, 1)
    window = int(min(region, max(16, 3 * avg + 8)))
    cand = begin[:, None] + np.arange(window, dtype=np.int64)[None, :]
    alive = np.ones(cand.shape, dtype=bool)
    q = cand
    hop1 = cand
    for k in range(_PLAUSIBLE_HOPS):
        at_end = q == size
        nxt = q + 4 + u32[np.minimum(q, last)]
        alive &= at_end | ((q <= last) & (nxt <= size))
        q = np.where(at_end, q, np.minimum(nxt, size + 1))
        if k == 0:
            hop1 = q
    rel = hop1 - begin[:, None]
    inside = rel < window
    row = np.arange(lanes)[:, None]
    chained = alive & inside & alive[row, np.where(inside, rel, 0)]
    pick = np.where(chained.any(axis=1)[:, None], chained, alive)
    starts = np.where(pick.any(axis=1), cand[np.arange(lanes), pick.argmax(axis=1)], begin)
    starts[0] = 0

    # 2. lockstep walk in batches of ``batch`` hops with four numpy calls per
    # hop and no per-hop checks: a lane simply runs on past its region (those
    # positions are dropped below) and reads lengths at clamped positions, so
    # a position past the end yields garbage that the final chain check
    # rejects.  Lanes that have not left their region walk another batch.
    # (``u32.take(..., mode="clip")`` would save a call but copies the whole
    # unaligned view on every call.)
    batch = int(1.25 * count / lanes) + 4
    pending = np.arange(lanes)
    q = starts
    exits = np.full(lanes, size + 1, dtype=np.int64)
    by_lane_parts: list[tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]] = []
    while pending.size:
        steps = np.empty((batch + 1, pending.size), dtype=np.int64)
        steps[0] = q
        clamped = np.empty(pending.size, dtype=np.int64)
        for k in range(batch):
            row = steps[k + 1]
            np.minimum(steps[k], last, out=clamped)
            np.add(steps[k], u32[clamped], out=row)
            row += 4
        inside = steps < end[pending][None, :]
        first_out = inside.argmin(axis=0)            # first hop at/after the region end
        finished = ~inside[-1]
        exits[pending[finished]] = steps[first_out[finished], np.flatnonzero(finished)]
        by_lane_parts.append((pending, steps[:-1]))
        q = steps[-1, ~finished]
        pending = pending[~finished]
    if len(by_lane_parts) == 1:
        by_lane = np.ascontiguousarray(by_lane_parts[0][1].T)
    else:
        width = sum(part.shape[0] for _, part in by_lane_parts)
        by_lane = np.full((lanes, width), size + 2, dtype=np.int64)
        at = 0
        for lane_ids, part in by_lane_parts:
            by_lane[lane_ids, at:at + part.shape[0]] = part.T
            at += part.shape[0]
    # a lane's row is increasing; entries at/after its region end are not its own
    by_lane[by_lane >= end[:, None]] = size + 2
    k = by_lane.shape[1]

    # 3. stitch: lane t+1 continues lane t when it started exactly at t's exit
    linked = np.empty(lanes, dtype=bool)
    linked[0] = True
    linked[1:] = starts[1:] == exits[:-1]
    if linked.all():
        return by_lane[by_lane <= size]
    pieces: list[npt.NDArray[np.int64]] = []
    broken = np.flatnonzero(~linked)
    have = 0
    x = 0
    t = 0
    while t < lanes and have < count:
        if x >= size:  # chain ended (or broke: caught by the final check)
            break
        if x >= end[t]:  # a long value spans this whole region
            t += 1
            continue
        lane = by_lane[t]
        j = int(np.searchsorted(lane, x))
        if j < k and lane[j] == x:
            # lane t is on the chain from x on (it started there, or merged)
            b = np.searchsorted(broken, t, side="right")
            r = int(broken[b]) if b < broken.size else lanes
            block = by_lane[t:r]
            sel = block <= size
            sel[0, :j] = False
            got = block[sel]
            pieces.append(got)
            have += got.size
            x = int(exits[r - 1])
            t = r
            continue
        walked, x = _scalar_walk(arr, x, int(end[t]), count - have, have)
        pieces.append(np.asarray(walked, dtype=np.int64))
        have += len(walked)
        t += 1
    return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)


def decode_plain_byte_array(buf: Any, count: int) -> tuple[ByteArrays, int]:
    """Decode ``count`` length-prefixed BYTE_ARRAY values.

    Returns
    -------
    tuple[ByteArrays, int]
        The values and the number of bytes they occupy in ``buf``.
    """
    arr = as_uint8(buf)
    if count < 0:
        raise ParquetFormatError(f"PLAIN BYTE_ARRAY: negative value count {count}")
    if count == 0:
        return ByteArrays.empty(), 0
    size = arr.size
    if count * 4 > size:
        raise ParquetFormatError(
            f"PLAIN BYTE_ARRAY: {count} values need at least {4 * count} bytes, "
            f"the page has {size}")
    starts: npt.NDArray[np.int64]
    if count <= _SCALAR_MAX_COUNT or size >= _SCALAR_MIN_AVG_BYTES * count:
        walked, _ = _scalar_walk(arr, 0, size, count, 0)
        starts = np.asarray(walked, dtype=np.int64)
    else:
        starts = _lane_walk(arr, count)[:count]
    lengths = _verified_lengths(arr, starts, count)
    if lengths is None:
        # Either the page is malformed or the lanes missed; the scalar walk
        # raises the precise error (or, defensively, recovers).
        walked, _ = _scalar_walk(arr, 0, size, count, 0)
        if len(walked) < count:
            raise ParquetFormatError(
                f"PLAIN BYTE_ARRAY: the page holds only {len(walked)} of {count} values")
        starts = np.asarray(walked, dtype=np.int64)
        lengths = _verified_lengths(arr, starts, count)
        assert lengths is not None
    return _gather_values(arr, starts, lengths)


def _verified_lengths(arr: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                      count: int) -> npt.NDArray[np.int64] | None:
    """Lengths of a proven chain, or None: the proof that makes the lane walk exact.

    Checks that there are ``count`` starts, the first is 0, every value ends
    inside the buffer and each start is the previous start + 4 + length.
    """
    size = arr.size
    if starts.size < count or starts[0] != 0 or int(starts[-1]) > size - 4:
        return None
    u32 = np.ndarray((size - 3,), dtype="<u4", buffer=arr, offset=0, strides=(1,))
    lengths = u32[starts].astype(np.int64)
    ends = starts + 4 + lengths
    if int(ends[-1]) > size or not np.array_equal(starts[1:], ends[:-1]):
        return None
    return lengths


def _gather_values(arr: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                   lengths: npt.NDArray[np.int64]) -> tuple[ByteArrays, int]:
    """Drop the 4-byte length prefixes of a verified chain: one boolean compress."""
    stop = int(starts[-1] + 4 + lengths[-1])
    offsets = np.zeros(starts.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    # clear the 4 prefix bytes of every value with one unaligned uint32 scatter
    keep = np.ones(stop + 3, dtype=np.uint8)
    np.ndarray((stop,), dtype="<u4", buffer=keep, offset=0, strides=(1,))[starts] = 0
    return ByteArrays(offsets, arr[:stop][keep[:stop].view(np.bool_)]), stop
