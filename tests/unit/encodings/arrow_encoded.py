"""Test helper: pyarrow's page bytes for a column, next to the values of each page.

Golden vectors for the encoders come from an independent writer: pyarrow
writes the column uncompressed with one value encoding (data page v2, so
the values section is cut out exactly, see ``arrow_pages``), and each data
page's values section is paired with the slice of the input it holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
from tests.unit.encodings.arrow_pages import arrow_pages

from parquet_core._kernels.binary import ByteArrays

__all__ = ["arrow_value_pages", "byte_arrays", "slice_values"]


def slice_values(values: Any, start: int, stop: int) -> Any:
    """Values ``start:stop`` (a ByteArrays slice keeps the shared data buffer)."""
    if isinstance(values, ByteArrays):
        return ByteArrays(values.offsets[start:stop + 1], values.data)
    return values[start:stop]


def arrow_value_pages(array: pa.Array, values: Any, encoding: str,
                      **options: Any) -> Iterator[tuple[Any, bytes]]:
    """Yield ``(our values of the page, pyarrow's values section)`` for every data page.

    ``array`` must hold no nulls, so each page's values are a contiguous
    slice of ``values``.
    """
    assert array.null_count == 0
    opts: dict[str, Any] = {"use_dictionary": False, "column_encoding": {"x": encoding}}
    opts.update(options)
    at = 0
    for page in arrow_pages(array, **opts):
        assert page.kind == "v2"
        yield slice_values(values, at, at + page.num_values), page.values
        at += page.num_values
    assert at == len(values) or (len(values) == 0 and at == 0)


def byte_arrays(items: list[bytes], base: int = 0) -> ByteArrays:
    """ByteArrays whose offsets start at ``base`` (junk bytes before the first value)."""
    ba = ByteArrays.from_pylist(items)
    junk = np.full(base, 0xEE, dtype=np.uint8)
    return ByteArrays(ba.offsets + base, np.concatenate([junk, ba.data]))
