"""``format("kartothek")``: Spark reads Kartothek 5.3 datasets and writes datasets our reader reads."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from decimal import Decimal

import pytest

import parquet_core_integrations.kartothek as ktk
from parquet_core_integrations.kartothek.metadata import load_metadata
from parquet_core_integrations.kartothek.store import LocalStore
from tests._support.kartothek import SHARED, canon_rows, expected

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def ktk_spark(spark):
    import spark_adapter

    spark_adapter.register(spark)
    return spark


def _store():
    store = SHARED / "store"
    if not store.is_dir():
        pytest.skip(f"Kartothek fixtures not found at {store}")
    return str(store)


def test_spark_reads_shared_dataset_like_kartothek(ktk_spark):
    df = (ktk_spark.read.format("kartothek").option("dataset_uuid", "partitioned_indexed")
          .option("table", "table").load(_store()))
    exp = expected("partitioned_indexed__table__read_table")
    assert df.columns == exp["columns"]
    # uint64 V is decimal(20,0) in Spark, TS timestamp_ntz, D date, F double (from _common_metadata)
    types = dict(df.dtypes)
    assert types["V"] == "decimal(20,0)" and types["D"] == "date" and types["F"] == "double"
    got = [[int(v) if isinstance(v, Decimal) else v for v in r] for r in df.collect()]
    assert canon_rows(got) == canon_rows(exp["rows"])


def test_spark_predicates_prune_by_index_and_keys(ktk_spark):
    preds = [[["C", "==", 3], ["L", "!=", "plain"]], [["P", "==", 3], ["D", ">=", "2020-01-02"]]]
    df = (ktk_spark.read.format("kartothek").option("dataset_uuid", "partitioned_indexed")
          .option("predicates", json.dumps(preds)).load(_store()))
    got = sorted((r.P, r.L, r.C) for r in df.collect())
    ours = ktk.read_dataset(_store(), "partitioned_indexed",
                            predicates=[[tuple(lit) for lit in conj] for conj in preds])
    assert got == sorted((r["P"], r["L"], r["C"]) for r in ours.to_pylist())
    assert got == [(1, "x y=z&%", 3), (2, "München", 3), (2, "München", 3), (3, "plain", 0), (3, "x y=z&%", 4)]
    # index pruning: C == 3 lists 4 partitions, minus the plain one, plus P == 3's two
    reader = ktk.plan_read(_store(), "partitioned_indexed",
                           predicates=[[tuple(lit) for lit in conj] for conj in preds])
    assert len(reader.partitions) == 5
    assert df.rdd.getNumPartitions() == 5


def test_spark_typed_partitions_and_bool_false(ktk_spark):
    df = (ktk_spark.read.format("kartothek").option("dataset_uuid", "typed_partitions")
          .option("predicates", '[["pbool", "==", false]]').load(_store()))
    rows = df.collect()
    assert [(r.pbool, r.pdate, r.pstr, r.payload) for r in rows] == [(False, dt.date(2018, 1, 2), "ü", 2)]


def test_spark_writes_partitioned_indexed_dataset(ktk_spark, tmp_path):
    store = str(tmp_path)
    src = ktk_spark.sql("""
        select cast(id % 3 as int) as P, concat('c/', cast(id % 2 as string)) as L, id as C,
               cast(id as double) / 4 as F, if(id = 4, null, concat('s', cast(id as string))) as S,
               date_add(date'2020-01-01', cast(id as int)) as D
        from range(10)""")
    (src.write.format("kartothek").mode("append").option("dataset_uuid", "sp")
        .option("partition_on", "P,L").option("secondary_indices", "C,S").save(store))
    md = load_metadata(LocalStore(store), "sp")
    assert md.partition_keys == ["P", "L"] and set(md.indices) == {"C", "S"}
    got = ktk.read_dataset(store, "sp")
    assert got.column_names == ["P", "L", "C", "D", "F", "S"]
    assert sorted((r["P"], r["L"], r["C"]) for r in got.to_pylist()) == sorted(
        (i % 3, f"c/{i % 2}", i) for i in range(10))
    assert {str(f.type) for f in got.schema if f.name in ("P", "C")} == {"int64"}
    hit = ktk.read_dataset(store, "sp", predicates=[[("C", "==", 7)]])
    assert [(r["P"], r["L"], r["S"]) for r in hit.to_pylist()] == [(1, "c/1", "s7")]
    assert len(ktk.plan_read(store, "sp", predicates=[[("C", "==", 7)]]).partitions) == 1
    # append through Spark: indices merged, one commit
    (ktk_spark.sql("select 1 as P, 'c/1' as L, 100L as C, 1.0d as F, 'new' as S, date'2021-01-01' as D")
        .write.format("kartothek").mode("append").option("dataset_uuid", "sp").save(store))
    assert ktk.read_dataset(store, "sp", predicates=[[("S", "==", "new")]]).num_rows == 1
    assert ktk.read_dataset(store, "sp").num_rows == 11
    assert sorted(r["C"] for r in ktk.read_dataset(store, "sp", predicates=[[("C", "in", [7, 100])]])
                  .to_pylist()) == [7, 100]
    # overwrite replaces the partitions
    (ktk_spark.sql("select 5 as P, 'z' as L, 1L as C, 0.5d as F, 'o' as S, date'2022-01-01' as D")
        .write.format("kartothek").mode("overwrite").option("dataset_uuid", "sp").save(store))
    assert [r["C"] for r in ktk.read_dataset(store, "sp").to_pylist()] == [1]
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_kartothek_shim_is_import_light():
    from tests._support.spark_checks import assert_shim_is_light

    assert_shim_is_light("pyspark_kartothek", "kartothek",
                         ("pyarrow", "parquet_core", "numpy", "parquet_core_integrations.kartothek"))


def test_failing_task_commits_nothing(ktk_spark, tmp_path):
    store = str(tmp_path)
    ktk.write_dataset({"P": [1, 2], "C": [10, 20]}, store, "f", partition_on=["P"], secondary_indices=["C"])
    meta = (tmp_path / "f.by-dataset-metadata.json").read_bytes()
    before = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    bad = ktk_spark.range(0, 400, numPartitions=2).selectExpr(
        "cast(id % 2 as bigint) as P", "if(id = 399, raise_error('boom at 399'), id) as C")
    with pytest.raises(Exception, match="boom at 399"):
        (bad.write.format("kartothek").mode("append").option("dataset_uuid", "f")
            .option("rowsPerFile", "50").save(store))
    assert (tmp_path / "f.by-dataset-metadata.json").read_bytes() == meta     # no commit
    assert sorted(r["C"] for r in ktk.read_dataset(store, "f").to_pylist()) == [10, 20]
    ktk.garbage_collect(store, "f")      # a task still running after abort() may leave files
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file()) == before


def test_spark_reads_every_type_like_kartothek(ktk_spark):
    df = ktk_spark.read.format("kartothek").option("dataset_uuid", "alltypes_rowgroups") \
        .option("predicates", '[[["int8", ">=", 2]]]').load(_store())
    exp = expected("alltypes_rowgroups__pred_int8_ge_2")
    assert df.columns == exp["columns"]

    def plain(v):
        if isinstance(v, Decimal):
            return int(v)
        if isinstance(v, bytearray):
            return bytes(v)
        return v
    tz_col = df.columns.index("datetime64_tz")    # Spark hands TimestampType out as naive local time
    got = [[plain(v) if i != tz_col else v.astimezone(dt.timezone.utc) for i, v in enumerate(r)]
           for r in df.collect()]
    assert canon_rows(got) == canon_rows(exp["rows"])


def test_spark_reads_kartothek_unescaped_slashes_whole(ktk_spark, tmp_path):
    """A dataset real Kartothek 5.3 wrote with "/" inside partition values (which it does not
    escape): Spark gets the whole values, and a predicate on one selects it."""
    from tests._support.kartothek import PY, SLASHED, write_slashed_with_kartothek

    if not PY.exists():
        pytest.skip(f"no Kartothek venv at {PY.parent.parent} (tests/kartothek/build_kartothek_venv.sh)")
    write_slashed_with_kartothek(PY, tmp_path)
    df = ktk_spark.read.format("kartothek").option("dataset_uuid", "slashed").load(str(tmp_path))
    assert sorted((r.P, r.Q, r.v) for r in df.collect()) == sorted(zip(SLASHED["P"], SLASHED["Q"], SLASHED["v"]))
    one = (ktk_spark.read.format("kartothek").option("dataset_uuid", "slashed")
           .option("predicates", '[["P", "==", "/lead"]]').load(str(tmp_path)))
    assert [(r.P, r.Q, r.v) for r in one.collect()] == [("/lead", "z", 4)]
