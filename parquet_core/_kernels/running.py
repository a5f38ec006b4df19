"""Running sums along rows, written so that numpy lets other threads run (issue 32).

numpy 2.x releases the GIL during ``np.cumsum`` / ``ufunc.accumulate`` only when the
output is not the input and the call's outer loop is long enough: a 1-D array of more
than ~500 values, or a 2-D array of **more than 500 rows** (measured: 3 x 2,496 uint64
values held the GIL for 100 % of the call into any output; 501 x 200 for 8 %, 499 x 200
for 99 %; 3 x 100,000 for 100 %).  Chunks have a few pages, so their per-page sums are
2-D arrays with few rows: those are summed here as one long row (then each row's start
taken back off), or row by row when the rows are long.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

#: numpy keeps the GIL through an accumulate whose outer loop has at most this many steps.
NUMPY_THREAD_MIN = 500

#: Rows at least this long are summed one call per row (each call lets threads run).
_ROW_BY_ROW = 4096


def row_sums_into(a: npt.NDArray[Any], out: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``np.cumsum(a, axis=-1, out=out)`` for integer *a* of 1 or 2 dimensions and *out*
    of its shape and dtype, not sharing memory with it (sums wrap as numpy's do).  Returns
    *out*."""
    if a.ndim == 1 or a.shape[0] > NUMPY_THREAD_MIN or a.size == 0:
        return np.cumsum(a, axis=-1, dtype=out.dtype, out=out)
    rows, width = a.shape
    if width >= _ROW_BY_ROW:
        for i in range(rows):
            np.cumsum(a[i], dtype=out.dtype, out=out[i])
        return out
    # one running sum over the rows back to back, less the total of the rows before
    # (integer sums wrap, so the difference is exact)
    flat = np.cumsum(a.reshape(-1), dtype=out.dtype).reshape(rows, width)
    out[0] = flat[0]
    np.subtract(flat[1:], flat[:-1, -1:], out=out[1:])
    return out
