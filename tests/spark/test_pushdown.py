"""``pushFilters``: translated exactly, off unless Spark's conf is on, pruning only when asked,
and never from a reader Spark reuses for another query (spark_adapter/core/pushdown.py).

Whether pruning happened is seen through a file with one corrupt row group:
its statistics say ids 4000..5999, its first page header is garbage.  A scan
that prunes it by statistics succeeds, a scan that reads it fails.
"""

from __future__ import annotations

import datetime as dt
import decimal
import os

import pytest

CONF = "spark.sql.python.filterPushdown.enabled"


# -- translation (no Spark session needed) ---------------------------------------------------------

def _types():
    from pyspark.sql import types as T

    return T.StructType([
        T.StructField("i", T.LongType()), T.StructField("f", T.DoubleType()),
        T.StructField("s", T.StringType()), T.StructField("b", T.BinaryType()),
        T.StructField("d", T.DateType()), T.StructField("t", T.TimestampType()),
        T.StructField("n", T.TimestampNTZType()), T.StructField("m", T.DecimalType(10, 2)),
        T.StructField("flag", T.BooleanType()),
        T.StructField("st", T.StructType([T.StructField("x", T.IntegerType())])),
    ])


def _tree(filters):
    pytest.importorskip("pyspark")
    from spark_adapter.core.pushdown import pushed_tree
    from spark_adapter.pqcore.scan import field_type

    types = _types()
    return pushed_tree(filters, lambda c: field_type(types, c))


def test_each_filter_class_translates_to_the_options_predicate():
    pytest.importorskip("pyspark")
    from pyspark.sql import datasource as ds

    from spark_adapter.core.sql_filter import parse_filter

    utc = dt.timezone.utc
    cases = [
        (ds.EqualTo(("i",), 3), "i = 3"),
        (ds.EqualNullSafe(("i",), 3), "i = 3"),
        (ds.EqualNullSafe(("i",), None), "i is null"),
        (ds.GreaterThan(("f",), 1.5), "f > 1.5"),
        (ds.GreaterThanOrEqual(("s",), "k"), "s >= 'k'"),
        (ds.LessThan(("d",), dt.date(2024, 1, 2)), "d < date '2024-01-02'"),
        (ds.LessThanOrEqual(("t",), dt.datetime(2024, 1, 1, 3, tzinfo=utc)),
         "t <= timestamp '2024-01-01T03:00:00+00:00'"),
        (ds.EqualTo(("n",), dt.datetime(2024, 1, 1, 3, 4, 5, 6)), "n = timestamp_ntz '2024-01-01T03:04:05.000006'"),
        (ds.EqualTo(("m",), decimal.Decimal("1.25")), "m = 1.25"),
        (ds.EqualTo(("flag",), True), "flag = true"),
        (ds.In(("i",), [1, 2, 3]), "i in (1, 2, 3)"),
        (ds.Not(ds.In(("i",), [1, 2])), "not i in (1, 2)"),
        (ds.IsNull(("s",)), "s is null"),
        (ds.IsNotNull(("s",)), "s is not null"),
        (ds.Not(ds.EqualTo(("i",), 1)), "not i = 1"),
        (ds.EqualTo(("st", "x"), 4), "st.x = 4"),
    ]
    for f, text in cases:
        assert repr(_tree([f])) == repr(parse_filter(text)), (f, text)
    both = _tree([ds.IsNotNull(("i",)), ds.GreaterThan(("i",), 5)])
    assert repr(both) == repr(parse_filter("i is not null and i > 5"))


def test_filters_that_cannot_be_exact_are_left_to_spark():
    pytest.importorskip("pyspark")
    from pyspark.sql import datasource as ds

    left_out = [
        ds.StringStartsWith(("s",), "a"), ds.StringEndsWith(("s",), "a"), ds.StringContains(("s",), "a"),
        ds.EqualTo(("b",), b"\xff"),              # binary literal
        ds.GreaterThan(("f",), float("nan")),     # Spark orders NaN above every number
        ds.EqualTo(("f",), float("inf")),
        ds.In(("i",), [1, None]),                 # a null in the list
        ds.EqualTo(("nope",), 1),                 # not a column of the schema
        ds.EqualTo(("a.b",), 1),                  # a dot inside one name
        ds.EqualTo(("i",), "x"),                  # a literal that does not fit the column
        ds.Not(ds.StringContains(("s",), "a")),
    ]
    for f in left_out:
        assert _tree([f]) is None, f
    # the convertible part of a mixed list is kept
    from spark_adapter.core.sql_filter import parse_filter

    assert repr(_tree(left_out + [ds.LessThan(("i",), 9)])) == repr(parse_filter("i < 9"))


def test_pushfilters_hands_every_filter_back_and_prunes_only_when_asked(tmp_path, monkeypatch):
    pytest.importorskip("pyspark")
    from pyspark.sql import datasource as ds

    from spark_adapter.core.pushdown import REGISTRY_ENV
    from spark_adapter.pqcore.reader import PqcoreReader

    monkeypatch.setenv(REGISTRY_ENV, str(tmp_path))
    filters = [ds.IsNotNull(("i",)), ds.LessThan(("i",), 3), ds.StringStartsWith(("s",), "a")]
    plain = PqcoreReader({"path": "unused"}, _types())
    back = plain.pushFilters(filters)
    assert [id(f) for f in back] == [id(f) for f in filters] and plain.pushed is None
    pruning = PqcoreReader({"path": "unused", "prunepushedfilters": "true"}, _types())
    assert [id(f) for f in pruning.pushFilters(filters)] == [id(f) for f in filters]
    assert pruning.pushed is not None and os.path.isdir(tmp_path / pruning.pushed.token)
    # outside a Spark task (no SQL execution id) a reader never prunes
    assert pruning.pushed.allowed() is False
    with pytest.raises(ValueError, match="prunePushedFilters"):
        PqcoreReader({"path": "unused", "prunepushedfilters": "yes"}, _types())


def test_sparks_conf_off_check_sees_the_default_method():
    """plan_data_source_read refuses a reader whose pushFilters.__func__ is not Spark's default
    while the conf is off; pqcore's reader passes that check and still runs its own code."""
    pytest.importorskip("pyspark")
    from pyspark.sql.datasource import DataSourceReader

    from spark_adapter.pqcore.reader import PqcoreReader

    reader = PqcoreReader({"path": "unused"}, _types())
    assert getattr(reader.pushFilters, "__func__", None) is DataSourceReader.pushFilters
    assert PqcoreReader.pushFilters is DataSourceReader.pushFilters
    assert reader.pushFilters([]) == []


# -- in Spark -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def corrupt(tmp_path_factory):
    """One file, 4 row groups of 2000 ids (0..7999, qty = id % 7); row group 2's first page header is garbage."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    root = tmp_path_factory.mktemp("pushdown") / "corrupt"
    root.mkdir()
    path = root / "part-0.parquet"
    ids = pa.array(range(8000), pa.int64())
    table = pa.table({"id": ids, "qty": pa.array([i % 7 for i in range(8000)], pa.int32())})
    pq.write_table(table, path, row_group_size=2000, use_dictionary=False, compression="none")
    md = pq.read_metadata(path)
    with open(path, "r+b") as f:
        for c in range(md.num_columns):
            f.seek(md.row_group(2).column(c).data_page_offset)
            f.write(b"\xff" * 8)
    return str(root)


def _fails(action):
    from pyspark.errors import PySparkException
    from py4j.protocol import Py4JJavaError

    with pytest.raises((PySparkException, Py4JJavaError)) as info:
        action()
    return str(info.value)


@pytest.mark.spark
def test_conf_off_reads_work_and_nothing_is_pruned(pqcore_spark, corrupt):
    assert pqcore_spark.conf.get(CONF) == "false"
    df = pqcore_spark.read.format("pqcore").option("prunePushedFilters", "true").load(corrupt)
    assert df.filter("id < 3").schema.names == ["id", "qty"]   # planning works with the option set
    assert "ParquetFormatError" in _fails(lambda: df.filter("id < 3").agg({"qty": "sum"}).collect())


@pytest.mark.spark
def test_pushdown_on_without_the_option_does_not_prune(pushdown_on, corrupt):
    df = pushdown_on.read.format("pqcore").load(corrupt)
    assert "ParquetFormatError" in _fails(lambda: df.filter("id < 3").agg({"qty": "sum"}).collect())


@pytest.mark.spark
def test_pushed_filters_prune_once_and_never_for_a_reused_reader(pushdown_on, corrupt):
    df = pushdown_on.read.format("pqcore").option("prunePushedFilters", "true").load(corrupt)
    # pushed "id < 3" rules out row groups 1-3 by statistics: the corrupt one is never read
    assert df.filter("id < 3").agg({"qty": "sum"}).collect()[0][0] == 0 + 1 + 2
    assert df.filter("id < 3").count() == 3
    # a later query on the same DataFrame without pushable filters gets the same reader from
    # Spark (a new SQL execution): it must read every row group, so it meets the corrupt one
    assert "ParquetFormatError" in _fails(lambda: df.filter("id < 5 or qty = 3").agg({"qty": "sum"}).collect())
    # a fresh push on the same DataFrame plans a fresh reader, which prunes again
    assert df.filter("id > 7990").agg({"id": "max"}).collect()[0][0] == 7999


@pytest.mark.spark
def test_stale_scenario_gives_spark_counts_with_pruning_on(pushdown_on, ids_dataset):
    from tests._support.spark_checks import stale_filter_counts as _scenario

    spark = pushdown_on
    expected = _scenario(spark, spark.read.parquet(ids_dataset), "pd_builtin_v")
    df = spark.read.format("pqcore").option("prunePushedFilters", "true").load(ids_dataset)
    assert _scenario(spark, df, "pd_pqcore_v") == expected
    df2 = spark.read.format("pqcore").option("prunePushedFilters", "true").load(ids_dataset)
    assert df2.filter("qty = 3").agg({"id": "sum"}).collect() == \
        spark.read.parquet(ids_dataset).filter("qty = 3").agg({"id": "sum"}).collect()
    assert df2.filter("id between 100 and 4000 and qty in (1, 2)").count() == \
        spark.read.parquet(ids_dataset).filter("id between 100 and 4000 and qty in (1, 2)").count()


@pytest.mark.spark
def test_two_scans_of_one_dataframe_in_one_query_without_pruning(pushdown_on, ids_dataset):
    """Spark gives both scans the reader of the last push (tests/spark/test_stale_filters.py
    shows it with a pruning control source); pqcore's default prunes nothing, so it is right."""
    df = pushdown_on.read.format("pqcore").load(ids_dataset)
    assert df.union(df.filter("id < 3")).count() == 8003
    assert df.filter("id < 5000").union(df.filter("id < 3")).count() == 5003


@pytest.mark.spark
def test_pushed_filters_on_partition_and_struct_columns(pushdown_on, tmp_path):
    """A pushed filter on a key=value folder decides whole files; one on a struct field prunes
    like a top-level column; the rows equal the built-in reader's."""
    spark = pushdown_on
    root = str(tmp_path / "parts")
    spark.range(3000).selectExpr("id", "cast(id % 3 as int) as k", "named_struct('x', cast(id % 10 as int)) as s") \
        .write.partitionBy("k").parquet(root)
    # corrupt every file of k=2: a scan that does not rule that folder out fails
    for name in os.listdir(os.path.join(root, "k=2")):
        if name.endswith(".parquet"):
            with open(os.path.join(root, "k=2", name), "r+b") as f:
                f.seek(4)
                f.write(b"\xff" * 16)
    ours = spark.read.format("pqcore").option("prunePushedFilters", "true").load(root)
    theirs = spark.read.parquet(root)
    for sql in ("k = 1", "k < 2 and s.x = 3", "k in (0, 1) and id > 2990"):
        assert sorted(ours.filter(sql).select("id").collect()) == sorted(theirs.filter(sql).select("id").collect())


def test_an_unwritable_registry_means_no_pruning(tmp_path, monkeypatch):
    pytest.importorskip("pyspark")
    from pyspark.sql import datasource as ds

    from spark_adapter.core.pushdown import REGISTRY_ENV
    from spark_adapter.pqcore.reader import PqcoreReader

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(REGISTRY_ENV, str(blocker / "registry"))
    reader = PqcoreReader({"path": "unused", "prunepushedfilters": "true"}, _types())
    filters = [ds.LessThan(("i",), 3)]
    assert reader.pushFilters(filters) == filters and reader.pushed is None
