"""Datasets we write read back (our reader and pyarrow), updates, indices, GC, delete, concurrency."""

from __future__ import annotations

import datetime as dt
import json
import os

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

import parquet_core_integrations.kartothek as ktk  # noqa: E402
from parquet_core_integrations.kartothek import naming  # noqa: E402
from parquet_core_integrations.kartothek.errors import (  # noqa: E402
    ConcurrentWriteError, DatasetExistsError, DatasetNotFoundError, DatasetSchemaError, KartothekError,
    PredicateError,
)
from parquet_core_integrations.kartothek.metadata import load_metadata  # noqa: E402
from parquet_core_integrations.kartothek.store import LocalStore  # noqa: E402


def frame(n0: int = 0) -> "pd.DataFrame":
    return pd.DataFrame({
        "P": np.array([1, 1, 2, 2], dtype="int16") ,
        "L": ["a/b", "x y=z&%", "a/b", "München"],
        "C": pd.array([n0 + 1, n0 + 2, None, n0 + 4], dtype="Int64"),
        "F": np.array([0.5, 1.5, 2.5, np.nan], dtype="float32"),
        "D": [dt.date(2020, 1, i) for i in range(1, 5)],
        "TS": pd.to_datetime(["2021-03-04 05:06:07.123456"] * 4),
        "S": ["s0", None, "s2", "s3"],
    })


def rows(table, *cols):
    return sorted((tuple(r[c] for c in cols) for r in table.to_pylist()),
                  key=lambda t: [(v is None, v) for v in t])


@pytest.mark.parametrize("fmt", ["json", "msgpack"])
def test_round_trip_partitioned_indexed(tmp_path, fmt):
    md = ktk.write_dataset(frame(), tmp_path, "ds", partition_on=["P", "L"], secondary_indices=["C", "S"],
                           metadata={"owner": "me"}, metadata_format=fmt)
    assert (tmp_path / naming.metadata_key("ds", fmt)).is_file()
    assert not (tmp_path / naming.metadata_key("ds", "json" if fmt == "msgpack" else "msgpack")).exists()
    got = ktk.read_dataset(tmp_path, "ds")
    assert got.column_names == ["P", "L", "C", "D", "F", "S", "TS"]       # keys, then sorted
    assert rows(got, "P", "L", "C") == [(1, "a/b", 1), (1, "x y=z&%", 2), (2, "München", 4), (2, "a/b", None)]
    assert {str(f.type) for f in got.schema if f.name in ("P", "C")} == {"int64"}
    assert rows(ktk.read_dataset(tmp_path, "ds", predicates=[[("C", "==", 2)]]), "L") == [("x y=z&%",)]
    loaded = load_metadata(LocalStore(tmp_path), "ds")
    assert loaded.metadata["owner"] == "me" and "creation_time" in loaded.metadata
    assert loaded.format == fmt and set(loaded.indices) == {"C", "S"} and len(md.partitions) == 4


def test_B4_slash_in_partition_value_is_encoded(tmp_path):
    """Kartothek bug B4: ``/`` in a partition value is not escaped and the value is truncated."""
    ktk.write_dataset(frame(), tmp_path, "ds", partition_on=["L"])
    dirs = sorted(os.listdir(tmp_path / "ds" / "table"))
    assert "L=a%2Fb" in dirs and "L=x%20y%3Dz%26%25" in dirs and "L=M%C3%BCnchen" in dirs
    got = ktk.read_dataset(tmp_path, "ds", predicates=[[("L", "==", "a/b")]])
    assert rows(got, "L", "D") == [("a/b", dt.date(2020, 1, 1)), ("a/b", dt.date(2020, 1, 3))]


def test_B1_null_predicates_through_an_index(tmp_path):
    """Kartothek bug B1: nulls are never indexed, so ``C == None`` via the index returns nothing."""
    ktk.write_dataset(frame(), tmp_path, "ds", partition_on=["P", "L"], secondary_indices=["C"])
    index_values = pq.read_table(tmp_path / load_metadata(LocalStore(tmp_path), "ds").indices["C"])
    assert None not in index_values.column("C").to_pylist()      # same layout as Kartothek's
    assert rows(ktk.read_dataset(tmp_path, "ds", predicates=[[("C", "==", None)]]), "L") == [("a/b",)]
    got = ktk.read_dataset(tmp_path, "ds", predicates=[[("C", "!=", 1)]])
    assert sorted(r["C"] is None for r in got.to_pylist()) == [False, False, True]
    got = ktk.read_dataset(tmp_path, "ds", predicates=[[("C", "in", [4, None])]])
    assert sorted((r["P"], r["C"] or 0) for r in got.to_pylist()) == [(2, 0), (2, 4)]


def test_index_file_layout_and_pyarrow_reads_our_files(tmp_path):
    ktk.write_dataset(frame(), tmp_path, "ds", partition_on=["P"], secondary_indices=["C", "TS"])
    md = load_metadata(LocalStore(tmp_path), "ds")
    for col, key in md.indices.items():
        assert key.startswith(f"ds/indices/{col}/") and key.endswith(".by-dataset-index.parquet")
        stamp = naming.unquote(key.split("/")[-1][: -len(".by-dataset-index.parquet")])
        dt.datetime.fromisoformat(stamp)
        t = pq.read_table(tmp_path / key)
        assert t.column_names == [col, "partition"]
        assert pa.types.is_list(t.schema.field("partition").type)
        assert t.schema.field("partition").type.value_type == pa.string()
    c = pq.read_table(tmp_path / md.indices["C"])
    assert c.schema.field("C").type == pa.int64()
    mapping = {v: sorted(p) for v, p in zip(c.column("C").to_pylist(), c.column("partition").to_pylist())}
    assert set(mapping) == {1, 2, 4}
    assert all(lbl in md.partitions for ls in mapping.values() for lbl in ls)
    assert pq.read_table(tmp_path / md.indices["TS"]).schema.field("TS").type == pa.timestamp("us")
    common = pq.read_schema(tmp_path / "ds" / "table" / "_common_metadata")
    assert common.names == ["P", "C", "D", "F", "L", "S", "TS"]
    assert [str(common.field(n).type) for n in common.names] == [
        "int64", "int64", "date32[day]", "double", "string", "string", "timestamp[us]"]
    assert all(common.field(n).nullable for n in common.names)
    assert json.loads(common.metadata[b"pandas"])["columns"][0]["name"] == "P"
    assert pq.ParquetFile(tmp_path / "ds" / "table" / "_common_metadata").metadata.num_row_groups == 0
    # data files: partition columns stripped, pyarrow reads them to pandas with the pandas metadata
    for files in md.partitions.values():
        df = pq.read_table(tmp_path / files["table"]).to_pandas()
        assert "P" not in df.columns and set(df.columns) == {"C", "D", "F", "L", "S", "TS"}
        assert (df["L"].notna()).all()


def test_update_delete_scope_gc_and_index_maintenance(tmp_path):
    ktk.write_dataset(frame(), tmp_path, "ds", partition_on=["P"], secondary_indices=["C"],
                      metadata_format="msgpack")
    first = load_metadata(LocalStore(tmp_path), "ds")
    md = ktk.update_dataset(frame(10), tmp_path, "ds", delete_scope=[{"P": 1}], metadata={"run": 2})
    assert md.format == "msgpack" and md.metadata["creation_time"] == first.metadata["creation_time"]
    assert md.indices["C"] != first.indices["C"]                 # a new index file per commit
    got = ktk.read_dataset(tmp_path, "ds")
    assert rows(got, "P", "C") == [(1, 11), (1, 12), (2, 4), (2, 14), (2, None), (2, None)]
    assert rows(ktk.read_dataset(tmp_path, "ds", predicates=[[("C", "==", 1)]]), "C") == []
    assert rows(ktk.read_dataset(tmp_path, "ds", predicates=[[("C", "==", 14)]]), "C") == [(14,)]
    # delete by a secondary index value
    ktk.update_dataset(None, tmp_path, "ds", delete_scope=[{"C": 14}])    # second write's P=2
    after = [(1, 11), (1, 12), (2, 4), (2, None)]
    assert rows(ktk.read_dataset(tmp_path, "ds"), "P", "C") == after
    removed = ktk.garbage_collect(tmp_path, "ds")
    assert first.indices["C"] in removed and md.indices["C"] in removed
    assert len([k for k in removed if "/indices/" in k]) == 2 and len([k for k in removed if "/table/" in k]) == 2
    assert ktk.garbage_collect(tmp_path, "ds") == []             # idempotent
    assert rows(ktk.read_dataset(tmp_path, "ds"), "P", "C") == after


def test_issue_198_delete_scope_on_unindexed_column_is_refused(tmp_path):
    """Kartothek #198: a delete scope on a column without an index deletes every partition."""
    ktk.write_dataset(frame(), tmp_path, "ds", partition_on=["P"])
    with pytest.raises(KartothekError, match="neither a partition key nor"):
        ktk.update_dataset(None, tmp_path, "ds", delete_scope=[{"S": "s0"}])
    with pytest.raises(PredicateError):
        ktk.update_dataset(None, tmp_path, "ds", delete_scope=[{"P": "one"}])
    with pytest.raises(KartothekError):
        ktk.update_dataset(None, tmp_path, "ds", delete_scope=[{}])
    assert ktk.read_dataset(tmp_path, "ds").num_rows == 4


def test_issue_281_concurrent_writers_detected(tmp_path):
    """Kartothek #281: the last metadata write wins and the other commit is silently lost."""
    ktk.write_dataset(frame(), tmp_path, "ds", partition_on=["P"])
    stale = load_metadata(LocalStore(tmp_path), "ds")
    ktk.update_dataset(frame(10), tmp_path, "ds")                 # writer A commits
    files_before = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    with pytest.raises(ConcurrentWriteError):                     # writer B read before A's commit
        ktk.update_dataset(frame(20), tmp_path, "ds", base=stale)
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file()) == files_before   # B cleaned up
    assert sorted(r["C"] for r in ktk.read_dataset(tmp_path, "ds").to_pylist() if r["C"]) == [1, 2, 4, 11, 12, 14]
    with pytest.raises(DatasetExistsError):
        ktk.write_dataset(frame(), tmp_path, "ds")


def test_B12_build_indices_keeps_metadata_format(tmp_path):
    """Kartothek bug B12: build_dataset_indices always rewrites the metadata as JSON."""
    ktk.write_dataset(frame(), tmp_path, "ds", metadata_format="msgpack")
    common = tmp_path / "ds" / "table" / "_common_metadata"
    before = (common.read_bytes(), common.stat().st_ino)
    ktk.update_dataset(frame(10), tmp_path, "ds")
    assert (common.read_bytes(), common.stat().st_ino) == before   # same schema: not rewritten
    md = ktk.build_indices(tmp_path, "ds", ["C", "D"])
    assert md.format == "msgpack" and not (tmp_path / "ds.by-dataset-metadata.json").exists()
    got = ktk.read_dataset(tmp_path, "ds", predicates=[[("D", ">", dt.date(2020, 1, 2))]])
    assert rows(got, "D") == [(dt.date(2020, 1, 3),), (dt.date(2020, 1, 3),), (dt.date(2020, 1, 4),),
                              (dt.date(2020, 1, 4),)]
    with pytest.raises(KartothekError):
        ktk.build_indices(tmp_path, "ds", ["nope"])


def test_B9_not_equal_pruning_keeps_null_rows(tmp_path):
    """Kartothek bug B9: ``!=`` pruning drops a row group ``["a", None]`` whose None row the
    row filter would keep."""
    ktk.write_dataset({"k": [1, 2, 3, 4], "s": ["a", None, "b", "b"]}, tmp_path, "ds", row_group_size=2)
    md = load_metadata(LocalStore(tmp_path), "ds")
    key = next(iter(md.partitions.values()))["table"]
    assert pq.ParquetFile(tmp_path / key).num_row_groups == 2
    got = ktk.read_dataset(tmp_path, "ds", predicates=[[("s", "!=", "a")]])
    assert rows(got, "k") == [(2,), (3,), (4,)]


def test_B6_binary_index_values_with_nul_bytes(tmp_path):
    """Kartothek bug B6: binary index values with NUL bytes are truncated, and NUL bytes are
    rejected in predicate values."""
    data = {"k": [1, 2, 3], "b": [b"\x00a", b"", b"a\x00"]}
    ktk.write_dataset(data, tmp_path, "ds", secondary_indices=["b"])
    index = pq.read_table(tmp_path / load_metadata(LocalStore(tmp_path), "ds").indices["b"])
    assert sorted(index.column("b").to_pylist()) == [b"", b"\x00a", b"a\x00"]
    assert rows(ktk.read_dataset(tmp_path, "ds", predicates=[[("b", "==", b"\x00a")]]), "k") == [(1,)]
    assert rows(ktk.read_dataset(tmp_path, "ds", predicates=[[("b", "in", [b"", b"a\x00"])]]), "k") == [
        (2,), (3,)]


def test_B5_delete_dataset_removes_msgpack_metadata(tmp_path):
    """Kartothek bug B5: delete_dataset leaves ``<uuid>.by-dataset-metadata.msgpack.zstd`` behind."""
    ktk.write_dataset(frame(), tmp_path, "ds", metadata_format="msgpack", secondary_indices=["C"])
    ktk.write_dataset(frame(), tmp_path, "ds2")
    (tmp_path / "dsX").write_text("foreign")                       # shares the prefix, not the dataset
    ktk.delete_dataset(tmp_path, "ds")
    assert sorted(os.listdir(tmp_path)) == ["ds2", "ds2.by-dataset-metadata.json", "dsX"]
    with pytest.raises(DatasetNotFoundError):
        ktk.read_dataset(tmp_path, "ds")
    assert ktk.read_dataset(tmp_path, "ds2").num_rows == 4


def test_B11_implicit_dataset_ignores_index_files(tmp_path):
    """Kartothek bug B11: implicit discovery takes ``<uuid>/indices/**.parquet`` for a table."""
    ktk.write_dataset(frame(), tmp_path, "ds", partition_on=["P"], secondary_indices=["C"])
    meta = tmp_path / "ds.by-dataset-metadata.json"
    md = json.loads(meta.read_text())
    del md["partitions"]
    meta.write_text(json.dumps(md))
    (tmp_path / "ds" / "table" / "P=1" / "notes.txt").write_text("garbage")
    loaded = load_metadata(LocalStore(tmp_path), "ds")
    assert not loaded.explicit and loaded.tables() == ["table"]
    assert rows(ktk.read_dataset(tmp_path, "ds"), "P", "C") == [(1, 1), (1, 2), (2, 4), (2, None)]


def test_schema_checks(tmp_path):
    ktk.write_dataset(frame(), tmp_path, "ds", partition_on=["P"])
    bad = frame()
    bad["C"] = ["x"] * 4
    with pytest.raises(DatasetSchemaError):
        ktk.update_dataset(bad, tmp_path, "ds")
    with pytest.raises(KartothekError):
        ktk.update_dataset(frame(), tmp_path, "ds", partition_on=["L"])
    with pytest.raises(KartothekError):
        ktk.update_dataset(frame(), tmp_path, "ds", secondary_indices=["C"])
    with pytest.raises(KartothekError, match="nulls"):
        ktk.write_dataset(frame(), tmp_path, "ds3", partition_on=["S"])
    with pytest.raises(KartothekError, match="no data left"):
        ktk.write_dataset(frame()[["P"]], tmp_path, "ds4", partition_on=["P"])
    with pytest.raises(KartothekError):
        ktk.write_dataset(frame(), tmp_path, "ds5", partition_on=["P"], secondary_indices=["P"])
    with pytest.raises(KartothekError, match="cannot partition"):
        ktk.write_dataset({"l": [[1], [2]], "x": [1, 2]}, tmp_path, "ds6", partition_on=["l"])
    assert ktk.read_dataset(tmp_path, "ds").num_rows == 4
    # an all-null column in a new chunk is compatible (null type)
    ok = frame(10)
    ok["S"] = None
    ktk.update_dataset(ok, tmp_path, "ds")
    assert ktk.read_dataset(tmp_path, "ds").num_rows == 8


def test_overwrite_and_empty_dataset(tmp_path):
    """Overwrite replaces the dataset; empty datasets behave as real Kartothek 5.3's do (run
    in its own venv: an empty frame partitioned on P stores ``"partitions": {}`` and only
    ``_common_metadata``; unpartitioned, one partition holding a 0-row file; deleting every
    partition leaves ``"partitions": {}``; each reads back as 0 rows with the columns)."""
    ktk.write_dataset(frame(), tmp_path, "ds", partition_on=["P"])
    ktk.write_dataset({"x": [1, 2]}, tmp_path, "ds", overwrite=True)
    assert ktk.read_dataset(tmp_path, "ds").to_pylist() == [{"x": 1}, {"x": 2}]
    md = load_metadata(LocalStore(tmp_path), "ds")
    assert md.partition_keys == [] and len(md.partitions) == 1
    with pytest.raises(KartothekError):   # x is not a partition column: nothing to delete by
        ktk.update_dataset(None, tmp_path, "ds", delete_scope=[{"x": 1}])

    empty = pd.DataFrame({"P": pd.Series([], dtype="int16"), "x": pd.Series([], dtype="int64")})
    ktk.write_dataset(empty, tmp_path, "e1", partition_on=["P"])
    stored = json.loads((tmp_path / "e1.by-dataset-metadata.json").read_text())
    assert stored["partitions"] == {} and stored["partition_keys"] == ["P"]
    assert sorted(p.name for p in (tmp_path / "e1").rglob("*") if p.is_file()) == ["_common_metadata"]
    assert pq.read_schema(tmp_path / "e1" / "table" / "_common_metadata").names == ["P", "x"]
    got = ktk.read_dataset(tmp_path, "e1")
    assert got.num_rows == 0 and sorted(got.column_names) == ["P", "x"]

    ktk.write_dataset(empty, tmp_path, "e2")
    stored = json.loads((tmp_path / "e2.by-dataset-metadata.json").read_text())
    (part,) = stored["partitions"].values()
    theirs = pq.read_table(tmp_path / part["files"]["table"])   # the 0-row file, read by pyarrow
    assert theirs.num_rows == 0 and theirs.column_names == ["P", "x"]
    got = ktk.read_dataset(tmp_path, "e2")
    assert got.num_rows == 0 and sorted(got.column_names) == ["P", "x"]

    ktk.write_dataset(frame(), tmp_path, "e3", partition_on=["P"])
    ktk.update_dataset(None, tmp_path, "e3", delete_scope=[{"P": 1}, {"P": 2}])
    assert json.loads((tmp_path / "e3.by-dataset-metadata.json").read_text())["partitions"] == {}
    got = ktk.read_dataset(tmp_path, "e3")
    assert got.num_rows == 0 and sorted(got.column_names) == sorted(frame().columns)


def test_fsspec_memory_store():
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    fs.rm("/ktk", recursive=True) if fs.exists("/ktk") else None
    ktk.write_dataset(frame(), "memory://ktk", "ds", partition_on=["P"], secondary_indices=["C"],
                      metadata_format="msgpack")
    got = ktk.read_dataset("memory://ktk", "ds", predicates=[[("C", ">", 1)]])
    assert rows(got, "C") == [(2,), (4,)]
    ktk.delete_dataset("memory://ktk", "ds")
    assert not fs.find("/ktk")


def test_switching_metadata_format(tmp_path):
    ktk.write_dataset({"x": [1]}, tmp_path, "o")
    ktk.update_dataset({"x": [2]}, tmp_path, "o", metadata_format="msgpack")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o", "o.by-dataset-metadata.msgpack.zstd"]
    ktk.write_dataset({"y": [3]}, tmp_path, "o", overwrite=True, metadata_format="json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o", "o.by-dataset-metadata.json"]
    assert ktk.read_dataset(tmp_path, "o").to_pylist() == [{"y": 3}]
    assert "creation_time" in load_metadata(LocalStore(tmp_path), "o").metadata


def test_write_creates_the_store_folder(tmp_path):
    """Issue 30: a store folder that does not exist yet is created by the first write, as
    Kartothek's own file-system stores do; reading one that does not exist creates nothing."""
    store = str(tmp_path / "new" / "store")
    ktk.write_dataset(frame(), store, "sales", partition_on=["P"])
    assert os.path.isdir(store)
    assert rows(ktk.read_dataset(store, "sales"), "P", "S") == rows(pa.Table.from_pandas(frame()), "P", "S")
    missing = str(tmp_path / "absent")
    with pytest.raises(DatasetNotFoundError):
        ktk.read_dataset(missing, "sales")
    assert not os.path.exists(missing)
    (tmp_path / "file").write_text("x")
    with pytest.raises(KartothekError, match="not a directory"):
        ktk.write_dataset(frame(), str(tmp_path / "file"), "sales")
