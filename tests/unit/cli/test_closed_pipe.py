"""``pqc ... | head`` (issue 30, item 5): output into a pipe whose reader has gone ends
every command quietly, with status 141 (128 + SIGPIPE, as ``cat`` or ``yes`` killed by the
pipe) or 0 for a command that writes nothing to standard output, never a traceback.

Each command runs in a subprocess whose standard output is a pipe with its read end
closed before the command starts, so the first write fails for sure (no race with a
reader that stops after some lines); one test reads a line first, as ``head -1`` does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = str(Path(__file__).resolve().parents[3])
ROWS = 150_000   # more than one batch of ``cat`` (65536 rows)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("pipe")
    path = str(folder / "big.parquet")
    table = pa.table({"i": pa.array(range(ROWS), pa.int64()),
                      "s": pa.array([f"v{k % 13:02d}" for k in range(ROWS)])})
    pq.write_table(table, path, row_group_size=50_000, write_page_index=True,
                   bloom_filter_options={"s": True})
    return path


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _run_into_closed_pipe(args: list[str]) -> tuple[int, str]:
    read_end, write_end = os.pipe()
    os.close(read_end)           # nobody will read: every write gets EPIPE
    try:
        done = subprocess.run([sys.executable, "-m", "parquet_core", *args], stdout=write_end,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=_env(), timeout=300)
    finally:
        os.close(write_end)
    return done.returncode, done.stderr.decode(errors="replace")


def _quiet(code: int, err: str, expected: tuple[int, ...] = (141,)) -> None:
    assert "Traceback" not in err and "Exception ignored" not in err and "Error" not in err, err
    assert err == "", err
    assert code in expected, (code, err)


COMMANDS = {
    "schema": ["schema", "{f}"], "schema-json": ["schema", "--json", "{f}"],
    "meta": ["meta", "{f}"], "meta-json": ["meta", "--json", "{f}"],
    "head": ["head", "{f}"], "head-json": ["head", "--json", "-n", "100000", "{f}"],
    "cat": ["cat", "{f}"], "cat-json": ["cat", "--json", "{f}"],
    # a folder: read as a dataset ({d} holds the one file)
    "cat-folder": ["cat", "{d}"], "cat-folder-json": ["cat", "--json", "{d}"],
    "head-folder-json": ["head", "--json", "-n", "100000", "{d}"],
    "inspect": ["inspect", "{f}"], "inspect-sample": ["inspect"],
    "footer": ["footer", "{f}"], "footer-json": ["footer", "--json", "{f}"],
    "pages": ["pages", "{f}"], "pages-json": ["pages", "--json", "{f}"],
    "dictionary": ["dictionary", "{f}"], "column-index": ["column-index", "{f}"],
    "offset-index": ["offset-index", "{f}"], "bloom-filter": ["bloom-filter", "{f}", "--probe", "v01"],
    "size-stats": ["size-stats", "{f}"], "column-size": ["column-size", "{f}"],
    "column-size-json": ["column-size", "--json", "{f}"],
    "check": ["check", "--level", "footer", "{f}", "{f}"], "check-json": ["check", "--json", "--level", "footer", "{f}"],
    "check-list-rules": ["check", "--list-rules"],
    "help": ["--help"], "sub-help": ["cat", "--help"], "version": ["--version"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_output_commands_stop_quietly(data, name):
    code, err = _run_into_closed_pipe([a.format(f=data, d=os.path.dirname(data)) for a in COMMANDS[name]])
    # --help and --version exit through argparse (status 0 when it could print, else ours)
    _quiet(code, err, (0, 141) if name in ("help", "sub-help", "version") else (141,))


@pytest.mark.parametrize("command", ["rewrite", "merge"])
def test_commands_writing_files_succeed_with_stdout_closed(data, tmp_path, command):
    out = str(tmp_path / "out.parquet")
    args = ["rewrite", data, out] if command == "rewrite" else ["merge", data, data, out]
    code, err = _run_into_closed_pipe(args)
    _quiet(code, err, (0,))
    assert pq.read_table(out).num_rows == ROWS * (1 if command == "rewrite" else 2)


def test_cat_into_head_one(data):
    """The case of the issue: the reader takes one line and closes, cat is still writing."""
    proc = subprocess.Popen([sys.executable, "-m", "parquet_core", "cat", data], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=_env())
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode(errors="replace")
    code = proc.wait(timeout=300)
    assert first == b'i=0, s="v00"\n'
    _quiet(code, err)
