"""Runs of small codes laid out back to back, one window copy per run.

The output of a run-length stream (dictionary indices of the RLE/bit-packed hybrid)
is a sequence of runs: some copy a stretch of a source buffer (the unpacked values of
a bit-packed run), others repeat one value (an RLE run).  With codes of one or two
bytes and runs of a few dozen values, the cost of a numpy step per *value* (a
repeated mask, a placement index per group of 8) outweighs the copy itself, so here
every run is one element of a single fancy assignment: the output and the source are
seen as overlapping ``width``-byte windows (one void element per byte offset, as in
:mod:`parquet_core._kernels.runs`) and each run copies one window to its place.  A
window longer than its run spills into the runs after it, which are written later
and overwrite the spill (numpy performs a 1-D fancy assignment in index order; checked
once by :func:`~parquet_core._kernels.runs.wide_windows_in_order`, else None is
returned and the caller takes its other path).

A repeated run reads its window from a *fill table*: ``width`` bytes holding its value
over and over (:func:`fill_table`, one row per possible value), so the same copy writes
RLE runs and bit-packed runs alike, and no ``np.repeat`` output has to be merged
with the unpacked values afterwards.  Runs longer than the window get "tail" windows
written first (a repeated run's tails read the same fill row again); a tail only spills
into the first window of later runs, which the main pass then rewrites.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.runs import wide_windows_in_order, window_view

__all__ = ["copy_code_runs", "fill_table", "window_for"]

#: ``(rows, codes per row, dtype) -> table``; a few kept (one per code type and window).
_FILLS: dict[tuple[int, int, str], npt.NDArray[Any]] = {}
_FILLS_KEEP = 8


def fill_table(rows: int, per_row: int, dtype: Any) -> npt.NDArray[Any]:
    """``rows`` rows of ``per_row`` codes, row ``v`` holding ``v`` in every place (flat)."""
    key = (rows, per_row, np.dtype(dtype).str)
    got = _FILLS.get(key)
    if got is None:
        if len(_FILLS) >= _FILLS_KEEP:
            _FILLS.clear()
        got = np.repeat(np.arange(rows, dtype=dtype), per_row)
        got.flags.writeable = False     # shared by every caller (and thread)
        _FILLS[key] = got
    return got


def window_for(total_bytes: int, runs: int) -> int:
    """The window (bytes) for *runs* runs of *total_bytes* in all: at least 1.5 times the
    mean run, so most runs take one window and few need tails (a window costs a few ns
    plus its bytes, a tail window several times that in index arithmetic; taxi-like
    runs of ~33 values measured 0.15 ms at 64 bytes, 0.18 at 128, and at two bytes a
    value 0.23 ms at 128, 0.31 at 256)."""
    mean = total_bytes // max(runs, 1)
    for width in (32, 64, 128, 256):
        if mean * 3 // 2 <= width:
            return width
    return 512


def copy_code_runs(src: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
                   lengths: npt.NDArray[np.int64], repeated: npt.NDArray[np.bool_],
                   total: int, width: int) -> npt.NDArray[np.uint8] | None:
    """The bytes of every run back to back: run ``i`` is ``lengths[i]`` bytes read from
    ``src[starts[i]:]``, or, where ``repeated[i]``, the first ``width`` bytes at
    ``starts[i]`` repeated (a fill-table row) until ``lengths[i]`` bytes are written.
    Returns ``total + width`` bytes (the first *total* are the runs; ``total`` is the sum
    of the lengths), or None when window copies do not land in index order here.

    Preconditions (the caller's): every window read lies inside *src*, that is
    ``starts[i] + width <= src.size`` and, for a run that is not repeated,
    ``starts[i] + lengths[i] + width <= src.size``; every length >= 0.
    """
    if not wide_windows_in_order(width):
        return None
    out = np.empty(total + width, dtype=np.uint8)
    if starts.size == 0:
        return out
    dst = np.cumsum(lengths)
    dst -= lengths
    dview = window_view(out, width)
    sview = window_view(src, width)
    long_runs = np.flatnonzero(lengths > width)
    if long_runs.size:
        # tail windows first: the main pass below rewrites whatever they spill over
        extra = (lengths[long_runs] - 1) // width
        first = np.cumsum(extra)
        m = int(first[-1])
        first -= extra
        step = np.arange(m, dtype=np.int64)
        step -= np.repeat(first, extra)
        step += 1
        step *= width
        at = np.repeat(starts[long_runs], extra)
        at += step * np.repeat(~repeated[long_runs], extra)     # a repeated run rereads its row
        step += np.repeat(dst[long_runs], extra)
        dview[step] = sview[at]
    dview[dst] = sview[starts]
    return out
