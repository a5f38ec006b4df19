"""``spark_adapter.read(spark, path, query)``: the query's result over a scan narrowed to the
columns (and, through the ``filter`` option, the row groups) it needs; Spark's built-in reader
running the same query is the oracle."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def table(pqcore_spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("narrow") / "t"
    pqcore_spark.sql("""
        select id, cast(id % 7 as int) as k, concat('s', cast(id % 5 as string)) as s,
               rand(3) as x, timestamp_micros(1700000000000000 + id * 1000000) as t,
               cast(id % 3 as int) as p
        from range(5000)""").repartition(3).write.option("parquet.block.size", 8192) \
        .partitionBy("p").parquet(str(root))
    return str(root)


QUERIES = {
    "count": (lambda d: d.groupBy().count(), []),
    "groupBy": (lambda d: d.groupBy("s").agg({"x": "sum"}), ["s", "x"]),
    "filter, select": (lambda d: d.where("k = 3 and id >= 4000L").select("id", "s"), ["id", "k", "s"]),
    "partition, in": (lambda d: d.where("p = 1 and k in (1, 2)").groupBy("k").count(), ["k", "p"]),
    "timestamp": (lambda d: d.where("t < timestamp'2023-11-14 22:20:00'").select("id"), ["id", "t"]),
    "or, not": (lambda d: d.where("not (k = 1 or s = 's2')").agg({"id": "max"}), ["id", "k", "s"]),
    "self join": (lambda d: d.alias("a").join(d.where("k = 3").alias("b"), "id").select("a.x", "b.s"),
                  ["id", "k", "s", "x"]),
    "whole": (lambda d: d, ["id", "k", "s", "x", "t", "p"]),
    # columns the query names but the optimizer prunes: the narrowed table must still have them
    # (optimized plan's columns, the columns read)
    "select, count": (lambda d: d.select("x").groupBy().count(), [], ["x"]),
    "expressions, count": (lambda d: d.selectExpr("upper(s) as u", "k").groupBy().count(), [], ["k", "s"]),
    "withColumn, agg": (lambda d: d.withColumn("y", d.x * 2).select("y", "s").agg({"s": "max"}), ["s"], ["s", "x"]),
    # a column picked by position: another one (or none) on a narrowed table, so not narrowed
    "by position": (lambda d: d.select(d.columns[3]).agg({d.columns[3]: "sum"}), ["x"],
                    ["id", "k", "s", "x", "t", "p"]),
}


def _rows(df):
    return sorted(tuple(round(v, 9) if isinstance(v, float) else v for v in r) for r in df.collect())


@pytest.mark.parametrize("name", list(QUERIES))
def test_narrow_read_gives_the_built_in_readers_rows(pqcore_spark, table, name):
    import spark_adapter
    from spark_adapter.pqcore.narrow import query_needs

    query, columns, *scanned = QUERIES[name]
    spark = pqcore_spark
    full = spark.read.format("pqcore").load(table)
    needed, conjuncts = query_needs(full, query(full))
    assert needed == columns
    ours = spark_adapter.read(spark, table, query)
    assert _rows(ours) == _rows(query(spark.read.parquet(table)))
    if name == "filter, select":
        assert {"(k = 3)", "(id >= 4000)"} <= set(conjuncts)
    if name == "self join":
        assert not conjuncts      # the k = 3 filter is on one side only
    if name != "whole":
        assert _scan_columns(ours) == (scanned[0] if scanned else columns or ["k"])


def _scan_columns(df):
    """Names of the columns the pqcore scans of *df*'s executed plan read."""
    import re

    scans = [line for line in df._jdf.queryExecution().executedPlan().toString().splitlines()
             if "BatchScan pqcore[" in line]
    assert scans
    return [re.sub(r"#\d+L?$", "", c) for c in scans[0].split("BatchScan pqcore[", 1)[1].split("]", 1)[0].split(", ")]




def test_narrow_scan_reads_only_the_needed_columns(pqcore_spark, table):
    import spark_adapter

    df = spark_adapter.read(pqcore_spark, table, lambda d: d.where("k = 3").groupBy("s").count())
    scan = [line for line in df._jdf.queryExecution().executedPlan().toString().splitlines()
            if "BatchScan" in line]
    assert scan and all("BatchScan pqcore[k#" in line and ", s#" in line and "x#" not in line for line in scan)


def test_zero_column_schema_keeps_row_counts(pqcore_spark, table):
    from pyspark.sql.types import StructType

    n = pqcore_spark.read.parquet(table).count()
    assert pqcore_spark.read.format("pqcore").schema(StructType([])).load(table).count() == n == 5000


def test_filter_text_from_spark_sql():
    from spark_adapter.pqcore.narrow import filter_text

    assert filter_text("((id >= 5L) AND (x < 1.5D))") == "((id >= 5) AND (x < 1.5))"
    assert filter_text("(d = 1.25BD)") == "(d = 1.25)"
    assert filter_text("(s = '5L')") == "(s = '5L')"
    assert filter_text("(`a 5L` = 2S)") == "(`a 5L` = 2)"
    assert filter_text("(col5L = 1Y)") == "(col5L = 1)"
    assert filter_text("(s = 'a\\\\b')") is None


def test_narrow_count_reads_the_narrowest_fixed_width_column(pqcore_spark, table):
    """count() needs no column, but a batch of none costs pyspark a Python object per row:
    the narrowed scan reads one int column instead (k, the first of the 4-byte ones)."""
    import spark_adapter

    df = spark_adapter.read(pqcore_spark, table, lambda d: d.groupBy().count())
    scan = [line for line in df._jdf.queryExecution().executedPlan().toString().splitlines()
            if "BatchScan" in line]
    assert scan and all("BatchScan pqcore[k#" in line and "id#" not in line and "s#" not in line
                        for line in scan)
    assert df.collect()[0][0] == pqcore_spark.read.parquet(table).count() == 5000


def test_a_narrowed_attempt_that_fails_logs_no_error(pqcore_spark, table):
    """``select("x").count()`` first fails on the narrowed table (x unresolved) and is tried
    again with x: pyspark's ERROR log of that first analysis error is kept from the user."""
    import logging

    import spark_adapter

    seen = []

    class Catch(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    from pyspark.logger import PySparkLogger

    handler = Catch()
    loggers = [PySparkLogger.getLogger(n) for n in ("DataFrameQueryContextLogger", "SQLQueryContextLogger")]
    for lg in loggers:
        lg.addHandler(handler)
    try:
        df = spark_adapter.read(pqcore_spark, table, lambda d: d.select("x").groupBy().count())
        assert df.collect()[0][0] == 5000
        assert _scan_columns(df) == ["x"]
        assert seen == []
        # a real analysis error of the user's own still reaches them
        with pytest.raises(Exception, match="nosuch"):
            pqcore_spark.read.format("pqcore").load(table).select("nosuch")
    finally:
        for lg in loggers:
            lg.removeHandler(handler)
    assert seen, "pyspark logged nothing for a real analysis error: the test no longer checks anything"
