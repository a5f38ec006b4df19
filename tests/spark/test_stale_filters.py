"""The stale pushed-filter bug of Spark 4.1-4.3 (Spark notes, section 4.3) cannot reach pqcore.

With ``spark.sql.python.filterPushdown.enabled`` on, Spark keeps the reader
it planned for the last query with pushable filters and reuses it for a later
query on the same DataFrame that has none, and for every scan of that
DataFrame within one query.  pqcore's ``pushFilters`` hands every filter back
and, by default, prunes nothing with them, so a reused reader reads what the
DataFrame defines: all rows, or the rows of its ``filter`` option.  (With
``prunePushedFilters`` on, see ``test_pushdown.py``.)  A control source that
prunes with the pushed filters shows both cases are live in the installed Spark.
"""

from __future__ import annotations

import pytest

from tests._support.spark_checks import stale_filter_counts

pytestmark = pytest.mark.spark

_scenario = stale_filter_counts     # the section 4.3 sequence on one DataFrame; returns the counts


def test_stale_pushed_filters_do_not_reach_pqcore(pushdown_on, ids_dataset):
    spark = pushdown_on
    expected = _scenario(spark, spark.read.parquet(ids_dataset), "builtin_v")
    assert expected[0] == 3 and expected[1] == 8000
    ours = spark.read.format("pqcore").load(ids_dataset)
    assert _scenario(spark, ours, "pqcore_v") == expected
    # the DataFrame's own filter option stays applied to every query, pushed filters or not
    opt = spark.read.format("pqcore").option("filter", "qty <> 3").load(ids_dataset)
    base = spark.read.parquet(ids_dataset).filter("qty <> 3")
    assert _scenario(spark, opt, "pqcore_opt_v") == _scenario(spark, base, "builtin_opt_v")


def test_control_a_reader_pruning_with_pushed_filters_goes_stale(pushdown_on, ids_dataset):
    from pyspark import cloudpickle

    import tests.spark.stale_probe as probe

    cloudpickle.register_pickle_by_value(probe)
    spark = pushdown_on
    spark.dataSource.register(probe.PushPruningSource)
    df = spark.read.format("pqcore_push_pruning_probe").load(ids_dataset)
    assert df.filter("id < 3").count() == 3
    # Spark reuses the reader that pruned for "id < 3": most rows are lost (Spark 4.1-4.3)
    assert df.count() < 8000


def test_control_two_scans_of_one_dataframe_share_the_last_pushed_reader(pushdown_on, ids_dataset):
    from pyspark import cloudpickle

    import tests.spark.stale_probe as probe

    cloudpickle.register_pickle_by_value(probe)
    spark = pushdown_on
    spark.dataSource.register(probe.PushPruningSource)
    df = spark.read.format("pqcore_push_pruning_probe").load(ids_dataset)
    # the unfiltered scan is given the reader planned for "id < 3" (Spark 4.1-4.3): not 8003
    assert df.union(df.filter("id < 3")).count() < 8003
