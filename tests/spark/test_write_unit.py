"""Partition folder names, write-option parsing and the writer's commit/abort, without a SparkSession.

The expected values were observed from Spark 4.3.0 itself (folder names its
``df.write.partitionBy(...).parquet`` produced, and the types and values its
``spark.read.parquet`` inferred for hand-made folders); the Spark tests in
``test_write.py`` check the same behaviour live.
"""

from __future__ import annotations

import datetime as dt
import os
import decimal

import pytest

import parquet_core as pc

pytest.importorskip("pyspark")

from pyspark.sql.types import (  # noqa: E402
    BooleanType, DateType, DecimalType, DoubleType, FloatType, IntegerType, LongType, NullType,
    StringType, TimestampNTZType, TimestampType,
)

from spark_adapter.core.partitioning import (  # noqa: E402
    escape_path_name, infer_partition_types, parse_partition_dirs, partition_dir_name, partition_value,
    unescape_path_name,
)
from spark_adapter.core.write_options import parse_partition_by, parse_writer_options  # noqa: E402


@pytest.mark.parametrize("value, folder", [
    ("a/b", "k=a%2Fb"), ("c:d", "k=c%3Ad"), ("e=f%g", "k=e%3Df%25g"), ("sp ace", "k=sp ace"),
    ("x#y?z*", "k=x%23y%3Fz%2A"), ("ü", "k=ü"), ("{[^]}", "k=%7B%5B%5E%5D}"),
    ("", "k=__HIVE_DEFAULT_PARTITION__"), (None, "k=__HIVE_DEFAULT_PARTITION__"),
])
def test_string_folder_names_match_spark(value, folder):
    assert partition_dir_name("k", value, StringType()) == folder
    if value:
        assert unescape_path_name(escape_path_name(value)) == value


@pytest.mark.parametrize("name, value, typ, folder", [
    ("t", dt.datetime(2024, 1, 2, 10, 0, 0, 120000, tzinfo=dt.timezone.utc), TimestampType(),
     "t=2024-01-02 10%3A00%3A00.12"),
    ("ntz", dt.datetime(2024, 1, 1), TimestampNTZType(), "ntz=2024-01-01 00%3A00%3A00"),
    ("dd", 1.5, DoubleType(), "dd=1.5"), ("de", 1e10, DoubleType(), "de=1.0E10"),
    ("ds", 0.0001, DoubleType(), "ds=1.0E-4"), ("f", 1.25, FloatType(), "f=1.25"),
    ("dec", decimal.Decimal("2.50"), DecimalType(5, 2), "dec=2.50"), ("b", True, BooleanType(), "b=true"),
    ("dt", dt.date(2024, 1, 2), DateType(), "dt=2024-01-02"), ("i", -7, IntegerType(), "i=-7"),
])
def test_typed_folder_names_match_spark(name, value, typ, folder):
    assert partition_dir_name(name, value, typ) == folder


@pytest.mark.parametrize("raws, typ", [
    (["1", "2"], IntegerType()), (["1", "3000000000"], LongType()),
    (["1", "123456789012345678901"], DecimalType(21, 0)), (["1", "1.5"], DoubleType()),
    (["2024-01-02", "2024-02-03"], DateType()), (["2024-01-02 10%3A00%3A00", "2024-01-02 10%3A00%3A00.5"],
                                                 TimestampType()),
    (["2024-01-02", "2024-01-02 10%3A00%3A00"], TimestampType()), (["1", "2024-01-02"], StringType()),
    (["__HIVE_DEFAULT_PARTITION__", "5"], IntegerType()), (["__HIVE_DEFAULT_PARTITION__"], NullType()),
    (["a%2Fb", "x y"], StringType()), (["true", "false"], StringType()), (["1.0E10", "2"], DecimalType(11, 0)),
    (["-1", "+2"], IntegerType()), (["007", "1"], IntegerType()), (["2024-1-2"], StringType()),
    (["2024-01-02T10%3A00%3A00"], StringType()), (["NaN", "1.5"], DoubleType()), (["1.0"], DoubleType()),
    (["1e3"], DecimalType(4, 0)), (["1999-12-31 23%3A59%3A59.999999"], StringType()),
    (["2024-01-02 10%3A00%3A00.12"], StringType()),
])
def test_type_inference_matches_spark(raws, typ):
    import parquet_core as pc

    specs = [[pc.parse_hive_folder("p=" + r)] for r in raws]   # folder names, decoded as the reader does
    assert infer_partition_types(specs) == [("p", typ)]
    assert infer_partition_types(specs, infer=False) == [("p", StringType())]


def test_partition_values():
    assert partition_value("007", IntegerType()) == 7
    assert partition_value("__HIVE_DEFAULT_PARTITION__", IntegerType()) is None
    assert partition_value(None, IntegerType()) is None
    assert partition_value("a/b", StringType()) == "a/b"
    assert partition_value("2024-01-02 10:00:00.5", TimestampType()) == \
        dt.datetime(2024, 1, 2, 10, 0, 0, 500000, tzinfo=dt.timezone.utc)
    assert partition_value("2024-01-02 10:00:00", TimestampType(), "Europe/Paris") == \
        dt.datetime(2024, 1, 2, 9, tzinfo=dt.timezone.utc)
    assert partition_value("1.0E10", DecimalType(11, 0)) == decimal.Decimal(10**10)
    with pytest.raises(pc.ParquetError, match="column 'p': folder value 'x' is not a valid int32"):
        partition_value("x", IntegerType(), column="p")   # pc.parse_partition_value's error


def test_folder_walk_and_conflicts(tmp_path):
    root = str(tmp_path)
    files = [f"{root}/a=1/b=x/f.parquet", f"{root}/a=2/b=y%2Fz/g.parquet"]
    assert parse_partition_dirs(files, [root]) == [[("a", "1"), ("b", "x")], [("a", "2"), ("b", "y/z")]]
    assert parse_partition_dirs([f"{root}/a=__HIVE_DEFAULT_PARTITION__/b=%C3%A9/f.parquet"], [root]) == \
        [[("a", None), ("b", "\u00e9")]]
    # a plain folder below the partition folders is skipped (Spark: /t/a=1/sub/f), one above ends it
    assert parse_partition_dirs([f"{root}/a=1/sub/f.parquet"], [root]) == [[("a", "1")]]
    assert parse_partition_dirs([f"{root}/sub/a=1/f.parquet"], [root]) == [[("a", "1")]]
    with pytest.raises(ValueError, match="conflicting partition folder structures"):
        parse_partition_dirs([f"{root}/a=1/f.parquet", f"{root}/b=1/g.parquet"], [root])
    with pytest.raises(ValueError, match="CONFLICTING_DIRECTORY_STRUCTURES"):
        parse_partition_dirs([f"{root}/x/a=1/f.parquet", f"{root}/y/a=1/g.parquet"], [root])


def test_writer_option_parsing():
    got = parse_writer_options({
        "path": "/x", "partitionby": "a", "timezone": "UTC",
        "compression": '{"a": "zstd", "b": "none"}', "compression_level": "3", "use_dictionary": "false",
        "rowgroupsize": "5000", "row_group_bytes": "none", "data_page_version": "2.0",
        "write_statistics": '["a"]', "key_value_metadata": '{"k": "v"}',
        "sorting_columns": '[["a", "descending"]]', "write_page_checksum": "TRUE"})
    assert got == {"compression": {"a": "zstd", "b": "none"}, "compression_level": 3,
                   "use_dictionary": False, "row_group_size": 5000, "row_group_bytes": None,
                   "data_page_version": "2.0", "write_statistics": ["a"], "key_value_metadata": {"k": "v"},
                   "sorting_columns": [("a", "descending")], "write_page_checksum": True}
    with pytest.raises(ValueError, match="unknown write option 'colour'"):
        parse_writer_options({"colour": "blue"})
    with pytest.raises(ValueError, match="'use_dictionary' must be true or false"):
        parse_writer_options({"use_dictionary": "maybe"})
    assert parse_partition_by({"partitionby": "a, b"}) == ["a", "b"]
    assert parse_partition_by({"partitionby": '["a", "b"]'}) == ["a", "b"]
    with pytest.raises(ValueError, match="distinct columns"):
        parse_partition_by({"partitionby": "a,a"})


def test_every_engine_writer_option_has_a_spark_option():
    """A writer option added to the engine is reachable from ``.option(...)`` (or listed as not)."""
    from parquet_core.options import WRITER_DEFAULTS
    from spark_adapter.core.write_options import NOT_SPARK_OPTIONS, WRITER_OPTIONS

    assert set(WRITER_DEFAULTS) == set(WRITER_OPTIONS) | NOT_SPARK_OPTIONS
    got = parse_writer_options({
        "version": "2.4", "flavor": "spark", "coerceTimestamps": "us",
        "allowTruncatedTimestamps": "true", "store_schema": "false", "legacylistlayout": "true",
        "statistics_truncate_length": '{"a": 8}', "floatColumnOrder": "ieee754_total_order",
        "int96statistics": "true"})
    assert got == {"version": "2.4", "flavor": "spark", "coerce_timestamps": "us",
                   "allow_truncated_timestamps": True, "store_schema": False,
                   "legacy_list_layout": True, "statistics_truncate_length": {"a": 8},
                   "float_column_order": "ieee754_total_order", "int96_statistics": True}
    assert parse_writer_options({"coerce_timestamps": "none"}) == {"coerce_timestamps": None}


# ----------------------------------------------------------------------------- commit / abort, no JVM
def _writer(target, overwrite, **options):
    from pyspark.sql.types import StructField, StructType

    from spark_adapter.pqcore.writer import PqcoreWriter

    schema = StructType([StructField("id", LongType()), StructField("k", StringType())])
    return PqcoreWriter({"path": str(target), **options}, schema, overwrite)


def _task(writer, ids, ks):
    import pyarrow as pa

    batch = pa.record_batch({"id": pa.array(ids, pa.int64()), "k": pa.array(ks, pa.string())})
    return writer.write(iter([batch]))


def _tree(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_commit_moves_staged_files_and_overwrite_replaces_only_ours(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    target = tmp_path / "t"
    w = _writer(target, False, partitionby="k")
    msgs = [_task(w, [1, 2, 3], ["a", "b", None]), _task(w, [4], ["a"])]
    assert not any(p.suffix == ".parquet" and "_pqcore_staging" not in str(p) for p in target.rglob("*"))
    w.commit(msgs)
    assert sorted({str(p.parent.relative_to(target)) for p in target.rglob("*.parquet")}) == \
        ["k=__HIVE_DEFAULT_PARTITION__", "k=a", "k=b"]
    assert not [p for p in target.iterdir() if p.name.startswith("_")]
    assert sorted(pq.read_table(target / "k=a").column("id").to_pylist()) == [1, 4]
    # overwrite, unpartitioned: the k=... folders go, hidden files stay
    (target / "_SUCCESS").write_bytes(b"")
    w2 = _writer(target, True)
    w2.commit([_task(w2, [9], ["z"])])
    assert [p.name for p in target.iterdir() if not p.name.startswith("_")][0].startswith("part-")
    assert (target / "_SUCCESS").exists() and len(list(target.glob("*.parquet"))) == 1


@pytest.mark.parametrize("partition_by", ["", "k"])
def test_failed_commit_undoes_every_move(tmp_path, partition_by):
    target = tmp_path / "t"
    w = _writer(target, False)
    w.commit([_task(w, [1, 2], ["a", "b"])])
    before = _tree(target)
    w2 = _writer(target, True, partitionby=partition_by)
    good = _task(w2, [5], ["x"])
    from spark_adapter.pqcore.writer import PqcoreCommitMessage

    missing = PqcoreCommitMessage(files=["part-does-not-exist.parquet"], rows=1)
    with pytest.raises(FileNotFoundError):
        w2.commit([good, missing])  # old data was moved aside, one new file moved in, then a failure
    w2.abort([good, missing])
    assert _tree(target) == before


def test_abort_removes_staging_and_a_target_it_created(tmp_path):
    target = tmp_path / "new"
    w = _writer(target, False)
    msgs = [_task(w, [1], ["a"])]
    assert target.exists()
    w.abort(msgs + [None])
    assert not target.exists()


def test_overwrite_refuses_foreign_entries(tmp_path):
    target = tmp_path / "t"
    (target / "k=1").mkdir(parents=True)
    (target / "k=1" / "readme.txt").write_text("not parquet")
    with pytest.raises(ValueError, match="refused"):
        _writer(target, True)
    assert (target / "k=1" / "readme.txt").exists()
    with pytest.raises(ValueError, match="cannot use all columns for partition columns"):
        _writer(tmp_path / "u", False, partitionby="id,k")
    with pytest.raises(ValueError, match="invalid write options"):
        _writer(tmp_path / "u", False, column_encoding='{"k": "byte_stream_split_nope"}')


def test_timestamp_folders_use_the_batch_zone_like_spark(tmp_path):
    """Spark (session zone America/New_York) hands timestamp[us, tz=America/New_York] batches
    and its own writer names the folder of timestamp'2024-01-02 10:00:00' t=2024-01-02 10%3A00%3A00."""
    import pyarrow as pa
    from pyspark.sql.types import StructField, StructType

    from spark_adapter.pqcore.writer import PqcoreWriter

    schema = StructType([StructField("x", LongType()), StructField("t", TimestampType())])
    utc_micros = int(dt.datetime(2024, 1, 2, 15, tzinfo=dt.timezone.utc).timestamp()) * 10**6
    batch = pa.record_batch({"x": pa.array([1], pa.int64()),
                             "t": pa.array([utc_micros], pa.timestamp("us", tz="America/New_York"))})
    for options, folder in [({}, "t=2024-01-02 10%3A00%3A00"), ({"timezone": "UTC"}, "t=2024-01-02 15%3A00%3A00")]:
        w = PqcoreWriter({"path": str(tmp_path / folder), "partitionby": "t", **options}, schema, False)
        msg = w.write(iter([batch]))
        assert [os.path.dirname(f) for f in msg.files] == [folder]


def test_bloom_filter_option_reaches_the_file(tmp_path):
    """``.option("bloom_filter_options", json)``: the staged file carries the filter (read by duckdb)."""
    duckdb = pytest.importorskip("duckdb")
    got = parse_writer_options({"bloomfilteroptions": '{"k": {"fpp": 0.01}}'})
    assert got == {"bloom_filter_options": {"k": {"fpp": 0.01}}}
    writer = _writer(tmp_path / "t", False, bloom_filter_options='{"k": true}')
    msg = _task(writer, list(range(100)), [f"v{i}" for i in range(100)])
    writer.commit([msg])
    files = [p for p in (tmp_path / "t").rglob("*.parquet")]
    assert len(files) == 1
    probe = duckdb.execute("select bloom_filter_excludes from parquet_bloom_probe(?, 'k', 'absent')",
                           [str(files[0])]).fetchall()
    assert probe == [(True,)]
