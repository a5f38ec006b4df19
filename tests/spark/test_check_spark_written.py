"""``pc.check`` finds no error in files Spark's built-in writer produces (parquet-java)."""

from __future__ import annotations

import pytest

import parquet_core as pc

pytestmark = pytest.mark.spark


def test_spark_written_files_are_clean(spark, tmp_path):
    out = str(tmp_path / "spark_out")
    df = spark.sql("""
        select id, cast(id as int) as i, cast(id % 7 as string) as s, id * 1.5 as d,
               cast(id as decimal(12, 2)) as dec, array(id, id + 1) as arr,
               named_struct('a', id, 'b', cast(id as string)) as st,
               map('k', id) as m, timestamp_seconds(id) as ts, date_add(date'2020-01-01', cast(id % 100 as int)) as dt,
               case when id % 5 = 0 then null else id end as maybe
        from range(0, 20000)""")
    (df.repartition(2).write.option("parquet.block.size", 64 * 1024)
       .option("parquet.page.size", 8 * 1024).option("parquet.bloom.filter.enabled#s", "true")
       .parquet(out))
    files = sorted(p for p in (tmp_path / "spark_out").iterdir() if p.suffix == ".parquet")
    assert files
    for f in files:
        report = pc.check(f)
        assert report.ok and not report.errors, [str(x) for x in report.findings]
        assert report.findings == [] or all(x.severity != "error" for x in report.findings)


#: Spark (parquet-java) writer options, each a file: codecs, page versions, dictionary on/off,
#: tiny pages and row-count-limited pages (page index), CRC, Bloom filters, legacy format.
SPARK_CASES = {
    "uncompressed-v1": {"compression": "none"},
    "gzip-v2": {"compression": "gzip", "parquet.writer.version": "PARQUET_2_0"},
    "zstd-no-dictionary": {"compression": "zstd", "parquet.enable.dictionary": "false"},
    "lz4raw-v2-tiny-pages-crc": {"compression": "lz4_raw", "parquet.writer.version": "PARQUET_2_0",
                                 "parquet.page.size": "64", "parquet.page.row.count.limit": "7",
                                 "parquet.page.write-checksum.enabled": "true"},
    "snappy-tiny-dictionary-bloom": {"parquet.dictionary.page.size": "256", "parquet.page.size": "256",
                                     "parquet.bloom.filter.enabled": "true"},
    "legacy-format-int96": {"spark.sql.parquet.writeLegacyFormat": "true"},
}


@pytest.mark.slow
def test_spark_files_with_unusual_options_are_spec_clean(spark, tmp_path):
    from tests.check.real_writers import assert_spec_clean

    df = spark.sql("""
        select id, cast(id as int) as i, case when id % 11 = 0 then null else concat('v', id % 7) end as s,
               case when id % 9 = 0 then null else id / 3 end as d, cast(id * 3 - 100 as decimal(9, 2)) as dec,
               cast(id as decimal(30, 2)) as wide, date_add(date'2020-01-01', cast(id as int)) as day,
               timestamp_seconds(id * 37) as ts, cast(id % 5 as tinyint) as ti, cast(id as float) as f,
               case when id % 7 = 0 then null else sequence(0, id % 4) end as li,
               named_struct('a', id, 't', case when id % 3 = 0 then null else concat('t', id % 4) end) as st,
               case when id % 10 = 0 then null else map(concat('k', id % 3), id) end as m,
               cast(null as string) as null_s, cast(null as int) as null_i, id % 2 = 0 as flag,
               cast(concat('b', id % 3) as binary) as bin
        from range(0, 120)""")
    files = {}
    for name, opts in SPARK_CASES.items():
        out = tmp_path / name
        legacy = opts.pop("spark.sql.parquet.writeLegacyFormat", None)
        if legacy is not None:
            spark.conf.set("spark.sql.parquet.writeLegacyFormat", legacy)
            spark.conf.set("spark.sql.parquet.outputTimestampType", "INT96")
        try:
            df.coalesce(1).write.options(**opts).parquet(str(out))
        finally:
            spark.conf.unset("spark.sql.parquet.writeLegacyFormat")
            spark.conf.unset("spark.sql.parquet.outputTimestampType")
        for f in sorted(out.glob("*.parquet")):
            files[f"spark:{name}:{f.name[:10]}"] = f
    out = tmp_path / "empty"
    df.limit(0).coalesce(1).write.parquet(str(out))
    for f in sorted(out.glob("*.parquet")):
        files[f"spark:empty:{f.name[:10]}"] = f
    assert files
    assert_spec_clean(files)
