"""``mergeSchema`` and ``columns``: schemas and rows against Spark's built-in reader."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def two_schemas(tmp_path_factory):
    d = tmp_path_factory.mktemp("merge")
    pq.write_table(pa.table({
        "id": pa.array([1, 2, 3], pa.int64()),
        "s": pa.array([{"x": 1, "y": "a"}, None, {"x": 3, "y": None}],
                      pa.struct([("x", pa.int32()), ("y", pa.string())])),
        "a": ["p", None, "r"]}), d / "part-0.parquet")
    pq.write_table(pa.table({
        "id": pa.array([4, 5], pa.int64()),
        "s": pa.array([{"x": 4, "z": 0.5}, {"x": None, "z": 1.5}],
                      pa.struct([("x", pa.int32()), ("z", pa.float64())])),
        "b": pa.array([7, None], pa.int32())}), d / "part-1.parquet")
    return d


def _rows(df):
    return sorted((r.asDict(recursive=True) for r in df.collect()), key=lambda r: r["id"])


def test_merge_schema_like_spark(pqcore_spark, two_schemas):
    spark = pqcore_spark
    ours = spark.read.format("pqcore").option("mergeSchema", "true").load(str(two_schemas))
    theirs = spark.read.option("mergeSchema", "true").parquet(str(two_schemas))
    assert sorted(ours.columns) == sorted(theirs.columns) == ["a", "b", "id", "s"]
    assert {f.name: sorted(f.dataType.fieldNames()) if f.name == "s" else f.dataType
            for f in ours.schema.fields} == \
        {f.name: sorted(f.dataType.fieldNames()) if f.name == "s" else f.dataType for f in theirs.schema.fields}
    assert _rows(ours) == _rows(theirs)
    first_only = spark.read.format("pqcore").load(str(two_schemas))
    assert first_only.columns == ["id", "s", "a"]             # without mergeSchema: the first footer
    assert _rows(first_only) == _rows(spark.read.parquet(str(two_schemas / "part-0.parquet"))
                                      .unionByName(spark.read.parquet(str(two_schemas / "part-1.parquet"))
                                                   .selectExpr("id", "named_struct('x', s.x, 'y', "
                                                               "cast(null as string)) as s",
                                                               "cast(null as string) as a")))


def test_merge_schema_conflict_names_both_files(pqcore_spark, two_schemas, tmp_path):
    for f in two_schemas.glob("*.parquet"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    pq.write_table(pa.table({"id": ["text"]}), tmp_path / "part-2.parquet")
    with pytest.raises(Exception, match=r"mergeSchema: column 'id' is bigint in one file and string in "
                                        r"another \(.*part-0.parquet and .*part-2.parquet\)"):
        pqcore_spark.read.format("pqcore").option("mergeSchema", "true").load(str(tmp_path))


def test_columns_option_projects(pqcore_spark, two_schemas):
    spark = pqcore_spark
    ours = spark.read.format("pqcore").option("mergeSchema", "true").option("columns", "ID, s.z, s.x") \
        .load(str(two_schemas))
    assert ours.schema.simpleString() == "struct<id:bigint,s:struct<z:double,x:int>>"
    theirs = spark.read.option("mergeSchema", "true").parquet(str(two_schemas)) \
        .selectExpr("id", "if(s is null, null, named_struct('z', s.z, 'x', s.x)) as s")
    assert _rows(ours) == _rows(theirs)
    with pytest.raises(Exception, match="no column 'nope'"):
        spark.read.format("pqcore").option("columns", "id, nope").load(str(two_schemas))


def test_struct_projection_reads_only_the_wanted_leaves():
    from pyspark.sql.types import IntegerType, StructField, StructType

    import parquet_core as pc
    from spark_adapter.core.schema_options import leaf_selection, parse_columns

    file_type = pc.struct([pc.field("x", pc.int32()), pc.field("y", pc.string())])
    want = StructType([StructField("x", IntegerType())])
    assert leaf_selection("s", want, file_type) == ["s.x"]
    assert leaf_selection("s", StructType([StructField("x", IntegerType()), StructField("y", IntegerType())]),
                          file_type) == ["s"]
    assert parse_columns("a, b.c ,`d.e`.f") == [["a"], ["b", "c"], ["d.e", "f"]]


@pytest.mark.parametrize("sql", ["b is null", "b > 5 or a = 'p'", "not (b in (7)) or s.y is not null",
                                 "s.z >= 1"])
def test_filter_on_columns_some_files_lack(pqcore_spark, two_schemas, sql):
    """A column a file lacks reads as null there, in filters too (whole files decided on the driver)."""
    spark = pqcore_spark
    ours = spark.read.format("pqcore").option("mergeSchema", "true").option("filter", sql).load(str(two_schemas))
    theirs = spark.read.option("mergeSchema", "true").parquet(str(two_schemas)).filter(sql)
    assert _rows(ours) == _rows(theirs)
