"""Bit-packed runs unpacked and prefix-summed in one lane-major pass.

DELTA_BINARY_PACKED stores, per block, a min delta and bit-packed deltas; the values
are ``first`` followed by the running sum of ``delta + min delta``.  Unpacking into
the output and then calling ``np.cumsum`` costs one scalar (non-vectorised) pass over
every value, the largest single cost of such a column.  This kernel avoids it.

Layout: the runs (equal bodies of ``groups`` groups of 8 values, ``stride`` bytes
apart) are copied back to back, then gathered *lane-major*: plane ``j`` holds value
``j`` of every group, as the fancy index of the unpacker lays them out anyway.  Then,
with every plane contiguous (all numpy calls vectorise)::

    planes[j] = (word >> shift_j) & mask  + plus[run]      lane decode, min delta
    planes[j] += planes[j - 1]   for j = 1..7               sum inside each group
    start[g] = first + total of groups 0..g-1               one cumsum over n / 8
    planes[j] += start                                      group starts, plane by plane
    out[1 + 8 g + j] = planes[j][g]                         one transposing copy

so the only sequential pass is over one number per group of 8.  All sums are in the
output's unsigned type and wrap modulo its width, as the encoding requires.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.bitpack import _LANES, SLACK, as_uint8
from parquet_core._kernels.running import row_sums_into
from parquet_core.errors import ParquetFormatError

__all__ = ["LANE_WIDTHS", "prefix_sum_runs_into"]

#: Bit widths the kernel decodes (others: unpack, then ``np.cumsum``).
LANE_WIDTHS = frozenset(_LANES)
#: Values decoded per round (the planes stay in cache; the running value carries over).
_ROUND_VALUES = 1 << 16


def prefix_sum_runs_into(buf: Any, starts: Sequence[int], stride: int, runs: int, groups: int,
                         bit_width: int, plus: npt.NDArray[Any], firsts: npt.NDArray[Any],
                         out: npt.NDArray[Any]) -> None:
    """Several pages' runs unpacked and prefix-summed: for page ``p`` (a row of *out*),
    ``out[p, 0] = firsts[p]`` and ``out[p, 1 + i] = firsts[p] + sum(packed[k] + plus[run
    of k], k <= i)`` over its ``runs * groups * 8`` LSB-first values.

    Page ``p`` holds *runs* equal bodies of *groups* groups, the first at byte
    ``starts[p]`` of *buf* and each next *stride* bytes further.  *out*: 2-D ``uint32``
    or ``uint64``, rows of at least ``1 + runs * groups * 8`` items, each row contiguous
    (rows may be views into one column's values); sums wrap in its type.  *plus*: one
    number per run, page after page, and *firsts* one per page, both of *out*'s type.
    *bit_width* must be one of :data:`LANE_WIDTHS`.  *buf* must hold every body whole
    (checked); nothing past the bodies is read.  Each round's bodies are copied back to
    back first (a few hundred KiB, so the copy is reused memory, not fresh pages).
    """
    arr = as_uint8(buf)
    w = bit_width
    pages = out.shape[0] if out.ndim == 2 else -1
    per_page = runs * groups * 8
    odt = out.dtype
    if w not in _LANES or odt not in (np.uint32, np.uint64):
        raise ValueError(f"prefix_sum_runs_into: width {w} into {odt} is not handled")
    if runs < 0 or groups <= 0 or stride < groups * w or len(starts) != pages:
        raise ValueError("prefix_sum_runs_into: bad run layout")
    if pages < 0 or out.shape[1] < per_page + 1 or out.strides[1] != odt.itemsize \
            or plus.size < pages * runs or firsts.size < pages:
        raise ValueError("prefix_sum_runs_into: out must be 2-D, rows of 1 + runs*groups*8 contiguous items")
    out[:, 0] = firsts[:pages]
    if per_page == 0 or pages == 0:
        return
    body = (runs - 1) * stride + groups * w         # first body's start to last body's end
    lo, hi = min(starts), max(starts)
    if lo < 0 or hi + body > arr.size:
        raise ParquetFormatError(f"bit-packed runs: {runs} bodies of {groups * w} bytes every {stride} bytes "
                                 f"from byte {hi if lo >= 0 else lo} need {hi + body} bytes, only "
                                 f"{arr.size} available")
    word = _LANES[w][0]
    # 64-bit sums from 4-byte lanes: while eight values plus their run's number stay below
    # 2**32 (steady timestamps: small widths, min deltas of a few million), the lanes and
    # the sums inside each group are kept in 32 bits; only the group starts are 64-bit
    narrow = word.itemsize < odt.itemsize and int(plus[:pages * runs].max()) < (1 << 29) - (1 << w)
    if narrow:
        plus = plus[:pages * runs].astype(word.newbyteorder("="))
    per_run = groups * 8
    if per_page <= _ROUND_VALUES:
        # whole pages per round (each round copies its pages' bodies back to back)
        step = _ROUND_VALUES // per_page
        for p0 in range(0, pages, step):
            k = min(step, pages - p0)
            _round(arr, starts[p0:p0 + k], stride, runs, groups, w, odt, narrow, plus[p0 * runs:(p0 + k) * runs],
                   firsts[p0:p0 + k], out[p0:p0 + k, 1:1 + per_page])
        return
    # long pages: a few runs per round, each round continuing from the value before it
    step = max(1, _ROUND_VALUES // per_run)
    for p in range(pages):
        for r0 in range(0, runs, step):
            k = min(step, runs - r0)
            _round(arr, [starts[p] + r0 * stride], stride, k, groups, w, odt, narrow,
                   plus[p * runs + r0:p * runs + r0 + k], out[p, r0 * per_run:r0 * per_run + 1],
                   out[p:p + 1, 1 + r0 * per_run:1 + (r0 + k) * per_run])


def _round(src: npt.NDArray[np.uint8], starts: Sequence[int], stride: int, runs: int, groups: int,
           w: int, odt: np.dtype[Any], narrow: bool, plus: npt.NDArray[Any], before_first: npt.NDArray[Any],
           dst2d: npt.NDArray[Any]) -> None:
    """One round: ``len(starts)`` segments of *runs* runs each, segment ``s``'s runs at
    one *stride* from byte ``starts[s]`` of *src* (bodies inside *src*: checked by the
    caller); its values go to ``dst2d[s]``, summed from the value ``before_first[s]`` (a
    page's first value, or the last value before its round)."""
    word, mask, span, offsets, shifts = _LANES[w]
    segs = len(starts)
    g_seg = runs * groups               # groups per segment
    g_all = segs * g_seg
    # the bodies first copied back to back (whole rows of bytes, then zeros for the last
    # word reads), so that the lanes are gathered along one long axis: view[b, g] is the
    # unaligned word at byte b of group g (the bytes a lane reads past its group only
    # meet its mask)
    nbody = groups * w
    packed = np.empty(g_all * w + SLACK, dtype=np.uint8)
    rows = packed[:-SLACK].reshape(segs, runs, nbody)
    for i, at in enumerate(starts):
        np.copyto(rows[i], np.ndarray((runs, nbody), dtype=np.uint8, buffer=src, offset=at, strides=(stride, 1)))
    packed[-SLACK:] = 0
    view = np.ndarray((span, g_all), dtype=word, buffer=packed, strides=(1, w))
    got = view[offsets]                         # (8, g_all), C-contiguous
    got >>= shifts[:, None]
    got &= mask
    # each run's number, repeated for its groups: a contiguous operand (a broadcast along
    # the short group axis costs twice as much)
    run_plus = np.repeat(plus, groups)
    if got.dtype == odt or narrow:
        got += run_plus
        planes = got
    else:
        planes = np.empty(got.shape, dtype=odt)
        np.add(got, run_plus, out=planes, casting="unsafe")
    for j in range(1, 8):
        planes[j] += planes[j - 1]
    # where each group starts: the value before it (the segment's start, then running totals)
    steps = np.empty((segs, g_seg), dtype=odt)
    steps[:, 0] = before_first
    steps[:, 1:] = planes[7].reshape(segs, g_seg)[:, :-1]
    # into a new array, few rows as one (numpy holds the GIL throughout an accumulate
    # into its own input, or over 500 rows or fewer)
    before = row_sums_into(steps, np.empty_like(steps))
    # group start added plane by plane (contiguous), then one transposing copy: cheaper than
    # a transposing add, above all one that also widens 32-bit lanes
    if planes.dtype == odt:
        planes += before.reshape(1, g_all)
        summed = planes
    else:
        summed = np.empty(planes.shape, dtype=odt)
        np.add(planes, before.reshape(1, g_all), out=summed)
    np.copyto(dst2d.reshape(segs, g_seg, 8).transpose(2, 0, 1), summed.reshape(8, segs, g_seg))
