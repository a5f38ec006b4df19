"""Issue 31: ``write_to_dataset`` given a stream (``__arrow_c_stream__``) consumes it batch by
batch, each batch's rows going to their partition's open file, never holding the stream whole;
a stream that raises midway leaves nothing at any target path.

Oracles: ``pyarrow.dataset`` reads the folder back (rows compared order-insensitively where
partitioning reorders them); memory is a ratio of the stream's total in-memory size, measured
with ``tracemalloc`` (no timing).
"""

from __future__ import annotations

import os
import tracemalloc

import numpy as np
import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pads = pytest.importorskip("pyarrow.dataset")
pq = pytest.importorskip("pyarrow.parquet")

BATCHES, ROWS = 40, 30_000
SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.int64()), ("w", pa.float64())])


def _batch(i: int, rows: int = ROWS, parts: int = 2):
    return pa.record_batch({"k": pa.array(np.arange(rows) % parts), "v": pa.array(np.arange(i * rows, (i + 1) * rows)),
                            "w": pa.array(np.arange(rows, dtype=np.float64) / 7)}, schema=SCHEMA)


def _reader(n: int = BATCHES, rows: int = ROWS, fail_at: int | None = None):
    """A RecordBatchReader over a generator: each batch made only when pulled."""
    def gen():
        for i in range(n):
            if i == fail_at:
                raise RuntimeError("the producer failed")
            yield _batch(i, rows)
    return pa.RecordBatchReader.from_batches(SCHEMA, gen())


def _files(root) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def _read_back(root, partitioned: bool):
    table = pads.dataset(str(root), partitioning="hive" if partitioned else None).to_table()
    return table.sort_by("v")


@pytest.mark.parametrize("partition_cols", [None, ["k"]], ids=["unpartitioned", "partitioned"])
def test_a_stream_is_written_batch_by_batch(tmp_path, partition_cols):
    # warm up (imports, caches) so that the measure is the write's own
    pc.write_to_dataset(_reader(1, 100), tmp_path / "warm", partition_cols=partition_cols)
    total = BATCHES * _batch(0).nbytes
    tracemalloc.start()
    try:
        written = pc.write_to_dataset(_reader(), tmp_path / "ds", partition_cols=partition_cols,
                                      row_group_size=ROWS // 2, compression="none", use_dictionary=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < total / 4, (peak, total)
    got = _read_back(tmp_path / "ds", partition_cols is not None)
    assert got.num_rows == BATCHES * ROWS
    v = np.arange(BATCHES * ROWS)
    assert np.array_equal(got.column("v").to_numpy(), v)
    assert np.array_equal(got.column("w").to_numpy(), (v % ROWS) / 7)
    assert np.array_equal(got.column("k").cast(pa.int64()).to_numpy(), v % ROWS % 2)
    assert len(written) == (1 if partition_cols is None else 2)
    # row groups of row_group_size rows, gathered across batches
    meta = pq.ParquetFile(written[0]).metadata
    assert max(meta.row_group(i).num_rows for i in range(meta.num_row_groups)) == ROWS // 2


@pytest.mark.parametrize("partition_cols", [None, ["k"]], ids=["unpartitioned", "partitioned"])
def test_a_stream_respects_max_rows_per_file_and_row_group_size(tmp_path, partition_cols):
    written = pc.write_to_dataset(_reader(7, 10), tmp_path / "ds", partition_cols=partition_cols,
                                  max_rows_per_file=12, row_group_size=5)
    per_file = [pq.ParquetFile(p).metadata for p in written]
    assert all(m.num_rows <= 12 for m in per_file)
    assert all(m.row_group(i).num_rows <= 5 for m in per_file for i in range(m.num_row_groups))
    # every file but each folder's last is full
    by_folder: dict[str, list[int]] = {}
    for p, m in zip(written, per_file):
        by_folder.setdefault(os.path.dirname(p), []).append(m.num_rows)
    for counts in by_folder.values():
        assert all(c == 12 for c in counts[:-1])
    got = _read_back(tmp_path / "ds", partition_cols is not None)
    assert got.column("v").to_pylist() == list(range(70))


@pytest.mark.parametrize("partition_cols", [None, ["k"]], ids=["unpartitioned", "partitioned"])
def test_a_stream_raising_midway_leaves_nothing(tmp_path, partition_cols):
    root = tmp_path / "ds"
    with pytest.raises(RuntimeError, match="the producer failed"):
        pc.write_to_dataset(_reader(10, 20, fail_at=6), root, partition_cols=partition_cols, row_group_size=30)
    assert _files(root) == [] if root.exists() else True
    # over existing data: the old files stay as they were, nothing new beside them
    pc.write_to_dataset(pa.Table.from_batches([_batch(0, 4)]), root, partition_cols=partition_cols)
    before = {f: (root / f).read_bytes() for f in _files(root)}
    for behavior in ("overwrite_or_ignore", "delete_matching"):
        with pytest.raises(RuntimeError, match="the producer failed"):
            pc.write_to_dataset(_reader(10, 20, fail_at=3), root, partition_cols=partition_cols,
                                existing_data_behavior=behavior, max_rows_per_file=25)
        assert {f: (root / f).read_bytes() for f in _files(root)} == before


def test_polars_frame_streams_into_partitions(tmp_path):
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"p": ["a", "b", None, "a"] * 5, "x": list(range(20))})
    pc.write_to_dataset(frame, tmp_path / "ds", partition_cols=["p"], max_rows_per_file=4)
    got = pads.dataset(str(tmp_path / "ds"), partitioning="hive").to_table().sort_by("x")
    assert got.column("x").to_pylist() == list(range(20))
    assert got.column("p").cast(pa.string()).to_pylist() == ["a", "b", None, "a"] * 5


def test_an_empty_stream(tmp_path):
    empty = pa.RecordBatchReader.from_batches(SCHEMA, iter([]))
    written = pc.write_to_dataset(empty, tmp_path / "flat")
    assert len(written) == 1
    assert pq.read_table(written[0]).schema == SCHEMA
    assert pc.write_to_dataset(pa.RecordBatchReader.from_batches(SCHEMA, iter([])), tmp_path / "parts",
                               partition_cols=["k"]) == []
