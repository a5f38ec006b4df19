"""The validator computes a chunk's bounds and level histograms from its pages' (each page
scanned once): the results must equal a direct computation over the whole chunk."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core.metadata.stats_builder import compute_bounds
from parquet_core.validation.context import ChunkState, PageInfo
from parquet_core.validation.values import actual_bounds, chunk_histogram, histogram


class _Desc:
    def __init__(self, physical_type: int, name: str) -> None:
        from parquet_core.schema.types import DataType

        self.physical_type = physical_type
        self.type_length = None
        self.data_type = DataType(name)
        self.max_definition_level = 2
        self.max_repetition_level = 0
        self.dotted_path = "c"
        self.logical_type = None
        self.converted_type = None


def _chunk(pages_values, pages_levels, desc) -> ChunkState:
    ch = ChunkState(0, 0, None, None, desc)
    for k, (v, lv) in enumerate(zip(pages_values, pages_levels)):
        ch.pages.append(PageInfo(k, None, 0, 0, memoryview(b""), data_ordinal=k, values=v, def_levels=lv))
    return ch


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(allow_nan=True, width=64), max_size=20), min_size=2, max_size=5),
       st.lists(st.lists(st.integers(0, 2), max_size=20), min_size=2, max_size=5))
def test_doubles_and_levels(pages, levels):
    from parquet_core.constants import PhysicalType

    n = min(len(pages), len(levels))
    vals = [np.array(p, dtype=np.float64) for p in pages[:n]]
    lvls = [np.array(lv, dtype=np.int16) for lv in levels[:n]]
    desc = _Desc(PhysicalType.DOUBLE, "float64")
    ch = _chunk(vals, lvls, desc)
    ch.values = np.concatenate(vals)
    ch.def_levels = np.concatenate(lvls)
    ch.num_levels = len(ch.def_levels)
    want = compute_bounds(ch.values, desc)
    got = actual_bounds(ch, ch.values)
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert float(got[0]) == float(want[0]) and float(got[1]) == float(want[1])
    assert chunk_histogram(ch, ch.def_levels, 2) == histogram(ch.def_levels, 2, ch.num_levels) \
        == [int(c) for c in np.bincount(ch.def_levels.astype(np.int64), minlength=3)]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.binary(max_size=6), max_size=10), min_size=2, max_size=4))
def test_byte_arrays(pages):
    from parquet_core.constants import PhysicalType

    vals = [ByteArrays.from_pylist(p) for p in pages]
    desc = _Desc(PhysicalType.BYTE_ARRAY, "binary")
    ch = _chunk(vals, [None] * len(vals), desc)
    ch.values = ByteArrays.concat(vals)
    want = compute_bounds(ch.values, desc)
    got = actual_bounds(ch, ch.values)
    flat = [b for p in pages for b in p]
    if not flat:
        assert got == want
    else:
        assert bytes(got[0]) == min(flat) and bytes(got[1]) == max(flat)
        assert bytes(want[0]) == min(flat) and bytes(want[1]) == max(flat)


def test_histogram_with_a_level_above_the_maximum():
    lv = np.array([0, 1, 3], dtype=np.int16)
    assert histogram(lv, 1, 3) == [1, 1, 0, 1]
