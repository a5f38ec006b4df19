"""``progress=True`` always shows something (issue 30, item 6): tqdm's bar when tqdm is
installed (it is in the ``dev`` extra), a plain line on stderr when it is not."""

from __future__ import annotations

import sys

import pytest

import parquet_core as pc


@pytest.fixture()
def folder(tmp_path):
    root = tmp_path / "p"
    pc.write_to_dataset({"n": list(range(6)), "k": list(range(6))}, str(root), partition_cols=["k"])
    return str(root)


def test_the_tqdm_bar(folder, tmp_path, capsys):
    pytest.importorskip("tqdm")
    table = pc.read_table(folder, progress=True)
    assert table.num_rows == 6
    err = capsys.readouterr().err
    # tqdm's own rendering: "reading: 100%|...| 6/6 [00:00<00:00, ...file/s]"
    assert "reading" in err and "6/6" in err and "100%" in err and "file/s" in err
    pc.write_to_dataset({"n": [1, 2, 3], "k": [1, 2, 3]}, str(tmp_path / "q"), partition_cols=["k"],
                        progress=True)
    err = capsys.readouterr().err
    assert "writing" in err and "3/3" in err and "100%" in err


def test_without_tqdm_a_plain_line(folder, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)        # as if not installed
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    table = pc.read_table(folder, progress=True)
    assert table.num_rows == 6
    err = capsys.readouterr().err
    assert err.endswith("\rreading: 6/6 files\n"), repr(err)
    assert err.startswith("\rreading: 0/6 files")
    ds = pc.ParquetDataset(folder, progress=True)
    ds.read()
    assert capsys.readouterr().err.endswith("reading: 6/6 files\n")
    pc.write_to_dataset({"n": [1, 2], "k": [1, 2]}, str(tmp_path / "q"), partition_cols=["k"], progress=True)
    assert capsys.readouterr().err.endswith("\rwriting: 2/2 files\n")


def test_no_progress_by_default(folder, capsys):
    pc.read_table(folder)
    assert capsys.readouterr().err == ""
