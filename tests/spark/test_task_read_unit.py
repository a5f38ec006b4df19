"""``benchmarks/spark_task_read``: a pqcore task's worker-side read, run without Spark.

The harness must do what Spark's workers do (plan, pickle, ``read()`` each partition)
and so return every row of the files; the expected rows come from pyarrow.  No timing
is asserted.
"""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from benchmarks import spark_task_read  # noqa: E402


@pytest.fixture()
def folder(tmp_path):
    d = tmp_path / "t"
    d.mkdir()
    for i in range(3):
        n = 1000 + 500 * i
        table = pa.table({"id": pa.array(range(i * 10_000, i * 10_000 + n), pa.int64()),
                          "s": pa.array([f"s{j % 7}" if j % 11 else None for j in range(n)]),
                          "x": pa.array([j / 3 for j in range(n)], pa.float64())})
        pq.write_table(table, d / f"part-{i}.parquet", row_group_size=700)
    return d


def test_tasks_read_every_row_as_pyarrow_does(folder):
    expected = pq.read_table(folder).sort_by("id")
    blob, parts = spark_task_read.plan(str(folder))
    assert parts, "the planning gave no task"
    batches = []
    for p in parts:
        reader = pickle.loads(blob)
        batches.extend(reader.read(p))
    got = pa.Table.from_batches(batches).sort_by("id")
    assert got.column_names == expected.column_names
    for name in expected.column_names:
        assert got.column(name).to_pylist() == expected.column(name).to_pylist(), name
    assert sum(spark_task_read.read_task(blob, p) for p in parts) == expected.num_rows


def test_cpu_per_task_and_profile_by_part(folder):
    best, rows = spark_task_read.task_cpu(str(folder), repeats=1)
    assert rows == 3000 + 500 * 3 and len(best) >= 1 and all(t >= 0 for t in best)
    parts = spark_task_read.profile_parts(str(folder), runs=1)
    total = parts.pop("total")
    known = {name for name, _ in spark_task_read.PARTS} | {"other"}
    assert set(parts) <= known
    # the decoders' own parts are seen (the files hold dictionary-encoded strings)
    assert parts.get("strings (dictionary gather, offsets)", 0) > 0
    assert parts.get("dictionary indices (RLE/bit-packed)", 0) > 0
    assert sum(parts.values()) == pytest.approx(total)


def test_a_builtin_counts_for_its_callers_part():
    assert spark_task_read._part_of("/x/parquet_core/compression/codecs.py") == "decompression"
    assert spark_task_read._part_of("/x/spark_adapter/core/batches.py") == "adapter (Spark layout, per task)"
    assert spark_task_read._part_of("~") is None
