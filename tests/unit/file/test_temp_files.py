"""Temporary files of abandoned writes are removed, and only when nobody owns them.

The rule (``parquet_core.file.sink``): a temp file is named after the host and
process that write it; commit/abort remove it, garbage collection and normal
interpreter exit remove it, and after a ``SIGKILL`` the next write to the same
target removes the temp files of dead processes on this host, never those of a
live process or of another host.
"""

from __future__ import annotations

import gc
import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import parquet_core as pc
from parquet_core.file.sink import TEMP_SUFFIX, _host_tag, remove_stale_temp_files  # noqa

REPO = Path(__file__).resolve().parents[3]
SCHEMA = pc.schema([pc.field("id", pc.int64(), nullable=False), pc.field("name", pc.string())])


def _rows(start: int, n: int) -> dict:
    return {"id": list(range(start, start + n)), "name": ["x" * 40] * n}


def _temps(directory: Path) -> list[str]:
    return sorted(f for f in os.listdir(directory) if f.endswith(TEMP_SUFFIX))


def _dead_pid() -> int:
    """A process id that certainly belonged to a process that has exited."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _run(script: str, **fmt: object) -> subprocess.CompletedProcess:
    code = textwrap.dedent(script).format(repo=str(REPO), **fmt)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


_WRITE_THEN = """
    import os, signal, sys
    sys.path.insert(0, {repo!r})
    import parquet_core as pc
    schema = pc.schema([pc.field("id", pc.int64(), nullable=False), pc.field("name", pc.string())])
    w = pc.ParquetWriter({target!r}, schema, row_group_size=500)
    for k in range(4):
        w.write_table({{"id": list(range(k * 1000, (k + 1) * 1000)), "name": ["x" * 40] * 1000}})
    {ending}
"""


def test_temp_name_records_host_and_process(tmp_path):
    w = pc.ParquetWriter(tmp_path / "t.parquet", SCHEMA)
    try:
        (name,) = _temps(tmp_path)
        assert name.startswith(f".t.parquet.{_host_tag()}.{os.getpid()}.")
    finally:
        w.abort()
    assert _temps(tmp_path) == []


def test_garbage_collected_writer_removes_its_temp_file(tmp_path):
    w = pc.ParquetWriter(tmp_path / "gc.parquet", SCHEMA)
    w.write_table(_rows(0, 100))
    assert len(_temps(tmp_path)) == 1
    del w
    gc.collect()
    assert os.listdir(tmp_path) == []


def test_unclosed_writer_at_interpreter_exit_leaves_nothing(tmp_path):
    target = tmp_path / "exit.parquet"
    proc = _run(_WRITE_THEN, target=str(target), ending="sys.exit(0)   # never closed")
    assert proc.returncode == 0, proc.stderr
    assert os.listdir(tmp_path) == []


def test_interrupted_write_leaves_nothing(tmp_path):
    def batches():
        yield _rows(0, 10)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        with pc.ParquetWriter(tmp_path / "int.parquet", SCHEMA) as w:
            for b in batches():
                w.write_table(b)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
def test_next_write_removes_temp_file_of_killed_writer(tmp_path, existing):
    target = tmp_path / "k.parquet"
    if existing:
        pc.write_table(_rows(7, 3), target)
    proc = _run(_WRITE_THEN, target=str(target), ending="os.kill(os.getpid(), signal.SIGKILL)")
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    (left,) = _temps(tmp_path)
    assert f".{os.getpid()}." not in left
    pc.write_table(_rows(100, 5), target)
    assert _temps(tmp_path) == []
    assert pc.read_table(target).column("id").to_pylist() == list(range(100, 105))


def test_live_writer_temp_file_is_never_removed(tmp_path):
    """A second process writing the same target must not delete the first one's file."""
    target = tmp_path / "live.parquet"
    code = textwrap.dedent(_WRITE_THEN).format(
        repo=str(REPO), target=str(target),
        ending="print('ready', flush=True); sys.stdin.readline(); w.close(); print('closed', flush=True)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        (theirs,) = _temps(tmp_path)
        pc.write_table(_rows(0, 3), target)            # sweeps, but the owner is alive
        assert _temps(tmp_path) == [theirs]
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "closed"
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0
    assert _temps(tmp_path) == []
    assert pc.read_table(target).num_rows == 4000      # the live writer's commit won


def test_sweep_touches_only_dead_writers_of_this_target_on_this_host(tmp_path):
    dead, host = _dead_pid(), _host_tag()
    names = {
        f".t.parquet.{host}.{dead}.abc123{TEMP_SUFFIX}": False,        # stale: removed
        f".t.parquet.{host}.{os.getpid()}.abc123{TEMP_SUFFIX}": True,  # this live process
        f".t.parquet.otherhost.{dead}.abc123{TEMP_SUFFIX}": True,      # another host's
        f".u.parquet.{host}.{dead}.abc123{TEMP_SUFFIX}": True,         # another target
        f".t.parquet.abc123{TEMP_SUFFIX}": True,                       # old-style name: unknown owner
        "t.parquet": True,
    }
    for n in names:
        (tmp_path / n).write_bytes(b"x")
    removed = remove_stale_temp_files(str(tmp_path), "t.parquet")
    assert [os.path.basename(p) for p in removed] == [n for n, keep in names.items() if not keep]
    assert sorted(os.listdir(tmp_path)) == sorted(n for n, keep in names.items() if keep)


def test_host_tag_has_no_separator():
    assert _host_tag() and "." not in _host_tag()
    if socket.gethostname().isalnum():
        assert _host_tag() == socket.gethostname()
