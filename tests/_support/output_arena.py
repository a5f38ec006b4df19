"""Helpers for the output-arena tests (``parquet_core/column/outputs.py``)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def root_base(values: np.ndarray) -> np.ndarray:
    """The array at the bottom of *values*' chain of views (the allocation it lives in)."""
    while isinstance(values.base, np.ndarray):
        values = values.base
    return values


def unplanned_columns(rng: np.random.Generator, rows: int) -> dict[str, object]:
    """Columns the arena plan leaves out or splits: 11-bit indices (several pieces when
    streamed), nulls, PLAIN doubles and dictionary strings."""
    return {
        "wide": rng.integers(0, 2000, rows),
        "opt": pa.array(rng.integers(0, 9, rows), mask=rng.random(rows) < 0.1),
        "plain": rng.random(rows),
        "s": pa.array(np.array(["a", "bb", "ccc"])[rng.integers(0, 3, rows)]),
    }
