"""``format("pqmeta")``: metadata as DataFrames, checked against pyarrow's metadata and our own API."""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc

pytestmark = pytest.mark.spark
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("meta") / "t"
    root.mkdir()
    rng = np.random.default_rng(3)
    for i in range(2):
        n = 3000 + i * 1000
        pc.write_table({"id": np.arange(n) + i * 10_000, "name": [f"n{k % 50}" for k in range(n)],
                        "x": rng.standard_normal(n)}, root / f"part-{i}.parquet", row_group_size=1500,
                       data_page_size=2048, write_page_checksum=True, key_value_metadata={"origin": f"test-{i}"},
                       bloom_filter_options={"id": True})
    (root / "_SUCCESS").write_text("")
    return root


def _load(spark, root, level, **opts):
    r = spark.read.format("pqmeta").option("level", level)
    for k, v in opts.items():
        r = r.option(k, v)
    return [row.asDict(recursive=True) for row in r.load(str(root)).collect()]


def test_file_rowgroup_and_schema_levels(pqcore_spark, table_dir):
    spark = pqcore_spark
    files = sorted(str(p) for p in table_dir.glob("*.parquet"))
    rows = sorted(_load(spark, table_dir, "file"), key=lambda r: r["path"])
    assert [r["path"] for r in rows] == files
    for r, f in zip(rows, files):
        md = pq.read_metadata(f)
        assert (r["num_rows"], r["num_row_groups"], r["num_columns"], r["created_by"]) == \
            (md.num_rows, md.num_row_groups, md.num_columns, md.created_by)
        assert dict(r["key_value_metadata"])["origin"].startswith("test-")
    groups = _load(spark, table_dir, "rowgroup")
    assert len(groups) == sum(pq.read_metadata(f).num_row_groups for f in files)
    for g in groups:
        rg = pq.read_metadata(g["path"]).row_group(g["row_group"])
        assert (g["num_rows"], g["total_byte_size"]) == (rg.num_rows, rg.total_byte_size)
    schema = [r for r in _load(spark, table_dir, "schema") if r["path"] == files[0] and r["column_path"]]
    arrow_schema = pq.ParquetFile(files[0]).schema
    assert [(r["column_path"], r["physical_type"]) for r in schema] == \
        [(arrow_schema.column(i).path, arrow_schema.column(i).physical_type) for i in range(3)]
    assert [r["logical_type"] for r in schema] == [None, "STRING", None]


def test_column_page_index_and_bloom_levels(pqcore_spark, table_dir):
    spark = pqcore_spark
    cols = _load(spark, table_dir, "column")
    for c in cols:
        meta = pq.read_metadata(c["path"]).row_group(c["row_group"]).column(c["column"])
        assert (c["column_path"], c["codec"], c["num_values"], c["total_compressed_size"]) == \
            (meta.path_in_schema, meta.compression, meta.num_values, meta.total_compressed_size)
        assert c["null_count"] == meta.statistics.null_count
        assert c["min"] == str(meta.statistics.min) and c["max"] == str(meta.statistics.max)
        assert c["has_bloom_filter"] == (c["column_path"] == "id") and c["has_offset_index"]
    pages = _load(spark, table_dir, "page")
    index = _load(spark, table_dir, "index")
    data_pages = [p for p in pages if p["page_type"] in ("DATA_PAGE", "DATA_PAGE_V2")]
    assert len(data_pages) == len(index) > 10
    assert all(p["crc_present"] and p["crc_valid"] for p in pages)
    by_key = {(p["path"], p["row_group"], p["column"], p["offset"]) for p in data_pages}
    assert {(i["path"], i["row_group"], i["column"], i["offset"]) for i in index} == by_key
    pf = pc.ParquetFile(index[0]["path"])
    first = [i for i in index if i["path"] == index[0]["path"] and i["row_group"] == 0 and i["column"] == 0]
    assert [i["min"] for i in sorted(first, key=lambda i: i["page"])] == \
        [str(v) for v in pf.column_index(0, 0).min_values]
    present = _load(spark, table_dir, "bloom", probe="10005")
    assert [b["might_contain"] for b in present if b["path"].endswith("part-1.parquet")
            and b["row_group"] == 0] == [True]
    absent = _load(spark, table_dir, "bloom", probe="-77")
    assert sum(b["might_contain"] for b in absent) <= 1 and len(absent) == len(present) == 5


def test_unknown_level_is_refused(pqcore_spark, table_dir):
    with pytest.raises(Exception, match="unknown level 'pages'"):
        pqcore_spark.read.format("pqmeta").option("level", "pages").load(str(table_dir)).count()
