"""``ColumnChunk.file_path`` from a hostile footer (issue 29, item 3): only a regular file
below the file's folder is opened (links resolved), every failure is a ParquetError naming
the chunk and the file, and ``check`` reports it under ``footer.external-chunk-unreadable``."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from tests.check.broken import edit_footer, pyarrow_bytes

TABLE = pa.table({"a": pa.array([1, 2, 3], pa.int64()), "b": pa.array(["x", None, "z"])})


def _pointing_at(tmp_path: Path, file_path: str, column: int | None = None) -> Path:
    """A file whose chunks (all, or one column's) say they are stored in *file_path*."""
    def edit(meta):
        for rg in meta.row_groups:
            for i, cc in enumerate(rg.columns):
                if column is None or i == column:
                    cc.file_path = file_path
    path = tmp_path / "main.parquet"
    path.write_bytes(edit_footer(pyarrow_bytes(TABLE), edit))
    return path


@pytest.fixture
def alarm():
    """Fail instead of hanging if an open blocks (a FIFO opened for reading waits for a writer)."""
    def fire(*_):
        raise TimeoutError("blocked")
    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _hostile(tmp_path: Path, kind: str) -> tuple[Path, str]:
    if kind == "fifo":
        os.mkfifo(tmp_path / "pipe")
        return _pointing_at(tmp_path, "pipe"), "FIFO"
    if kind == "missing":
        return _pointing_at(tmp_path, "nowhere.parquet"), "No such file"
    if kind == "dot":
        return _pointing_at(tmp_path, "."), "not below"
    if kind == "folder":
        (tmp_path / "sub").mkdir()
        return _pointing_at(tmp_path, "sub"), "folder"
    if kind == "link-out":
        outside = tmp_path.parent / f"{tmp_path.name}-outside.parquet"
        outside.write_bytes(pyarrow_bytes(TABLE))
        (tmp_path / "inside").mkdir()
        (tmp_path / "inside" / "ext.parquet").symlink_to(outside)
        path = _pointing_at(tmp_path / "inside", "ext.parquet")
        return path, "not below"
    if kind == "link-system":
        (tmp_path / "passwd").symlink_to("/etc/passwd")
        return _pointing_at(tmp_path, "passwd"), "not below"
    raise AssertionError(kind)


KINDS = ["fifo", "missing", "dot", "folder", "link-out", "link-system"]


@pytest.mark.parametrize("kind", KINDS)
def test_read_refuses_with_a_parquet_error_naming_the_chunk(tmp_path, alarm, kind):
    path, why = _hostile(tmp_path, kind)
    with pytest.raises(pc.ParquetError) as info:
        pc.read_table(path)
    text = str(info.value)
    assert why in text
    assert "row group 0" in text and "'a'" in text and "file_path" in text
    assert str(path) in text            # the Parquet file that names it


@pytest.mark.parametrize("kind", KINDS)
def test_check_reports_the_unreadable_chunk_as_an_error(tmp_path, alarm, kind):
    path, why = _hostile(tmp_path, kind)
    report = pc.check(path)
    assert not report.ok
    bad = [f for f in report.findings if f.rule == "footer.external-chunk-unreadable"]
    assert bad and all(f.severity == "error" for f in bad)
    assert why in bad[0].message
    assert {(f.row_group, f.column) for f in bad} == {(0, "a"), (0, "b")}


def test_a_link_inside_the_folder_to_a_regular_file_is_read(tmp_path):
    """The spec's external column data, through a link that stays inside the folder:
    the values are pyarrow's read of the file holding the pages."""
    (tmp_path / "data").mkdir()
    pq.write_table(TABLE, tmp_path / "data" / "real.parquet")
    # same writer, same bytes before the footer: the offsets of main.parquet's chunks hold in real.parquet
    (tmp_path / "alias.parquet").symlink_to(tmp_path / "data" / "real.parquet")
    path = _pointing_at(tmp_path, "alias.parquet")
    assert pc.read_table(path).to_pydict() == pq.read_table(tmp_path / "data" / "real.parquet").to_pydict()
    report = pc.check(path)
    assert report.ok
    assert {f.rule for f in report.findings} >= {"footer.external-chunk"}
    assert "footer.external-chunk-unreadable" not in {f.rule for f in report.findings}


def test_a_long_file_path_is_cut_in_the_message(tmp_path):
    path = _pointing_at(tmp_path, "n" * 1_000_000)
    with pytest.raises(pc.ParquetError) as info:
        pc.read_table(path)
    assert len(str(info.value)) < 2000
    report = pc.check(path)
    assert not report.ok and all(len(f.message) < 2000 for f in report.findings)


def test_a_store_refuses_a_folder_and_a_missing_file():
    """Through fsspec (a memory store here): the store's ``info`` must call it a ``file``."""
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    fs.pipe("/ext29/sub/x.parquet", pyarrow_bytes(TABLE))
    for name, why in (("sub", "not a file"), ("nothing.parquet", "FileNotFoundError")):
        def edit(meta, name=name):
            for cc in meta.row_groups[0].columns:
                cc.file_path = name
        fs.pipe(f"/ext29/{name}-main.parquet", edit_footer(pyarrow_bytes(TABLE), edit))
        url = f"memory://ext29/{name}-main.parquet"
        with pytest.raises(pc.ParquetFormatError, match=f"file_path '{name}'.*{why}"):
            pc.read_table(url)
        assert "footer.external-chunk-unreadable" in pc.check(url).rules("error")
    fs.rm("/ext29", recursive=True)
