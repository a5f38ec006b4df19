"""``write_to_dataset`` keeps ``_metadata`` / ``_common_metadata`` in step (issue 30).

Oracle: pyarrow reads the ``_metadata`` (``pq.read_metadata``,
``pyarrow.dataset.parquet_dataset``) and the data files on disk; the two must
name the same files with the same row counts, and read the same rows.
"""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.dataset as pds
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetSchemaError


def data_files(root) -> dict[str, int]:
    """``{path relative to root: rows}`` of the visible data files (read by pyarrow)."""
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(("_", "."))]
        for f in files:
            if not f.startswith(("_", ".")):
                p = os.path.join(d, f)
                out[os.path.relpath(p, root).replace(os.sep, "/")] = pq.read_metadata(p).num_rows
    return out


def summary_files(root) -> dict[str, int]:
    md = pq.read_metadata(os.path.join(root, "_metadata"))
    out: dict[str, int] = {}
    for i in range(md.num_row_groups):
        rg = md.row_group(i)
        out[rg.column(0).file_path] = out.get(rg.column(0).file_path, 0) + rg.num_rows
    assert md.num_rows == sum(out.values())
    return out


def assert_in_step(root) -> None:
    assert summary_files(root) == data_files(root)
    via_summary = pds.parquet_dataset(os.path.join(root, "_metadata"), partitioning="hive").to_table()
    listed = pq.read_table(root)
    assert sorted(via_summary.column("x").to_pylist()) == sorted(listed.column("x").to_pylist())


def start(root, by="pyarrow") -> None:
    """Two partitions and a _metadata, written by pyarrow or by us."""
    c: list = []
    if by == "pyarrow":
        pq.write_to_dataset(pa.table({"p": [1, 2], "x": [10, 20]}), str(root), partition_cols=["p"],
                            metadata_collector=c)
        pq.write_metadata(pa.schema([("x", pa.int64())]), os.path.join(root, "_metadata"),
                          metadata_collector=c)
    else:
        pc.write_to_dataset({"p": [1, 2], "x": [10, 20]}, str(root), partition_cols=["p"],
                            metadata_collector=c)
        first = pc.list_data_files(str(root))[0][0]
        pc.write_metadata(pc.read_schema(first), os.path.join(root, "_metadata"), metadata_collector=c)


@pytest.mark.parametrize("by", ["pyarrow", "parquet_core"])
def test_append_adds_row_groups(tmp_path, by):
    """The issue's reproduction: the appended row appears in _metadata with its file_path."""
    root = tmp_path / "ds"
    start(root, by)
    pc.write_to_dataset({"p": [1], "x": [11]}, str(root), partition_cols=["p"],
                        existing_data_behavior="overwrite_or_ignore")
    assert pq.read_metadata(root / "_metadata").num_rows == 3
    assert len(data_files(root)) == 3
    assert_in_step(root)
    assert pc.read_table(str(root)).num_rows == 3        # we plan from _metadata


def test_delete_matching_drops_replaced_files(tmp_path):
    root = tmp_path / "ds"
    start(root)
    pc.write_to_dataset({"p": [1, 1, 1, 3], "x": [5, 6, 7, 8]}, str(root), partition_cols=["p"],
                        existing_data_behavior="delete_matching", max_rows_per_file=2)
    assert pq.read_metadata(root / "_metadata").num_rows == 5
    assert_in_step(root)
    via_summary = pds.parquet_dataset(str(root / "_metadata")).to_table()
    assert sorted(via_summary.column("x").to_pylist()) == [5, 6, 7, 8, 20]


def test_overwrite_of_a_same_named_file_replaces_its_row_groups(tmp_path):
    root = tmp_path / "ds"
    c: list = []
    pc.write_to_dataset({"p": [1, 2], "x": [10, 20]}, str(root), partition_cols=["p"], metadata_collector=c,
                        basename_template="part-{i}.parquet")
    pc.write_metadata(pc.read_schema(str(root / "p=1" / "part-0.parquet")), str(root / "_metadata"),
                      metadata_collector=c)
    pc.write_to_dataset({"p": [1, 1], "x": [30, 31]}, str(root), partition_cols=["p"],
                        basename_template="part-{i}.parquet", existing_data_behavior="overwrite_or_ignore")
    assert summary_files(root) == {"p=1/part-0.parquet": 2, "p=2/part-0.parquet": 1}
    assert_in_step(root)


def test_other_columns_are_refused_and_nothing_changes(tmp_path):
    root = tmp_path / "ds"
    start(root)
    before = (root / "_metadata").read_bytes(), data_files(root)
    with pytest.raises(ParquetSchemaError, match="_metadata"):
        pc.write_to_dataset({"p": [1], "y": ["other"]}, str(root), partition_cols=["p"],
                            existing_data_behavior="overwrite_or_ignore")
    assert ((root / "_metadata").read_bytes(), data_files(root)) == before
    assert [f for _, _, fs in os.walk(root) for f in fs if "pqcore" in f] == []


def test_common_metadata_is_checked_and_kept(tmp_path):
    root = tmp_path / "ds"
    pq.write_to_dataset(pa.table({"p": [1, 2], "x": [10, 20]}), str(root), partition_cols=["p"])
    pq.write_metadata(pa.schema([("x", pa.int64())]), str(root / "_common_metadata"))
    kept = (root / "_common_metadata").read_bytes()
    pc.write_to_dataset({"p": [3], "x": [30]}, str(root), partition_cols=["p"],
                        existing_data_behavior="overwrite_or_ignore")
    assert (root / "_common_metadata").read_bytes() == kept
    assert not (root / "_metadata").exists()
    with pytest.raises(ParquetSchemaError, match="_common_metadata"):
        pc.write_to_dataset({"p": [3], "x": ["text"]}, str(root), partition_cols=["p"],
                            existing_data_behavior="overwrite_or_ignore")
    assert sorted(pq.read_table(root).column("x").to_pylist()) == [10, 20, 30]


def test_metadata_in_step_on_memory_store():
    fsspec = pytest.importorskip("fsspec")
    import uuid

    mem = fsspec.filesystem("memory")
    url = f"memory://mdup-{uuid.uuid4().hex}/ds"
    c: list = []
    pc.write_to_dataset({"p": [1, 2], "x": [10, 20]}, url, partition_cols=["p"], metadata_collector=c)
    first = next(p for p in mem.find(url) if not p.rsplit("/", 1)[1].startswith("_"))
    pc.write_metadata(pc.read_schema("memory://" + first), url + "/_metadata", metadata_collector=c)
    pc.write_to_dataset({"p": [1], "x": [11]}, url, partition_cols=["p"],
                        existing_data_behavior="overwrite_or_ignore")
    pc.write_to_dataset({"p": [2, 2], "x": [21, 22]}, url, partition_cols=["p"],
                        existing_data_behavior="delete_matching")
    with mem.open(url + "/_metadata", "rb") as f:
        md = pq.read_metadata(f)
    paths = sorted({md.row_group(i).column(0).file_path for i in range(md.num_row_groups)})
    base = mem._strip_protocol(url)
    on_store = sorted(p[len(base) + 1:] for p in mem.find(url)
                      if not p.rsplit("/", 1)[1].startswith(("_", ".")))
    assert paths == on_store and md.num_rows == 4
    assert sorted(pc.read_table(url).column("x").to_pylist()) == [10, 11, 21, 22]
