"""A folder of small files with a ``_metadata`` summary: the files it describes are decoded
together as footer-read small files are (``file/small_files.py``), their chunks found
through the summary's row groups and no data file's own footer read; every read equals
pyarrow's, and a damaged file is named in the error, as a read of that file alone names it."""

from __future__ import annotations

import glob
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetError
from tests._support.small_files import count_joins, index_past_dictionary

WORDS = np.array(["alpha", "beta", "gamma", "", "épsilon", "zeta-long-word"])


def _table(files: int, rows: int, nulls_in: tuple[int, ...] = ()) -> pa.Table:
    n = files * rows
    rng = np.random.default_rng(7)
    k = np.arange(n) // rows
    qty = rng.integers(0, 50, n).astype(np.int32)
    mask = np.isin(k, nulls_in) & (rng.random(n) < 0.3)
    return pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "x": pa.array(rng.random(n)),
        "name": pa.array(WORDS[rng.integers(0, len(WORDS), n)]),
        "qty": pa.array(qty, mask=mask),
        "f": pa.array(rng.integers(-5, 5, n).astype(np.float32)),
        "day": pa.array(k % 3, pa.int32()),
        "part": pa.array(k, pa.int32()),
    })


def _summarised(root: str, files: int = 12, rows: int = 150, nulls_in: tuple[int, ...] = (),
                **write: object) -> str:
    """A Hive folder ``day=/part=`` of *files* small files (one row group each) and its
    ``_metadata``, as pyarrow writes them."""
    table = _table(files, rows, nulls_in)
    collector: list[object] = []
    pq.write_to_dataset(table, root, partition_cols=["day", "part"], metadata_collector=collector, **write)
    pq.write_metadata(table.schema.remove(6).remove(5), os.path.join(root, "_metadata"),
                      metadata_collector=collector)
    return root


def _no_footers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pc.ParquetDataset, "open_fragment", lambda self, frag: pytest.fail("footer opened"))



def _expected(root: str, **kw: object) -> pa.Table:
    # pyarrow reads the folder (its own footers); the values are the same the summary describes
    return pq.read_table(root, **kw)   # type: ignore[arg-type]


def _plain(t: pa.Table) -> pa.Table:
    """*t* with dictionary columns decoded (partition columns come dictionary-encoded)."""
    return pa.table({name: col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col
                     for name, col in zip(t.column_names, t.columns)})


def _same(got: pc.Table, expected: pa.Table) -> None:
    g, e = _plain(got.to_arrow()), _plain(expected)
    assert g.num_rows == e.num_rows
    assert g.column_names == e.column_names
    keys = [(c, "ascending") for c in g.column_names]    # every column: rows in one order
    assert g.sort_by(keys).equals(e.sort_by(keys))


@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize("columns", [None, ["qty", "name"], ["x", "day"]])
def test_summarised_small_files_are_joined(tmp_path, monkeypatch: pytest.MonkeyPatch, threads: bool,
                                           columns: list[str] | None) -> None:
    root = _summarised(str(tmp_path / "ds"), compression="snappy")
    d = pc.ParquetDataset(root)
    assert d.summary is not None
    _no_footers(monkeypatch)
    seen = count_joins(monkeypatch)
    _same(d.read(columns=columns, use_threads=threads), _expected(root, columns=columns))
    assert sum(seen) == 12          # every file joined (one run per partition key folder order)


@pytest.mark.parametrize("filters", [[("qty", ">=", 0)], [("qty", "<", 25)], [("id", ">=", 600)],
                                     [("day", "==", 1)], [("day", "==", 2), ("qty", ">", 3)],
                                     [("name", "==", "beta")]])
def test_summarised_small_files_with_filters(tmp_path, monkeypatch: pytest.MonkeyPatch, filters: list) -> None:
    """A filter every row of a file matches (by its statistics in ``_metadata``) is dropped for
    it and the file joins the others; any other filter is applied file by file."""
    root = _summarised(str(tmp_path / "f"), compression="none")
    _no_footers(monkeypatch)
    seen = count_joins(monkeypatch)
    for threads in (False, True):
        got = pc.read_table(root, filters=filters, use_threads=threads)
        _same(got, _expected(root, filters=filters))
    if filters == [("qty", ">=", 0)]:
        assert sum(seen) == 2 * 12


def test_files_of_other_shapes_in_a_summary(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files with nulls (not the light shape) among light ones, and files of several row
    groups: read through the summary, in order; pyarrow's rows."""
    root = _summarised(str(tmp_path / "mixed"), files=10, rows=300, nulls_in=(2, 3, 7))
    _no_footers(monkeypatch)
    seen = count_joins(monkeypatch)
    for threads in (False, True):
        _same(pc.read_table(root, use_threads=threads), _expected(root))
    assert seen
    many = _summarised(str(tmp_path / "groups"), files=6, rows=300, row_group_size=100)
    assert pq.ParquetFile(glob.glob(many + "/**/*.parquet", recursive=True)[0]).num_row_groups == 3
    _same(pc.read_table(many, use_threads=False), _expected(many))


def _six_dictionary_files(root: str) -> None:
    """Six uncompressed files ``k=0..5`` of a dictionary-encoded column ``v`` (three values
    each) and their ``_metadata``, as pyarrow writes them."""
    collector: list[object] = []
    n = 64
    table = pa.table({"v": pa.array(np.arange(6 * n, dtype=np.int64) % 3 + np.repeat(np.arange(6), n)),
                      "k": np.repeat(np.arange(6), n)})
    pq.write_to_dataset(table, root, partition_cols=["k"], metadata_collector=collector, compression="none")
    pq.write_metadata(table.schema.remove(1), os.path.join(root, "_metadata"), metadata_collector=collector)


def _damage(path: str, raw: bytes) -> None:
    """*raw* written over *path* with its modification time kept (else ``_metadata`` would
    no longer describe it, and its own footer would be read)."""
    st = os.stat(path)
    with open(path, "wb") as f:
        f.write(raw)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("threads", [False, True])
def test_a_bad_index_in_one_summarised_file_is_named(tmp_path, threads: bool) -> None:
    """An index past its dictionary in one file the summary describes (found when the run is
    joined): the error names that file and says where its footer came from; the same error
    as reading the file alone."""
    root = str(tmp_path / "bad")
    _six_dictionary_files(root)
    path = sorted(glob.glob(root + "/**/*.parquet", recursive=True))[3]
    _damage(path, index_past_dictionary(path))
    d = pc.ParquetDataset(root)
    assert d.explain().footers_from_metadata == 6     # still described by _metadata
    with pytest.raises(ParquetError) as alone:
        pc.read_table(path, use_threads=False)
    with pytest.raises(ParquetError) as info:
        d.read(use_threads=threads)
    assert path in str(info.value) and "dictionary index 3 out of range" in str(info.value)
    assert type(info.value) is type(alone.value)
    assert any("_metadata" in note for note in getattr(info.value, "__notes__", []))


def test_a_truncated_page_in_one_summarised_file_is_named(tmp_path) -> None:
    """A data page body cut short in one file (found while its pages are read): named."""
    root = _summarised(str(tmp_path / "cut"), files=5, rows=100, compression="none")
    path = sorted(glob.glob(root + "/**/*.parquet", recursive=True))[2]
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    col = pq.ParquetFile(path).metadata.row_group(0).column(1)      # "x": PLAIN doubles
    at = col.data_page_offset
    raw[at:at + 8] = b"\xff" * 8             # the page header's bytes: not a page header
    _damage(path, bytes(raw))
    with pytest.raises(ParquetError) as alone:
        pc.read_table(path, use_threads=False)
    with pytest.raises(ParquetError) as info:
        pc.read_table(root, use_threads=False)
    assert path in str(info.value)
    assert type(info.value) is type(alone.value)


def test_runs_through_the_summary_name_the_failing_file(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files read whole in runs through the summary (the light shape given up): an error
    names the file, not the summary."""
    from parquet_core.file import small_files as sf

    monkeypatch.setattr(sf, "light_parts", lambda *a, **k: None)      # every file read in runs
    root = str(tmp_path / "runs")
    _six_dictionary_files(root)
    _same(pc.read_table(root, use_threads=False), pq.read_table(root))
    path = sorted(glob.glob(root + "/**/*.parquet", recursive=True))[4]
    _damage(path, index_past_dictionary(path))
    with pytest.raises(ParquetError) as info:
        pc.read_table(root, use_threads=False)
    assert path in str(info.value)


@pytest.mark.parametrize("summary", [False, True])
def test_partition_values_of_joined_runs(tmp_path, summary: bool) -> None:
    """Partition columns of a joined run (one value per file, null folders among them, a
    column typed wider by ``schema=``): pyarrow's rows."""
    root = str(tmp_path / "nulls")
    n = 40
    k = np.arange(9 * n) // n
    table = pa.table({"v": pa.array(np.arange(9 * n, dtype=np.int64)),
                      "c": pa.array([None if i % 3 == 0 else int(i % 3) for i in k], pa.int32()),
                      "s": pa.array([None if i % 4 == 1 else f"w{i % 4}" for i in k])})
    collector: list[object] = []
    pq.write_to_dataset(table, root, partition_cols=["c", "s"], metadata_collector=collector)
    if summary:
        pq.write_metadata(table.select(["v"]).schema, os.path.join(root, "_metadata"), metadata_collector=collector)
    _same(pc.read_table(root, use_threads=False), pq.read_table(root))
    wide = pa.schema([("v", pa.int64()), ("c", pa.int64()), ("s", pa.string())])
    _same(pc.read_table(root, schema=wide, use_threads=False), pq.read_table(root, schema=wide))
