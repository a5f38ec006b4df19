"""``df.write.format("pqcore")`` and partition folders, checked against Spark's own Parquet source.

Round trips in both directions (our files read by ``spark.read.parquet``,
Spark's files read by ``format("pqcore")``), partitioned both ways, append,
overwrite, a failing task, and the writer options as they land in the footer
(read back with pyarrow).  One shared SparkSession (``conftest.py``); data is
small so the module stays fast.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests._support.spark_checks import assert_same, rows

pytestmark = pytest.mark.spark

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

#: every flat Spark type, with nulls
FLAT_SQL = """
select id,
       cast(id % 100 as tinyint) as b, cast(id % 30000 as smallint) as s, cast(id as int) as i,
       id * 1000003 as l, cast(id / 3 as float) as f, id / 7 as d,
       if(id % 5 = 0, null, concat('n', id)) as str, cast(concat('x', id % 13) as binary) as bin,
       id % 2 = 0 as flag, cast(id / 7 as decimal(9, 2)) as dec9, cast(id * 1.5 as decimal(38, 6)) as dec38,
       date_add(date'1969-12-25', cast(id as int)) as day,
       if(id % 7 = 0, null, timestamp_micros(1700000000000000 + id * 1000001)) as ts,
       timestamp_ntz'1999-12-31 23:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) as ntz
from range({n})
"""


def _data_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.parquet") if not any(
        part.startswith(("_", ".")) for part in p.relative_to(root).parts))


def _leftovers(root: Path) -> list[str]:
    """Staging or trash folders a finished job must not leave behind."""
    return [p.name for p in root.iterdir() if p.name.startswith(("_pqcore_staging", "_pqcore_trash"))] \
        if root.exists() else []


def test_write_all_flat_types_read_by_spark(pqcore_spark, tmp_path):
    spark = pqcore_spark
    df = spark.sql(FLAT_SQL.format(n=4_000)).repartition(2)
    out = tmp_path / "flat"
    (df.write.format("pqcore").mode("overwrite")
     .option("row_group_size", 800).option("compression", "zstd").option("compression_level", 5)
     .option("data_page_version", "2.0").option("write_page_checksum", "true")
     .option("column_encoding", '{"l": "delta_binary_packed", "str": "delta_byte_array"}')
     .save(str(out)))
    files = _data_files(out)
    assert len(files) == 2 and all(f.name.startswith("part-") for f in files)
    assert not _leftovers(out)
    # Spark's reader: same schema (all nullable, as Spark writes) and the same rows
    theirs = spark.read.parquet(str(out))
    assert theirs.schema.simpleString() == df.schema.simpleString()
    assert all(f.nullable for f in theirs.schema.fields)
    assert rows(theirs, sort=True) == rows(df, sort=True)
    # and ours reads it back the same
    assert_same(spark.read.format("pqcore").load(str(out)), theirs, sort=True)
    # the options reached the files (pyarrow reads the footers)
    from tests.interop.writer_cases import page_headers

    for f in files:
        md = pq.read_metadata(f)
        sizes = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
        assert sizes == [800, 800, 400], sizes
        cols = {md.row_group(0).column(c).path_in_schema: md.row_group(0).column(c)
                for c in range(md.num_columns)}
        assert {c.compression for c in cols.values()} == {"ZSTD"}
        assert "DELTA_BINARY_PACKED" in cols["l"].encodings
        assert "DELTA_BYTE_ARRAY" in cols["str"].encodings
        assert md.schema.to_arrow_schema().field("ts").type == pa.timestamp("us", tz="UTC")
        assert md.schema.to_arrow_schema().field("ntz").type == pa.timestamp("us")
        headers = [h for h in page_headers(f, 0, 0) if h.data_page_header_v2 or h.data_page_header]
        assert headers and all(h.data_page_header_v2 is not None and h.crc is not None for h in headers)


def test_options_are_parsed_and_unknown_ones_refused(pqcore_spark, tmp_path):
    spark = pqcore_spark
    df = spark.range(10)
    with pytest.raises(Exception, match="unknown write option 'no_such_option'"):
        df.write.format("pqcore").mode("append").option("no_such_option", "1").save(str(tmp_path / "a"))
    with pytest.raises(Exception, match="'row_group_size' must be an integer"):
        df.write.format("pqcore").mode("append").option("row_group_size", "many").save(str(tmp_path / "b"))
    with pytest.raises(Exception, match="unknown compression"):
        df.write.format("pqcore").mode("append").option("compression", "zip").save(str(tmp_path / "c"))
    with pytest.raises(Exception, match="type not supported"):
        spark.sql("select interval 1 day as a").write.format("pqcore").mode("append").save(str(tmp_path / "d"))
    assert not any((tmp_path / n).exists() for n in "abcd")  # refused before anything was written
    # camelCase names (Spark lower-cases them) and booleans as Spark passes them
    out = tmp_path / "e"
    (df.write.format("pqcore").mode("append").option("rowGroupSize", 3).option("useDictionary", False)
     .option("compression", "none").option("writePageIndex", False).save(str(out)))
    md = pq.read_metadata(_data_files(out)[0])
    assert md.row_group(0).num_rows <= 3 and md.row_group(0).column(0).compression == "UNCOMPRESSED"
    assert not md.row_group(0).column(0).has_offset_index
    assert "PLAIN" in md.row_group(0).column(0).encodings
    assert "RLE_DICTIONARY" not in md.row_group(0).column(0).encodings


def test_append_twice_and_overwrite(pqcore_spark, tmp_path):
    spark = pqcore_spark
    out = str(tmp_path / "t")
    a = spark.range(0, 1000).selectExpr("id", "cast(id % 7 as string) as k")
    b = spark.range(5000, 5300).selectExpr("id", "cast(id % 7 as string) as k")
    a.write.format("pqcore").mode("append").save(out)
    a.write.format("pqcore").mode("append").save(out)
    got = spark.read.parquet(out)
    assert got.count() == 2000
    assert rows(got, sort=True) == sorted(rows(a) * 2, key=repr)
    b.write.format("pqcore").mode("overwrite").save(out)
    assert rows(spark.read.parquet(out), sort=True) == rows(b, sort=True)
    assert not _leftovers(Path(out))
    # an empty result still leaves a readable (zero-row) file, as Spark's writer does
    empty = str(tmp_path / "empty")
    a.where("id < 0").write.format("pqcore").mode("append").save(empty)
    got = spark.read.parquet(empty)
    assert got.schema.simpleString() == a.schema.simpleString() and got.count() == 0
    # overwrite never deletes what is not ours
    (Path(out) / "notes.txt").write_text("keep me")
    with pytest.raises(Exception, match="overwrite of .* refused"):
        a.write.format("pqcore").mode("overwrite").save(out)
    assert (Path(out) / "notes.txt").read_text() == "keep me"
    assert rows(spark.read.format("pqcore").option("pathGlobFilter", "*.parquet").load(out),
                sort=True) == rows(b, sort=True)


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_failing_task_leaves_no_output(pqcore_spark, tmp_path):
    spark = pqcore_spark
    # one row of one task raises; the other task may already have staged its files
    bad = spark.range(0, 4000, numPartitions=2).selectExpr(
        "if(id = 3999, raise_error('boom at 3999'), id) as id", "id % 3 as k")
    fresh = tmp_path / "fresh"
    with pytest.raises(Exception, match="boom at 3999"):
        bad.write.format("pqcore").mode("append").save(str(fresh))
    assert not fresh.exists()  # created by the job, removed by abort()
    kept = tmp_path / "kept"
    good = spark.range(10).selectExpr("id", "id % 3 as k")
    good.write.format("pqcore").mode("append").option("partitionBy", "k").save(str(kept))
    before = _tree(kept)
    for mode in ("append", "overwrite"):
        with pytest.raises(Exception, match="boom at 3999"):
            bad.write.format("pqcore").mode(mode).option("partitionBy", "k").save(str(kept))
        assert _tree(kept) == before
    assert rows(spark.read.parquet(str(kept)).select("id", "k"), sort=True) == rows(good, sort=True)


def test_partitioned_write_read_by_spark(pqcore_spark, tmp_path):
    spark = pqcore_spark
    df = spark.sql("""
        select id, v, k, n, day, t from values
          (1, 'a', 'plain', 1, date'2024-01-02', timestamp'2024-01-02 10:00:00'),
          (2, 'b', 'a/b:c=d%e', 1, date'2024-01-02', timestamp'2024-01-02 10:00:00.120'),
          (3, 'c', '{[^]} sp#?*', 2, date'2024-02-29', timestamp'1999-12-31 23:59:59.999999'),
          (4, 'd', null, null, null, null),
          (5, 'e', '', 2, date'2024-02-29', timestamp'2024-01-02 10:00:00'),
          (6, 'f', 'ü', -3, date'1970-01-01', timestamp'2024-01-02 10:00:00.120')
        as x(id, v, k, n, day, t)""")
    ours_dir, spark_dir = tmp_path / "ours", tmp_path / "spark"
    df.write.format("pqcore").mode("overwrite").option("partitionBy", "k,n,day,t").save(str(ours_dir))
    df.write.mode("overwrite").partitionBy("k", "n", "day", "t").parquet(str(spark_dir))

    def folders(root):
        return sorted(str(p.parent.relative_to(root)) for p in _data_files(root))

    # the same key=value folders as Spark's writer (escaping, null, timestamps)
    assert sorted(set(folders(ours_dir))) == sorted(set(folders(spark_dir)))
    # partition columns are not stored in the files
    assert pq.read_schema(_data_files(ours_dir)[0]).names == ["id", "v"]
    # Spark discovers our partitions; we discover Spark's; both infer the same types
    theirs_on_ours = spark.read.parquet(str(ours_dir))
    theirs_on_theirs = spark.read.parquet(str(spark_dir))
    # (Spark infers timestamps with more than one fraction digit as strings, even its own)
    assert theirs_on_ours.schema.simpleString() == \
        "struct<id:int,v:string,k:string,n:int,day:date,t:string>"
    assert_same(theirs_on_ours, theirs_on_theirs, sort=True)
    assert_same(spark.read.format("pqcore").load(str(spark_dir)), theirs_on_theirs, sort=True)
    assert_same(spark.read.format("pqcore").load(str(ours_dir)), theirs_on_ours, sort=True)
    # '' and null both land in __HIVE_DEFAULT_PARTITION__ and read back as null, like Spark
    assert sorted(rows(theirs_on_ours.select("id").where("k is null"))) == [(4,), (5,)]


def test_partitionby_of_dataframewriter_is_rejected_by_spark(pqcore_spark, tmp_path):
    """Spark 4 refuses DataFrameWriter.partitionBy for every Python data source (the JVM
    table reports no partitioning) before our code runs; hence the partitionBy option."""
    with pytest.raises(Exception, match="partitioning"):
        pqcore_spark.range(3).write.format("pqcore").mode("append").partitionBy("id").save(
            str(tmp_path / "x"))


def test_partition_discovery_matches_spark(pqcore_spark, tmp_path):
    """Folders written by hand: type inference and its widening, nulls, globs, no inference."""
    spark = pqcore_spark
    root = tmp_path / "tbl"
    values = [("1", "2024-01-02", "x"), ("3000000000", "2024-01-02 10%3A00%3A00", "a%2Fb"),
              ("__HIVE_DEFAULT_PARTITION__", "2024-01-03", "__HIVE_DEFAULT_PARTITION__"),
              ("7", "2024-01-02", "1.5")]
    for i, (a, b, c) in enumerate(values):
        d = root / f"a={a}" / f"b={b}" / f"c={c}"
        d.mkdir(parents=True)
        pq.write_table(pa.table({"x": [i, i + 10]}), d / "f.parquet")
    (root / "_SUCCESS").write_bytes(b"")
    ours = spark.read.format("pqcore").load(str(root))
    theirs = spark.read.parquet(str(root))
    assert ours.schema.simpleString() == "struct<x:bigint,a:bigint,b:timestamp,c:string>"
    assert_same(ours, theirs, sort=True)
    # a user schema may name partition columns, with its own types (ours is a projection;
    # Spark's file source adds the other partition columns at the end)
    ddl = "x long, c string, a bigint"
    assert_same(spark.read.format("pqcore").schema(ddl).load(str(root)),
                spark.read.schema(ddl).parquet(str(root)).select("x", "c", "a"), sort=True)
    # without inference every partition column is a string
    spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    try:
        theirs = spark.read.parquet(str(root))
        ours = spark.read.format("pqcore").option("partitionColumnTypeInference", "false").load(str(root))
        assert ours.schema.simpleString() == "struct<x:bigint,a:string,b:string,c:string>"
        assert_same(ours, theirs, sort=True)
    finally:
        spark.conf.unset("spark.sql.sources.partitionColumnTypeInference.enabled")
    # a glob: the matched folders are base paths (Spark's rule), so partition folders under
    # several of them conflict; basePath names the root
    glob = os.path.join(str(root), "a=[17]")
    with pytest.raises(Exception, match="CONFLICTING_DIRECTORY_STRUCTURES"):
        spark.read.format("pqcore").load(glob)
    ours = spark.read.format("pqcore").option("basePath", str(root)).load(glob)
    theirs = spark.read.option("basePath", str(root)).parquet(glob)
    assert ours.columns == ["x", "a", "b", "c"] and ours.count() == 4
    assert_same(ours, theirs, sort=True)


def test_nested_columns_written_and_read_back_by_spark(pqcore_spark, tmp_path):
    """Arrays, maps and structs (nested in each other) written by pqcore; Spark's own reader sees the same rows."""
    spark = pqcore_spark
    df = spark.sql("""
        select id,
               if(id % 5 = 0, null, array_repeat(cast(id as int), cast(id % 4 as int))) as arr,
               map(concat('k', id % 3), named_struct('x', id, 'tags', array('a', concat('t', id)))) as m,
               named_struct('name', concat('n', id), 'scores', array(id * 0.5, null), 'opt', if(id % 2 = 0, null, id))
                 as s
        from range(300)""")
    out = tmp_path / "nested"
    df.write.format("pqcore").mode("overwrite").save(str(out))
    back = spark.read.parquet(str(out))
    assert back.schema.simpleString() == df.schema.simpleString()
    assert sorted(back.toJSON().collect()) == sorted(df.toJSON().collect())
    ours = spark.read.format("pqcore").load(str(out))
    assert sorted(ours.toJSON().collect()) == sorted(df.toJSON().collect())
