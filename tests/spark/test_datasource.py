"""End-to-end: ``spark.read.format("pqcore")`` against Spark's own Parquet reader.

One SparkSession for the module (``conftest.py``).  Rows are collected from
both readers and compared exactly (floats by ``repr``, so NaN and -0.0 count).
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid

import pytest

from tests._support.spark_checks import assert_same, assert_shim_is_light, rows

pytestmark = pytest.mark.spark

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")



# ----------------------------------------------------------------------------- helpers
# ----------------------------------------------------------------------------- corpus
CORPUS_FILES = [
    "alltypes_plain.parquet",
    "alltypes_plain.snappy.parquet",
    "alltypes_dictionary.parquet",
    "int32_decimal.parquet",
    "int64_decimal.parquet",
    "fixed_length_decimal.parquet",
    "byte_array_decimal.parquet",
    "datapage_v1-snappy-compressed-checksum.parquet",
    "delta_byte_array.parquet",
    "rle_boolean_encoding.parquet",
    "concatenated_gzip_members.parquet",  # uint64 -> decimal(20,0)
    "column_chunk_key_value_metadata.parquet",  # zero rows
]


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_file_matches_spark(pqcore_spark, corpus, name):
    spark = pqcore_spark
    path = str(corpus / name)
    ours = spark.read.format("pqcore").load(path)
    if name == "byte_array_decimal.parquet":
        # Spark's vectorized reader hits a NullPointerException on this file.
        spark.conf.set("spark.sql.parquet.enableVectorizedReader", "false")
        try:
            assert_same(ours, spark.read.parquet(path))
        finally:
            spark.conf.unset("spark.sql.parquet.enableVectorizedReader")
        return
    assert_same(ours, spark.read.parquet(path))


def test_int96_matches_spark(pqcore_spark, tmp_path):
    """INT96 (as Spark and Impala write it) -> timestamp."""
    t = pa.table({"ts": pa.array([dt.datetime(1900, 1, 1), dt.datetime(2024, 2, 29, 12, 0, 0, 123456),
                                  None, dt.datetime(9999, 12, 31, 23, 59, 59, 999999)],
                                 pa.timestamp("us"))})
    path = str(tmp_path / "int96.parquet")
    pq.write_table(t, path, use_deprecated_int96_timestamps=True)
    assert pq.ParquetFile(path).schema.column(0).physical_type == "INT96"
    ours = pqcore_spark.read.format("pqcore").load(path)
    theirs = pqcore_spark.read.parquet(path)
    assert ours.schema.simpleString() == "struct<ts:timestamp>"
    assert_same(ours, theirs)


def test_int96_sub_microseconds_before_1970_match_spark(pqcore_spark, tmp_path):
    """INT96 with nanosecond digits before and after the epoch, dictionary-encoded with
    nulls: the same microseconds as Spark's reader (which floors toward minus infinity)."""
    ns = [-1, -1001, -999_999_999_999, 1_999, 1_700_000_000_123_456_789, None, -5_000_000_000_000_000_001]
    path = str(tmp_path / "int96_ns.parquet")
    pq.write_table(pa.table({"ts": pa.array(ns * 30, pa.timestamp("ns"))}), path,
                   use_deprecated_int96_timestamps=True, store_schema=False)
    spark = pqcore_spark
    ours = spark.read.format("pqcore").load(path)
    theirs = spark.read.parquet(path)
    assert rows(ours.selectExpr("unix_micros(ts)")) == rows(theirs.selectExpr("unix_micros(ts)"))
    # filters compare the floored microseconds, as Spark's do
    for cond in ("ts = timestamp_micros(-1)", "ts < timestamp_micros(0)", "ts >= timestamp_micros(-1000000000)"):
        assert rows(ours.where(cond).selectExpr("unix_micros(ts)"), sort=True) == \
            rows(theirs.where(cond).selectExpr("unix_micros(ts)"), sort=True), cond


def test_int96_from_spark_matches_spark(pqcore_spark, corpus):
    """Year 290000 is beyond Python's datetime, so compare microseconds."""
    spark = pqcore_spark
    path = str(corpus / "int96_from_spark.parquet")
    ours = spark.read.format("pqcore").load(path)
    theirs = spark.read.parquet(path)
    assert ours.schema == theirs.schema
    assert rows(ours.selectExpr("unix_micros(a)")) == rows(theirs.selectExpr("unix_micros(a)"))


NESTED_FILES = ["nested_lists.snappy.parquet", "nested_maps.snappy.parquet", "nested_structs.rust.parquet",
                "list_columns.parquet", "null_list.parquet", "nullable.impala.parquet",
                "nonnullable.impala.parquet", "nulls.snappy.parquet", "old_list_structure.parquet",
                "repeated_no_annotation.parquet", "map_no_value.parquet"]


def test_nested_files_read_like_sparks_reader(pqcore_spark, corpus):
    """Arrays, structs and maps at any depth: the same schema and rows as Spark's built-in reader."""
    spark = pqcore_spark
    compared = 0
    for name in NESTED_FILES:
        path = str(corpus / name)
        try:
            theirs = spark.read.parquet(path)
            want = sorted(theirs.toJSON().collect())
        except Exception:  # noqa: BLE001 - files Spark's own reader refuses are not compared
            continue
        ours = spark.read.format("pqcore").load(path)
        # UNKNOWN (all-null) leaves are Spark's void type for us, int for Spark's reader (as for flat columns)
        assert ours.schema.simpleString().replace("void", "int") == theirs.schema.simpleString(), name
        assert sorted(ours.toJSON().collect()) == want, name
        compared += 1
    assert compared >= 8


# ----------------------------------------------------------------------------- generated files
def _flat_table(start: int, n: int = 50):
    ids = list(range(start, start + n))
    utc = dt.timezone.utc
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": pa.array([None if i % 7 == 0 else f"n{i}" for i in ids], pa.string()),
        "flag": pa.array([i % 3 == 0 for i in ids], pa.bool_()),
        "small": pa.array([i % 100 for i in ids], pa.int16()),
        "u8": pa.array([i % 256 for i in ids], pa.uint8()),
        "u32": pa.array([2**32 - 1 - i for i in ids], pa.uint32()),
        "u64": pa.array([2**64 - 1 - i for i in ids], pa.uint64()),
        "x": pa.array([float("nan") if i % 11 == 0 else i / 3 for i in ids], pa.float64()),
        "f": pa.array([i * 0.5 for i in ids], pa.float32()),
        "price": pa.array([decimal.Decimal(i).scaleb(-2) for i in ids], pa.decimal128(9, 2)),
        "day": pa.array([dt.date(2020, 1, 1) + dt.timedelta(days=i) for i in ids], pa.date32()),
        "ts": pa.array([dt.datetime(2024, 1, 1, tzinfo=utc) + dt.timedelta(seconds=i, microseconds=i)
                        for i in ids], pa.timestamp("us", tz="UTC")),
        "ts_ms": pa.array([dt.datetime(1969, 12, 31, 23, tzinfo=utc) + dt.timedelta(milliseconds=7 * i)
                           for i in ids], pa.timestamp("ms", tz="UTC")),
        "ntz": pa.array([dt.datetime(1999, 12, 31) + dt.timedelta(minutes=i) for i in ids],
                        pa.timestamp("us")),
        "blob": pa.array([bytes([i % 256]) * (i % 5) for i in ids], pa.binary()),
    })


@pytest.fixture(scope="module")
def flat_dir(tmp_path_factory):
    """Three files at different depths, plus files Spark's listing ignores."""
    d = tmp_path_factory.mktemp("flat")
    (d / "sub").mkdir()
    (d / "_temporary").mkdir()
    pq.write_table(_flat_table(0), d / "part-0.parquet", row_group_size=20)
    pq.write_table(_flat_table(50), d / "part-1.parquet")
    pq.write_table(_flat_table(100), d / "sub" / "part-2.parquet", row_group_size=30)
    (d / "_SUCCESS").write_bytes(b"")
    # (not "<name>.crc": Hadoop's local file system would take it as part-0's checksum)
    (d / ".hidden.parquet").write_bytes(b"not parquet")
    (d / "_temporary" / "junk.parquet").write_bytes(b"not parquet")
    return d


def test_directory_load_matches_spark(pqcore_spark, flat_dir):
    spark = pqcore_spark
    ours = spark.read.format("pqcore").option("minPartitions", 3).load(str(flat_dir))
    assert ours.rdd.getNumPartitions() == 3  # one task per (small) file
    theirs = spark.read.option("recursiveFileLookup", "true").parquet(str(flat_dir))
    assert_same(ours, theirs, sort=True)
    assert ours.count() == 150
    filtered = spark.read.format("pqcore").option("pathGlobFilter", "part-[01].parquet") \
        .option("minPartitions", 3).load(str(flat_dir))
    assert filtered.rdd.getNumPartitions() == 2
    # files larger than maxPartitionBytes are split by row groups (3 + 1 + 2 of them)
    split = spark.read.format("pqcore").option("maxPartitionBytes", 1).option("openCostInBytes", 0) \
        .option("minPartitions", 1).load(str(flat_dir))
    assert split.rdd.getNumPartitions() == 6
    assert_same(split, theirs, sort=True)
    packed = spark.read.format("pqcore").option("minPartitions", 1).load(str(flat_dir))
    assert packed.rdd.getNumPartitions() == 1  # small files share a task
    assert_same(packed, theirs, sort=True)


def test_load_list_of_paths(pqcore_spark, flat_dir):
    spark = pqcore_spark
    p1, p2 = str(flat_dir / "part-0.parquet"), str(flat_dir / "sub" / "part-2.parquet")
    ours = spark.read.format("pqcore").option("batchSize", 7).option("minPartitions", 2) \
        .load([p1, p2])  # many small batches
    assert ours.rdd.getNumPartitions() == 2
    assert_same(ours, spark.read.parquet(p1, p2), sort=True)


def test_user_schema_is_a_projection(pqcore_spark, flat_dir):
    spark = pqcore_spark
    ddl = "ts timestamp, ID long, name string, missing_col int"
    path = str(flat_dir / "part-1.parquet")
    ours = spark.read.format("pqcore").schema(ddl).load(path)
    theirs = spark.read.schema(ddl).parquet(path)
    assert ours.columns == ["ts", "ID", "name", "missing_col"]
    assert_same(ours, theirs)


def test_empty_directory(pqcore_spark, tmp_path):
    spark = pqcore_spark
    (tmp_path / "_SUCCESS").write_bytes(b"")
    # No file: partitions() returns [], Spark substitutes InputPartition(None).
    df = spark.read.format("pqcore").schema("a int").load(str(tmp_path))
    assert df.collect() == []
    with pytest.raises(Exception, match="UNABLE_TO_INFER_SCHEMA"):
        spark.read.format("pqcore").load(str(tmp_path))


def test_sql_temporary_view_reads_and_a_catalog_table_fails_clearly(pqcore_spark, flat_dir):
    """Spark 4.1-4.3 give a catalog table's scan no options (no path); pqcore says so
    instead of returning no rows.  A temporary view USING pqcore keeps its options."""
    spark = pqcore_spark
    path = str(flat_dir / "part-1.parquet")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW pq_tv USING pqcore OPTIONS (path '{path}')")
    assert spark.sql("select count(*), sum(id) from pq_tv").collect() == \
        spark.read.parquet(path).selectExpr("count(*)", "sum(id)").collect()
    spark.sql(f"CREATE TABLE pq_catalog USING pqcore OPTIONS (path '{path}')")
    try:
        with pytest.raises(Exception, match="no path given"):
            spark.sql("select count(*) from pq_catalog").collect()
    finally:
        spark.sql("DROP TABLE IF EXISTS pq_catalog")


def test_types_beyond_spark(pqcore_spark, tmp_path):
    """Types Spark's own reader rejects or gates: float16, UUID, TIME, nanosecond timestamps."""
    import numpy as np

    u = [uuid.UUID(int=i * 12345) for i in range(3)]
    t = pa.table({
        "h": pa.array(np.array([1.5, -0.0, 65504], dtype=np.float16), pa.float16()),
        "id": pa.ExtensionArray.from_storage(pa.uuid(), pa.array([x.bytes for x in u], pa.binary(16))),
        "t_ms": pa.array([0, None, 86_399_999], pa.time32("ms")),
        "t_us": pa.array([1, 2, None], pa.time64("us")),
        "t_ns": pa.array([1_000, 999_999_999, None], pa.time64("ns")),
        "ts_ns": pa.array([-1, 1_999, None], pa.timestamp("ns")),  # floors to micros
        "n": pa.nulls(3),
    })
    path = tmp_path / "types.parquet"
    pq.write_table(t, path)
    df = pqcore_spark.read.format("pqcore").load(str(path))
    assert df.schema.simpleString() == (
        "struct<h:float,id:binary,t_ms:time(3),t_us:time(6),t_ns:time(9),ts_ns:timestamp_ntz,n:void>")
    got = df.collect()
    assert [r.h for r in got] == [1.5, -0.0, 65504.0]
    assert [bytes(r.id) for r in got] == [x.bytes for x in u]
    assert [r.t_ms for r in got] == [dt.time(0), None, dt.time(23, 59, 59, 999000)]
    assert [r.t_us for r in got] == [dt.time(0, 0, 0, 1), dt.time(0, 0, 0, 2), None]
    assert [r.t_ns for r in got] == [dt.time(0, 0, 0, 1), dt.time(0, 0, 0, 999999), None]
    assert [r.ts_ns for r in got] == [dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
                                      dt.datetime(1970, 1, 1, 0, 0, 0, 1), None]
    assert [r.n for r in got] == [None, None, None]


# ----------------------------------------------------------------------------- registration
def test_shim_is_light_and_names_the_source():
    assert_shim_is_light("pyspark_pqcore", "pqcore", ("pyarrow", "parquet_core", "numpy"))


def test_auto_registration_through_the_shim(spark, corpus):
    """A new session never saw register(): format("pqcore") resolves through the
    pyspark_pqcore shim that Spark's data-source lookup imported (once per JVM)."""
    fresh = spark.newSession()
    path = str(corpus / "alltypes_plain.parquet")
    assert fresh.read.format("pqcore").load(path).count() == 8
    assert fresh.read.format("pqmeta").load(path).collect()[0]["num_rows"] == 8
