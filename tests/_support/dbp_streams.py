"""DELTA_BINARY_PACKED streams damaged at random, and what the page-by-page decoder (the
tests' reference: each stream decoded on its own, as the spec lays it out) makes of them,
for the tests that check the chunk-level passes never accept or decode differently."""

from __future__ import annotations

from typing import Any

import numpy as np

from parquet_core.encodings.delta_binary_packed import (
    decode_delta_binary_packed,
    delta_binary_packed_page_header,
)
from parquet_core.errors import ParquetFormatError


def damage(rng: np.random.Generator, b: bytearray, *, first: int, overwrite: float, cut: float) -> bytes:
    """*b* with one or two bytes at or past *first* overwritten (with probability
    *overwrite*), then cut short past *first* (with probability *cut*)."""
    if rng.random() < overwrite:
        for _ in range(int(rng.integers(1, 3))):
            b[int(rng.integers(first, len(b)))] = int(rng.integers(0, 256))
    if rng.random() < cut:
        b = b[:int(rng.integers(first, len(b)))]
    return bytes(b)


def held_with_reference(pages: list[bytes], counts: list[int], dt: Any) -> tuple[list[Any], Any] | None:
    """The pages' held headers and their values decoded page by page (None where that
    decoder refuses a page); None when a header is refused or not held."""
    try:
        held = [delta_binary_packed_page_header(p, c, dt) for p, c in zip(pages, counts)]
    except ParquetFormatError:
        return None
    if any(h is None for h in held):
        return None
    try:
        ref = np.concatenate([decode_delta_binary_packed(p, 0, dt, max_count=c)[0]
                              for p, c in zip(pages, counts)])
    except ParquetFormatError:
        ref = None
    return held, ref
