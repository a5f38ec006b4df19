"""Timestamps in partition folders and in the ``filter`` option's literals are read in Spark's
session time zone (``spark.sql.session.timeZone``) unless the ``timeZone`` option names one;
Spark's built-in reader, in the same session zone, is the oracle."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark

ZONE = "America/Los_Angeles"


@pytest.fixture
def la_session(pqcore_spark):
    key = "spark.sql.session.timeZone"
    before = pqcore_spark.conf.get(key)
    pqcore_spark.conf.set(key, ZONE)
    yield pqcore_spark
    pqcore_spark.conf.set(key, before)


@pytest.fixture(scope="module")
def ts_table(pqcore_spark, tmp_path_factory):
    """Folders ``p=2024-03-10 01:30:00`` ... written by Spark in the LA zone (the DST change
    of 2024-03-10 included), and a timestamp column ``t``."""
    spark = pqcore_spark
    root = tmp_path_factory.mktemp("tz") / "t"
    key = "spark.sql.session.timeZone"
    before = spark.conf.get(key)
    spark.conf.set(key, ZONE)
    try:
        spark.sql("""
            select id, timestamp_micros(1710000000000000 + id * 600000000) as t,
                   to_timestamp(concat('2024-03-10 0', cast(id % 4 as string), ':30:00')) as p
            from range(400)""").repartition(2).write.partitionBy("p").parquet(str(root))
    finally:
        spark.conf.set(key, before)
    return str(root)


def _rows(df):
    return sorted(tuple(r) for r in df.select("id", "t", "p").collect())


@pytest.mark.parametrize("where", [
    None,
    "p = timestamp'2024-03-10 01:30:00'",
    "p >= '2024-03-10 03:30:00'",
    "t < timestamp'2024-03-09 10:00:00' and id > 3",
    "t between '2024-03-09 09:00:00' and '2024-03-09 12:00:00'",
])
def test_session_zone_for_folders_and_filter_literals(la_session, ts_table, where):
    spark = la_session
    oracle = spark.read.parquet(ts_table)
    ours = spark.read.format("pqcore")
    if where is not None:
        oracle = oracle.where(where)
        ours = ours.option("filter", where)
    ours = ours.load(ts_table)
    assert dict(ours.dtypes)["p"] == "timestamp"
    want = _rows(oracle)
    assert want, "the case selects nothing"
    assert _rows(ours) == want


def test_time_zone_option_still_wins(la_session, ts_table):
    import datetime as dt
    import os
    from urllib.parse import unquote

    spark = la_session
    folders = sorted(unquote(d.split("=", 1)[1]) for d in os.listdir(ts_table) if d.startswith("p="))
    want = sorted(dt.datetime.fromisoformat(f).replace(tzinfo=dt.timezone.utc).timestamp() for f in folders)
    ours = spark.read.format("pqcore").option("timeZone", "UTC").load(ts_table)
    got = sorted({r.p.timestamp() for r in ours.select("p").collect()})   # collect(): naive local times
    assert got == want
    in_la = sorted({r.p.timestamp() for r in spark.read.format("pqcore").load(ts_table).select("p").collect()})
    assert all(7 * 3600 <= a - b <= 8 * 3600 for a, b in zip(in_la, got))
