"""pqcore and pqmeta on a folder whose ``_metadata`` went stale (issue 30): both list the
folder (``pc.list_data_files``), so they read exactly the data files pyarrow.dataset finds."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import parquet_core as pc

pytestmark = pytest.mark.spark


def test_pqcore_and_pqmeta_ignore_a_stale_metadata(pqcore_spark, tmp_path):
    spark = pqcore_spark
    root = str(tmp_path / "lake")
    collected: list = []
    pq.write_to_dataset(pa.table({"p": [1, 2, 3], "x": [1, 2, 3]}), root, partition_cols=["p"],
                        metadata_collector=collected)
    pq.write_metadata(pa.schema([("x", pa.int64())]), os.path.join(root, "_metadata"), metadata_collector=collected)
    pq.write_to_dataset(pa.table({"p": [2, 4], "x": [5, 6]}), root, partition_cols=["p"])   # not in _metadata
    os.remove(pc.list_data_files(os.path.join(root, "p=3"))[0][0])                         # listed there, gone
    truth = ds.dataset(root, partitioning="hive").to_table()
    rows = spark.read.format("pqcore").load(root).collect()
    assert sorted((r["p"], r["x"]) for r in rows) == sorted(zip(truth.column("p").to_pylist(),
                                                               truth.column("x").to_pylist()))
    files = spark.read.format("pqmeta").load(root).collect()
    assert len(files) == len(ds.dataset(root, partitioning="hive").files)
    assert sum(r["num_rows"] for r in files) == truth.num_rows
