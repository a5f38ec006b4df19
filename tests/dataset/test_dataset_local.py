"""Local-disk dataset behaviour: schema unification, partitioning options, other writers'
folders (duckdb, polars), write safety, fsspec as an optional extra, bytes fetched from S3."""

from __future__ import annotations

import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import parquet_core as pc

from ._helpers import assert_same, oracle


def test_missing_columns_and_widening(tmp_path):
    d = tmp_path / "ds"
    d.mkdir()
    pq.write_table(pa.table({"n": pa.array([1, 2], pa.int32()), "f": pa.array([1.5, 2.5], pa.float32())}),
                   d / "a.parquet")
    pq.write_table(pa.table({"n": pa.array([3], pa.int64()), "f": pa.array([0.1], pa.float64()),
                             "extra": ["z"]}), d / "b.parquet")
    t = pc.read_table(str(d))
    assert [str(f.type) for f in t.schema] == ["int64", "float64", "string"]
    got = t.to_arrow()
    assert got.column("n").to_pylist() == [1, 2, 3]
    assert got.column("f").to_pylist() == [1.5, 2.5, 0.1]
    assert got.column("extra").to_pylist() == [None, None, "z"]
    # pyarrow agrees once told the unified schema
    theirs = ds.dataset(str(d), schema=got.schema).to_table()
    assert got.equals(theirs)
    # a filter on a column a file lacks: its rows are null there
    assert pc.read_table(str(d), filters=[("extra", "==", "z")]).to_pylist() == [{"n": 3, "f": 0.1, "extra": "z"}]
    assert pc.read_table(str(d), filters=[("extra", "is_null" if False else "!=", "q")]).num_rows == 1


def test_conflicting_types_name_both_files(tmp_path):
    d = tmp_path / "ds"
    d.mkdir()
    pq.write_table(pa.table({"v": [1, 2]}), d / "a.parquet")
    pq.write_table(pa.table({"v": ["x"]}), d / "b.parquet")
    with pytest.raises(pc.ParquetSchemaError) as info:
        pc.read_table(str(d))
    assert "a.parquet" in str(info.value) and "b.parquet" in str(info.value)
    with pytest.raises(pc.ParquetSchemaError):
        pc.ParquetDataset(str(d)).schema
    # schema= overrides inference; a file that cannot be read as it still fails, naming it
    with pytest.raises(pc.ParquetSchemaError, match="b.parquet"):
        pc.read_table(str(d), schema=pc.schema([pc.field("v", pc.int64())]))
    t = pc.read_table(str(d / "a.parquet"), schema=pc.schema([pc.field("v", pc.int64()), pc.field("w", pc.string())]))
    assert t.to_pydict() == {"v": [1, 2], "w": [None, None]}


def test_partitioning_options(tmp_path):
    d = tmp_path / "drill"
    for year, month in [(2023, 1), (2024, 2)]:
        (d / str(year) / str(month)).mkdir(parents=True)
        pq.write_table(pa.table({"n": [year * 10 + month]}), d / str(year) / str(month) / "p.parquet")
    t = pc.read_table(str(d), partitioning=["year", "month"])
    theirs = oracle(str(d), partitioning=ds.DirectoryPartitioning.discover(["year", "month"]))
    assert_same(t, theirs)
    assert pc.read_table(str(d), partitioning=None).column_names == ["n"]
    h = tmp_path / "hive"
    pq.write_to_dataset(pa.table({"n": [1, 2, 3], "p": ["1", "2", None]}), str(h), partition_cols=["p"])
    t = pc.read_table(str(h), partitioning=pc.schema([pc.field("p", pc.string())]))
    assert t.schema.field("p").type.name == "string"
    assert sorted(t.to_arrow().column("p").to_pylist(), key=str) == ["1", "2", None]
    inferred = pc.read_table(str(h))
    assert inferred.schema.field("p").type.name == "int32"
    assert_same(inferred, oracle(str(h)))
    assert_same(pc.read_table(str(h), filters=[("p", "<", 2)]), oracle(str(h), ds.field("p") < 2))
    assert_same(pc.read_table(str(h), filters=~(pc.col("p") == 1)), oracle(str(h), ~(ds.field("p") == 1)))


def test_duckdb_partition_by_folder(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    out = tmp_path / "duck"
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT i AS n, i % 3 AS g, 'v' || (i % 4) AS s, i * 0.5 AS x "
                "FROM range(300) r(i)")
    con.execute(f"COPY t TO '{out}' (FORMAT PARQUET, PARTITION_BY (g, s))")
    for filters, expr in [(None, None), ([("g", "==", 1)], ds.field("g") == 1),
                          ([("s", "in", {"v1", "v3"}), ("x", ">", 40.0)],
                           ds.field("s").isin(["v1", "v3"]) & (ds.field("x") > 40.0))]:
        assert_same(pc.read_table(str(out), filters=filters), oracle(str(out), expr))
    # and duckdb itself agrees on the filtered count
    assert pc.read_table(str(out), filters=[("g", "==", 1)]).num_rows == \
        con.execute(f"SELECT count(*) FROM read_parquet('{out}/**/*.parquet', hive_partitioning=true) "
                    "WHERE g = 1").fetchone()[0]


def test_polars_partitioned_folder(tmp_path):
    pl = pytest.importorskip("polars")
    out = tmp_path / "pl"
    df = pl.DataFrame({"n": list(range(60)), "k": ["a", "b", "c"] * 20, "v": [float(i) for i in range(60)]})
    try:
        df.write_parquet(str(out), partition_by=["k"])
    except TypeError:
        pytest.skip("this polars cannot write partitioned folders")
    # polars also stores k in the files (as large_string): pyarrow needs the partition type spelled
    # out; the files' ARROW:schema says large_string, which the read gives, as pyarrow's
    part = ds.partitioning(pa.schema([("k", pa.large_string())]), flavor="hive")
    assert_same(pc.read_table(str(out)), oracle(str(out), partitioning=part).cast(
        pa.schema([("n", pa.int64()), ("k", pa.large_string()), ("v", pa.float64())])))
    assert_same(pc.read_table(str(out), filters=[("k", "!=", "b"), ("v", "<", 30.0)]),
                oracle(str(out), (ds.field("k") != "b") & (ds.field("v") < 30.0), partitioning=part).cast(
                    pa.schema([("n", pa.int64()), ("k", pa.large_string()), ("v", pa.float64())])))
    ours = pc.read_table(str(out)).to_arrow().sort_by("n")
    assert ours.column("n").to_pylist() == pl.read_parquet(str(out), hive_partitioning=True).sort("n")["n"].to_list()


def test_failed_write_leaves_no_file_and_keeps_old_data(tmp_path, monkeypatch):
    root = tmp_path / "ds"
    t = pa.table({"n": list(range(30)), "k": [i % 3 for i in range(30)]})
    pc.write_to_dataset(t, str(root), partition_cols=["k"])
    before = sorted(p for p in root.rglob("*") if p.is_file())
    import parquet_core.dataset.write as w

    real = w.write_table
    calls = []

    def failing(*args, **kwargs):
        calls.append(args[1])
        if len(calls) == 3:
            raise OSError("disk full")
        return real(*args, **kwargs)

    monkeypatch.setattr(w, "write_table", failing)
    with pytest.raises(OSError, match="disk full"):
        pc.write_to_dataset(t, str(root), partition_cols=["k"], existing_data_behavior="delete_matching")
    after = sorted(p for p in root.rglob("*") if p.is_file())
    assert after == before            # the two new files were removed, the old ones never touched
    assert pc.read_table(str(root)).num_rows == 30
    monkeypatch.setattr(w, "write_table", real)
    pc.write_to_dataset(t.slice(0, 6), str(root), partition_cols=["k"], existing_data_behavior="delete_matching")
    assert pc.read_table(str(root)).num_rows == 6


def test_write_options_and_errors(tmp_path):
    t = {"n": [1, 2, 3], "k": ["a", "a", "b"]}
    files = pc.write_to_dataset(t, str(tmp_path / "o"), partition_cols=["k"], compression="gzip",
                                basename_template="part-{i}.parquet")
    assert sorted(os.path.basename(f) for f in files) == ["part-0.parquet", "part-0.parquet"]
    assert pq.read_metadata(files[0]).row_group(0).column(0).compression == "GZIP"
    with pytest.raises(ValueError, match="existing_data_behavior"):
        pc.write_to_dataset(t, str(tmp_path / "x"), existing_data_behavior="append")
    with pytest.raises(ValueError, match=r"\{i\}"):
        pc.write_to_dataset(t, str(tmp_path / "x"), basename_template="fixed.parquet")
    with pytest.raises(ValueError, match="zzz"):
        pc.write_to_dataset(t, str(tmp_path / "x"), partition_cols=["zzz"])
    with pytest.raises(TypeError):
        pc.write_to_dataset(t, str(tmp_path / "x"), no_such_option=1)


def test_folder_errors_and_progress(tmp_path):
    with pytest.raises(FileNotFoundError):
        pc.read_table(str(tmp_path / "nothing"))
    with pytest.raises(IsADirectoryError, match="ParquetDataset"):
        pc.ParquetFile(str(tmp_path))
    root = tmp_path / "p"
    pc.write_to_dataset({"n": list(range(10)), "k": list(range(10))}, str(root), partition_cols=["k"])
    seen = []
    pc.read_table(str(root), progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (10, 10) and len(seen) == 10
    written = []
    pc.write_to_dataset({"n": [1, 2], "k": [1, 2]}, str(tmp_path / "q"), partition_cols=["k"],
                        progress=lambda d, n: written.append(d))
    assert written == [1, 2]


def test_urls_without_fsspec_name_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "fsspec", None)
    with pytest.raises(ImportError, match=r"parquet-core\[fsspec\]") as info:
        pc.read_table("s3://bucket/t")
    assert isinstance(info.value, pc.ParquetError)
    with pytest.raises(ImportError, match=r"parquet-core\[fsspec\]"):
        pc.write_table({"a": [1]}, "memory://x/t.parquet")
    # local paths never need it
    pc.write_table({"a": [1]}, str(tmp_path / "t.parquet"))
    assert pc.read_table(str(tmp_path / "t.parquet")).num_rows == 1
    assert pc.read_table("file://" + str(tmp_path / "t.parquet")).num_rows == 1


def test_one_column_of_ten_fetches_little_from_s3(s3_server):
    s3fs = pytest.importorskip("s3fs")
    from tests._support.s3 import s3_options

    fs = s3fs.S3FileSystem(**s3_options(s3_server))
    rng = np.random.default_rng(1)
    table = pa.table({f"c{i}": rng.normal(size=200_000) for i in range(10)})
    path = "test-bucket/bytes/ten.parquet"
    with fs.open(path, "wb") as f:
        pq.write_table(table, f, compression="none", row_group_size=50_000)
    md = pq.read_metadata(fs.open(path, "rb"))
    column_bytes = sum(md.row_group(i).column(3).total_compressed_size for i in range(md.num_row_groups))
    footer = md.serialized_size + 8
    d = pc.ParquetDataset(path, filesystem=fs)
    got = d.read(columns=["c3"])
    assert got.to_arrow().column("c3").equals(table.column("c3"))
    fetched = d.io_stats.bytes
    assert fetched < 1.3 * column_bytes + footer, (fetched, column_bytes, footer)
    assert d.io_stats.requests <= 1 + 1 + md.num_row_groups   # schema footer, read footer, chunks
    # the same through ParquetFile on the URL: the footer in one request
    opts = s3_options(s3_server)
    with pc.ParquetFile("s3://" + path, storage_options=opts) as pf:
        assert pf._source.stats.requests == 1
        pf.read(["c3"])
        assert pf._source.stats.requests <= 1 + md.num_row_groups   # one ranged GET per chunk, concurrently


def test_cli_reads_folders_and_globs(tmp_path, capsys):
    from parquet_core.cli import main

    root = tmp_path / "c"
    pq.write_to_dataset(pa.table({"n": [1, 2, 3], "k": ["a", "b", "a"]}), str(root), partition_cols=["k"])
    assert main(["schema", str(root)]) == 0
    out = capsys.readouterr().out
    assert "n: int64" in out and "k: string" in out
    assert main(["meta", str(root / "k=a" / "*.parquet")]) == 0
    assert "1 files" in capsys.readouterr().out
    assert main(["head", str(root), "-n", "2"]) == 0
    assert "First 2 rows" in capsys.readouterr().out
    assert main(["head", str(tmp_path / "missing")]) == 1
