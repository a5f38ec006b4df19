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
   with no per-hop checks (lanes just run on past their region; those
   positions are dropped).  Short values hop on the length's low byte only,
   two numpy calls per hop (a contiguous uint8 ``take`` through the view
   ``buf[4k:]``, which folds in the ``+ 4``, and an add); the kept positions
   are then shown to have zero high length bytes, else the walk reruns on
   full uint32 lengths (four calls per hop).  The position where lane ``t``
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

Whole chunks (:func:`decode_plain_byte_arrays_multi`): pyarrow writes pages
of ~20,000 values, and walking each page alone pays the lane setup and the
numpy call overhead 50 times per million values.  The multi-page decoder
lays the pages in one buffer (zero-copy when they already sit in order in
one buffer, as the pages of an uncompressed chunk do; otherwise one copy),
gives every page lanes in proportion to its size with its first lane pinned
at the page start (so no page boundary is ever guessed and bytes between or
after pages are never read as values), and walks all lanes together.  When
every lane links up the positions are each page's chain by construction
and only each page's last value needs checking (:func:`_chain_lengths`);
otherwise the full proof above runs.  The 4-byte prefixes are then dropped
with one overlapping-window copy (:func:`parquet_core._kernels.runs.gather_runs`:
a fixed-width window per value, each overwriting its predecessor's spill)
instead of a boolean compress over every byte.  Pages whose values all have
one length (ids, hashes) skip the walk: a strided view of the length
prefixes at stride ``4 + L`` proves the layout and one strided copy per
page extracts the values.  :func:`plan_plain_byte_arrays_multi` runs every
step but the copy, which the returned plan makes later into an output shared
with the column's other parts (its dictionary-encoded pages).

Lane starts (step 1) take the first hop from every window position at once;
the other three hops only from the positions still alive (in text, 4 bytes
of characters read as a length overshoot the page, so few are), which
halved the step on the ``lineitem`` comments (2.0 -> 0.9 ms for 497 lanes
of 113 positions).

The encoders (:func:`encode_plain`) live in
:mod:`parquet_core.encodings.plain_encoder` and are re-exported here.

Edge cases: ``count == 0`` reads nothing; a buffer shorter than the values
need, a length running past the end (lengths are read as uint32, so a
negative int32 length is one of these), or a FIXED_LEN_BYTE_ARRAY without a
non-negative type_length -> ParquetFormatError; bytes after the last value are
ignored (the page may be padded).
"""

from __future__ import annotations

import math
import struct
from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays, BytesPlan
from parquet_core._kernels.bitpack import as_uint8
from parquet_core._kernels.runs import gather_runs
from parquet_core.constants import PhysicalType
from parquet_core.encodings.plain_encoder import encode_plain, encode_plain_byte_array
from parquet_core.errors import ParquetFormatError

__all__ = [
    "FIXED_WIDTH",
    "decode_plain",
    "decode_plain_byte_array",
    "decode_plain_byte_arrays_multi",
    "encode_plain",
    "plan_plain_byte_arrays_multi",
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
#: ... unless there are more pages than this (the scalar loop costs ~7 us per page, the lane
#: walk ~230 us plus ~3 us per page: the 300 six-entry dictionaries of a run of small files
#: 2.2 ms scalar, 1.0 ms in lanes)
_SCALAR_MAX_PAGES = 48
_SCALAR_MIN_AVG_BYTES = 256      # long values: the scalar loop is fast per byte
_PLAUSIBLE_HOPS = 4              # hops a lane start must survive
_LANE_FACTOR = 1.0               # lanes = factor * sqrt(values)
_GATHER_PAD = 4096               # zero bytes after concatenated pages: room for copy windows


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
    shown = f"{length} ({length - 2**32} as int32)" if length >= 2**31 else str(length)
    return ParquetFormatError(
        f"PLAIN BYTE_ARRAY value {k} at byte {pos}: length {shown} runs past the end "
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
    view = arr.data
    starts: list[int] = []
    append = starts.append
    k = first_index
    while pos < stop and len(starts) < count:
        if pos + 4 > size:
            raise _overrun(k, pos, None, size)
        (length,) = unpack(view, pos)
        nxt = pos + 4 + length
        if nxt > size:
            raise _overrun(k, pos, length, size)
        append(pos)
        pos = nxt
        k += 1
    return starts, pos


def _u32_at_every_byte(arr: npt.NDArray[np.uint8], size: int) -> npt.NDArray[np.uint32]:
    """Unaligned little-endian uint32 view: element ``p`` is ``arr[p:p+4]`` (``p <= size-4``)."""
    return np.ndarray((size - 3,), dtype="<u4", buffer=arr, offset=0, strides=(1,))


def _lane_walk(arr: npt.NDArray[np.uint8], size: int, page_begin: npt.NDArray[np.int64],
               page_end: npt.NDArray[np.int64],
               counts: npt.NDArray[np.int64],
               low_byte: bool = True) -> tuple[npt.NDArray[np.int64], bool] | None:
    """Candidate value starts of every page (page order), found with the lane walk.

    ``arr[:size]`` holds the pages back to back (page ``p`` is
    ``[page_begin[p], page_end[p])``, every page has ``counts[p] >= 1``
    values).  Each page gets lanes in proportion to its size and its first
    lane starts at the page start, so a page boundary is never guessed.
    Returns exactly ``counts[p]`` positions per page and whether every lane
    linked up (then the positions are, by construction, each page's chain
    from its start and :func:`_chain_lengths` proves the rest), or None when
    a page yields fewer.  Stitched results are proven by
    :func:`_verified_lengths`.

    The steps: :func:`_lane_layout` (lanes per page and their regions),
    :func:`_lane_starts` (a plausible value start near each region's
    beginning), :func:`_walk_lanes` (every lane hops through its region in
    lockstep), then the lanes are joined here (step 3).
    """
    last = size - 4                       # last position where a length can be read
    u32 = _u32_at_every_byte(arr, size)
    total = int(counts.sum())
    npages = page_begin.size
    lanes_p, first_lane, last_lane, begin, end, region = _lane_layout(size, page_begin, page_end, total)
    starts = _lane_starts(u32, size, last, total, begin, end, int(region.max()), first_lane,
                          page_begin)
    batch = int(1.25 * float((counts / lanes_p).max())) + 4
    low = low_byte and 4 * batch < size
    exits, by_lane_parts, single = _walk_lanes(arr, u32, size, last, starts, end, batch, low)

    # 3. stitch: lane t+1 continues lane t when it started exactly at t's exit
    lanes = starts.size
    linked = np.empty(lanes, dtype=bool)
    linked[0] = True
    linked[1:] = starts[1:] == exits[:-1]
    linked[first_lane] = True
    if single is not None and linked.all():
        # one batch, every lane linked: the in-region positions read lane by
        # lane (a transposed boolean selection) are the chains of all pages
        steps, inside = single
        found = steps[:-1].T[inside[:-1].T]
        got = _first_per_page(found, page_begin, counts)
        return None if got is None else _exact_hops(arr, size, page_begin, page_end, counts,
                                                      got, low)
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
    if linked.all():
        found = by_lane[by_lane <= size]
        got = _first_per_page(found, page_begin, counts)
        return None if got is None else _exact_hops(arr, size, page_begin, page_end, counts,
                                                      got, low)
    if low:
        # lanes that did not link up on low bytes usually met a length of 256
        # or more: the walk on full lengths handles those at full speed
        return _lane_walk(arr, size, page_begin, page_end, counts, low_byte=False)
    pieces: list[npt.NDArray[np.int64]] = []
    for p in range(npages):  # per page: pages with a missed lane are re-stitched
        t0, t1 = int(first_lane[p]), int(last_lane[p]) + 1
        got = _stitch(arr, by_lane[t0:t1], starts[t0:t1], exits[t0:t1], end[t0:t1],
                      linked[t0:t1], int(page_begin[p]), int(counts[p]), size)
        if got is None or got.size < counts[p]:
            return None
        pieces.append(got[:int(counts[p])])
    return np.concatenate(pieces), False


def _lane_layout(size: int, page_begin: npt.NDArray[np.int64], page_end: npt.NDArray[np.int64],
                 total: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                                      npt.NDArray[np.int64], npt.NDArray[np.int64],
                                      npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Lanes per page (in proportion to its size, at least one, at most one per 64
    bytes), each page's first and last lane, and every lane's region ``[begin, end)``:
    equal slices of its page (``region`` bytes), the last one running to the page end."""
    npages = page_begin.size
    psize = page_end - page_begin
    want = max(1, min(int(_LANE_FACTOR * math.isqrt(total)), size // 64))
    lanes_p = np.clip(np.rint(want * psize / size).astype(np.int64), 1, None)
    lanes_p = np.minimum(lanes_p, np.maximum(psize // 64, 1))
    lanes = int(lanes_p.sum())
    lane_page = np.repeat(np.arange(npages), lanes_p)
    first_lane = np.zeros(npages, dtype=np.int64)
    np.cumsum(lanes_p[:-1], out=first_lane[1:])
    rank = np.arange(lanes, dtype=np.int64) - first_lane[lane_page]
    region = (psize // lanes_p)[lane_page]
    begin = page_begin[lane_page] + rank * region
    end = begin + region
    last_lane = first_lane + lanes_p - 1
    end[last_lane] = page_end
    return lanes_p, first_lane, last_lane, begin, end, region


def _lane_starts(u32: npt.NDArray[np.uint32], size: int, last: int, total: int,
                 begin: npt.NDArray[np.int64], end: npt.NDArray[np.int64], region_max: int,
                 first_lane: npt.NDArray[np.int64],
                 page_begin: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """1. Lane starts.

    A window position "survives" if a few hops from it stay in the buffer.
    Survival alone is not enough: a false start just before a length field
    (reading e.g. [char, len, 0, 0]) often lands on the true chain later and
    then survives forever.  A true start's first hop lands on the next value
    start, itself a survivor inside the window, while a false start's hop (a
    length of >= 100 for text) leaves the window; so prefer the first survivor
    whose first hop hits another survivor.  The first lane of a page starts at
    the page start.
    """
    avg = size / total
    window = int(min(region_max, max(16, 3 * avg + 8)))
    cand = begin[:, None] + np.arange(window, dtype=np.int64)[None, :]
    # the first hop from every window position; a hop from q > last (no room for
    # a length) lands past size, so it fails without a separate test
    hop1 = u32[np.minimum(cand, last)] + cand
    hop1 += 4
    alive = cand < end[:, None]
    alive &= hop1 <= size
    # the other hops only from the positions still alive (in text, few: 4 bytes of
    # characters read as a length overshoot the page); a position at the end stays
    # there (its hop, past size, is clamped back)
    np.minimum(hop1, size, out=hop1)
    flat = np.flatnonzero(alive)
    q = hop1.reshape(-1)[flat]
    ok = np.ones(flat.size, dtype=bool)
    for _ in range(_PLAUSIBLE_HOPS - 1):
        nxt = u32[np.minimum(q, last)] + q
        nxt += 4
        ok &= (nxt <= size) | (q == size)
        q = np.minimum(nxt, size, out=nxt)
    flat = flat[ok]
    # a survivor is "chained" when its first hop lands on another survivor in its window
    row = flat // window
    rel = hop1.reshape(-1)[flat] - begin[row]
    target = row * window + rel
    chained = rel < window
    if flat.size:   # (flat is increasing: a binary search finds each target)
        at = np.minimum(np.searchsorted(flat, target), flat.size - 1)
        chained &= flat[at] == target
    # per lane: the first chained survivor, else the first survivor, else the region start
    starts = begin.copy()
    for sel in (np.ones(flat.size, dtype=bool), chained):
        got = flat[sel]
        if got.size:
            r = got // window
            first = np.flatnonzero(np.diff(r, prepend=-1))     # rows are increasing
            starts[r[first]] = begin[r[first]] + got[first] % window
    starts[first_lane] = page_begin
    return starts


def _walk_lanes(arr: npt.NDArray[np.uint8], u32: npt.NDArray[np.uint32], size: int, last: int,
                starts: npt.NDArray[np.int64], end: npt.NDArray[np.int64], batch: int, low: bool
                ) -> tuple[npt.NDArray[np.int64],
                           list[tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]],
                           tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]] | None]:
    """2. Lockstep walk: each lane's exit (first position at/after its region end),
    its positions batch by batch (lane ids, hops x lanes), and the single batch's
    positions and in-region mask when one batch finished every lane.

    Batches of ``batch`` hops with four numpy calls per hop and no per-hop
    checks: a lane simply runs on past its region (those positions are dropped
    by the caller) and reads lengths at clamped positions, so a position past
    the end yields garbage that the final chain check rejects.  Lanes that have
    not left their region walk another batch.  (``u32.take(..., mode="clip")``
    would save a call but copies the whole unaligned view on every call.)

    Short values (lengths below 256, the common case of names, ids, codes)
    walk on the length's low byte (*low*): a contiguous uint8 ``take`` is
    several times cheaper per element than a gather from the unaligned uint32
    view, and storing ``q_k - 4k`` (read through the view ``arr[4k:]``) folds
    the ``+ 4`` away, leaving two numpy calls per hop.  The hops are exact
    wherever the length's three high bytes are zero; the caller proves that
    for every position kept (:func:`_exact_hops`), else redoes the walk on
    full lengths.
    """
    lanes = starts.size
    shift = (4 * np.arange(batch + 1, dtype=np.int64))[:, None] if low else None
    pending = np.arange(lanes)
    q = starts
    exits = np.full(lanes, size + 1, dtype=np.int64)
    by_lane_parts: list[tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]] = []
    single: tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]] | None = None
    while pending.size:
        steps = np.empty((batch + 1, pending.size), dtype=np.int64)
        steps[0] = q
        if shift is not None:                   # the low-byte walk
            low_len = np.empty(pending.size, dtype=np.uint8)
            for k in range(batch):
                # clip: a lane past the end reads garbage, never out of bounds
                # (the method, not np.take: one Python frame less per hop)
                arr[4 * k:size].take(steps[k], out=low_len, mode="clip")
                np.add(steps[k], low_len, out=steps[k + 1])
            steps += shift
        else:
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
        if not by_lane_parts and finished.all():
            single = (steps, inside)
        by_lane_parts.append((pending, steps[:-1]))
        q = steps[-1, ~finished]
        pending = pending[~finished]
    return exits, by_lane_parts, single


def _exact_hops(arr: npt.NDArray[np.uint8], size: int, page_begin: npt.NDArray[np.int64],
                page_end: npt.NDArray[np.int64], counts: npt.NDArray[np.int64],
                got: npt.NDArray[np.int64], low: bool) -> tuple[npt.NDArray[np.int64], bool] | None:
    """Linked-lane positions, once the low-byte walk is shown to be the exact walk.

    A low-byte hop from ``p`` equals the full hop when ``u32(p) < 256``; if
    every kept position satisfies that, the positions are each page's chain
    (as for the full walk).  Otherwise some length is 256 or more (or a page
    is malformed): walk again on full lengths.
    """
    if not low:
        return got, True
    # got holds positions below each page's end; a page's last position may
    # sit within 4 bytes of the buffer end (malformed): clamp (a temporary as
    # big as got, so only then), _chain_lengths rejects it
    at = got if not got.size or int(got.max()) <= size - 4 else np.minimum(got, size - 4)
    if (_u32_at_every_byte(arr, size)[at] < 256).all():
        return got, True
    return _lane_walk(arr, size, page_begin, page_end, counts, low_byte=False)


def _first_per_page(found: npt.NDArray[np.int64], page_begin: npt.NDArray[np.int64],
                    counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64] | None:
    """Keep the first ``counts[p]`` of the (increasing) positions found in each page."""
    at = np.searchsorted(found, page_begin)
    have = np.diff(np.append(at, found.size))
    if np.array_equal(have, counts):
        return found
    if (have < counts).any():
        return None
    rank = np.arange(found.size, dtype=np.int64) - np.repeat(at, have)
    return found[rank < np.repeat(counts, have)]


def _stitch(arr: npt.NDArray[np.uint8], by_lane: npt.NDArray[np.int64],
            starts: npt.NDArray[np.int64], exits: npt.NDArray[np.int64],
            end: npt.NDArray[np.int64], linked: npt.NDArray[np.bool_], x: int, count: int,
            size: int) -> npt.NDArray[np.int64] | None:
    """Chain positions of one page whose lanes did not all link up.

    A lane is taken from the first chain position ``x`` it contains (it
    started there, or a false start merged into the chain); a region no lane
    covers is re-walked with the scalar loop from the true entry.
    """
    lanes, k = by_lane.shape
    pieces: list[npt.NDArray[np.int64]] = []
    broken = np.flatnonzero(~linked)
    have = 0
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
        try:
            walked, x = _scalar_walk(arr[:size], x, int(end[t]), count - have, have)
        except ParquetFormatError:
            return None  # the per-page fallback reports it with page coordinates
        pieces.append(np.asarray(walked, dtype=np.int64))
        have += len(walked)
        t += 1
    return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)


def _verified_lengths(arr: npt.NDArray[np.uint8], size: int, starts: npt.NDArray[np.int64],
                      page_begin: npt.NDArray[np.int64], page_end: npt.NDArray[np.int64],
                      counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64] | None:
    """Lengths of a proven chain, or None: the proof that makes the lane walk exact.

    Checks, for every page, that it has ``counts[p]`` starts, the first at the
    page start, each next one at the previous start + 4 + length, and the
    last value ending inside the page.  Lengths are read as uint32 into
    int64, so a "negative" int32 length is simply one that runs past the end.
    """
    if starts.size != int(counts.sum()) or size < 4:
        return None
    u32 = _u32_at_every_byte(arr, size)
    lengths = u32[np.minimum(starts, size - 4)].astype(np.int64)
    ends = starts + 4 + lengths
    first = np.zeros(counts.size, dtype=np.int64)
    np.cumsum(counts[:-1], out=first[1:])
    last = first + counts - 1
    if not np.array_equal(starts[first], page_begin):
        return None
    if (ends[last] > page_end).any():
        return None
    expect = np.empty_like(ends)
    expect[:-1] = starts[1:]
    expect[last] = ends[last]
    if not np.array_equal(ends, expect):
        return None
    return lengths


def _chain_lengths(arr: npt.NDArray[np.uint8], size: int, starts: npt.NDArray[np.int64],
                   page_begin: npt.NDArray[np.int64], page_end: npt.NDArray[np.int64],
                   counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64] | None:
    """Lengths of positions that are each page's chain by construction, or None.

    Linked lanes give, per page, the positions reached by hopping from the
    page start (each hop ``p -> p + 4 + u32(p)`` computed exactly: positions
    inside a region are below the page end, at most ``size - 4`` except on the
    last page, and the walk only clamps reads above ``size - 4``), cut to
    ``counts[p]``.  So a value's length is the gap to the next start minus 4,
    and only each page's last value remains to be checked: its length field
    and bytes must lie inside the page.
    """
    if starts.size != int(counts.sum()) or size < 4:
        return None
    first = np.zeros(counts.size, dtype=np.int64)
    np.cumsum(counts[:-1], out=first[1:])
    last = first + counts - 1
    tail = starts[last]
    if not np.array_equal(starts[first], page_begin) or (tail > page_end - 4).any():
        return None
    tail_len = _u32_at_every_byte(arr, size)[tail].astype(np.int64)
    if (tail + 4 + tail_len > page_end).any():
        return None
    lengths = np.empty(starts.size, dtype=np.int64)
    np.subtract(starts[1:], starts[:-1], out=lengths[:-1])
    lengths[:-1] -= 4
    lengths[last] = tail_len
    return lengths


def _page_error(exc: ParquetFormatError, page: int, npages: int) -> ParquetFormatError:
    if npages == 1:
        return exc
    err = ParquetFormatError(f"page {page} of {npages}: {exc}")
    err.__cause__ = exc
    return err


def _uniform_length(arr: npt.NDArray[np.uint8], count: int) -> int | None:
    """The common length when a page's ``count`` values all have the same length.

    Reads the first length ``L``; if ``count * (4 + L)`` bytes are present
    and the length prefix at every ``4 + L`` stride equals ``L``, that *is*
    the chain (a proof, not a guess).
    """
    size = arr.size
    first = int(struct.unpack_from("<I", arr.data, 0)[0])
    stride = first + 4
    if count * stride > size:
        return None
    lens = np.ndarray((count,), dtype="<u4", buffer=arr, offset=0, strides=(stride,))
    if count > 1 and not (lens == first).all():
        return None
    return first


def _decode_pages(arrs: list[npt.NDArray[np.uint8]],
                  counts: list[int]) -> tuple[ByteArrays, list[int]]:
    """Decode several PLAIN BYTE_ARRAY value sections as one stream.

    Returns the values of all pages back to back and, per page, the number
    of bytes its values occupy (:func:`_locate_pages`, then the copy).
    """
    plan, stops = _locate_pages(arrs, counts)
    return plan.values(), stops


def _locate_pages(arrs: list[npt.NDArray[np.uint8]],
                  counts: list[int]) -> tuple[BytesPlan, list[int]]:
    """Every value of several PLAIN BYTE_ARRAY value sections located (checked, as
    decoding checks them), the copy of their bytes left to the plan's fill.

    The steps: check the counts against the page sizes; uniform lengths
    (strided copies, no walk); otherwise lay the pages back to back
    (:func:`_join_pages`), find every value's start and length
    (:func:`_lane_walk` and its proofs, else :func:`_scalar_pages`); the fill
    copies the values without their length prefixes.
    """
    npages = len(arrs)
    for p, (arr, count) in enumerate(zip(arrs, counts)):
        if count < 0:
            raise _page_error(
                ParquetFormatError(f"PLAIN BYTE_ARRAY: negative value count {count}"), p, npages)
        if count * 4 > arr.size:
            raise _page_error(ParquetFormatError(
                f"PLAIN BYTE_ARRAY: {count} values need at least {4 * count} bytes, "
                f"the page has {arr.size}"), p, npages)
    live = [p for p in range(npages) if counts[p] > 0]
    stops = [0] * npages
    if not live:
        return ByteArrays.empty().as_plan(), stops
    n = sum(counts[p] for p in live)

    # all values of each page share one length: strided copies, no walk
    # (not worth a check on small inputs, which the scalar walk decodes)
    vector = n > _SCALAR_MAX_COUNT or len(live) > _SCALAR_MAX_PAGES
    uniform: list[int] = []
    for p in live if vector else ():
        width = _uniform_length(arrs[p], counts[p])
        if width is None:
            break
        uniform.append(width)
    if uniform and len(uniform) == len(live):
        return _uniform_pages([arrs[p] for p in live], [counts[p] for p in live], uniform,
                              live, stops, n)

    big, page_begin, page_end = _join_pages([arrs[p] for p in live])
    size = int(page_end[-1])
    cnt = np.array([counts[p] for p in live], dtype=np.int64)
    starts: npt.NDArray[np.int64] | None = None
    lengths = None
    if vector and size < _SCALAR_MIN_AVG_BYTES * n:
        walked = _lane_walk(big, size, page_begin, page_end, cnt)
        if walked is not None:
            starts, chained = walked
            if chained:
                lengths = _chain_lengths(big, size, starts, page_begin, page_end, cnt)
            else:
                lengths = _verified_lengths(big, size, starts, page_begin, page_end, cnt)
    if lengths is None:
        starts, lengths = _scalar_pages(arrs, counts, live, page_begin)
    assert starts is not None                   # set together with lengths
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    last = np.cumsum(cnt) - 1
    for i, p in enumerate(live):
        stops[p] = int(starts[last[i]] + 4 + lengths[last[i]] - page_begin[i])
    found, sizes = starts, lengths

    def fill(out: npt.NDArray[np.uint8] | None, offs: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
        return gather_runs(big, found + 4, sizes, offs, out)
    return BytesPlan(offsets, fill), stops


def _join_pages(arrs: list[npt.NDArray[np.uint8]]
                ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """One buffer holding every page, and each page's ``[begin, end)`` in it: the
    buffer they already share (pages of one uncompressed or one decompressed chunk),
    the page itself when there is one, or a copy (zero-padded for the gathers)."""
    sizes = np.array([a.size for a in arrs], dtype=np.int64)
    page_begin = np.zeros(len(arrs), dtype=np.int64)
    np.cumsum(sizes[:-1], out=page_begin[1:])
    shared = _shared_span(arrs, sizes) if len(arrs) > 1 else None
    if shared is not None:
        big, page_begin = shared
    page_end = page_begin + sizes
    size = int(page_end[-1])
    if len(arrs) == 1:
        big = arrs[0]
    elif shared is None:
        big = np.empty(size + _GATHER_PAD, dtype=np.uint8)
        for a, b in zip(arrs, page_begin.tolist()):
            big[b:b + a.size] = a
        big[size:] = 0
    return big, page_begin, page_end


def _scalar_pages(arrs: list[npt.NDArray[np.uint8]], counts: list[int], live: list[int],
                  page_begin: npt.NDArray[np.int64]
                  ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Value starts (in the joined buffer) and lengths of the live pages, page by page.

    For small or long-value pages, a malformed page, or missed lanes: the
    scalar walk per page decodes it or raises the precise error.  The walk
    checks every value against its page's end, so its chain is proven as it
    goes: each length is the gap to the next start.
    """
    npages = len(arrs)
    start_parts, length_parts = [], []
    for i, p in enumerate(live):
        try:
            walked, stop = _scalar_walk(arrs[p], 0, arrs[p].size, counts[p], 0)
        except ParquetFormatError as exc:
            raise _page_error(exc, p, npages) from exc
        if len(walked) < counts[p]:
            raise _page_error(ParquetFormatError(
                f"PLAIN BYTE_ARRAY: the page holds only {len(walked)} of {counts[p]} "
                f"values"), p, npages)
        walked.append(stop)
        chain = np.asarray(walked, dtype=np.int64)
        start_parts.append(chain[:-1] + page_begin[i])
        length_parts.append(np.diff(chain) - 4)
    if len(live) == 1:
        return start_parts[0], length_parts[0]
    return np.concatenate(start_parts), np.concatenate(length_parts)


def _owner(arr: npt.NDArray[np.uint8]) -> Any:
    """The object that owns ``arr``'s memory (a numpy array, or a buffer exporter)."""
    a = arr
    while True:
        while isinstance(a.base, np.ndarray):
            a = a.base
        owner = a.base
        if owner is None:
            return a
        if not isinstance(owner, memoryview):
            return owner
        if not isinstance(owner.obj, np.ndarray):
            return owner.obj
        a = owner.obj       # a view of an array's slice (pages decompressed into one block)


def _shared_span(arrs: list[npt.NDArray[np.uint8]], sizes: npt.NDArray[np.int64]
                 ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]] | None:
    """One zero-copy view spanning every page, when they sit in order in one buffer.

    Returns the view and each page's start in it (the bytes between pages,
    e.g. page headers, are never read as values: lanes stay inside pages),
    or None when the pages do not share an owner or overlap.
    """
    owner = _owner(arrs[0])
    if any(_owner(a) is not owner for a in arrs[1:]):
        return None
    try:
        whole = owner if isinstance(owner, np.ndarray) else np.frombuffer(owner, dtype=np.uint8)
        if whole.dtype != np.uint8 or whole.ndim != 1 or not whole.flags.c_contiguous:
            return None
    except (TypeError, ValueError):
        return None
    base = whole.__array_interface__["data"][0]
    offs = np.array([a.__array_interface__["data"][0] - base for a in arrs], dtype=np.int64)
    ends = offs + sizes
    if offs[0] < 0 or ends[-1] > whole.size or (offs[1:] < ends[:-1]).any():
        return None
    start = int(offs[0])
    return whole[start:int(ends[-1])], offs - start


def _uniform_pages(arrs: list[npt.NDArray[np.uint8]], counts: list[int], widths: list[int],
                   live: list[int], stops: list[int], n: int) -> tuple[BytesPlan, list[int]]:
    """Pages whose values each have one length: one strided copy per page."""
    total = sum(c * w for c, w in zip(counts, widths))
    lengths = np.empty(n, dtype=np.int64)
    row = 0
    for count, width, p in zip(counts, widths, live):
        lengths[row:row + count] = width
        row += count
        stops[p] = count * (width + 4)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])

    def fill(out: npt.NDArray[np.uint8] | None, offs: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
        base = int(offs[0])
        data = np.empty(total, dtype=np.uint8) if out is None else out[base:base + total]
        at = 0
        for arr, count, width in zip(arrs, counts, widths):
            stride = width + 4
            if width:
                rows = arr[:count * stride].reshape(count, stride)
                data[at:at + count * width].reshape(count, width)[...] = rows[:, 4:]
            at += count * width
        return data
    return BytesPlan(offsets, fill), stops


def decode_plain_byte_array(buf: Any, count: int) -> tuple[ByteArrays, int]:
    """Decode ``count`` length-prefixed BYTE_ARRAY values.

    Returns
    -------
    tuple[ByteArrays, int]
        The values and the number of bytes they occupy in ``buf``.
    """
    arr = as_uint8(buf)
    if 0 < count <= _SCALAR_MAX_COUNT and count * 4 <= arr.size:
        return _small_page(arr, count)
    values, stops = _decode_pages([arr], [count])
    return values, stops[0]


def _small_page(arr: npt.NDArray[np.uint8], count: int) -> tuple[ByteArrays, int]:
    """A page of few values: the scalar walk, then one mask drops the length prefixes.

    The walk checks every value against the end of the page, so the chain
    it returns is proven; value ``i``'s offset is its start minus ``4 * i``.
    Kept lean because small pages pay this fixed cost once each.
    """
    walked, stop = _scalar_walk(arr, 0, arr.size, count, 0)
    if len(walked) < count:
        raise ParquetFormatError(
            f"PLAIN BYTE_ARRAY: the page holds only {len(walked)} of {count} values")
    starts = np.asarray(walked, dtype=np.int64)
    offsets = np.empty(count + 1, dtype=np.int64)
    offsets[:-1] = starts
    offsets[-1] = stop
    offsets -= np.arange(0, 4 * (count + 1), 4, dtype=np.int64)
    keep = np.ones(stop + 3, dtype=np.uint8)
    # clear the 4 prefix bytes of every value with one unaligned uint32 scatter
    np.ndarray((stop,), dtype="<u4", buffer=keep, offset=0, strides=(1,))[starts] = 0
    return ByteArrays(offsets, arr[:stop][keep[:stop].view(np.bool_)]), stop


def plan_plain_byte_arrays_multi(buffers: Sequence[Any], counts: Sequence[int]) -> BytesPlan:
    """:func:`decode_plain_byte_arrays_multi` with the copy of the values left to the
    returned plan's fill (:meth:`BytesPlan.join` writes it straight into an output
    shared with other parts of the column).  Every check runs here, with the same
    errors."""
    if len(buffers) != len(counts):
        raise ValueError(f"{len(buffers)} buffers but {len(counts)} counts")
    arrs = [as_uint8(b) for b in buffers]
    return _locate_pages(arrs, [int(c) for c in counts])[0]


def decode_plain_byte_arrays_multi(buffers: Sequence[Any], counts: Sequence[int]) -> ByteArrays:
    """Decode the PLAIN BYTE_ARRAY value sections of several pages into one :class:`ByteArrays`.

    Parameters
    ----------
    buffers:
        One bytes-like or uint8 array per page: the page's values section
        (levels already stripped).  Bytes after a page's last value are
        ignored, as in :func:`decode_plain_byte_array`.
    counts:
        Number of (non-null) values in each page; 0 is allowed.

    Returns
    -------
    ByteArrays
        Every page's values in page order, as if each page had been decoded
        on its own and the results concatenated, but in one pass: the pages
        are laid back to back once, the value starts of all of them are found
        by one lane walk (each page's first lane starts at the page start),
        one vectorised proof checks every page's chain, and one window copy
        drops all length prefixes.  When every value of every page has the
        same length per page, only strided checks and strided copies run.

    Raises
    ------
    ParquetFormatError
        A negative count, a page shorter than ``4 * count``, a length
        running past the end of its page (lengths are unsigned 32-bit, so a
        negative int32 length is one of those) or fewer values than
        ``counts[p]``; the message names the page when there are several.
    """
    if len(buffers) != len(counts):
        raise ValueError(f"{len(buffers)} buffers but {len(counts)} counts")
    arrs = [as_uint8(b) for b in buffers]
    return _decode_pages(arrs, [int(c) for c in counts])[0]
