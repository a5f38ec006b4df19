"""``.option("filters", <JSON DNF>)``: pruning inside parquet_core, the same rows as Spark's own filter."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def dataset(pqcore_spark, tmp_path_factory):
    spark = pqcore_spark
    root = tmp_path_factory.mktemp("filters") / "t"
    df = spark.sql("""
        select id, cast(id % 7 as int) as k, cast(concat('n', id % 13) as string) as name,
               date_add(date'2024-01-01', cast(id % 40 as int)) as d,
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
    with pytest.raises(Exception, match="partition columns can only be used in a plain AND"):
        spark.read.format("pqcore").option("filters", json.dumps([[["part", "==", 1]], [["id", "==", 2]]])) \
            .load(dataset).count()
