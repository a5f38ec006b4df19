"""``.option("filter", "<SQL>")`` and ``.option("filters", <JSON DNF>)``: pruning inside parquet_core,
the same rows as Spark's own filter (Spark's built-in reader and SQL engine are the oracle)."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def dataset(pqcore_spark, tmp_path_factory):
    spark = pqcore_spark
    root = tmp_path_factory.mktemp("filters") / "t"
    df = spark.sql("""
        select id, cast(id % 7 as int) as k, cast(concat('n', id % 13) as string) as name,
               date_add(date'2024-01-01', cast(id % 40 as int)) as d,
               case when id % 5 = 0 then null else cast(id % 11 as int) end as n,
               timestamp_micros(1700000000000000 + id * 1000000) as t,
               cast(id / 7 as decimal(10, 2)) as dec,
               named_struct('x', cast(id % 4 as int), 'y', 'z') as s,
               cast(id % 3 as string) as part
        from range(3000)""")
    df.repartition(3).write.partitionBy("part").parquet(str(root))   # Spark's own writer, Hive folders
    return str(root)


CASES = [
    ([["id", ">=", 2990]], "id >= 2990"),
    ([["k", "in", [1, 3]], ["name", "!=", "n5"]], "k in (1, 3) and name != 'n5'"),
    ([[["id", "<", 5]], [["name", "==", "n12"], ["k", "==", 0]]], "id < 5 or (name = 'n12' and k = 0)"),
    ([["d", ">", "2024-02-05"]], "d > date'2024-02-05'"),
    ([["part", "==", 1], ["id", "<", 100]], "part = 1 and id < 100"),
    ([["part", "in", [0, 2]], ["k", "not in", [0, 1, 2, 3, 4, 5]]], "part in (0, 2) and k = 6"),
]


@pytest.mark.parametrize("dnf, sql", CASES, ids=[c[1] for c in CASES])
def test_filters_option_equals_sparks_filter(pqcore_spark, dataset, dnf, sql):
    spark = pqcore_spark
    ours = spark.read.format("pqcore").option("filters", json.dumps(dnf)).load(dataset)
    theirs = spark.read.parquet(dataset).filter(sql)
    assert sorted(r.id for r in ours.select("id").collect()) == sorted(r.id for r in theirs.select("id").collect())
    assert ours.count() == theirs.count()          # count() reads no column: still only matching rows
    assert ours.count() == theirs.count()          # the same DataFrame again: nothing goes stale


def test_bad_filters_are_refused(pqcore_spark, dataset):
    spark = pqcore_spark
    with pytest.raises(Exception, match="filters"):
        spark.read.format("pqcore").option("filters", "[[\"id\", \"~\", 1]]").load(dataset).count()


SQL = [
    "id < 10 or id > 2995",
    "not (k in (1, 2) or name = 'n3')",
    "n not in (1, 2, 3)",                       # SQL: a null n is dropped (pyarrow's not in keeps it)
    "n is null and part = '1'",
    "(part = 2 or id < 30) and not (n > 5)",    # partition and data columns under OR and NOT
    "id between 100 and 110 and NOT id BETWEEN 103 AND 105 and `name` <> 'n1'",
    "t > timestamp'2023-11-14 22:50:00' and t <= '2023-11-14 22:51:40'",
    "dec >= 400.5 and dec < 401 or d = date'2024-02-03' and 50 > id",
    "s.x = 3 and id < 40",
]


@pytest.mark.parametrize("sql", SQL)
def test_filter_option_equals_sparks_filter(pqcore_spark, dataset, sql):
    spark = pqcore_spark
    ours = spark.read.format("pqcore").option("filter", sql).load(dataset)
    theirs = spark.read.parquet(dataset).filter(sql)
    expected = sorted(r.id for r in theirs.select("id").collect())
    assert expected, sql           # every case keeps some rows ...
    assert len(expected) < 3000    # ... and drops some
    assert sorted(r.id for r in ours.select("id").collect()) == expected
    assert ours.count() == len(expected)


def test_filter_prunes_tasks_on_the_driver(pqcore_spark, dataset):
    spark = pqcore_spark
    df = spark.read.format("pqcore").option("filter", "part = '1' and id < 0").load(dataset)
    assert df.collect() == []
    one = spark.read.format("pqcore").option("filter", "part = 1").option("minPartitions", 9).load(dataset)
    every = spark.read.format("pqcore").option("minPartitions", 9).load(dataset)
    assert one.rdd.getNumPartitions() * 3 == every.rdd.getNumPartitions()   # 3 files in each of 3 folders, one folder kept


@pytest.mark.parametrize("text, message", [
    ("id ~ 3", "unexpected character '~'"),
    ("name = 3", "cannot compare column 'name'"),
    ("nope = 1", "unknown column 'nope'"),
])
def test_bad_filter_text_is_refused(pqcore_spark, dataset, text, message):
    with pytest.raises(Exception, match=re.escape(message)):
        pqcore_spark.read.format("pqcore").option("filter", text).load(dataset).count()


def test_filter_on_columns_not_projected(pqcore_spark, dataset):
    spark = pqcore_spark
    ours = spark.read.format("pqcore").option("columns", "id").option("filter", "k = 3 and part = '2'") \
        .load(dataset)
    assert ours.columns == ["id"]
    theirs = spark.read.parquet(dataset).filter("k = 3 and part = '2'").select("id")
    assert sorted(r.id for r in ours.collect()) == sorted(r.id for r in theirs.collect())
    user = spark.read.format("pqcore").schema("ID long").option("filter", "t < '2023-11-14 22:13:40'") \
        .load(dataset)
    assert sorted(r.ID for r in user.collect()) == \
        sorted(r.id for r in spark.read.parquet(dataset).filter("t < '2023-11-14 22:13:40'").collect())


@pytest.mark.spark
def test_nan_follows_sparks_ordering(pqcore_spark, tmp_path):
    """Spark: NaN equals NaN and is larger than every number (the built-in reader is the oracle,
    with its Parquet filter pushdown off: parquet-java prunes by statistics, which leave NaN out,
    so it drops row groups whose NaN rows match ``x > 1``)."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    nan = float("nan")
    xs = [1.0, nan, None, 5.0, -2.0, nan, 3.5, None, 0.0, 7.25]
    path = str(tmp_path / "nan.parquet")
    pq.write_table(pa.table({"i": list(range(len(xs))), "x": pa.array(xs, pa.float64()),
                             "f": pa.array(xs, pa.float32())}), path, row_group_size=3)
    spark = pqcore_spark
    theirs = spark.read.parquet(path)
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try:
        _check_nan_queries(spark, path, theirs)
    finally:
        spark.conf.unset("spark.sql.parquet.filterPushdown")


def _check_nan_queries(spark, path, theirs):
    for q in ["x > 1", "x >= 5", "not (x > 1)", "x < 4", "x <= 3.5", "x != 1", "x = 'NaN'", "x > 'NaN'",
              "x >= 'NaN'", "x < 'NaN'", "x <= 'NaN'", "x != 'NaN'", "x in (1, 'NaN')", "x not in (1, 'NaN')",
              "x in (1, 5)", "f > 2", "not (f >= 3.5) or i = 1", "x > 1 and f < 7"]:
        ours = spark.read.format("pqcore").option("filter", q).load(path)
        got = sorted(r.i for r in ours.collect())
        want = sorted(r.i for r in theirs.filter(q).collect())
        assert got == want, q
    # the same rows when Spark pushes the filter and pqcore prunes with it
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        for q in ["x > 1", "x >= 5", "f > 2", "x > 1 and f < 7"]:
            pushed = spark.read.format("pqcore").option("prunePushedFilters", "true").load(path).filter(q)
            assert sorted(r.i for r in pushed.collect()) == sorted(r.i for r in theirs.filter(q).collect()), q
    finally:
        spark.conf.unset("spark.sql.python.filterPushdown.enabled")
