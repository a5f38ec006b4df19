"""``_metadata`` is a cache, the listing is the truth (issue 30, "Datasets you can trust").

A folder's data files are the ones its listing finds (as ``pyarrow.dataset`` and Spark
list); ``_metadata`` gives the footers of the listed files it still describes.  The
oracle everywhere is pyarrow reading the folder by listing it (``pq.read_table`` /
``pyarrow.dataset``, which ignore ``_metadata``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.cli import main


def _rows(table, names=("p", "x")):
    d = table.to_pydict() if hasattr(table, "to_pydict") else table
    return sorted(zip(*(d[n] for n in names)))


def _summarise(root):
    """A ``_metadata`` describing every data file in *root* now (pyarrow's footers)."""
    collected = []
    files = sorted(f for f, _ in pc.list_data_files(str(root)))
    for f in files:
        md = pq.read_metadata(f)
        md.set_file_path(os.path.relpath(f, str(root)).replace(os.sep, "/"))
        collected.append(md)
    pq.write_metadata(pq.read_schema(files[0]), os.path.join(str(root), "_metadata"), metadata_collector=collected)


# -- the newcomer's reproductions (each failed before) ----------------------------------------

def test_append_after_metadata_is_seen(tmp_path):
    root = str(tmp_path / "ds")
    c = []
    pc.write_to_dataset({"p": [1, 2], "x": [10, 20]}, root, partition_cols=["p"], metadata_collector=c)
    pc.write_metadata(pc.read_schema(pc.list_data_files(root)[0][0]), root + "/_metadata", metadata_collector=c)
    pc.write_to_dataset({"p": [1], "x": [11]}, root, partition_cols=["p"], existing_data_behavior="overwrite_or_ignore")
    assert (pc.read_table(root).num_rows, pq.read_table(root).num_rows) == (3, 3)
    assert _rows(pc.read_table(root)) == _rows(pq.read_table(root))


def test_delete_matching_after_metadata_reads_what_is_there(tmp_path):
    root = str(tmp_path / "ds")
    c = []
    pc.write_to_dataset({"p": [1, 2], "x": [10, 20]}, root, partition_cols=["p"], metadata_collector=c)
    pc.write_metadata(pc.read_schema(pc.list_data_files(root)[0][0]), root + "/_metadata", metadata_collector=c)
    pc.write_to_dataset({"p": [1], "x": [11]}, root, partition_cols=["p"], existing_data_behavior="delete_matching")
    assert _rows(pc.read_table(root)) == _rows(pq.read_table(root)) == [(1, 11), (2, 20)]
    # write_to_dataset kept _metadata in step: nothing is stale, every footer comes from it
    rep = pc.ParquetDataset(root).explain()
    assert rep.stale_metadata == {} and (rep.footers_from_metadata, rep.footers_read) == (2, 0)
    assert pq.read_metadata(root + "/_metadata").num_rows == 2
    # a file removed by hand makes its entry stale: ignored, named, the rest still from _metadata
    (gone,) = [f for f, _ in pc.list_data_files(root + "/p=1")]
    os.remove(gone)
    rep = pc.ParquetDataset(root).explain()
    assert len(rep.stale_metadata) == 1 and "p=1" in next(iter(rep.stale_metadata))
    assert (rep.footers_from_metadata, rep.footers_read) == (1, 0)
    assert "stale" in str(rep)
    assert _rows(pc.read_table(root)) == _rows(pq.read_table(root)) == [(2, 20)]


def test_files_added_by_pyarrow_and_removed_by_hand(tmp_path):
    root = tmp_path / "ds"
    pq.write_to_dataset(pa.table({"p": [1, 2, 3], "x": [1, 2, 3]}), str(root), partition_cols=["p"])
    _summarise(root)
    pq.write_to_dataset(pa.table({"p": [2, 4], "x": [5, 6]}), str(root), partition_cols=["p"])
    os.remove(pc.list_data_files(str(root / "p=3"))[0][0])
    assert _rows(pc.read_table(str(root))) == _rows(pq.read_table(str(root)))
    assert _rows(pc.read_table(str(root), filters=[("x", ">", 1)])) == \
        _rows(pq.read_table(str(root), filters=[("x", ">", 1)]))
    d = pc.ParquetDataset(str(root))
    assert sorted(os.path.basename(os.path.dirname(f)) for f in d.stale_metadata) == ["p=3"]
    assert d.explain().footers_from_metadata == 2 and d.explain().footers_read == 2
    # read_metadata(folder): the listed files' footers, not the stale _metadata
    assert pc.read_metadata(str(root)).num_rows == pq.read_table(str(root)).num_rows
    assert pc.read_metadata(str(root)).num_row_groups == 4


def test_a_file_replaced_smaller_is_read_from_its_own_footer(tmp_path):
    root = tmp_path / "ds"
    pq.write_to_dataset(pa.table({"p": [1] * 500 + [2], "x": list(range(501))}), str(root), partition_cols=["p"])
    _summarise(root)
    (victim,) = [f for f, _ in pc.list_data_files(str(root / "p=1"))]
    pq.write_table(pa.table({"x": [7]}), victim)
    past = os.stat(root / "_metadata").st_mtime_ns - 10**9    # as if copied: the size must tell
    os.utime(victim, ns=(past, past))
    d = pc.ParquetDataset(str(root))
    assert list(d.stale_metadata.values())[0].startswith("the file has")
    assert _rows(d.read()) == _rows(pq.read_table(str(root))) == [(1, 7), (2, 500)]


@pytest.mark.parametrize("use_threads", [True, False])
def test_iter_batches_with_metadata(tmp_path, use_threads):
    root = tmp_path / "ds"
    pq.write_to_dataset(pa.table({"p": [1, 2, 2], "x": [1, 2, 3]}), str(root), partition_cols=["p"])
    _summarise(root)
    got = [b for b in pc.ParquetDataset(str(root)).iter_batches(use_threads=use_threads)]
    assert _rows(pa.concat_tables([b.to_arrow() for b in got])) == _rows(pq.read_table(str(root)))


def test_partition_value_disagreeing_with_stored_value_is_refused(tmp_path):
    (tmp_path / "k=1").mkdir()
    (tmp_path / "k=3").mkdir()
    pq.write_table(pa.table({"k": [2], "x": [1]}), tmp_path / "k=1" / "a.parquet")
    pq.write_table(pa.table({"x": [5]}), tmp_path / "k=3" / "a.parquet")
    with pytest.raises(pa.ArrowException):          # pyarrow refuses this folder
        pq.read_table(str(tmp_path))
    for filters in (None, [("k", "==", 1)]):
        for columns in (None, ["x"]):
            with pytest.raises(pc.ParquetSchemaError, match=r"k=1.*a\.parquet.*'k'.*2.*k=1") as e:
                pc.read_table(str(tmp_path), filters=filters, columns=columns)
            assert isinstance(e.value, pc.ParquetError)
    with pytest.raises(pc.ParquetSchemaError, match="k=1"):
        list(pc.ParquetDataset(str(tmp_path)).iter_batches())
    # once the dataset's schema is known, a filter on k reads the stored k: k == 2 is refused too
    d = pc.ParquetDataset(str(tmp_path))
    d.schema
    with pytest.raises(pc.ParquetSchemaError, match="k=1"):
        d.read(filters=[("k", "==", 2)])
    # (every file is opened then, as pyarrow refuses such a folder whatever the filter)
    with pytest.raises(pc.ParquetSchemaError, match="k=1"):
        d.read(filters=[("k", "==", 3)])
    # a filter that skips the folder before anything is opened does not see it
    assert pc.read_table(str(tmp_path), filters=[("k", "==", 3)]).to_pydict() == {"x": [5], "k": [3]}


def test_stored_partition_values_that_agree_are_read(tmp_path):
    (tmp_path / "k=1").mkdir()
    pq.write_table(pa.table({"k": [1, 1], "x": [1, 2]}), tmp_path / "k=1" / "a.parquet")
    (tmp_path / "k=__HIVE_DEFAULT_PARTITION__").mkdir()
    pq.write_table(pa.table({"k": pa.array([None], pa.int64()), "x": [3]}),
                   tmp_path / "k=__HIVE_DEFAULT_PARTITION__" / "a.parquet")
    got = pc.read_table(str(tmp_path)).to_pydict()
    assert sorted(zip(got["k"], got["x"]), key=str) == sorted([(1, 1), (1, 2), (None, 3)], key=str)
    assert pc.read_table(str(tmp_path), filters=[("k", "==", 1)], columns=["x"]).to_pydict() == {"x": [1, 2]}


def test_a_list_of_paths_is_read_as_given(tmp_path):
    a, b = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    pq.write_table(pa.table({"x": list(range(10))}), a)
    pq.write_table(pa.table({"x": [100, 101]}), b)
    assert pc.read_table([a, a]).num_rows == pq.read_table([a, a]).num_rows == 20
    assert pc.read_table([b, a, b]).to_pydict() == pq.read_table([b, a, b]).to_pydict()


# -- every ParquetDataset method, with and without _metadata, threads on and off --------------

@pytest.fixture(params=["listing", "fresh _metadata", "stale _metadata"])
def folder(request, tmp_path):
    root = tmp_path / "ds"
    table = pa.table({"p": [1, 1, 2, 2, 3] * 4, "x": list(range(20)), "s": [f"v{i % 3}" for i in range(20)]})
    pq.write_to_dataset(table, str(root), partition_cols=["p"], row_group_size=3)
    if request.param != "listing":
        _summarise(root)
    if request.param == "stale _metadata":
        pq.write_to_dataset(pa.table({"p": [2, 4], "x": [100, 101], "s": ["w", "v1"]}), str(root), partition_cols=["p"])
        shutil.rmtree(root / "p=3")
    return str(root), request.param


FILTERS = [None, [("p", "==", 2)], [("x", ">=", 7), ("s", "!=", "v0")], [[("p", "==", 4)], [("x", "<", 3)]]]


def _oracle(root, filters=None, columns=None):
    t = ds.dataset(root, partitioning="hive").to_table(
        filter=None if filters is None else pq.filters_to_expression(filters), columns=columns)
    return t


@pytest.mark.parametrize("use_threads", [True, False], ids=["threads", "serial"])
@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f)[:30])
@pytest.mark.parametrize("how", ["read", "iter_batches", "read_table"])
def test_matrix_rows(folder, how, filters, use_threads):
    root, kind = folder
    d = pc.ParquetDataset(root)
    if kind == "fresh _metadata":
        assert d.explain().footers_read == 0 and not d.stale_metadata
    if kind == "stale _metadata":
        assert len(d.stale_metadata) == 1 and d.explain().footers_read == 2   # p=2 and p=4 added
    if how == "read":
        got = d.read(filters=filters, use_threads=use_threads).to_arrow()
    elif how == "read_table":
        got = pc.read_table(root, filters=filters, use_threads=use_threads).to_arrow()
    else:
        batches = [b.to_arrow() for b in d.iter_batches(batch_size=2, filters=filters, use_threads=use_threads)]
        got = pa.concat_tables(batches) if batches else None
    want = _oracle(root, filters)
    if got is None:
        assert want.num_rows == 0
        return
    assert _rows(got, ("p", "x", "s")) == _rows(want, ("p", "x", "s"))


@pytest.mark.parametrize("use_threads", [True, False], ids=["threads", "serial"])
@pytest.mark.parametrize("columns", [["x"], ["s", "p"]])
def test_matrix_columns(folder, columns, use_threads):
    root, _ = folder
    d = pc.ParquetDataset(root)
    got = d.read(columns=columns, use_threads=use_threads).to_arrow()
    assert got.column_names == columns
    assert sorted(got.to_pylist(), key=repr) == sorted(_oracle(root, columns=columns).to_pylist(), key=repr)
    batches = pa.concat_tables([b.to_arrow() for b in d.iter_batches(columns=columns, use_threads=use_threads)])
    assert sorted(batches.to_pylist(), key=repr) == sorted(got.to_pylist(), key=repr)


@pytest.mark.parametrize("use_threads", [True, False], ids=["threads", "serial"])
def test_matrix_read_dictionary(folder, use_threads):
    root, _ = folder
    d = pc.ParquetDataset(root, read_dictionary=["s"])
    got = d.read(use_threads=use_threads).to_arrow()
    assert pa.types.is_dictionary(got.schema.field("s").type)
    theirs = pq.read_table(root, read_dictionary=["s"])
    assert pa.types.is_dictionary(theirs.schema.field("s").type)
    assert _rows(got.cast(pa.schema([pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type)
                                               else f.type) for f in got.schema])), ("p", "x", "s")) == \
        _rows(_oracle(root), ("p", "x", "s"))
    for b in d.iter_batches(use_threads=use_threads):
        assert pa.types.is_dictionary(b.to_arrow().schema.field("s").type)


def test_matrix_read_metadata_and_schema(folder):
    root, _ = folder
    assert pc.read_metadata(root).num_rows == _oracle(root).num_rows
    assert pc.read_schema(root).names == ["x", "s", "p"]


def _cli(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(argv))
    return status, out.getvalue()


def test_matrix_pqc(folder):
    root, kind = folder
    want = _oracle(root)
    status, text = _cli("head", "-n", "100", root)
    assert status == 0 and text.count("x=") == want.num_rows
    status, text = _cli("cat", root, "--json")
    assert status == 0 and sorted(json.loads(line)["x"] for line in text.splitlines() if line.strip()) == \
        sorted(want.column("x").to_pylist())
    status, text = _cli("meta", root)
    assert status == 0 and f"Dataset: {len(pc.list_data_files(root))} files" in text
    assert ("Stale _metadata entries" in text) == (kind == "stale _metadata")
    status, text = _cli("check", root, "--json")
    assert status == 0 and len([line for line in text.splitlines() if line.strip()]) == len(pc.list_data_files(root))


def test_pqc_as_a_module(folder, tmp_path):
    import subprocess
    import sys

    root, _ = folder
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    res = subprocess.run([sys.executable, "-m", "parquet_core.cli", "head", "-n", "100", root],
                         capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("x=") == _oracle(root).num_rows


def test_spark_sources_list_the_folder_as_the_readers_do(folder):
    """pqcore and pqmeta never read _metadata: they list with pc.list_data_files, the listing
    ParquetDataset uses, so a stale _metadata changes nothing for them either."""
    from spark_adapter.core.files import list_files_and_bases

    root, _ = folder
    files, _ = list_files_and_bases([root], None, None)
    assert sorted(files) == sorted(pc.ParquetDataset(root).files) == sorted(f for f, _ in pc.list_data_files(root))
    assert len(files) == len(ds.dataset(root, partitioning="hive").files)


def test_a_file_replaced_in_place_after_metadata_is_read_from_its_own_footer(tmp_path):
    """A file rewritten under the same name by another writer, here with more rows: the size
    check alone cannot see it; the listing's modification time (local disk) does."""
    root = str(tmp_path / "ds")
    pc.write_to_dataset({"p": [1, 2], "x": [10, 20]}, root, partition_cols=["p"], basename_template="part-{i}.parquet")
    _summarise(tmp_path / "ds")
    past = os.stat(os.path.join(root, "_metadata")).st_mtime_ns - 10**9
    for f, _ in pc.list_data_files(root):
        os.utime(f, ns=(past, past))
    # our writer keeps _metadata in step; another writer (pyarrow here) rewriting the same name does not
    pc.write_to_dataset({"p": [1, 1, 1], "x": [11, 12, 13]}, root, partition_cols=["p"],
                        basename_template="part-{i}.parquet", existing_data_behavior="overwrite_or_ignore")
    assert pc.ParquetDataset(root).stale_metadata == {}
    _summarise(tmp_path / "ds")
    for f, _ in pc.list_data_files(root):
        os.utime(f, ns=(past, past))
    (victim,) = [f for f, _ in pc.list_data_files(root + "/p=1")]
    pq.write_table(pa.table({"x": [11, 12, 13, 14]}), victim)
    d = pc.ParquetDataset(root)
    assert [v for v in d.stale_metadata.values()] == ["the file was modified after _metadata was written"]
    assert _rows(d.read()) == _rows(pq.read_table(root)) == [(1, 11), (1, 12), (1, 13), (1, 14), (2, 20)]


@pytest.mark.parametrize("filters", [None, [("p", "==", 2)], [("x", ">=", 15)]], ids=repr)
def test_matrix_explain_and_fragments(folder, filters):
    root, kind = folder
    d = pc.ParquetDataset(root)
    listed = sorted(f for f, _ in pc.list_data_files(root))
    assert sorted(d.files) == listed == sorted(fr.path for fr in d.fragments)
    rep = d.explain(filters)
    assert rep.files == len(listed) == rep.footers_from_metadata + rep.footers_read
    assert (rep.footers_read == len(listed)) == (kind == "listing")
    outside = [f for f in listed if filters == [("p", "==", 2)] and os.sep + "p=2" + os.sep not in f]
    assert sorted(rep.pruned_by_partition) == outside
    # every row group of the kept files is accounted for, whoever gave its footer
    assert rep.row_groups == sum(pq.ParquetFile(f).num_row_groups for f in listed if f not in outside)
    kept_rows = _oracle(root, filters).num_rows
    assert (rep.row_groups_kept > 0) == (kept_rows > 0)


@pytest.mark.parametrize("summary", [False, True], ids=["footers", "_metadata"])
def test_a_lying_folder_is_refused_whatever_the_filter_keeps(tmp_path, summary):
    """Once the files' schema is known, filters on k run on the stored values, and statistics
    could skip the lying file; every file opened is checked whole against its folder."""
    for k in (1, 3):
        (tmp_path / f"k={k}").mkdir()
    pq.write_table(pa.table({"k": [2, 2], "x": [1, 2]}), tmp_path / "k=1" / "a.parquet")
    pq.write_table(pa.table({"k": [3], "x": [5]}), tmp_path / "k=3" / "a.parquet")
    if summary:
        _summarise(tmp_path)
    d = pc.ParquetDataset(str(tmp_path))
    d.schema
    for filters in ([("k", "==", 1)], [("k", "==", 2)], [("k", "==", 3)], [("x", "==", 1)], None):
        with pytest.raises(pc.ParquetSchemaError, match=r"k=1.*'k'.*2"):
            d.read(filters=filters)
        with pytest.raises(pc.ParquetSchemaError, match=r"k=1.*'k'.*2"):
            list(d.iter_batches(filters=filters))
