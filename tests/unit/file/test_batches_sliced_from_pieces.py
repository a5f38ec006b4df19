"""A flat column's batches are slices of its piece's Array (issue 32): the piece is checked and
converted once, not once per batch; batches with and without nulls, and batches across pieces
and row groups, equal pyarrow's."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc
from parquet_core.table import convert


def _data(n: int, row_group_size: int) -> tuple[bytes, pa.Table]:
    rng = np.random.default_rng(11)
    nulls = np.zeros(n, dtype=bool)
    nulls[n // 3:n // 3 + 50] = True            # nulls in one stretch only: most batches have none
    table = pa.table({
        "i8": pa.array(rng.integers(-100, 100, n).astype(np.int8)),
        "f": pa.array(rng.random(n), mask=nulls),
        "s": pa.array(np.array(["a", "bb", "ccc"])[rng.integers(0, 3, n)], mask=np.roll(nulls, 500)),
        "l": pa.array([[1, 2]] * n),              # nested: still built batch by batch
    })
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=row_group_size, data_page_size=4096)
    return buf.getvalue(), table


def test_flat_batches_equal_pyarrows_and_drop_empty_masks() -> None:
    data, _ = _data(20_000, 7_000)
    for size in (1_000, 3_333, 20_000):
        want = list(pq.ParquetFile(io.BytesIO(data)).iter_batches(batch_size=size))
        got = list(pc.ParquetFile(data).iter_batches(batch_size=size, use_threads=False))
        assert [b.num_rows for b in got] == [b.num_rows for b in want]
        for g, w in zip(got, want):
            assert g.to_arrow().equals(pa.Table.from_batches([w]))
            for name in ("f", "s"):
                col = g.column(name)
                # a batch without nulls has no mask, as a batch read on its own
                assert (col.validity is None) == (w.column(name).null_count == 0)


def test_a_piece_is_converted_once_for_its_batches(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    data, table = _data(20_000, 20_000)
    calls: list[int] = []
    real = convert.to_array

    def spy(d, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(d.num_levels)
        return real(d, *args, **kwargs)
    monkeypatch.setattr("parquet_core.table.leaves.to_array", spy)
    batches = list(pc.ParquetFile(data).iter_batches(batch_size=500, columns=["i8", "f"], use_threads=False))
    assert len(batches) == 40
    assert pa.concat_tables([b.to_arrow() for b in batches]).equals(table.select(["i8", "f"]))
    # a few pieces per column (and the batches that span two of them), not one call per batch
    assert len(calls) < 20, calls
