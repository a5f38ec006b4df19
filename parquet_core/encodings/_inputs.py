"""Normalise encoder inputs to the engine's value representations."""

from __future__ import annotations

from typing import Any

import numpy as np

from parquet_core._kernels.binary import ByteArrays

__all__ = ["as_byte_arrays"]


def as_byte_arrays(values: Any) -> ByteArrays:
    """Return ``values`` as :class:`ByteArrays`.

    Accepts a ``ByteArrays`` (returned as is; its offsets may start above 0),
    an ``(n, w)`` uint8 matrix (FIXED_LEN_BYTE_ARRAY rows: a zero-copy view),
    or a sequence of bytes-like objects (an edge/test convenience: built with
    :meth:`ByteArrays.from_pylist`, one Python object per value).
    """
    if isinstance(values, ByteArrays):
        return values
    if isinstance(values, np.ndarray):
        if values.ndim != 2:
            raise ValueError(f"byte values as an array must be (n, width) uint8, got {values.shape}")
        n, w = values.shape
        rows = np.ascontiguousarray(values, dtype=np.uint8)
        return ByteArrays(np.arange(n + 1, dtype=np.int64) * w, rows.reshape(-1))
    return ByteArrays.from_pylist([bytes(v) for v in values])
