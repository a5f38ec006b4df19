"""Commit markers and records: only "no such file" reads as absent.

A store that keeps failing (or a permission error) used to read as "no marker", which could
make a reader take the wrong version of a partition or a writer miss another writer's lock.
Now the failure is raised, naming the file (issue 29, the S3 give-up campaign)."""

from __future__ import annotations

import errno
import json

import fsspec
import pytest

from parquet_core.dataset import commit_markers, transaction
from parquet_core.file.filesystem import FsspecFileSystem, LocalFileSystem


def _memory_fs(tmp_name: str) -> tuple[FsspecFileSystem, str]:
    mem = fsspec.filesystem("memory")
    path = f"/marker-tests/{tmp_name}/m.json"
    mem.pipe(path, json.dumps({"txn": "x"}).encode())
    return FsspecFileSystem(mem), path


def test_a_missing_marker_is_absent(request) -> None:  # type: ignore[no-untyped-def]
    fs, path = _memory_fs(request.node.name)
    assert commit_markers.read_json(fs, path + ".none") is None
    assert transaction._read(fs, path + ".none") is None
    assert commit_markers._size(fs, path + ".none") is None
    assert commit_markers.read_json(fs, path) == {"txn": "x"}


@pytest.mark.parametrize("what", ["read_json", "_read", "_size"])
def test_a_failing_store_is_raised_naming_the_file(request, monkeypatch, what) -> None:  # type: ignore[no-untyped-def]
    fs, path = _memory_fs(request.node.name)

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(errno.EIO, "Service Unavailable")

    monkeypatch.setattr(fs.fs, "cat_file", broken)
    monkeypatch.setattr(fs.fs, "info", broken)
    fn = {"read_json": commit_markers.read_json, "_read": transaction._read, "_size": commit_markers._size}[what]
    with pytest.raises(OSError) as info:
        fn(fs, path)
    assert not isinstance(info.value, FileNotFoundError)
    assert "m.json" in str(info.value)


def test_a_local_read_error_is_raised(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    marker = tmp_path / "m.json"
    marker.write_text('{"txn": "x"}')
    real_open = open

    def failing_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(file) == str(marker):
            raise OSError(errno.EIO, "Input/output error", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", failing_open)
    fs = LocalFileSystem()
    with pytest.raises(OSError, match="m.json"):
        commit_markers.read_json(fs, str(marker))
    with pytest.raises(OSError, match="m.json"):
        transaction._read(fs, str(marker))
    assert commit_markers.read_json(fs, str(tmp_path / "gone.json")) is None
