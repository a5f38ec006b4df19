"""Validity bitmaps straight from bit-width-1 RLE/bit-packing hybrid streams.

The definition levels of a flat optional column (maximum level 1) are a
bitmap in disguise: level 1 = a value is present.  In the hybrid encoding
(see :mod:`parquet_core.encodings.rle_hybrid`) with bit width 1

* a bit-packed run's body *is* the validity bits, 8 per byte, LSB first;
* an RLE run is a stretch of all-present or all-null slots.

:func:`decode_validity` decodes the level streams of many pages at once
(all the pages of a column chunk, typically) into one boolean array and the
number of present values of each page, with a fixed number of numpy calls
per batch, not per page or per run:

1. **Run chain.**  The streams are joined into one buffer.  For *every*
   byte position the distance to the next run header, were a run to start
   there, is read from a 256-entry table (one-byte headers; the few
   multi-byte headers are finished on their own), giving a successor
   array.  The real chain of headers, from the first stream's start, is
   found by pointer doubling: the successor applied ``S`` times is built
   by squaring, a short scalar loop walks the chain ``S`` runs a step
   ("anchors"), and ``S`` vectorised gathers fill in the runs between
   anchors.  Each stream ends exactly where the next one starts, so the
   chain runs through every stream in turn; a stream whose chain does not
   land on the next stream's start (trailing bytes, a run declaring more
   bytes than its stream holds) makes the batch fall back to the general
   decoder, which handles (or rejects) it.
2. **Runs to slots.**  Cumulative run lengths give each run's slots; each
   page takes runs until its value count is met (the final run may be
   cut; runs after it are ignored, as the general decoder ignores them).
3. **Bitmap.**  The output starts all-present (or all-null when nulls are
   the majority); the minority RLE runs are filled, and the minority bits
   of the bit-packed bodies (gathered in one pass, with the bits past a
   cut run's end neutralised) are unpacked only from bytes that hold any
   and scattered to their slots.

Every check of the general decoder is made on the runs that are used (run
value fits in 1 bit, body within its stream, header at most 5 bytes, enough
runs for the count).  Anything irregular returns ``None``: the caller then
decodes page by page with the general decoder, which raises the precise
error.  Nothing is allocated from a count that the caller has not given:
the output has ``sum(counts)`` slots, as the general decoder would produce.
"""

from __future__ import annotations

from typing import Any, Literal, Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["decode_validity", "hybrid_runs", "stream_runs", "validity_from_bits"]

#: Zero bytes appended to the joined streams: a header read near the end
#: (up to 5 bytes) never leaves the buffer.
_PAD = 8
#: Upper bound on log2 of the runs per anchor step of the chain walk.
_MAX_DOUBLINGS = 6
#: RLE runs at least this long are filled by slice assignment (at most
#: ``slots / _LONG_RUN`` Python iterations); shorter ones by one scatter.
_LONG_RUN = 256


def _varints(a: npt.NDArray[np.uint8], at: npt.NDArray[np.intp], max_bytes: int = 5
             ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """ULEB128 headers starting at positions *at* of *a* (padded by :data:`_PAD`):
    value, byte length, and the indices (into *at*) of headers longer than
    *max_bytes* (5: a sixth byte is never needed for a 32-bit header).

    Each further byte is read only for the headers that continue (recursion
    on the shrinking subset; the depth is at most *max_bytes*)."""
    b = np.take(a, at)
    val = (b & 0x7F).astype(np.int64)
    hlen = np.ones(at.size, dtype=np.intp)
    more = np.flatnonzero(b >= 0x80)
    if not more.size:
        return val, hlen, more
    if max_bytes == 1:
        return val, hlen, more
    if more.size == at.size:
        v, h, over = _varints(a, at + 1, max_bytes - 1)
        v <<= 7
        val |= v
        hlen += h
        return val, hlen, over
    v, h, over = _varints(a, np.take(at, more) + 1, max_bytes - 1)
    v <<= 7
    val[more] |= v
    hlen[more] += h
    return val, hlen, np.take(more, over)


def _repeat(values: npt.NDArray[np.intp], lengths: npt.NDArray[np.intp],
            total: int) -> npt.NDArray[np.intp]:
    """``np.repeat(values, lengths)`` for lengths > 0 summing to *total*, by a running sum
    of the steps between values (cheaper than ``np.repeat`` for many short repeats)."""
    out = np.zeros(total, dtype=np.intp)
    out[0] = values[0]
    starts = np.cumsum(lengths[:-1])
    out[starts] = np.diff(values)
    # a new array: numpy holds the GIL throughout an accumulate into its own input
    return np.cumsum(out, dtype=np.intp)


def _step_table() -> npt.NDArray[np.intp]:
    """Bytes from a run header to the next one at bit width 1, indexed by the header's
    first two bytes (``b0 | b1 << 8``); :data:`_LONG` where the header is longer
    than 2 bytes."""
    w = np.arange(1 << 16, dtype=np.intp)
    b0, b1 = w & 0xFF, w >> 8
    one = b0 < 0x80
    val = np.where(one, b0, (b0 & 0x7F) | ((b1 & 0x7F) << 7))
    hlen = np.where(one, 1, 2)
    step = hlen + np.where(val & 1, val >> 1, 1)
    step[~one & (b1 >= 0x80)] = _LONG
    return step


#: Step of a header of 3 bytes or more in :data:`_STEP2`: past any buffer, so the chain ends there.
_LONG = 1 << 40
_STEP2 = _step_table()


#: ``np.arange`` of each dtype asked for, read-only, grown as needed (see :func:`_arange`)
_ARANGES: dict[Any, npt.NDArray[Any]] = {}


def _arange(n: int, dtype: Any) -> npt.NDArray[Any]:
    """``np.arange(n, dtype=dtype)`` as a view of a cached read-only array."""
    base = _ARANGES.get(dtype)
    if base is None or base.size < n:
        base = np.arange(max(n, 1 << 16, 0 if base is None else 2 * base.size), dtype=dtype)
        base.flags.writeable = False
        _ARANGES[dtype] = base
    return base[:n]


def _positions(n: int) -> npt.NDArray[np.intp]:
    """``np.arange(n)`` from a cached array (grown as needed, read-only)."""
    return _arange(n, np.intp)


def _positions32(n: int) -> npt.NDArray[np.int32]:
    """``np.arange(n, dtype=np.int32)`` from a cached array (grown as needed, read-only)."""
    return _arange(n, np.int32)


def _chain(a: npt.NDArray[np.uint8], n: int, seg_start: npt.NDArray[np.intp],
           seg_end: npt.NDArray[np.intp]) -> npt.NDArray[np.intp] | None:
    """Header positions of the run chain of ``a[:n]`` from position 0, ascending, or
    None when the chain of a stream does not end exactly where the stream ends
    (trailing bytes, or a run past its stream)."""
    nxt = np.empty(n + 1, dtype=np.intp)
    word = a[1:n + 1].astype(np.uint16)
    word <<= 8
    word |= a[:n]
    np.take(_STEP2, word, out=nxt[:n])
    # Headers of 3 bytes or more (runs of 8192+ values; in a bit-packed body, any
    # two bytes >= 0x80) first end the chain; when the chain does end at one,
    # they are read in full and the chain is walked again.
    nxt[:n] += _positions(n)
    np.minimum(nxt[:n], n, out=nxt[:n])
    nxt[n] = n
    lanes = seg_start.size > 1 and int((seg_end - seg_start).max()) <= _LANES_MAX_BYTES
    chain = _walk_lanes(nxt, seg_start, seg_end) if lanes else _walk(nxt, n, max(n // 3, 1))
    if chain is not None:
        # a long header ends the chain early: only the last run can be one here
        # (elsewhere the next stream's start would be missed: chain None)
        if not chain.size:
            return chain
        end = int(chain[-1])
        if not (a[end] >= 0x80 and a[end + 1] >= 0x80):
            return chain
    long = np.flatnonzero((a[:n] >= 0x80) & (a[1:n + 1] >= 0x80))
    if not long.size:
        return None
    val, hlen, overlong = _varints(a, long)
    step = (val >> 1) - 1
    step *= val & 1
    step += 1 + hlen
    step += long
    step[overlong] = n        # ends the chain; a used overlong run is caught later
    nxt[long] = np.minimum(step, n)
    return _walk_lanes(nxt, seg_start, seg_end) if lanes else _walk(nxt, n, max(n // 3, 1))


#: Streams of at most this many bytes (small pages) are walked side by side,
#: one numpy step per run of the longest stream, instead of by pointer doubling.
_LANES_MAX_BYTES = 256


def _walk_lanes(nxt: npt.NDArray[np.intp], starts: npt.NDArray[np.intp],
                ends: npt.NDArray[np.intp]) -> npt.NDArray[np.intp] | None:
    """The chains of all streams at once, one step of every stream per iteration;
    None when a stream's chain does not land exactly on its end."""
    rows = [starts]
    cur = starts
    # At most _LANES_MAX_BYTES iterations: every run takes at least one byte.
    while True:
        cur = np.take(nxt, cur)
        rows.append(cur)
        if not np.any(cur < ends):
            break
    steps = np.vstack(rows)                     # (steps + 1, streams)
    past = steps >= ends                        # every column ends with True
    landing = steps[np.argmax(past, axis=0), np.arange(starts.size)]
    if not np.array_equal(landing, ends):
        return None
    inside = ~past.T.reshape(-1)
    return np.compress(inside, steps.T.reshape(-1))


def _walk(nxt: npt.NDArray[np.intp], n: int, est_runs: int) -> npt.NDArray[np.intp]:
    """The chain ``0, nxt[0], nxt[nxt[0]], ...`` while below *n* (``nxt`` maps into
    ``0..n`` and ``nxt[p] > p``)."""
    # S = 2**d balances the anchor loop (runs / S scalar steps, ~0.05 us each)
    # against the doublings (~0.4 ns per byte each) and the fill (S gathers):
    # S ~ sqrt(runs / 40), measured.
    d = min(_MAX_DOUBLINGS, max(1, max(est_runs // 40, 1).bit_length() // 2))
    jump = nxt
    for _ in range(d):
        jump = np.take(jump, jump)
    anchors = [0]
    pos = 0
    item = jump.item
    # One iteration per S runs (the chain is sequential; S is chosen above).
    while pos < n:
        pos = item(pos)
        anchors.append(pos)
    cur = np.asarray(anchors[:-1], dtype=np.intp)
    steps = np.empty((1 << d, cur.size), dtype=np.intp)
    steps[0] = cur
    for k in range(1, 1 << d):
        np.take(nxt, steps[k - 1], out=steps[k])
    chain = steps.T.reshape(-1)
    return np.compress(chain < n, chain)


def _fill_ranges(out: npt.NDArray[np.bool_], starts: npt.NDArray[np.intp],
                 lengths: npt.NDArray[np.intp], value: bool) -> None:
    """``out[s:s + l] = value`` for every range (ranges do not overlap)."""
    if not starts.size:
        return
    long = lengths >= _LONG_RUN
    if long.any():
        # Bounded: every range is at least _LONG_RUN slots of out.
        for s, ln in zip(np.compress(long, starts).tolist(), np.compress(long, lengths).tolist()):
            out[s:s + ln] = value
        short = ~long
        starts, lengths = np.compress(short, starts), np.compress(short, lengths)
        if not starts.size:
            return
    total = int(lengths.sum())
    # slot = start of its range + its rank inside the range
    idx = _repeat(starts - (np.cumsum(lengths) - lengths), lengths, total)
    idx += np.arange(total, dtype=np.intp)
    out[idx] = value


def _gather(a: npt.NDArray[np.uint8], bodies: npt.NDArray[np.intp],
            nbytes: npt.NDArray[np.intp], n: int) -> npt.NDArray[np.uint8]:
    """A copy of the bytes ``a[b:b + k]`` of every body, back to back (bodies do not
    overlap, and a header separates any two)."""
    total = int(nbytes.sum())
    if total >= 32 * bodies.size:
        mv = a.data
        return np.frombuffer(bytearray().join([mv[b:b + k] for b, k in zip(bodies.tolist(), nbytes.tolist())]),
                             dtype=np.uint8)
    # +1 where a body starts, -1 where it ends, a running sum marks the bytes
    marks = np.zeros(n + 1, dtype=np.int8)
    marks[bodies] = 1
    marks[bodies + nbytes] = -1
    inside = np.cumsum(marks, dtype=np.int8)     # (not in place: that holds the GIL throughout)
    return np.compress(inside[:n].view(np.bool_), a[:n])


def validity_from_bits(out: npt.NDArray[np.bool_], gathered: npt.NDArray[np.uint8],
                       slot0: npt.NDArray[np.intp], nbytes: npt.NDArray[np.intp],
                       takes: npt.NDArray[np.intp], fill: bool) -> npt.NDArray[np.intp]:
    """Write the bits of bit-packed runs into *out*, which holds *fill* everywhere.

    *gathered* holds the runs' bodies back to back (``nbytes`` each, all > 0,
    LSB first); run ``i``'s first bit belongs at slot ``slot0[i]`` and it has
    ``takes[i]`` bits.  Only bits different from *fill* are written, and only
    bytes holding such bits are unpacked.  Returns the slots written
    (ascending).  *gathered* is modified (bits past a run's end).
    """
    if not gathered.size:
        return np.zeros(0, dtype=np.intp)
    ends = np.cumsum(nbytes)
    cut = np.flatnonzero(takes & 7)
    if cut.size:   # bits past a run's end must read as *fill*: never written
        last = np.take(ends, cut) - 1
        keep = ((1 << (np.take(takes, cut) & 7)) - 1).astype(np.uint8)
        if fill:
            gathered[last] |= ~keep
        else:
            gathered[last] &= keep
    hot = np.flatnonzero(gathered != (0xFF if fill else 0x00))
    if not hot.size:
        return np.zeros(0, dtype=np.intp)
    sel = np.take(gathered, hot)
    bits = np.unpackbits(~sel if fill else sel, bitorder="little")
    on = np.flatnonzero(bits.view(np.bool_))
    # slot of bit 0 of a gathered byte: its run's first slot + 8 * (byte - run's first byte)
    hot_base = np.take(_repeat(slot0 - 8 * (ends - nbytes), nbytes, int(ends[-1])), hot)
    hot_base += 8 * hot
    slots = np.take(hot_base, on >> 3)
    slots += on & 7
    out[slots] = not fill
    return slots


def decode_validity(streams: Sequence[bytes | bytearray | memoryview], counts: Sequence[int]
                    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]] | None:
    """Decode bit-width-1 hybrid streams (one per page, no length prefix) to validity.

    Parameters
    ----------
    streams:
        Bytes-like level streams, each exactly the page's level bytes.
    counts:
        Levels of each page (> 0 each).

    Returns
    -------
    (validity, present) or None
        ``validity``: bool array of ``sum(counts)`` slots (True: level 1),
        pages one after the other; ``present``: True slots of each page.
        ``None`` when anything is irregular: decode those pages with the
        general decoder (:func:`parquet_core.encodings.rle_hybrid.decode_hybrid`),
        which gives the same result or the precise error.

    The steps of the module docstring: :func:`_chain` (1, run chain),
    :func:`_runs` and :func:`_slots` (2, runs to slots), :func:`_bitmap` (3)
    and the present values per page.
    """
    npages = len(counts)
    if npages == 0 or npages != len(streams):
        return None
    if npages == 1:
        one = _one_page(streams[0], int(counts[0]))
        if one is not False:
            return one
    cnt = np.asarray(counts, dtype=np.int64)
    if int(cnt.min()) <= 0:
        return None
    lens = np.fromiter((len(memoryview(s)) for s in streams), dtype=np.intp, count=npages)
    if int(lens.min()) <= 0:
        return None
    joined = bytearray().join([*streams, bytes(_PAD)])
    a = np.frombuffer(joined, dtype=np.uint8)
    n = len(joined) - _PAD
    seg_end = np.cumsum(lens)
    seg_start = seg_end - lens

    chain = _chain(a, n, seg_start, seg_end)
    if chain is None:
        return None
    # every stream's chain starts at the stream's first byte
    first = np.searchsorted(chain, seg_start)
    if int(first[-1]) >= chain.size or not np.array_equal(np.take(chain, first), seg_start):
        return None
    body, packed, take, overlong = _runs(a, chain)
    runs = _slots(body, packed, take, overlong, first, cnt, seg_end)
    if runs is None:
        return None
    body, take, slot, packed = runs
    total = int(cnt.sum())
    if take.size * _DENSE_RUN >= total:
        # many short runs: every slot read through one index into the stream's bits
        valid = _bitmap_dense(a, n, body, take, slot, packed, total)
        if valid is None:
            return None
        if npages == 1:
            return valid, np.array([np.count_nonzero(valid)], dtype=np.int64)
        starts = np.cumsum(cnt) - cnt
        return valid, np.add.reduceat(valid.view(np.uint8), starts, dtype=np.int64)
    drawn = _bitmap(a, n, body, take, slot, packed, total)
    if drawn is None:
        return None
    out, fill, flipped, m_take, m_slot = drawn

    # -- present values per page ---------------------------------------------------------
    slot_base = np.cumsum(cnt) - cnt
    bounds = np.append(slot_base, out.size)
    changed = np.diff(np.searchsorted(flipped, bounds))
    if m_take.size:
        m_page = np.searchsorted(bounds, m_slot, side="right") - 1
        changed += np.bincount(m_page, weights=m_take, minlength=npages).astype(np.int64)
    present = cnt - changed if fill else changed
    return out, present


def _one_page(stream: Any, count: int
              ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]] | None | Literal[False]:
    """:func:`decode_validity` of one stream whose runs are short on average (as pyarrow
    writes a column with scattered nulls), in fewer numpy calls: the same checks, on the
    runs up to the count (the later ones are ignored, as the general decoder ignores
    them); False for a stream of long runs (the general steps decode it)."""
    n = len(memoryview(stream))
    if count <= 0 or n <= 0:
        return None
    joined = bytearray().join([stream, bytes(_PAD)])
    a = np.frombuffer(joined, dtype=np.uint8)
    chain = _chain(a, n, _ZERO, np.array([n], dtype=np.intp))
    if chain is None or not chain.size or chain[0] != 0:
        return None
    if chain.size * _DENSE_RUN < count:
        return False
    body, packed, take, overlong = _runs(a, chain)
    if overlong is not None and overlong.size:
        return None                         # a run header longer than 5 bytes
    cum = np.cumsum(take)
    if int(cum[-1]) < count:
        return None                         # the runs end before the count
    last = int(np.searchsorted(cum, count))  # the run holding the last slot; later runs unused
    used = last + 1
    body, packed, take = body[:used], packed[:used], take[:used]
    take[last] -= int(cum[last]) - count
    if int(body[last]) + ((int(take[last]) + 7) >> 3 if packed[last] else 1) > n:
        return None                         # the last run's body is past the stream
    rle = packed == 0
    if np.any(np.take(a, np.compress(rle, body)) > 1):
        return None                         # RLE value does not fit in 1 bit
    if not np.all(take):
        nz = take > 0
        body, packed, take = np.compress(nz, body), np.compress(nz, packed), np.compress(nz, take)
    slot = np.cumsum(take)
    slot -= take
    valid = _dense_bits(a, n, body, take, slot, packed, count)
    return valid, np.array([np.count_nonzero(valid)], dtype=np.int64)


_ZERO = np.zeros(1, dtype=np.intp)
_ZERO.flags.writeable = False


def _runs(a: npt.NDArray[np.uint8], chain: npt.NDArray[np.intp]
          ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64], npt.NDArray[np.int64],
                     npt.NDArray[np.intp] | None]:
    """Every run of the chain: body offset, bit-packed (1) or RLE (0), values it
    declares, and the runs whose header is longer than 5 bytes (None: none)."""
    h = np.take(a, chain).astype(np.int64)
    body = chain + 1
    multi = np.flatnonzero(h >= 0x80)
    overlong = None
    if multi.size:
        val, hl, over = _varints(a, np.take(chain, multi))
        h[multi] = val
        body[multi] += hl - 1
        overlong = np.take(multi, over)
    packed = h & 1
    take = h >> 1
    take <<= packed * 3                     # a bit-packed run holds 8 values per group
    return body, packed, take, overlong


def _slots(body: npt.NDArray[np.intp], packed: npt.NDArray[np.int64], take: npt.NDArray[np.int64],
           overlong: npt.NDArray[np.intp] | None, first: npt.NDArray[np.intp],
           cnt: npt.NDArray[np.int64], seg_end: npt.NDArray[np.intp]
           ) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]] | None:
    """The runs each page uses, cut to its count: (body, take, first slot, packed),
    or None when a page's runs end before its count, a used header is longer than
    5 bytes, or a used body runs past its stream."""
    npages = cnt.size
    nruns = take.size
    cum = np.cumsum(take)
    last = np.append(first[1:], nruns) - 1  # each page's last run
    before = np.take(cum, first - 1)        # values of the earlier pages' runs
    before[0] = 0
    page_done = np.take(cum, last) - before
    last_start = page_done - np.take(take, last)
    if np.any(page_done < cnt):
        return None                         # a page's runs end before its count
    if np.all(last_start < cnt):
        # Usual case: every run is needed, only each page's last run may be cut,
        # so a run's slot is the running sum of the takes, and the runs before a
        # page's last end at the next header, inside the stream.
        take[last] = cnt - last_start
        slot = np.cumsum(take)
        slot -= take
        if overlong is not None and overlong.size:
            return None                     # a run header longer than 5 bytes
        lp = np.take(packed, last)
        need = np.take(body, last) + np.where(lp, (np.take(take, last) + 7) >> 3, 1)
        if np.any(need > seg_end):
            return None                     # the last run's body is past its stream
        return body, take, slot, packed
    # Runs after a page's count (ignored, as the general decoder ignores them).
    slot_base = np.cumsum(cnt) - cnt
    page = _repeat(np.arange(npages, dtype=np.intp), np.diff(np.append(first, nruns)), nruns) \
        if npages > 1 else np.zeros(nruns, dtype=np.intp)
    start_in_page = cum - take - np.take(before, page)
    used = start_in_page < np.take(cnt, page)
    if overlong is not None and overlong.size and np.take(used, overlong).any():
        return None                         # a run header longer than 5 bytes
    take = np.minimum(take, np.take(cnt, page) - start_in_page)
    slot = np.take(slot_base, page) + start_in_page
    end = np.take(seg_end, page)
    need = body + np.where(packed, (take + 7) >> 3, 1)
    if np.any(np.compress(used, need > end)):
        return None                         # a body past its stream
    return (np.compress(used, body), np.compress(used, take), np.compress(used, slot),
            np.compress(used, packed))


#: Runs averaging fewer slots than this are drawn by :func:`_bitmap_dense` (a few
#: passes over every slot), longer ones by :func:`_bitmap` (work on the minority only).
_DENSE_RUN = 32


def _bitmap_dense(a: npt.NDArray[np.uint8], n: int, body: npt.NDArray[Any], take: npt.NDArray[Any],
                  slot: npt.NDArray[Any], packed: npt.NDArray[Any], total: int
                  ) -> npt.NDArray[np.bool_] | None:
    """The validity of ``total`` slots from the used runs (as :func:`_slots` gives them:
    consecutive, from slot 0), or None when an RLE run's value does not fit in 1 bit.

    Every byte of the joined streams is unpacked to bits once; slot ``k`` of a
    bit-packed run is bit ``8 * body + k`` of that, every slot of an RLE run is
    bit 0 of its value byte (0 or 1, checked).  Each slot's index is its run's
    base repeated over the run's slots, plus the slot's position for bit-packed runs.
    """
    rle = packed == 0
    if np.any(np.take(a, np.compress(rle, body)) > 1):
        return None                         # RLE value does not fit in 1 bit
    if not np.all(take):                    # runs of no values take no slot
        nz = take > 0
        body, take, slot, packed = (np.compress(nz, body), np.compress(nz, take),
                                    np.compress(nz, slot), np.compress(nz, packed))
    return _dense_bits(a, n, body, take, slot, packed, total)


def _dense_bits(a: npt.NDArray[np.uint8], n: int, body: npt.NDArray[Any], take: npt.NDArray[Any],
                slot: npt.NDArray[Any], packed: npt.NDArray[Any], total: int) -> npt.NDArray[np.bool_]:
    """The slots of checked runs of more than no values each (see :func:`_bitmap_dense`)."""
    itype = np.int32 if 8 * n + 8 < 2**31 and total < 2**31 else np.intp
    # slot s of run r reads bit 8 * body[r] + step[r] * (s - slot[r]), step 1 (bit-packed) or 0 (RLE)
    base = body.astype(itype)
    base <<= 3
    base -= np.where(packed != 0, slot, 0).astype(itype)
    idx = np.repeat(base, take)
    pos = _positions32(total) if itype is np.int32 else _positions(total)
    idx += pos * np.repeat(packed.astype(itype), take)
    bits = np.unpackbits(a[:n], bitorder="little")
    return np.take(bits, idx).view(np.bool_)


def _bitmap(a: npt.NDArray[np.uint8], n: int, body: npt.NDArray[Any], take: npt.NDArray[Any],
            slot: npt.NDArray[Any], packed: npt.NDArray[Any], total: int
            ) -> tuple[npt.NDArray[np.bool_], bool, npt.NDArray[np.intp], npt.NDArray[Any],
                       npt.NDArray[Any]] | None:
    """The validity of ``total`` slots from the used runs, or None when an RLE run's
    value does not fit in 1 bit.

    Returns the bitmap, the value it started from (the majority), the slots the
    bit-packed bodies flipped, and the minority RLE runs (values, first slots).
    """
    rle = packed == 0
    r_val = np.take(a, np.compress(rle, body))
    if np.any(r_val > 1):
        return None                         # RLE value does not fit in 1 bit
    pk = packed != 0
    p_take = np.compress(pk, take)
    p_body = np.compress(pk, body)
    p_slot = np.compress(pk, slot)
    if not np.all(p_take):                  # bit-packed runs of no groups
        nz = p_take > 0
        p_take, p_body, p_slot = np.compress(nz, p_take), np.compress(nz, p_body), np.compress(nz, p_slot)
    p_nbytes = p_take + 7
    p_nbytes >>= 3

    r_take = np.compress(rle, take)
    zero_rle = r_val == 0
    rle_nulls = int(np.dot(r_take, zero_rle))
    packed_bits = total - int(r_take.sum())
    # Start from the majority: all present unless nulls fill most RLE slots and
    # (as an estimate) half the bit-packed ones.
    fill = rle_nulls + packed_bits // 2 <= total // 2
    out = np.full(total, fill, dtype=bool)
    minority = zero_rle if fill else ~zero_rle
    m_take = np.compress(minority, r_take)
    m_slot = np.compress(minority, np.compress(rle, slot))
    if m_take.size and not np.all(m_take):
        nz = m_take > 0
        m_take, m_slot = np.compress(nz, m_take), np.compress(nz, m_slot)
    _fill_ranges(out, m_slot, m_take, not fill)
    if p_body.size:
        gathered = _gather(a, p_body, p_nbytes, n)
        flipped = validity_from_bits(out, gathered, p_slot, p_nbytes, p_take, fill)
    else:
        flipped = np.zeros(0, dtype=np.intp)
    return out, fill, flipped, m_take, m_slot


def stream_runs(stream: Any) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]] | None:
    """Where each run of one bit-width-1 hybrid stream starts and how many levels it
    declares (a bit-packed run: 8 per group), found vectorised (the chain walk of
    :func:`decode_validity`, about ten bytes of work memory per stream byte, not per
    level); None when the chain is irregular (a header longer than 5 bytes, a run past
    the stream's end): the caller walks the headers one by one, which names the fault."""
    size = len(memoryview(stream))
    if size <= 0:
        return None
    a = np.frombuffer(bytearray().join([stream, bytes(_PAD)]), dtype=np.uint8)
    ends = np.array([size], dtype=np.intp)
    chain = _chain(a, size, np.zeros(1, dtype=np.intp), ends)
    if chain is None or not chain.size or int(chain[0]) != 0:
        return None
    _, _, take, overlong = _runs(a, chain)
    if overlong is not None and overlong.size:
        return None
    return chain, take


def hybrid_runs(stream: Any, width: int, partial: bool = False
                ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """Every run of one hybrid stream of bit width *width* (1..32), found vectorised (the
    chain walk above, for any width): where each run starts, where its body ends, and
    how many values it declares (a bit-packed run: 8 per group).  None when the chain
    is irregular (a header longer than 5 bytes, a run past the stream's end): the
    caller walks the headers one by one, which names the fault.  With *partial* the
    stream is a window of a longer one: a last run past its end is left out (the runs
    before it are returned).  Work memory is about forty bytes per stream byte, not
    per value."""
    size = len(memoryview(stream))
    if size <= 0 or not 1 <= width <= 32:
        return None
    a = np.frombuffer(bytearray().join([stream, bytes(_PAD)]), dtype=np.uint8)
    at = _positions(size)
    val, hlen, over = _varints(a, at)
    packed = val & 1
    step = (val >> 1) * width
    np.copyto(step, (width + 7) // 8, where=packed == 0)
    step += hlen
    step += at
    step[over] = size + 1               # an overlong header: never a valid run
    nxt = np.empty(size + 1, dtype=np.intp)
    np.minimum(step, size, out=nxt[:size])
    nxt[size] = size
    chain = _walk(nxt, size, max(size // 3, 1))
    if not chain.size or int(chain[0]) != 0:
        return None
    ends = np.take(step, chain)
    if int(ends[-1]) > size:
        if not partial:
            return None                 # the last run runs past the stream (or is overlong)
        chain, ends = chain[:-1], ends[:-1]
    counts = np.take(val, chain) >> 1
    counts <<= np.take(packed, chain) * 3
    return chain, ends, counts
