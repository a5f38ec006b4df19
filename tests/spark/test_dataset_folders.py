"""Folders Spark writes with ``partitionBy`` read by ``pc.read_table`` equal to pyarrow.dataset,
and the pqcore data source and ``pc.ParquetDataset`` list the same files (one listing rule)."""

from __future__ import annotations

import pyarrow.dataset as ds
import pytest

import parquet_core as pc

from tests.dataset._helpers import assert_same, oracle

pytestmark = pytest.mark.spark


def test_spark_partition_by_folder(pqcore_spark, tmp_path):
    spark = pqcore_spark
    out = str(tmp_path / "sp")
    df = spark.range(0, 300).selectExpr("id AS n", "CAST(id % 3 AS INT) AS g", "concat('v', id % 4) AS s",
                                        "id * 0.5 AS x")
    df.write.partitionBy("g", "s").parquet(out)
    for filters, expr in [(None, None), ([("g", "==", 1)], ds.field("g") == 1),
                          ([("s", "!=", "v2"), ("x", "<", 60.0)], (ds.field("s") != "v2") & (ds.field("x") < 60.0))]:
        assert_same(pc.read_table(out, filters=filters), oracle(out, expr))
    from spark_adapter.core.files import list_files

    assert list_files([out]) == pc.ParquetDataset(out).files
    n = spark.read.format("pqcore").load(out).where("g = 1").count()
    assert n == pc.read_table(out, filters=[("g", "==", 1)]).num_rows
