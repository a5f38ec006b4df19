"""xskipper stores with Spark: the JVM's own Bloom filters, Spark-built CSV indexes equal to
xskipper's files, Spark's parquet reader on our stores, and skipping in ``format("pqcore")``."""

from __future__ import annotations

import json
import os
import shutil

import pytest

import parquet_core as pc
from parquet_core_integrations.xskipper import MetadataStore, Xskipper, decode_bloom_cell
import spark_adapter.core.skipping  # noqa: F401  (registers the Spark indexer Xskipper(spark, ...) uses)
from parquet_core_integrations.xskipper.names import split_file_id
from parquet_core_integrations.xskipper.sketch import SparkBloomFilter, optimal_num_bits
from tests._support.xskipper import exclusive_stored_prefix, fixture_dir, local_path, version_tests

pytestmark = pytest.mark.spark
c = pc.col
ADD = {"minmax": "add_min_max_index", "valuelist": "add_value_list_index", "bloomfilter": "add_bloom_filter_index"}


def _jvm_filter(spark, version, n, fpp, seed, strings, longs):
    jvm = spark._jvm
    sketch = jvm.org.apache.spark.util.sketch
    ver = getattr(sketch.BloomFilter.Version, f"V{version}") if hasattr(sketch.BloomFilter, "Version") else None
    if ver is None:
        ver = jvm.java.lang.Enum.valueOf(jvm.java.lang.Class.forName("org.apache.spark.util.sketch.BloomFilter$Version"),
                                         f"V{version}")
    bf = sketch.BloomFilter.create(ver, n, optimal_num_bits(n, fpp), seed)
    for s in strings:
        bf.putString(s)
    for v in longs:
        bf.putLong(v)
    out = jvm.java.io.ByteArrayOutputStream()
    oos = jvm.java.io.ObjectOutputStream(out)
    oos.writeObject(bf)
    oos.close()
    return bytes(out.toByteArray())


@pytest.mark.parametrize("version,seed", [(1, 0), (2, 0), (2, 12345)])
def test_jvm_bloom_filters_decode_and_match_ours(spark, version, seed):
    strings = ["a", "bc", "déf", "x" * 257, ""]
    longs = [0, 1, -1, 2**40, -(2**63)]
    cell = _jvm_filter(spark, version, 1000, 0.03, seed, strings, longs)
    theirs = decode_bloom_cell(cell)  # a bare Java-serialized BloomFilterImpl / BloomFilterImplV2
    assert theirs.version == version and theirs.seed == seed
    ours = SparkBloomFilter.create(1000, 0.03, version=version, seed=seed)
    ours.put_strings(strings)
    ours.put_longs(longs)
    assert ours == theirs
    assert all(theirs.might_contain(v) for v in strings + longs)


def _stage_csv(test_id):
    """Copy the CSV dataset of a version test to the path and mtimes its v4 store names."""
    store = MetadataStore(fixture_dir(4, test_id))
    root = store.table_identifier
    shutil.copytree(local_path(root), root, dirs_exist_ok=True)
    for fid in store.file_ids():
        path, mtime = split_file_id(fid)
        os.utime(path, ns=(mtime * 1_000_000, mtime * 1_000_000))
    return store, root


@pytest.fixture
def staged():
    with exclusive_stored_prefix():
        yield _stage_csv


@pytest.mark.parametrize("test_id", [1, 3, 9, 18])  # partitions, INT96 timestamps, empty file, Bloom
def test_spark_csv_build_equals_xskipper(spark, staged, tmp_path, test_id):
    """Built through Spark from the same CSV files: the whole store equals xskipper's v4 store."""
    fixture, root = staged(test_id)
    xs = Xskipper(spark, root, str(tmp_path / "md"))
    builder = xs.index_builder()
    for idx in fixture.indexes:
        getattr(builder, ADD[idx.name])(idx.cols[0])
    builder.build(format="csv", options={"header": "true", "inferSchema": "true"})
    ours = xs.store()
    assert os.path.basename(xs.md_path) == os.path.basename(fixture.md_dir)
    assert ours.schema_json == fixture.schema_json
    key = lambda r: r["obj_name"]  # noqa: E731
    for mine, theirs in zip(sorted(ours.rows, key=key), sorted(fixture.rows, key=key)):
        assert mine.keys() == theirs.keys()
        assert mine == theirs  # every cell, ValueList order included
    assert len(ours.rows) == len(fixture.rows)


@pytest.mark.parametrize("fmt", ["json", "orc"])
def test_spark_json_orc_build_equals_xskipper_cells(spark, tmp_path, fmt):
    """The JSON and ORC copies of testID 15's dataset index to xskipper's cells (rows by file stem)."""
    fixture = MetadataStore(fixture_dir(4, 15))
    dataset = local_path(fixture.table_identifier).rsplit("/", 1)[0] + "/" + fmt
    xs = Xskipper(spark, dataset, str(tmp_path / "md"))
    xs.index_builder().add_bloom_filter_index("address").add_min_max_index("temp").build(format=fmt)
    ours = xs.store()
    assert ours.schema_json == fixture.schema_json.replace(fixture.table_identifier, xs.table_identifier)
    stem = lambda r: os.path.basename(split_file_id(r["obj_name"])[0]).split(".")[0]  # noqa: E731
    theirs = {stem(r): r for r in fixture.rows}
    assert {stem(r): (r["address_bloomfilter_7"], r["temp_minmax_4"]) for r in ours.rows} == \
        {k: (r["address_bloomfilter_7"], r["temp_minmax_4"]) for k, r in theirs.items()}


def test_spark_reads_our_store(spark, tmp_path):
    """Spark's own parquet reader reads what we wrote (without xskipper's UDT class the Bloom
    column falls back to binary)."""
    root = tmp_path / "data"
    for day, temps in [("2024-01-01", [1.5, 2.5]), ("2024-01-02", [7.0, None])]:
        os.makedirs(root / f"dt={day}")
        pc.write_table({"temp": temps, "city": ["a", None], "n": [1, 2]}, str(root / f"dt={day}" / "f.parquet"))
    xs = Xskipper(None, str(root), str(tmp_path / "md"))
    xs.index_builder().add_min_max_index("temp").add_value_list_index("city").add_bloom_filter_index("n").build()
    df = spark.read.parquet(xs.md_path)
    assert df.columns == ["obj_name", "virtual_dt", "temp_minmax_4", "city_valuelist_4", "n_bloomfilter_1"]
    got = {r["obj_name"]: r for r in df.collect()}
    for row in xs.store().rows:
        s = got[row["obj_name"]]
        assert s["virtual_dt"] == row["virtual_dt"]
        assert s["temp_minmax_4"].asDict() == row["temp_minmax_4"]
        assert s["city_valuelist_4"] == row["city_valuelist_4"]
        assert bytes(s["n_bloomfilter_1"]) == row["n_bloomfilter_1"]
    # without xskipper's UDT class on the classpath Spark falls back to the Parquet schema;
    # a store without a Bloom index keeps its Spark schema JSON, field metadata included
    plain = Xskipper(None, str(root), str(tmp_path / "md2"))
    plain.index_builder().add_min_max_index("temp").build()
    meta = json.loads(spark.read.parquet(plain.md_path).schema.json())
    assert meta["fields"][0]["metadata"] == {"tableIdentifier": plain.table_identifier, "version": 4}
    assert meta["fields"][2]["metadata"] == {"index": {"cols": ["temp"], "name": "minmax"}}


def test_pqcore_skips_with_the_index(pqcore_spark, tmp_path):
    """End to end: fewer files read, the same rows as without the index."""
    from spark_adapter.core.skipping import required_files, skipping_report

    spark = pqcore_spark
    root = tmp_path / "events"
    for i in range(6):
        day = f"2024-01-0{1 + i % 2}"
        os.makedirs(root / f"day={day}", exist_ok=True)
        pc.write_table({"id": list(range(i * 10, i * 10 + 10)), "city": [f"c{i}"] * 9 + [None]},
                       str(root / f"day={day}" / f"part-{i}.parquet"))
    base = str(tmp_path / "md")
    Xskipper(None, str(root), base).index_builder().add_min_max_index("id").add_value_list_index("city").build()
    filters = [[["id", ">=", 25], ["id", "<", 41]], [["city", "==", "c5"]]]

    def read(with_index, flt=filters):
        # one task per file, so the partition count is the number of files read
        r = spark.read.format("pqcore").option("filters", json.dumps(flt)).option("minPartitions", "100")
        if with_index:
            r = r.option("skipping.md_base", base)
        return r.load(str(root))

    plain, skipping = read(False), read(True)
    rows = sorted(map(tuple, plain.collect()))
    assert rows and sorted(map(tuple, skipping.collect())) == rows
    assert skipping.rdd.getNumPartitions() == 4  # part-2, part-3, part-4 (ids), part-5 (city)
    pred = ((c("id") >= 25) & (c("id") < 41)) | (c("city") == "c5")
    assert skipping_report(str(root), base, pred) == {"total": 6, "skipped": 2, "read": 4, "not_indexed": 0}
    # the helper's file list for any reader
    files = required_files(str(root), base, pred)
    assert sorted(os.path.basename(f) for f in files) == ["part-2.parquet", "part-3.parquet", "part-4.parquet",
                                                         "part-5.parquet"]
    assert spark.read.parquet(*files).filter("(id >= 25 AND id < 41) OR city = 'c5'").count() == len(rows)
    # The reader itself prunes by footer statistics too, so prove the index is what
    # decides here: a file rewritten behind the index's back (same path and mtime, so
    # the index still vouches for its old contents) is skipped only with the index.
    victim = root / "day=2024-01-01" / "part-0.parquet"
    stat = os.stat(victim)
    pc.write_table({"id": [30] * 10, "city": ["c0"] * 10}, str(victim))
    os.utime(victim, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    point = [[["id", "==", 30]]]
    assert read(False, point).count() == 11 and read(True, point).count() == 1


def test_version_tests_config_is_read():
    assert any(t["testId"] == 37 for t in version_tests())


def test_pqcore_skipping_that_would_do_nothing_is_an_error(pqcore_spark, tmp_path):
    """Issue 30: ``skipping.md_base`` naming no index, or a filter column the table lacks,
    fails the query instead of reading every file unnoticed (as ``required_files`` does)."""
    spark = pqcore_spark
    root = tmp_path / "t"
    for i in range(3):
        os.makedirs(root, exist_ok=True)
        pc.write_table({"temp": [float(i * 20), float(i * 20 + 5)]}, str(root / f"part-{i}.parquet"))
    base = str(tmp_path / "md")
    Xskipper(None, str(root), base).index_builder().add_min_max_index("temp").build()

    def read(md_base, flt):
        return (spark.read.format("pqcore").option("skipping.md_base", md_base)
                .option("filters", json.dumps(flt)).option("minPartitions", "100").load(str(root)))

    ok = read(base, [["temp", ">", 40]])
    assert ok.count() == 1 and ok.rdd.getNumPartitions() == 1
    with pytest.raises(Exception, match="metadata base .*no-such-md does not exist"):
        read(str(tmp_path / "no-such-md"), [["temp", ">", 40]]).count()
    with pytest.raises(Exception, match="tmep"):
        read(base, [["tmep", ">", 40]]).count()
