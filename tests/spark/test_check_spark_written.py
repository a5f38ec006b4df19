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
