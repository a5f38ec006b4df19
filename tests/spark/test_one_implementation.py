"""Python (``pc.read_table``) and Spark (``format("pqcore")``) see the same files and the same
partition values for the same folders: one listing, one folder parser, one unescaper
(issue 17).  Types follow each side's policy: pyarrow's for Python, Spark's for Spark, and
the latter is checked against Spark's built-in reader."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc

pytestmark = pytest.mark.spark


def _text(v):
    return None if v is None else str(v)


def _python_rows(root, names):
    t = pc.read_table(root).to_arrow()
    return sorted(tuple(_text(v) for v in row) for row in zip(*(t.column(n).to_pylist() for n in names)))


def _as_collected(v):
    """A Python value as pyspark's collect() gives it: an aware timestamp as a naive local time."""
    import datetime as dt

    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone().replace(tzinfo=None)
    return v


def _python_spark_policy(root, names, time_zone=None):
    """``pc.read_table`` with Spark's partition inference: Spark types and rows as collected."""
    from spark_adapter.core.types import to_spark_type

    t = pc.read_table(str(root), partitioning=pc.Partitioning("hive", inference="spark", time_zone=time_zone))
    types = {n: to_spark_type(t.schema.field(n).type) for n in names}
    rows = sorted(tuple(_text(_as_collected(v)) for v in row) for row in zip(*(t.column(n).to_pylist() for n in names)))
    return types, rows


def _spark_rows(df, names):
    return sorted(tuple(_text(r[n]) for n in names) for r in df.select(*names).collect())


def _pyarrow_folder(root):
    """pyarrow escapes every byte outside A-Z a-z 0-9 - . _ ~ of the UTF-8 value (``é`` -> ``%C3%A9``)."""
    table = pa.table({"n": list(range(8)),
                      "k": ["é", "a/b", "plain", None, "é", "a/b", "x y", "ü%"],
                      "g": [1, 2, 3, 1, 2, 3, 1, 2]})
    pq.write_to_dataset(table, root, partition_cols=["g", "k"])
    return table


def test_pyarrow_folder_same_files_and_values(pqcore_spark, tmp_path):
    spark = pqcore_spark
    root = str(tmp_path / "pa")
    _pyarrow_folder(root)
    names = sorted(os.listdir(os.path.join(root, "g=1")))
    assert "k=%C3%A9" in names and "k=__HIVE_DEFAULT_PARTITION__" in names   # what pyarrow wrote
    assert "k=a%2Fb" in os.listdir(os.path.join(root, "g=2"))

    from spark_adapter.core.files import list_files

    assert list_files([root]) == pc.ParquetDataset(root).files            # the same files
    ours = spark.read.format("pqcore").load(root)
    assert _spark_rows(ours, ["n", "g", "k"]) == _python_rows(root, ["n", "g", "k"])
    by_n = {r["n"]: r["k"] for r in ours.collect()}
    assert by_n[0] == by_n[4] == "é" and by_n[1] == by_n[5] == "a/b" and by_n[3] is None
    assert by_n[7] == "ü%"
    # pyarrow reads its own folders the same way
    assert sorted(pq.read_table(root).column("k").to_pylist(), key=str) == \
        sorted(pc.read_table(root).column("k").to_pylist(), key=str)
    # Spark's built-in reader agrees on "/" but reads %C3%A9 as two Latin-1 characters
    builtin = {r["n"]: r["k"] for r in spark.read.parquet(root).collect()}
    assert builtin[1] == "a/b" and builtin[3] is None
    assert builtin[0] == "\u00c3\u00a9"     # Spark's bug; pqcore gives "é" (UTF-8, as pyarrow)


def test_spark_written_folder_same_files_values_and_builtin_types(pqcore_spark, tmp_path):
    spark = pqcore_spark
    out = str(tmp_path / "sp")
    df = spark.createDataFrame(
        [(i, ["é", "a/b", "c:d", None, "x=y"][i % 5], i % 3, f"2024-01-0{1 + i % 2}", 10 ** 12 + i % 2)
         for i in range(20)], "n long, k string, g int, d string, big long")
    df.write.partitionBy("g", "k", "d", "big").parquet(out)
    from spark_adapter.core.files import list_files

    assert list_files([out]) == pc.ParquetDataset(out).files
    names = ["n", "g", "k", "d", "big"]
    ours = spark.read.format("pqcore").load(out)
    builtin = spark.read.parquet(out)
    # Spark's reader and pqcore: same rows and the same inferred partition types
    assert _spark_rows(ours, names) == _spark_rows(builtin, names)
    assert {f.name: f.dataType for f in ours.schema.fields} == {f.name: f.dataType for f in builtin.schema.fields}
    # Python: the same rows (as text: its partition types are pyarrow's, int32 or string)
    assert _python_rows(out, names) == _spark_rows(ours, names)
    t = pc.read_table(out)
    assert t.schema.field("g").type == pc.int32() and t.schema.field("d").type == pc.string()
    assert t.schema.field("big").type == pc.string()          # beyond int32: pyarrow keeps text
    # Python with Spark's inference: Spark's types and values
    types, rows = _python_spark_policy(out, names)
    assert rows == _spark_rows(builtin, names)
    assert types == {n: builtin.schema[n].dataType for n in names}


@pytest.mark.parametrize("values", [
    ["1", "2"], ["1", "3000000000"], ["1", "123456789012345678901"], ["1", "1.5"], ["1.0E10", "2"],
    ["2024-01-02", "2024-02-03"], ["2024-01-02 10:00:00", "2024-01-02 10:00:00.5"],
    ["2024-01-02", "2024-01-02 10:00:00"], ["1", "2024-01-02"], ["a/b", "x y"], ["true", "false"],
    ["-1", "+2"], ["NaN", "1.5"], ["2024-01-02 10:00:00.12"], ["007", "1"],
])
def test_spark_policy_types_equal_spark_builtin(pqcore_spark, tmp_path, values):
    """Folders named like Spark names them: ``pc.infer_partition_type(flavor="spark")``, through
    pqcore, gives the types Spark's own reader infers."""
    from spark_adapter.core.partitioning import escape_path_name

    spark = pqcore_spark
    root = tmp_path / "t"
    for i, v in enumerate(values):
        folder = root / f"p={escape_path_name(v)}"
        folder.mkdir(parents=True)
        pq.write_table(pa.table({"n": [i]}), str(folder / "part-0.parquet"))
    ours = spark.read.format("pqcore").load(str(root))
    builtin = spark.read.parquet(str(root))
    assert ours.schema["p"].dataType == builtin.schema["p"].dataType
    assert _spark_rows(ours, ["n", "p"]) == _spark_rows(builtin, ["n", "p"])
    # and Python, with pc.Partitioning("hive", inference="spark"), the same types and values
    types, rows = _python_spark_policy(root, ["n", "p"])
    assert types["p"] == builtin.schema["p"].dataType
    assert rows == _spark_rows(builtin, ["n", "p"])


def test_timestamp_folders_in_session_time_zone(pqcore_spark, tmp_path):
    """Timestamp folder text is a wall-clock time in the session zone: Spark's reader, pqcore
    (its tasks read ``spark.sql.session.timeZone``) and Python with ``time_zone=`` agree."""
    spark = pqcore_spark
    root = tmp_path / "ts"
    values = ["2024-01-02 10:00:00", "2024-03-31 02:30:00", "2024-10-27 02:30:00.5", "2024-07-01", None]
    for i, v in enumerate(values):
        folder = root / ("p=__HIVE_DEFAULT_PARTITION__" if v is None else f"p={v.replace(':', '%3A')}")
        folder.mkdir(parents=True)
        pq.write_table(pa.table({"n": [i]}), str(folder / "part-0.parquet"))
    old = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "Europe/Paris")
    try:
        builtin = spark.read.parquet(str(root))
        want = _spark_rows(builtin, ["n", "p"])
        ours = spark.read.format("pqcore").load(str(root))
        assert ours.schema["p"].dataType == builtin.schema["p"].dataType
        assert _spark_rows(ours, ["n", "p"]) == want
    finally:
        spark.conf.set("spark.sql.session.timeZone", old)
    types, rows = _python_spark_policy(root, ["n", "p"], time_zone="Europe/Paris")
    assert types["p"] == builtin.schema["p"].dataType
    assert rows == want
    # read in UTC instead, the instants move by Paris's offset: the zone matters
    assert _python_spark_policy(root, ["n", "p"])[1] != want


def test_summary_metadata_folder_same_files(pqcore_spark, tmp_path):
    """A folder with ``_metadata``: Python plans from it, Spark lists the folder (``_metadata``
    is litter to the listing); both read the same files and values."""
    spark = pqcore_spark
    root = str(tmp_path / "md")
    table = pa.table({"n": list(range(12)), "k": ["é", "a/b", "c"] * 4})
    collector: list = []
    pc.write_to_dataset(table, root, partition_cols=["k"], metadata_collector=collector)
    schema = pc.ParquetFile(next(p for p, _ in pc.list_data_files(root))).schema_arrow
    pc.write_metadata(schema, os.path.join(root, "_metadata"), collector)
    assert os.path.exists(os.path.join(root, "_metadata"))
    from spark_adapter.core.files import list_files

    assert list_files([root]) == pc.ParquetDataset(root).files
    assert _spark_rows(spark.read.format("pqcore").load(root), ["n", "k"]) == _python_rows(root, ["n", "k"])
