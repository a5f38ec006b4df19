"""DELTA_BINARY_PACKED pages of one layout decoded together (issue 32): consecutive pages
with the same value count, block layout and bit width have their full blocks unpacked
and prefix-summed by one lane-major pass (``prefix_sum_runs_into``), each from its own
first value.  Files written by pyarrow read back equal to pyarrow's read; damaged
streams of one layout are never accepted when decoding each page on its own (the spec's
layout, ``decode_delta_binary_packed``) refuses them, nor decoded differently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.encodings import delta_binary_packed as dbp
from parquet_core.encodings.delta_binary_packed import (
    encode_delta_binary_packed,
    expand_held_delta_binary_packed_pages,
)
from tests._support.dbp_streams import damage, held_with_reference

I64 = np.iinfo(np.int64)
I32 = np.iinfo(np.int32)


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of pages of every lane-major pass."""
    seen: list[int] = []
    real = dbp.prefix_sum_runs_into

    def spy(*a: Any) -> None:
        seen.append(a[-1].shape[0])
        real(*a)
    monkeypatch.setattr(dbp, "prefix_sum_runs_into", spy)
    return seen


def _write(path: Path, values: Any, typ: pa.DataType, per_page: int, **kw: Any) -> None:
    pq.write_table(pa.table({"x": pa.array(values, typ)}), path, use_dictionary=False,
                   column_encoding={"x": "DELTA_BINARY_PACKED"}, max_rows_per_page=per_page, **kw)


def _read_equal(path: Path) -> None:
    got = pc.read_table(str(path), use_threads=False).to_arrow()
    assert got.equals(pq.read_table(path))


def test_jittered_timestamps_pages_go_together(tmp_path: Path, batches: list[int]) -> None:
    # eleven pages of 2,000 values and a short last one: the eleven in one pass
    rng = np.random.default_rng(1)
    ts = 1_700_000_000_000_000 + np.cumsum(rng.integers(900_000, 1_100_000, 22_345))
    path = tmp_path / "t.parquet"
    _write(path, ts, pa.timestamp("us"), 2_000, compression="SNAPPY")
    _read_equal(path)
    assert sorted(batches) == [1, 11]


@pytest.mark.parametrize("name", ["descending", "counter-int32", "wrapping-int64", "wrapping-int32",
                                  "full-range-int32", "wide-40"])
def test_pages_of_one_layout_read_equal_to_pyarrow(tmp_path: Path, batches: list[int], name: str) -> None:
    rng = np.random.default_rng(4)
    n = 6_001                      # 6 pages of 1,000 values and one of 1
    if name == "descending":       # negative min deltas: every sum wraps through 2**64
        values, typ = 10**15 - np.cumsum(rng.integers(900_000, 1_100_000, n)), pa.int64()
    elif name == "counter-int32":
        values, typ = np.cumsum(rng.integers(0, 50, n)).astype(np.int32), pa.int32()
    elif name == "wrapping-int64":
        values, typ = np.where(np.arange(n) % 2 == 0, I64.min, I64.max).astype(np.int64), pa.int64()
    elif name == "wrapping-int32":
        values, typ = np.where(np.arange(n) % 2 == 0, I32.min, I32.max).astype(np.int32), pa.int32()
    elif name == "full-range-int32":
        values, typ = rng.integers(I32.min, I32.max, n).astype(np.int32), pa.int32()
    else:                          # width 40 in every miniblock (64-bit lane words)
        d = rng.integers(0, 2**40, n, dtype=np.int64)
        d[::16], d[1::16] = 0, 2**40 - 1
        values, typ = np.cumsum(d), pa.int64()
    path = tmp_path / "t.parquet"
    _write(path, values, typ, 1_000)
    _read_equal(path)
    assert max(batches) >= 2


def test_a_page_of_another_layout_splits_the_pages_around_it(tmp_path: Path, batches: list[int]) -> None:
    # pages 3 and 4 of 8 have small gaps (another bit width): pages 0-2, 3-4 and 5-7 go
    # in three passes, each page summed from its own first value
    rng = np.random.default_rng(9)
    gaps = rng.integers(900_000, 1_100_000, 8_000)
    gaps[3_000:5_000] = rng.integers(0, 1_000, 2_000)
    path = tmp_path / "t.parquet"
    _write(path, np.cumsum(gaps), pa.int64(), 1_000)
    _read_equal(path)
    assert batches == [3, 2, 3]


def test_nulls_and_several_row_groups(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    v = (1_700_000_000_000_000 + np.cumsum(rng.integers(900_000, 1_100_000, 9_000))).astype(object)
    v[rng.random(9_000) < 0.05] = None
    path = tmp_path / "t.parquet"
    _write(path, v, pa.int64(), 1_000, row_group_size=4_000)
    _read_equal(path)


@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_damaged_pages_of_one_layout_are_never_accepted_or_decoded_differently(dt: Any) -> None:
    # 2-5 pages of the same count and width (so they go together), one or two of them
    # damaged (headers, widths, min deltas, bodies overwritten, or cut short); the chunk
    # pass hands back None (the pages are then checked one by one) or exactly the
    # values each page decodes to on its own
    rng = np.random.default_rng(6 + dt().itemsize)
    accepted = together = 0
    real = dbp.prefix_sum_runs_into
    for it in range(150):
        bs, nm = [(128, 4), (256, 4), (256, 8)][it % 3]
        c = int(rng.integers(2, 6)) * bs + int(rng.integers(1, bs))
        w = int(rng.integers(1, 28))
        pages = []
        n_pages = int(rng.integers(2, 6))
        bad = set(rng.choice(n_pages, int(rng.integers(1, 3)), replace=True).tolist())
        for p in range(n_pages):
            gaps = 2 ** w + rng.integers(0, 2 ** w, c)
            if dt == np.int64 and rng.random() < 0.3:
                gaps = -gaps
            b = bytearray(encode_delta_binary_packed(np.cumsum(gaps).astype(dt), dt,
                                                     block_size=bs, miniblocks=nm))
            pages.append(damage(rng, b, first=5, overwrite=0.8, cut=0.2) if p in bad else bytes(b))
        found = held_with_reference(pages, [c] * n_pages, dt)
        if found is None:
            continue
        held, ref = found
        seen: list[int] = []

        def spy(*a: Any, _seen: list[int] = seen) -> None:
            _seen.append(a[-1].shape[0])
            real(*a)
        dbp.prefix_sum_runs_into = spy  # type: ignore[assignment]
        try:
            got = expand_held_delta_binary_packed_pages(held, dt)
        finally:
            dbp.prefix_sum_runs_into = real  # type: ignore[assignment]
        if got is not None:
            assert ref is not None and np.array_equal(got, ref), it
            accepted += 1
            together += any(s > 1 for s in seen)
    assert accepted > 20 and together > 10


def test_one_long_page_is_summed_round_by_round(tmp_path: Path, batches: list[int]) -> None:
    # 150,000 timestamps in one page (a 1 MiB page limit, no row limit): longer than a
    # round of the lane-major pass, so its runs go a few at a time
    rng = np.random.default_rng(13)
    ts = 1_700_000_000_000_000 + np.cumsum(rng.integers(900_000, 1_100_000, 150_000))
    path = tmp_path / "t.parquet"
    _write(path, ts, pa.int64(), 200_000, data_page_size=8 << 20)
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).num_values == 150_000
    _read_equal(path)
    assert batches == [1]
