"""Index lifecycle on Parquet datasets written by parquet_core: build, refresh, drop, describe, list.

Expected skip sets follow from the data each test writes.
"""

from __future__ import annotations

import os
import shutil

import pytest

import parquet_core as pc
from parquet_core_integrations.xskipper import MetadataStore, Xskipper, XskipperIndexError, list_indexes
from parquet_core_integrations.xskipper.names import split_file_id
from tests._support.xskipper import fixture_dir, local_path

c = pc.col


def _write(path, temps, cities):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pc.write_table({"temp": temps, "city": cities}, path)


@pytest.fixture
def dataset(tmp_path):
    root = tmp_path / "data"
    _write(str(root / "dt=2024-01-01" / "a.parquet"), [1.0, 2.0, None], ["x", "y", None])
    _write(str(root / "dt=2024-01-02" / "b.parquet"), [10.0, 20.0], ["z", "z"])
    _write(str(root / "dt=2024-01-02" / "c.parquet"), [None, None], [None, None])
    (root / "_SUCCESS").write_text("")
    return str(root)


def _names(xs, pred, **kw):
    return sorted(os.path.basename(p) for p in xs.required_files(pred, **kw))


def test_build_and_skip(dataset, tmp_path):
    progress = []
    xs = Xskipper(None, dataset + "/", str(tmp_path / "md"), progress=lambda d, t: progress.append((d, t)))
    assert not xs.is_indexed()
    res = xs.index_builder().add_min_max_index("TEMP").add_value_list_index("city") \
        .add_bloom_filter_index("city", fpp=0.05, ndv=1000).build()
    assert res == {"status": "SUCCESS", "new_entries_added": 3, "old_entries_removed": 0}
    assert progress == [(1, 3), (2, 3), (3, 3)]
    assert xs.is_indexed()
    store = xs.store()
    assert [f["name"] for f in store.fields] == ["obj_name", "virtual_dt", "temp_minmax_4", "city_valuelist_4",
                                                 "city_bloomfilter_4"]
    assert store.indexes[2].params == {"io.xskipper.index.bloom.ndv": "1000", "io.xskipper.index.bloom.fpp": "0.05"}
    assert _names(xs, c("temp") > 5) == ["b.parquet"]
    assert _names(xs, c("city") == "y") == ["a.parquet"]
    assert _names(xs, c("city").is_not_null()) == ["a.parquet", "b.parquet"]
    assert _names(xs, c("dt") == "2024-01-02") == ["b.parquet", "c.parquet"]
    assert _names(xs, (c("temp") < 0) | (c("city") == "z")) == ["b.parquet"]
    assert _names(xs, ~(c("city") == "z")) == ["a.parquet"]
    with pytest.raises(XskipperIndexError, match="Already Exists"):
        xs.index_builder().add_min_max_index("temp").build()


def test_bad_indexes_are_refused(dataset, tmp_path):
    xs = Xskipper(None, dataset, str(tmp_path / "md"))
    with pytest.raises(XskipperIndexError, match="not in the dataset"):
        xs.index_builder().add_min_max_index("nope").build()
    with pytest.raises(XskipperIndexError, match="partition column"):
        xs.index_builder().add_min_max_index("dt").build()
    with pytest.raises(XskipperIndexError, match="cannot be built"):
        xs.index_builder().add_bloom_filter_index("temp").build()
    with pytest.raises(XskipperIndexError, match="duplicate"):
        xs.index_builder().add_min_max_index("temp").add_min_max_index("Temp")
    with pytest.raises(XskipperIndexError, match="needs a SparkSession"):
        xs.index_builder().add_min_max_index("temp").build(format="csv")
    assert not xs.is_indexed()


def test_refresh_new_changed_deleted_and_duplicates(dataset, tmp_path):
    xs = Xskipper(None, dataset, str(tmp_path / "md"))
    xs.index_builder().add_min_max_index("temp").build()
    before = xs.store()
    # duplicate rows (as left by an interrupted rewrite): copy the metadata file
    shutil.copy(before.files[0], before.files[0] + "_duplicate")
    assert len(xs.store().rows) == 6
    os.remove(os.path.join(dataset, "dt=2024-01-02", "c.parquet"))
    b = os.path.join(dataset, "dt=2024-01-02", "b.parquet")
    _write(b, [100.0], ["q"])
    os.utime(b, ns=(os.stat(b).st_atime_ns, os.stat(b).st_mtime_ns + 5_000_000))
    _write(os.path.join(dataset, "dt=2024-01-03", "d.parquet"), [7.0], ["w"])
    assert xs.describe_index()["new_or_modified_objects"] == 2
    res = xs.refresh_index()
    assert res == {"status": "SUCCESS", "new_entries_added": 2, "old_entries_removed": 2}
    store = xs.store()
    assert len(store.files) == 1 and len(store.rows) == 3
    cells = {os.path.basename(split_file_id(r["obj_name"])[0]): r["temp_minmax_4"] for r in store.rows}
    assert cells == {"a.parquet": {"min": 1.0, "max": 2.0}, "b.parquet": {"min": 100.0, "max": 100.0},
                     "d.parquet": {"min": 7.0, "max": 7.0}}
    assert xs.describe_index()["up_to_date"] is True
    # a file changed after indexing is read whatever the index says
    _write(os.path.join(dataset, "dt=2024-01-03", "d.parquet"), [1000.0], ["w"])
    d = os.path.join(dataset, "dt=2024-01-03", "d.parquet")
    os.utime(d, ns=(os.stat(d).st_atime_ns, os.stat(d).st_mtime_ns + 7_000_000))
    assert _names(xs, c("temp") > 500) == ["d.parquet"]


def test_drop_and_list(dataset, tmp_path):
    base = str(tmp_path / "md")
    xs = Xskipper(None, dataset, base)
    xs.index_builder().add_value_list_index("city").build()
    os.makedirs(os.path.join(base, "not-an-index"))
    listed = list_indexes(base)
    assert [(d["dataset"], d["indexes"]) for d in listed] == [(xs.table_identifier, [("valuelist", ["city"])])]
    assert Xskipper.list_indexes(base) == listed
    xs.drop_index()
    assert not xs.is_indexed() and list_indexes(base) == []
    with pytest.raises(XskipperIndexError, match="not indexed"):
        xs.drop_index()


def _upgrade_cases():
    from tests._support.xskipper import version_tests

    ids = sorted({t["testId"] for t in version_tests() if fixture_dir(4, t["testId"])})
    return [pytest.param(v, t, id=f"v{v}-test{t}") for t in ids for v in (1, 2, 3) if fixture_dir(v, t)]


@pytest.mark.parametrize("version,test_id", _upgrade_cases())
def test_refresh_upgrades_xskipper_stores_to_v4(xskipper_root, stored_prefix, tmp_path, version, test_id):
    """xskipper's v1-v3 stores, refreshed, equal the v4 store xskipper wrote for the same test
    (renamed columns, current Bloom classes and params, virtual_* partition columns).

    The dataset must sit at the path and modification times the store names,
    so the CSV files are copied to /tmp/xskipper_version_tests/... with those
    times; nothing changed, so nothing is re-read (no Spark needed).
    """
    old = MetadataStore(fixture_dir(version, test_id))
    v4 = MetadataStore(fixture_dir(4, test_id))
    root = old.table_identifier
    shutil.copytree(local_path(root), root)
    for fid in old.file_ids():
        path, mtime = split_file_id(fid)
        os.utime(path, ns=(mtime * 1_000_000, mtime * 1_000_000))
    xs = Xskipper(None, root, str(tmp_path / "md"))
    shutil.copytree(old.md_dir, xs.md_path)
    res = xs.refresh_index(format="csv")
    assert res == {"status": "SUCCESS", "new_entries_added": 0, "old_entries_removed": 0}
    up = xs.store()
    assert up.version == 4 and up.schema_json == v4.schema_json
    theirs = {split_file_id(r["obj_name"])[0]: r for r in v4.rows}
    assert len(up.rows) == len(theirs)
    for row in up.rows:
        other = dict(theirs[split_file_id(row["obj_name"])[0]])
        other["obj_name"] = row["obj_name"]  # the modification times differ per version
        assert row == other


def test_corrupt_directory_fails_clearly(tmp_path):
    from parquet_core_integrations.xskipper import XskipperFormatError

    d = tmp_path / "md"
    d.mkdir()
    with pytest.raises(XskipperFormatError, match="no metadata file"):
        MetadataStore(str(d))
    pc.write_table({"obj_name": ["x"]}, str(d / "part-0.parquet"))
    with pytest.raises(XskipperFormatError, match="org.apache.spark.sql.parquet.row.metadata"):
        MetadataStore(str(d))
    (d / "part-0.parquet").write_bytes(b"garbage")
    with pytest.raises(pc.ParquetError):
        MetadataStore(str(d))


def test_file_without_the_column_is_all_null(tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    pc.write_table({"temp": [1.0, 2.0], "city": ["a", "b"]}, str(root / "a.parquet"))
    pc.write_table({"TEMP": [5.0]}, str(root / "b.parquet"))  # other case, no city
    xs = Xskipper(None, str(root), str(tmp_path / "md"))
    xs.index_builder().add_min_max_index("temp").add_value_list_index("city").build()
    cells = {os.path.basename(split_file_id(r["obj_name"])[0]): (r["temp_minmax_4"], r["city_valuelist_4"])
             for r in xs.store().rows}
    assert cells == {"a.parquet": ({"min": 1.0, "max": 2.0}, ["a", "b"]),
                     "b.parquet": ({"min": 5.0, "max": 5.0}, [])}
    assert _names(xs, c("city").is_not_null()) == ["a.parquet"]


def test_explicit_location(dataset, tmp_path):
    md = str(tmp_path / "exact")
    xs = Xskipper(None, dataset, md, md_location_type="EXPLICIT_LOCATION")
    xs.index_builder().add_min_max_index("temp").build()
    assert xs.md_path == md and MetadataStore(md).table_identifier == xs.table_identifier
    with pytest.raises(ValueError, match="md_location_type"):
        Xskipper(None, dataset, md, md_location_type="HIVE_TABLE_NAME")


def test_nested_struct_fields(xskipper_root, tmp_path):
    """xskipper's employees_nested dataset (written by Spark): indexes on struct leaves."""
    import glob

    root = os.path.join(xskipper_root, "input_datasets", "employees_nested", "parquet")
    xs = Xskipper(None, root, str(tmp_path / "md"))
    xs.index_builder().add_min_max_index("items.serial").add_value_list_index("items.complex.min").build()
    store = xs.store()
    assert [i.column for i in store.indexes] == ["items$#$serial_minmax_14", "items$#$complex$#$min_valuelist_21"]
    want = {}
    for path in glob.glob(os.path.join(root, "*.parquet")):  # expected from the files' rows
        items = [r["items"] or {} for r in pc.read_table(path).to_pylist()]
        serials = [i.get("serial") for i in items if i.get("serial") is not None]
        mins = {(i.get("complex") or {}).get("min") for i in items} - {None}
        want[os.path.basename(path)] = ({"min": min(serials), "max": max(serials)}, mins)
    got = {os.path.basename(split_file_id(r["obj_name"])[0]):
           (r["items$#$serial_minmax_14"], set(r["items$#$complex$#$min_valuelist_21"])) for r in store.rows}
    assert got == want
    lo = min(w[0]["min"] for w in want.values())
    assert len(xs.required_files(c("items.serial") < lo)) == 0
