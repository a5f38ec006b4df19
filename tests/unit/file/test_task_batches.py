"""Small decode tasks are batched for the pool (``scan.run_tasks`` with sizes); each task's
outcome stays its own; reads with threads give pyarrow's values."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.file import scan


def test_batches_group_neighbours() -> None:
    m = scan.TASK_MIN_BYTES
    assert scan._batches([m // 4] * 8) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert scan._batches([m, m, m]) == [[0], [1], [2]]
    assert scan._batches([m, m // 8]) == [[0, 1]]            # a small rest joins the last batch
    assert scan._batches([m // 2, m // 2, m // 2]) == [[0, 1], [2]]


def test_small_tasks_run_in_line() -> None:
    out = scan.run_tasks([lambda: 1, lambda: 2, lambda: 3], True, [10, 10, 10])
    assert out == [1, 2, 3]          # one batch: no pool at all


def test_each_task_keeps_its_own_error() -> None:
    m = scan.TASK_MIN_BYTES

    def boom() -> int:
        raise ValueError("task 1")

    out = scan.run_tasks([lambda: 0, boom, lambda: 2, lambda: 3], True, [m // 2, m // 2, m, m])
    assert isinstance(out[0], scan._Part) and out[0].future is out[1].future
    assert scan._result(out[0]) == 0
    with pytest.raises(ValueError, match="task 1"):
        scan._result(out[1])
    assert [scan._result(o) for o in out[2:]] == [2, 3]
    scan._settle(out)


def test_wide_read_with_threads_equals_pyarrow(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(scan, "THREAD_MIN_BYTES", 1)
    monkeypatch.setattr(scan, "THREAD_MIN_CHUNK_BYTES", 0)
    monkeypatch.setattr(scan, "TASK_MIN_BYTES", 50_000)     # several chunks per pool task
    rng = np.random.default_rng(3)
    t = pa.table({f"c{i:02d}": rng.random(5000) for i in range(40)} |
                 {"s": pa.array([f"v{i % 13}" for i in range(5000)])})
    path = str(tmp_path / "wide.parquet")
    pq.write_table(t, path, row_group_size=2500)
    ours = pc.read_table(path, use_threads=True).to_arrow()
    assert ours.equals(pq.read_table(path))
    assert pc.read_table(path, use_threads=False).to_arrow().equals(ours)
