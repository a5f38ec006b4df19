"""Copy many byte runs into one packed buffer: the shared back end of BYTE_ARRAY decoding.

``gather_runs(src, starts, lengths, offsets)`` returns the bytes
``src[starts[i] : starts[i] + lengths[i]]`` for every ``i``, packed back to back
(value ``i`` lands at ``offsets[i]``).  The PLAIN decoder uses it to drop the
4-byte length prefixes, :meth:`ByteArrays.take` to expand a dictionary and the
DELTA_BYTE_ARRAY decoder to place suffixes.

Overlapping windows
-------------------
A per-byte index array (``np.repeat`` of run starts) costs ~8 bytes of index
per data byte, and a boolean compress reads a whole mask.  Instead both
buffers are viewed as arrays of ``W``-byte void elements at a stride of *one
byte*, so element ``p`` is the window ``buf[p : p + W]``; one fancy
assignment ``dst[offsets] = src[starts]`` then copies a whole window per run
with a single ``memcpy``-sized step.  A window is usually longer than its
run: its extra bytes spill into the start of the following runs, and are
overwritten when those are written later.  That relies on numpy performing a
1-D fancy assignment in index order, which it does (its "trivial" mapiter
loop walks the index array front to back) but does not document, so the
module checks it once on first use (:func:`windows_in_order`) and otherwise
falls back to the per-byte index; ``tests/unit/_kernels/test_runs.py`` pins
it as well.

Runs longer than ``W`` get their remaining bytes from extra "tail" windows
written *before* the main pass: a tail window only spills into later runs'
first ``W`` bytes, which the main pass then rewrites, and the main pass never
touches a tail (byte ``x`` of a run at ``x >= W`` lies past every earlier
run's window).  ``W`` is picked per call from a sample of the lengths with a
cost model measured on this kind of machine (a window costs ~6 ns + W/10 ns,
a tail window ~4x that with its index arithmetic).
Runs whose windows would read past the end of ``src`` (there are few: the
runs at the end of a page) read their windows from a clamped start and are
rewritten exactly afterwards, or ``src`` is copied into a padded buffer when
it is small (a dictionary).

Windows of 48 bytes and more are assigned in blocks of ~256 kB of windows so
the gathered temporary stays in cache.  :func:`scatter_runs` is the same copy
into destinations with gaps between the runs (DELTA_BYTE_ARRAY places its
suffixes with it and fills the prefix gaps afterwards).

Preconditions (callers validate them): ``0 <= starts``, ``0 <= lengths``,
``starts + lengths <= src.size``, ``offsets`` is the running sum of
``lengths`` starting at 0.

Several parts of one output (a column whose dictionary-encoded pages are
followed by PLAIN pages) are copied straight into one buffer with
``gather_runs(..., out=buf)``: then ``offsets`` is the part's slice of the
output's offsets (starting where the part starts), the copy writes
``buf[offsets[0]:offsets[-1]]`` and may spill up to :data:`GATHER_SPILL`
bytes past it, so the parts are written in order (each overwrites its
predecessor's spill) into a buffer with that much room after the last.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["GATHER_SPILL", "gather_runs", "pick_width", "scatter_runs", "short_windows_in_order", "window_view",
           "windows_in_order", "wide_windows_in_order"]

#: Window widths tried, bytes.
_WIDTHS = (16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048, 4096)
_SAMPLE = 4096
#: Bytes a copy into a caller's buffer may write past its last run (the widest window).
GATHER_SPILL = _WIDTHS[-1]
#: Outputs up to this many bytes use the exact per-byte copy (less fixed cost).
_SMALL_TOTAL = 2048
_order_ok: dict[str, bool] = {}     # window dtype -> checked once


def window_view(buf: npt.NDArray[np.uint8], width: int, dtype: Any = None) -> npt.NDArray[Any]:
    """``buf`` as ``width``-byte windows starting at every byte (read or write): void
    elements, or *dtype* (``uint64`` for 8-byte words) at the same one-byte stride."""
    return np.ndarray((buf.size - width + 1,), dtype=dtype or f"V{width}", buffer=buf, offset=0,
                      strides=(1,))


def _lands_in_order(width: int, dtype: Any, max_len: int) -> bool:
    """Whether copying runs of up to *max_len* bytes as overlapping *width*-byte windows of
    *dtype* leaves each run's bytes in place (later windows overwrite earlier spill)."""
    key = str(np.dtype(dtype or f"V{width}"))
    if key not in _order_ok:
        rng = np.random.default_rng(7)
        lengths = rng.integers(0, max_len + 1, 3000).astype(np.int64)
        offsets = np.zeros(lengths.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        total = int(offsets[-1])
        src = rng.integers(0, 256, total + width + 3, dtype=np.uint8)
        out = np.zeros(total + width, dtype=np.uint8)
        window_view(out, width, dtype)[offsets[:-1]] = window_view(src, width, dtype)[offsets[:-1] + 3]
        _order_ok[key] = bool(np.array_equal(out[:total], src[3:3 + total]))
    return _order_ok[key]


def windows_in_order() -> bool:
    """True when overlapping window assignments land in index order (checked once)."""
    return _lands_in_order(32, None, 19)


def short_windows_in_order() -> bool:
    """True when storing ``uint64`` words through an unaligned one-byte-stride view lands in
    index order too (:meth:`ByteArrays.take` of values of at most 8 bytes; checked once)."""
    return _lands_in_order(8, np.uint64, 8)


def wide_windows_in_order(width: int) -> bool:
    """True when ``width``-byte void windows stored at a one-byte stride land in index
    order (:meth:`ByteArrays.take` from a padded dictionary table; checked once per width)."""
    ok = _wide_ok.get(width)
    if ok is None:
        ok = _wide_ok[width] = _lands_in_order(width, None, width)
    return ok


#: width -> :func:`wide_windows_in_order` (asked per column chunk: spares the dtype key)
_wide_ok: dict[int, bool] = {}


def pick_width(lengths: npt.NDArray[np.int64]) -> int:
    """Window width for copying runs of these lengths (cost model of the module docstring)."""
    step = max(1, lengths.size // _SAMPLE)
    sample = lengths[::step]
    best_w = _WIDTHS[0]
    best_cost = float("inf")
    top = int(sample.max()) if sample.size else 0
    for w in _WIDTHS:
        over = sample[sample > w]
        tails = float(((over - 1) // w).sum()) if over.size else 0.0
        # a tail window also pays for its index arithmetic (repeat, arange, ...)
        cost = sample.size * (6.0 + w / 10.0) + tails * (25.0 + w / 10.0)
        if cost < best_cost:
            best_cost, best_w = cost, w
        if w >= top:
            break
    return best_w


def _exact(out: npt.NDArray[np.uint8], src: npt.NDArray[np.uint8],
           starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64],
           dst: npt.NDArray[np.int64]) -> None:
    """Per-byte index copy: every output byte's source is its run start plus its rank."""
    total = int(lengths.sum())
    if total == 0:
        return
    first = np.zeros(lengths.size, dtype=np.int64)
    np.cumsum(lengths[:-1], out=first[1:])
    rank = np.arange(total, dtype=np.int64) - np.repeat(first, lengths)
    out[np.repeat(dst, lengths) + rank] = src[np.repeat(starts, lengths) + rank]


def gather_runs(src: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                lengths: npt.NDArray[np.int64],
                offsets: npt.NDArray[np.int64],
                out: npt.NDArray[np.uint8] | None = None) -> npt.NDArray[np.uint8]:
    """Pack ``src[starts[i]:starts[i]+lengths[i]]`` for all ``i`` (see the module docstring).

    With *out*: write them to ``out[offsets[0]:offsets[-1]]`` instead (spilling
    up to :data:`GATHER_SPILL` bytes past it; ``out`` must have that room) and
    return that slice of *out*.
    """
    n = lengths.size
    if out is not None:
        return _gather_into(out, src, starts, lengths, offsets)
    total = int(offsets[-1]) if n else 0
    if total == 0:
        return np.zeros(0, dtype=np.uint8)
    dst = offsets[:-1]
    if total <= _SMALL_TOTAL or not windows_in_order():
        # small outputs: the per-byte index costs less than choosing a window;
        # output byte j of run i comes from starts[i] + (j - offsets[i])
        return np.take(src, np.repeat(starts - dst, lengths) + np.arange(total, dtype=np.int64))
    return _windows(src, starts, lengths, dst, total)


def _gather_into(out: npt.NDArray[np.uint8], src: npt.NDArray[np.uint8],
                 starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64],
                 offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """:func:`gather_runs` into a part of a caller's buffer (offsets starting anywhere)."""
    base = int(offsets[0])
    end = int(offsets[-1])
    if out.size < end + GATHER_SPILL:
        raise ValueError(f"gather_runs: the output has {out.size} bytes, the runs need "
                         f"{end} plus {GATHER_SPILL} of room")
    total = end - base
    if total == 0:
        return out[base:base]
    if total <= _SMALL_TOTAL or not windows_in_order():
        # exact per-byte copy: byte j of the part comes from starts[i] + (j - (offsets[i] - base))
        np.take(src, np.repeat(starts - (offsets[:-1] - base), lengths)
                + np.arange(total, dtype=np.int64), out=out[base:end])
        return out[base:end]
    _windows(src, starts, lengths, offsets[:-1], end, out)
    return out[base:end]


def scatter_runs(src: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                 lengths: npt.NDArray[np.int64], dst: npt.NDArray[np.int64],
                 total: int, out: npt.NDArray[np.uint8] | None = None) -> npt.NDArray[np.uint8]:
    """A ``total``-byte buffer with ``src[starts[i]:starts[i]+lengths[i]]`` at ``dst[i]``.

    Like :func:`gather_runs` but the runs may leave gaps between them: ``dst``
    is increasing with ``dst[i] + lengths[i] <= dst[i + 1]`` and the last run
    ending by ``total``.  Bytes in the gaps are unspecified (window spill);
    the caller fills them afterwards.

    *out*: the caller's buffer of exactly ``total`` bytes to fill and return (a slice of a
    larger output that other threads may be filling around it): nothing is written past
    its end, the runs ending within a window of it are copied byte by byte instead.
    """
    if out is not None and out.size != total:
        raise ValueError(f"scatter_runs: an output of {out.size} bytes for {total}")
    if total == 0 or lengths.size == 0:
        return np.zeros(total, dtype=np.uint8) if out is None else out
    if total <= _SMALL_TOTAL or not windows_in_order():
        if out is None:
            out = np.empty(total, dtype=np.uint8)
        _exact(out, src, starts, lengths, dst)
        return out
    return _windows(src, starts, lengths, dst, total, out)


def _windows(src: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
             lengths: npt.NDArray[np.int64], dst: npt.NDArray[np.int64],
             total: int, into: npt.NDArray[np.uint8] | None = None) -> npt.NDArray[np.uint8]:
    """The window copy behind :func:`gather_runs` and :func:`scatter_runs` (*into*: see
    :func:`scatter_runs`'s *out*)."""
    w = pick_width(lengths)
    if into is None:
        out = np.empty(total + w, dtype=np.uint8)
        _window_pass(out, src, starts, lengths, dst, w)
        return out[:total]
    # a run ending at least w bytes before the end spills no further than the end (a
    # window covers at most w - 1 bytes past its run; the runs' ends ascend); the runs
    # after it are copied exactly, after the windows (which may spill onto them)
    cut = int(np.searchsorted(dst + lengths, total - w, side="right"))
    if cut:
        _window_pass(into, src, starts[:cut], lengths[:cut], dst[:cut], w)
    if cut < lengths.size:
        _exact(into, src, starts[cut:], lengths[cut:], dst[cut:])
    return into


def _window_pass(out: npt.NDArray[np.uint8], src: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                 lengths: npt.NDArray[np.int64], dst: npt.NDArray[np.int64], w: int) -> None:
    """One window of *w* bytes per run (and tail windows for the longer runs) into *out*,
    which has room for every window."""
    long_runs = np.flatnonzero(lengths > w)
    # windows read src[start : start + w] (main) and, for a long run, up to
    # src[start + ceil(len / w) * w]: runs reaching past the end are "edge" runs
    limit = src.size - w
    edge_main = starts > limit
    n_edge = int(np.count_nonzero(edge_main))
    edge_long = np.zeros(0, dtype=bool)
    if long_runs.size:
        l_len = lengths[long_runs]
        edge_long = starts[long_runs] + ((l_len + (w - 1)) // w) * w > src.size
        n_edge += int(np.count_nonzero(edge_long))
    if n_edge:
        if src.size <= 16 * n_edge * w or src.size <= 1 << 16:
            padded = np.zeros(src.size + w, dtype=np.uint8)
            padded[:src.size] = src
            src = padded
        else:
            # A few runs near the end of a big source (the last values of a
            # page): their windows read from a clamped start instead (wrong
            # bytes, in bounds), and each is rewritten exactly afterwards.
            # A window only spills into later runs, which overwrite it, so
            # the exact rewrite of a run touches nothing else.  (Excluding the
            # edge runs from the window pass instead costs three gathers
            # over all runs.)
            edge = np.flatnonzero(edge_main)
            if edge_long.size:
                edge = np.union1d(edge, long_runs[edge_long])
            _gather_windows(out, src, np.minimum(starts, limit), lengths, dst, w, long_runs,
                            src.size - w)
            _exact(out, src, starts[edge], lengths[edge], dst[edge])
            return
    _gather_windows(out, src, starts, lengths, dst, w, long_runs)


def _gather_windows(out: npt.NDArray[np.uint8], src: npt.NDArray[np.uint8],
                    starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64],
                    dst: npt.NDArray[np.int64], w: int,
                    long_runs: npt.NDArray[np.intp], clamp: int | None = None) -> None:
    """Tail windows of the runs longer than ``w`` first, then one window per run.

    ``clamp``: the largest window start to read (tail windows past it read
    from ``clamp``; the caller rewrites those runs exactly).
    """
    dview = window_view(out, w)
    sview = window_view(src, w)
    if long_runs.size:
        extra = (lengths[long_runs] - 1) // w               # tail windows per long run
        m = int(extra.sum())
        if m < _TOUCH_BELOW and dst.size:
            _touch_pages(out, int(dst[0]), int(dst[-1] + lengths[-1]))
        first = np.zeros(long_runs.size, dtype=np.int64)
        np.cumsum(extra[:-1], out=first[1:])
        step = (np.arange(m, dtype=np.int64) - np.repeat(first, extra) + 1) * w
        src_at = np.repeat(starts[long_runs], extra) + step
        if clamp is not None:
            np.minimum(src_at, clamp, out=src_at)
        _assign_blocked(dview, np.repeat(dst[long_runs], extra) + step, sview, src_at, w)
    _assign_blocked(dview, dst, sview, starts, w)


#: Tail windows fewer than this are assigned holding the GIL (numpy releases it only for
#: longer loops): the output's pages are touched first, so their first-touch faults are
#: taken in a call that releases it (:func:`_touch_pages`).
_TOUCH_BELOW = 2048
#: Bytes per memory page touched (the smallest page size of the hosts we run on).
_PAGE_BYTES = 4096


def _touch_pages(out: npt.NDArray[np.uint8], lo: int, hi: int) -> None:
    """Write a zero to one byte per memory page of ``out[lo:hi]`` (bytes every caller
    writes afterwards, or leaves unspecified), in one strided store that releases the GIL.

    A fresh output (a large ``np.empty`` is fresh memory from the kernel) costs a page
    fault per 4 kB at its first write.  The few tail windows of a scatter are written
    first, all over the output, by an assignment too short for numpy to release the GIL,
    so without this every fault of the output's pages they reach is taken holding it
    (measured: 418 tail windows over a fresh 19 MB output, 2.7 ms at 96 % GIL held),
    stalling the other threads' Python.  On warm memory the store costs ~1 µs per MB.
    """
    if hi - lo >= 2 * _PAGE_BYTES:
        out[lo:hi:_PAGE_BYTES] = 0


#: Bytes of windows gathered per block: the temporary stays in cache.  Measured on this
#: (shared, loaded) machine, best of 7, per-part CPU: 300k 48-byte windows 6.7 -> 5.3 ms,
#: 1M 64-byte 31.6 -> 17.7 ms, 300k 96-byte 9.6 -> 7.4 ms against one assignment; 1 MB
#: blocks gained less (64-byte: 18.9 ms), 16-32-byte windows about as fast either way.
_BLOCK_BYTES = 1 << 18
#: Narrower windows gain too little from blocks to pay the loop.
_BLOCK_MIN_WIDTH = 48


def _assign_blocked(dview: npt.NDArray[np.void], dst: npt.NDArray[np.int64],
                    sview: npt.NDArray[np.void], src: npt.NDArray[np.int64], w: int) -> None:
    """``dview[dst] = sview[src]`` in consecutive blocks (same index order).

    The fancy assignment first gathers every window into a temporary of
    ``len(src) * w`` bytes; in blocks that temporary stays in cache instead of
    making a round trip through memory (hundreds of MB for long values).
    """
    n = dst.size
    block = max(4096, _BLOCK_BYTES // w)
    if n <= block or w < _BLOCK_MIN_WIDTH:
        dview[dst] = sview[src]
        return
    # a loop over blocks of >= 4096 windows: a few hundred iterations at most
    # per million values, each a vectorised copy
    for a in range(0, n, block):
        dview[dst[a:a + block]] = sview[src[a:a + block]]

