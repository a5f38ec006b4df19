"""Errors users can read: a bad option fails on the driver before any task, and what
reaches ``str(e)`` of Spark's ``AnalysisException`` is a one-frame traceback and the
message (with ``hideTraceback`` on, the message on the first line).

The expected texts are the adapter's own messages; what is checked is Spark's
wrapping around them: how many traceback frames and lines reach the user.
"""

from __future__ import annotations

import traceback

import pytest

from spark_adapter.core.readable_errors import readable

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

HIDE = "spark.sql.execution.pyspark.udf.hideTraceback.enabled"


def _deep(n: int, exc: BaseException) -> None:
    if n:
        _deep(n - 1, exc)
    raise exc


class _Source:
    @readable
    def schema(self, exc):
        _deep(5, exc)


def test_user_error_leaves_with_one_frame():
    with pytest.raises(ValueError) as info:
        _Source().schema(ValueError("pqcore: option 'x' is bad"))
    frames = traceback.extract_tb(info.value.__traceback__)   # the caller's frame, then the re-raise
    assert [f.name for f in frames][1:] == ["wrapper"]
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_parquet_error_is_a_user_error():
    from parquet_core.errors import ParquetResourceError

    with pytest.raises(ParquetResourceError) as info:
        _Source().schema(ParquetResourceError("too big"))
    assert len(traceback.extract_tb(info.value.__traceback__)) == 2


def test_a_bug_keeps_its_traceback():
    with pytest.raises(AttributeError) as info:
        _Source().schema(AttributeError("oops"))
    assert len(traceback.extract_tb(info.value.__traceback__)) > 6


@pytest.fixture(scope="module")
def one_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("readable") / "a.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), path)
    return str(path)


def _cases(spark, path, out):
    return [
        ("unknown option(s) 'filer'",
         lambda: spark.read.format("pqcore").option("filer", "a = 1").load(path)),
        ("option 'filter': expected a literal",   # with a user schema: reader() refuses it
         lambda: spark.read.format("pqcore").schema("a long").option("filter", "a ===").load(path).count()),
        ("unknown write option 'compresion'",
         lambda: spark.range(3).write.format("pqcore").mode("append").option("compresion", "zstd").save(out)),
        ("Path does not exist", lambda: spark.read.format("pqcore").load(path + ".missing")),
        ("pqmeta: unknown level 'bogus'",
         lambda: spark.read.format("pqmeta").option("level", "bogus").load(path)),
        ("kartothek: unknown option(s) 'bogus'",
         lambda: spark.read.format("kartothek").option("bogus", "1").load(path)),
    ]


@pytest.mark.spark
def test_bad_options_fail_before_any_task_in_few_lines(pqcore_spark, one_file, tmp_path):
    from pyspark.errors import AnalysisException

    spark = pqcore_spark
    sc = spark.sparkContext
    for message, action in _cases(spark, one_file, str(tmp_path / "out")):
        sc.setJobGroup("readable-errors", message)
        with pytest.raises(AnalysisException) as info:
            action()
        text = str(info.value)
        lines = text.splitlines()
        assert lines[0].startswith("[PYTHON_DATA_SOURCE_ERROR]"), text
        assert lines[0].endswith("Traceback (most recent call last):"), text
        assert text.count('  File "') == 1, text       # one frame, not the adapter's internals
        assert message in lines[-2] and len(lines) <= 6, text
        assert sc.statusTracker().getJobIdsForGroup("readable-errors") == [], message   # no task ran
    sc.setJobGroup("", "")


@pytest.mark.spark
def test_hide_traceback_puts_the_message_on_the_first_line(pqcore_spark, one_file, tmp_path):
    from pyspark.errors import AnalysisException

    spark = pqcore_spark
    spark.conf.set(HIDE, "true")
    try:
        for message, action in _cases(spark, one_file, str(tmp_path / "out")):
            with pytest.raises(AnalysisException) as info:
                action()
            first = str(info.value).splitlines()[0]
            assert first.startswith("[PYTHON_DATA_SOURCE_ERROR]") and message in first, str(info.value)
    finally:
        spark.conf.unset(HIDE)
