"""``format("pqmeta")``: metadata as DataFrames, checked against pyarrow's metadata and our own API."""

from __future__ import annotations

import os

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
        assert r["file_size"] == os.path.getsize(f) and 0 < r["footer_size"] < r["file_size"]
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


def test_page_level_statistics_from_pyarrows_page_headers(pqcore_spark, tmp_path):
    """pyarrow without a page index writes statistics into each data page header."""
    pa = pytest.importorskip("pyarrow")
    values = [None if i % 7 == 0 else (i * 37) % 500 for i in range(3000)]
    pq.write_table(pa.table({"v": pa.array(values, pa.int64())}), tmp_path / "p.parquet",
                   data_page_size=1024, use_dictionary=False, write_page_index=False)
    pages = sorted((p for p in _load(pqcore_spark, tmp_path, "page") if p["page_type"] == "DATA_PAGE"),
                   key=lambda p: p["page"])
    assert len(pages) >= 3
    start = 0
    for p in pages:
        rows = values[start:start + p["num_values"]]
        start += p["num_values"]
        present = [v for v in rows if v is not None]
        assert p["has_statistics"]
        assert (p["min"], p["max"], p["null_count"]) == (str(min(present)), str(max(present)),
                                                         len(rows) - len(present))
    assert start == len(values)


def test_unknown_level_is_refused(pqcore_spark, table_dir):
    with pytest.raises(Exception, match="unknown level 'pages'"):
        pqcore_spark.read.format("pqmeta").option("level", "pages").load(str(table_dir)).count()


CORPUS = ["data_index_bloom_encoding_stats.parquet", "alltypes_tiny_pages.parquet", "nested_structs.rust.parquet",
          "binary_truncated_min_max.parquet", "nulls.snappy.parquet", "fixed_length_decimal.parquet"]


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory, corpus):
    import shutil

    d = tmp_path_factory.mktemp("meta_corpus")
    for name in CORPUS:
        shutil.copy(corpus / name, d / name)
    return d


def _pa_stat(v):
    return None if v is None else str(v.decode() if isinstance(v, bytes) else v)


def test_corpus_metadata_matches_pyarrow_and_parquet_core(pqcore_spark, corpus_dir):
    """Files written by other implementations: every field pyarrow also reports, and our metadata API."""
    spark = pqcore_spark
    files = {r["path"]: r for r in _load(spark, corpus_dir, "file")}
    assert len(files) == len(CORPUS) and all(r["error"] is None for r in files.values())
    for path, r in files.items():
        md = pq.read_metadata(path)
        assert (r["num_rows"], r["num_row_groups"], r["num_columns"], r["created_by"], r["footer_size"]) == \
            (md.num_rows, md.num_row_groups, md.num_columns, md.created_by, md.serialized_size)
        assert dict(r["key_value_metadata"] or []) == {k.decode(): v.decode() for k, v in (md.metadata or {}).items()}
    for r in _load(spark, corpus_dir, "schema"):
        if r["physical_type"] is None:
            continue
        col = pq.read_metadata(r["path"]).schema.column(
            [c.path for c in pq.read_metadata(r["path"]).schema].index(r["column_path"]))
        assert (r["max_definition_level"], r["max_repetition_level"], r["physical_type"]) == \
            (col.max_definition_level, col.max_repetition_level, col.physical_type)
    cols = _load(spark, corpus_dir, "column")
    assert len(cols) == sum(pq.read_metadata(p).num_row_groups * pq.read_metadata(p).num_columns for p in files)
    for c in cols:
        m = pq.read_metadata(c["path"]).row_group(c["row_group"]).column(c["column"])
        assert (c["column_path"], c["physical_type"], c["codec"], set(c["encodings"]), c["num_values"],
                c["total_compressed_size"], c["total_uncompressed_size"], c["data_page_offset"],
                c["dictionary_page_offset"], c["has_column_index"], c["has_offset_index"],
                c["has_bloom_filter"]) == \
            (m.path_in_schema, m.physical_type, m.compression, set(m.encodings), m.num_values,
             m.total_compressed_size, m.total_uncompressed_size, m.data_page_offset,
             m.dictionary_page_offset, m.has_column_index, m.has_offset_index, m.bloom_filter_offset is not None)
        st = m.statistics
        if st is not None and st.has_null_count:
            assert c["null_count"] == st.null_count
        ours = pc.read_metadata(c["path"]).row_group(c["row_group"]).column(c["column"])
        assert c["encodings"] == list(ours.encodings) and c["codec"] == ours.compression
        if ours.statistics is not None:
            assert (c["min"], c["max"], c["distinct_count"]) == (
                None if ours.statistics.min is None else str(ours.statistics.min),
                None if ours.statistics.max is None else str(ours.statistics.max), ours.statistics.distinct_count)
    # strings as pyarrow decodes them, where its min/max are the same typed values
    text = [c for c in cols if c["path"].endswith("data_index_bloom_encoding_stats.parquet")]
    st = pq.read_metadata(text[0]["path"]).row_group(0).column(0).statistics
    assert (text[0]["min"], text[0]["max"]) == (_pa_stat(st.min), _pa_stat(st.max))
    # page index entries against parquet_core's API, page headers against the offset index
    index = [i for i in _load(spark, corpus_dir, "index") if i["path"].endswith("alltypes_tiny_pages.parquet")]
    pages = [p for p in _load(spark, corpus_dir, "page") if p["path"].endswith("alltypes_tiny_pages.parquet")
             and p["page_type"] in ("DATA_PAGE", "DATA_PAGE_V2")]
    assert len(index) == len(pages) > 100
    pf = pc.ParquetFile(index[0]["path"])
    for i in index[:200]:
        loc = pf.offset_index(i["row_group"], i["column"]).page_locations[i["page"]]
        assert (i["offset"], i["compressed_page_size"], i["first_row_index"]) == \
            (loc.offset, loc.compressed_page_size, loc.first_row_index)
    assert {(p["row_group"], p["column"], p["offset"]) for p in pages} == \
        {(i["row_group"], i["column"], i["offset"]) for i in index}


def test_unreadable_files_are_reported_not_fatal(pqcore_spark, table_dir, tmp_path, corpus):
    import os
    import shutil

    spark = pqcore_spark
    good = sorted(table_dir.glob("*.parquet"))[0]
    shutil.copy(good, tmp_path / "good.parquet")
    data = good.read_bytes()
    (tmp_path / "truncated.parquet").write_bytes(data[: len(data) // 2])
    encrypted = ["encrypt_columns_and_footer.parquet.encrypted", "encrypt_columns_plaintext_footer.parquet.encrypted"]
    for name in encrypted:
        shutil.copy(corpus / name, tmp_path / name)
    # the corpus names its encrypted files *.parquet.encrypted: chosen with pathGlobFilter
    rows = {os.path.basename(r["path"]): r for r in _load(spark, tmp_path, "file", pathGlobFilter="*.parquet*")}
    assert rows["good.parquet"]["error"] is None and rows["good.parquet"]["num_rows"] == 3000
    assert rows["truncated.parquet"]["num_rows"] is None
    assert rows["truncated.parquet"]["error"].startswith("ParquetFormatError")
    assert "encrypted footer" in rows[encrypted[0]]["error"]
    assert rows[encrypted[1]]["error"] is None        # plaintext footer: the file level is readable
    pages = [p for p in _load(spark, tmp_path, "page", pathGlobFilter="*.parquet*") if p["path"].endswith(encrypted[1])]
    bad = [p for p in pages if p["error"]]
    assert bad and all("encrypted" in p["error"] and p["page"] is None for p in bad)
    assert any(p["error"] is None and p["page_type"] for p in pages)   # the plaintext columns
    with pytest.raises(Exception, match="Parquet(Format|Encryption)Error"):   # the first bad file
        spark.read.format("pqmeta").option("mode", "failfast").load(str(tmp_path)).collect()


def test_new_statistics_columns(pqcore_spark, corpus):
    """Column order names and geospatial statistics reach the DataFrames."""
    path = str(corpus / "geospatial" / "geospatial-with-nan.parquet")
    rows = _load(pqcore_spark, path, "column")
    geo = [r for r in rows if r["column_path"] == "geometry"][0]
    assert geo["geospatial_types"] == [3001, 3002]
    assert geo["geo_bbox"]["xmin"] == 10.0 and geo["geo_bbox"]["mmax"] == 160.0
    assert geo["column_order"] == "TYPE_DEFINED"


@pytest.fixture(scope="module")
def littered_lake(tmp_path_factory):
    """60 small Parquet files in nested folders, with the litter a lake collects."""
    root = tmp_path_factory.mktemp("lake") / "lake"
    files = []
    for i in range(60):
        d = root / f"day={i % 3}"
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"part-{i:03d}.parquet"
        pc.write_table({"id": np.arange(i + 1)}, path)
        files.append(str(path))
        (d / f".part-{i:03d}.parquet.crc").write_bytes(b"crc")
    (root / "_SUCCESS").write_text("")
    (root / "day=0" / "notes.csv").write_text("a,b\n1,2\n")
    (root / "README.txt").write_text("not parquet")
    (root / "_temporary").mkdir()
    (root / "_temporary" / "part-x.parquet").write_bytes(b"partial")
    return root, sorted(files)


def test_pqmeta_reads_parquet_files_only_by_default(pqcore_spark, littered_lake):
    root, files = littered_lake
    rows = _load(pqcore_spark, root, "file")
    assert sorted(r["path"] for r in rows) == files
    assert all(r["error"] is None for r in rows)
    assert sorted(r["num_rows"] for r in rows) == list(range(1, 61))
    # a path given by name is read whatever its name; pathGlobFilter chooses any files
    csv = str(root / "day=0" / "notes.csv")
    assert [r["error"] is not None for r in _load(pqcore_spark, csv, "file")] == [True]
    everything = _load(pqcore_spark, root, "file", pathGlobFilter="*")
    assert sorted(r["path"] for r in everything) == sorted(files + [csv, str(root / "README.txt")])
    assert sum(r["error"] is not None for r in everything) == 2


def test_pqmeta_packs_many_files_per_task(pqcore_spark, littered_lake):
    root, files = littered_lake
    df = pqcore_spark.read.format("pqmeta").option("level", "column").load(str(root))
    assert df.rdd.getNumPartitions() == 2            # 60 files, at least minPartitions (2) tasks
    assert df.count() == 60
    df = pqcore_spark.read.format("pqmeta").option("level", "file").option("filesPerTask", 7).load(str(root))
    assert df.rdd.getNumPartitions() == 9
    assert sorted(r.path for r in df.select("path").collect()) == files


def test_pack_files_bounds():
    from spark_adapter.pqmeta.datasource import pack_files

    files = [(f"f{i}", 10) for i in range(10)]
    assert [len(t) for t in pack_files(files, 4, None, 1)] == [4, 4, 2]
    assert [len(t) for t in pack_files(files, 100, None, 3)] == [4, 4, 2]
    assert [len(t) for t in pack_files(files, 100, 25, 1)] == [2, 2, 2, 2, 2]
    assert [len(t) for t in pack_files(files[:1], 100, 1, 8)] == [1]
    assert pack_files([], 5, None, 2) == []


def test_footer_levels_read_only_the_footer(tmp_path):
    """File, schema, rowgroup and column rows come from positional reads of the file's tail
    (one read of the last 64 KiB, or the footer if longer: the engine's footer read) and
    the 4-byte magic, nothing else of the file."""
    import io

    from parquet_core.file.footer import FOOTER_READ_SIZE
    from spark_adapter.pqmeta.rows import level_rows

    path = tmp_path / "big.parquet"
    pc.write_table({"id": np.arange(300_000), "s": [f"v{i % 97}" for i in range(300_000)]}, path,
                   row_group_size=100_000)
    footer = pc.ParquetFile(str(path)).metadata.footer_size
    reads = []

    class Counting(io.FileIO):
        def read(self, n=-1):
            at = self.tell()
            data = super().read(n)
            reads.append((at, len(data)))
            return data

    size = os.path.getsize(path)
    for level in ("file", "schema", "rowgroup", "column"):
        reads.clear()
        rows = level_rows(level, str(path), {}, opener=lambda p: Counting(p, "rb"))
        assert rows and all(r.get("error") is None for r in rows)
        tail = max(footer + 8, FOOTER_READ_SIZE)
        assert sum(n for _, n in reads) <= tail + 4, (level, reads)
        assert all(at == 0 or at >= size - tail for at, _ in reads), (level, reads)
