"""Metadata we write equals xskipper's v4 files, cell for cell and in schema JSON.

The fixtures index the CSV copies of the datasets; we index the Parquet copies
(same rows, written by Spark) with parquet_core, so only the paths differ:
``tableIdentifier`` (…/csv vs …/parquet) and ``obj_name`` (file names and
modification times).  Rows are matched by file stem.  ValueList cells are
compared in order (xskipper stores a Scala hash set's slot order, which we replay).
"""

from __future__ import annotations

import os

import pytest

from parquet_core_integrations.xskipper import MetadataStore, Xskipper
from parquet_core_integrations.xskipper.names import split_file_id
from tests._support.xskipper import fixture_dir, local_path, version_tests

ADD = {"minmax": "add_min_max_index", "valuelist": "add_value_list_index", "bloomfilter": "add_bloom_filter_index"}


def _v4_tests():
    """The v4 fixture tests over datasets with a Parquet copy. The 'empty' dataset exists
    only as CSV; its stores are rebuilt through Spark in tests/spark/test_xskipper_spark.py."""
    seen = set()
    for t in version_tests():
        if fixture_dir(4, t["testId"]) and t["testId"] not in seen and "/empty/" not in t["dataSetPath"]:
            seen.add(t["testId"])
            yield pytest.param(t, id=f"test{t['testId']}")


def _stem(fid: str) -> str:
    return os.path.basename(split_file_id(fid)[0]).split(".")[0]


def _build(test, md_base):
    fixture = MetadataStore(fixture_dir(4, test["testId"]))
    dataset = local_path(fixture.table_identifier).rsplit("/", 1)[0] + "/parquet"
    xs = Xskipper(None, dataset, str(md_base))
    builder = xs.index_builder()
    for idx in fixture.indexes:
        getattr(builder, ADD[idx.name])(idx.cols[0])
    builder.build()
    return fixture, xs.store(), xs


@pytest.mark.parametrize("test", list(_v4_tests()))
def test_we_write_what_xskipper_wrote(xskipper_root, tmp_path, test):
    fixture, ours, xs = _build(test, tmp_path)
    assert ours.version == 4
    assert ours.schema_json == fixture.schema_json.replace(fixture.table_identifier, xs.table_identifier)
    theirs = {_stem(r["obj_name"]): r for r in fixture.rows}
    mine = {_stem(r["obj_name"]): r for r in ours.rows}
    assert set(mine) == set(theirs)
    for stem, row in mine.items():
        for f in fixture.fields[1:]:
            a, b = row[f["name"]], theirs[stem][f["name"]]
            assert a == b, (stem, f["name"])  # ValueList order included; Bloom cells: the Java bytes
    # the file is named and compressed as Spark names it
    (name,) = os.listdir(xs.md_path)
    assert name.startswith("part-00000-") and name.endswith("-c000.snappy.parquet")


def test_footer_matches_spark_layout(xskipper_root, tmp_path):
    import parquet_core as pc

    test = next(t for t in version_tests() if t["testId"] == 15)
    fixture, ours, xs = _build(test, tmp_path)
    mine = pc.ParquetFile(ours.files[0])
    theirs = pc.ParquetFile(fixture.files[0])
    assert mine.metadata.metadata[b"org.apache.spark.version"] == theirs.metadata.metadata[b"org.apache.spark.version"]
    assert str(mine.schema_arrow) == str(theirs.schema_arrow)
    rg = mine.metadata.row_group(0)
    assert {rg.column(i).compression for i in range(rg.num_columns)} == {"SNAPPY"}
    assert {rg.column(i).path_in_schema for i in range(rg.num_columns)} == {
        "obj_name", "address_bloomfilter_7", "temp_minmax_4.min", "temp_minmax_4.max"}
