"""The same dataset tests on every store: local disk, memory://, S3 (moto) by URL and by filesystem=.

Oracle: pyarrow.dataset reading the same folder from local disk.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import parquet_core as pc

from ._helpers import assert_same, oracle


def _source_table(n: int = 200) -> pa.Table:
    rng = np.random.default_rng(7)
    return pa.table({
        "n": np.arange(n, dtype=np.int64),
        "x": rng.normal(size=n),
        "s": [f"v{i % 13}" for i in range(n)],
        "k": pa.array(["a", "b", None, "a b/c", "x=y%"] * (n // 5)),
        "y": np.array([2020, 2021, 2022, 2023] * (n // 4), dtype=np.int64),
    })


@pytest.fixture
def pyarrow_dataset(tmp_path, store):
    """A Hive folder written by pyarrow (with Spark/Hadoop litter), uploaded to the store."""
    local = tmp_path / "src"
    pq.write_to_dataset(_source_table(), str(local), partition_cols=["k", "y"], row_group_size=10)
    (local / "_SUCCESS").write_bytes(b"")
    (local / "k=a").joinpath(".part-0.crc").write_bytes(b"crc")
    (local / "_temporary" / "0").mkdir(parents=True)
    (local / "_temporary" / "0" / "part-9.parquet").write_bytes(b"not parquet")
    return store, store.upload(str(local)), str(local)


FILTERS = [
    None,
    [("y", ">", 2021)],
    [("k", "==", "a b/c")],
    [("k", "in", {"a", "x=y%"}), ("n", "<", 120)],
    [[("y", "==", 2020)], [("x", ">", 0.5)]],
    [("n", ">=", 150)],
]


def _arrow_filter(filters):
    if filters is None:
        return None
    return pq.filters_to_expression(filters)


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f)[:40])
def test_read_folder_equals_pyarrow_dataset(pyarrow_dataset, filters):
    store, root, local = pyarrow_dataset
    ours = pc.read_table(root, filters=filters, **store.kwargs)
    assert_same(ours, oracle(local, _arrow_filter(filters)))


def test_dataset_object(pyarrow_dataset):
    store, root, local = pyarrow_dataset
    d = pc.ParquetDataset(root, **store.kwargs)
    theirs = ds.dataset(local, format="parquet", partitioning="hive")
    assert len(d.files) == len(theirs.files) == 20
    assert [f.rsplit("/", 3)[-3:] for f in d.files] == [f.rsplit("/", 3)[-3:] for f in sorted(theirs.files)]
    assert d.partitioning.schema.names == ["k", "y"]
    assert [str(f.type) for f in d.partitioning.schema] == ["string", "int32"]
    assert d.schema.names == theirs.schema.names
    got = d.read(columns=["y", "n"], filters=[("k", "==", "b")])
    assert_same(got, oracle(local, ds.field("k") == "b", columns=["y", "n"]))
    batches = list(d.iter_batches(batch_size=7, filters=[("y", "==", 2022)]))
    assert all(b.num_rows <= 7 for b in batches)
    assert_same(pc.Table.concat(batches), oracle(local, ds.field("y") == 2022))


def test_partition_filter_opens_only_matching_files(pyarrow_dataset, monkeypatch):
    store, root, local = pyarrow_dataset
    d = pc.ParquetDataset(root, **store.kwargs)
    opened = []
    real = pc.ParquetDataset.open_fragment

    def spy(self, frag):
        opened.append(frag.path)
        return real(self, frag)

    monkeypatch.setattr(pc.ParquetDataset, "open_fragment", spy)
    got = d.read(filters=[("y", "==", 2021), ("k", "!=", "a")])
    assert_same(got, oracle(local, (ds.field("y") == 2021) & (ds.field("k") != "a")))
    assert opened and all("y=2021" in p and "k=a/" not in p for p in opened)
    assert len(opened) == 3          # k in {b, a b/c, x=y%} with y=2021 (null k matches no comparison)
    report = d.explain([("y", "==", 2021), ("n", "<", 10)])
    assert len(report.pruned_by_partition) == 15
    assert report.bytes_fetched > 0 and report.requests > 0


def test_glob_and_list(pyarrow_dataset):
    store, root, local = pyarrow_dataset
    ours = pc.read_table(root + "/k=a/*/*.parquet", **store.kwargs)
    theirs = oracle(local, ds.field("k") == "a")
    # a glob's root is its fixed prefix: k and y are both partition columns
    assert_same(ours, theirs)
    files = pc.ParquetDataset(root, **store.kwargs).files[:3]
    got = pc.read_table(files, **store.kwargs)
    assert got.num_rows == sum(pq.read_metadata(f).num_rows for f in
                               [local + "/k=" + f.split("/k=", 1)[1] for f in files])


def test_single_file_entry_points(pyarrow_dataset):
    store, root, local = pyarrow_dataset
    f = pc.ParquetDataset(root, **store.kwargs).files[0]
    rel = "k=" + f.split("/k=", 1)[1]
    local_file = local + "/" + rel
    t = pc.read_table(f, **store.kwargs)
    assert t.to_arrow().equals(pq.read_table(local_file))
    assert pc.read_schema(f, **store.kwargs).names == pq.read_schema(local_file).names
    assert pc.read_metadata(f, **store.kwargs).num_rows == pq.read_metadata(local_file).num_rows
    with pc.ParquetFile(f, **store.kwargs) as pf:
        assert pf.read(["n"]).to_arrow().column("n").equals(pq.read_table(local_file).column("n"))
    # a dataset's schema: data columns then partition columns
    assert pc.read_schema(root, **store.kwargs).names == ["n", "x", "s", "k", "y"]


def test_write_to_dataset_then_pyarrow_reads(store, tmp_path):
    src = _source_table(100)
    written = pc.write_to_dataset(src, store.root, partition_cols=["y", "k"], max_rows_per_file=4,
                                  compression="zstd", **store.kwargs)
    assert written and all("/y=" in w for w in written)
    local = store.download(str(tmp_path / "copy"))
    theirs = ds.dataset(local, format="parquet", partitioning="hive").to_table()
    assert_same(pc.read_table(store.root, **store.kwargs), theirs)
    expected = src.select(["n", "x", "s", "y", "k"])
    got = theirs.select(expected.column_names).sort_by("n")
    assert got.column("n").equals(expected.column("n"))
    assert got.column("k").to_pylist() == expected.column("k").to_pylist()
    assert got.column("y").cast(pa.int64()).equals(expected.column("y"))
    # folder names are pyarrow's escaping
    pa_local = tmp_path / "pa"
    pq.write_to_dataset(src, str(pa_local), partition_cols=["y", "k"])
    import os
    theirs_dirs = sorted(os.path.relpath(d, pa_local) for d, _, fs_ in os.walk(pa_local) if fs_)
    ours_dirs = sorted(os.path.relpath(d, local) for d, _, fs_ in os.walk(local)
                       if any(not f.startswith("_pqcore") for f in fs_))
    assert ours_dirs == theirs_dirs
    # the bookkeeping a commit leaves: on a store, the root's generation object alone
    # (readers compare it before and after a listing); nothing on the local disk
    ours_root = sorted(f for f in os.listdir(local) if os.path.isfile(os.path.join(local, f)))
    assert ours_root == ([] if store.kind == "local" else ["_pqcore-generation"])


def test_write_then_refuse_then_delete_matching(store):
    src = _source_table(40)
    pc.write_to_dataset(src, store.root, partition_cols=["y"], **store.kwargs)
    with pytest.raises(FileExistsError):
        pc.write_to_dataset(src, store.root, partition_cols=["y"], **store.kwargs)
    pc.write_to_dataset(src.filter(pa.compute.equal(src["y"], 2020)).slice(0, 3), store.root,
                        partition_cols=["y"], existing_data_behavior="delete_matching", **store.kwargs)
    got = pc.read_table(store.root, **store.kwargs).to_arrow()
    assert got.num_rows == 3 + 30          # y=2020 replaced by 3 rows, the other 3 years kept
    pc.write_to_dataset(src.slice(0, 2), store.root, partition_cols=["y"],
                        existing_data_behavior="overwrite_or_ignore", **store.kwargs)
    assert pc.read_table(store.root, **store.kwargs).num_rows == 35


def test_write_table_and_writer_to_store(store):
    t = _source_table(20)
    if store.fs is None:
        import os
        os.makedirs(store.root)       # like pyarrow, a local write needs its folder
    target = store.url("one.parquet")
    pc.write_table(t, target, **store.kwargs)
    assert pc.read_table(target, **store.kwargs).to_arrow().equals(t)
    target2 = store.url("two.parquet")
    with pc.ParquetWriter(target2, t.schema, **store.kwargs) as w:
        w.write_table(t.slice(0, 10))
        w.write_table(t.slice(10))
    assert pc.read_table(target2, **store.kwargs).to_arrow().equals(t)
    # a failed write leaves nothing behind
    target3 = store.url("three.parquet")
    with pytest.raises(RuntimeError), pc.ParquetWriter(target3, t.schema, **store.kwargs) as w:
        w.write_table(t)
        raise RuntimeError("boom")
    with pytest.raises(FileNotFoundError):
        pc.read_table(target3, **store.kwargs)
