"""The datasets real Kartothek 5.3 wrote (``SHARED``), what it read back from them, and one
comparable form for rows of either side (shared by the Kartothek and Spark tests)."""

from __future__ import annotations

import base64
import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import pytest

SHARED = Path(os.environ.get("KARTOTHEK_SHARED", Path(__file__).resolve().parents[3] / "shared" / "kartothek"))
if not SHARED.is_dir():
    SHARED = Path("/work/shared/kartothek")


def expected(name: str) -> dict[str, Any]:
    path = SHARED / "expected_reads" / f"{name}.json"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return json.loads(path.read_text())


def canon(value: Any) -> Any:
    """One comparable form for a value from our reader or from the expected JSON."""
    if isinstance(value, dict) and set(value) == {"base64"}:
        return ("bytes", base64.b64decode(value["base64"]))
    if isinstance(value, bytes):
        return ("bytes", value)
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            return ("instant", value.astimezone(dt.timezone.utc).replace(tzinfo=None))
        return ("naive", value)
    if isinstance(value, dt.date):
        return ("date", value)
    if isinstance(value, str):
        for parse in (dt.date.fromisoformat, dt.datetime.fromisoformat):
            try:
                return canon(parse(value))
            except ValueError:
                pass
        return value
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, list):
        return tuple(canon(v) for v in value)
    return value


def canon_rows(rows: list[list[Any]]) -> list[tuple[Any, ...]]:
    return sorted((tuple(canon(v) for v in row) for row in rows), key=repr)


def table_rows(table: Any) -> list[tuple[Any, ...]]:
    d = table.to_pydict()
    rows = list(zip(*[d[c] for c in table.column_names])) if table.column_names else []
    return canon_rows([list(r) for r in rows])


#: The virtualenv real Kartothek 5.3 runs in (tests/kartothek/build_kartothek_venv.sh builds it).
VENV = Path(os.environ.get("KARTOTHEK_VENV", "/tmp/kartothek-venv"))
PY = VENV / "bin" / "python"
SCRIPT = Path(__file__).resolve().parents[1] / "kartothek" / "ktk_venv_script.py"


def run_kartothek(py: Path, job: dict) -> list[dict]:
    """Run one job (reads, appends) of tests/kartothek/ktk_venv_script.py with real Kartothek."""
    import subprocess

    res = subprocess.run([str(py), str(SCRIPT)], input=json.dumps(job).encode(), capture_output=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr.decode()[-2000:]
    return json.loads(res.stdout)


#: Partition values with unescaped slashes, as Kartothek writes them.
SLASHED = {"P": ["a/b", "c", "a/b/c", "/lead", "trail/", "x=y %"],
           "Q": ["q/1", "q2", "q/1", "z", "w/", "v"],
           "v": [1, 2, 3, 4, 5, 6]}


def write_slashed_with_kartothek(py: Path, store: Path) -> None:
    """Kartothek 5.3 writes ``SLASHED`` as dataset ``slashed``, partitioned on P and Q."""
    run_kartothek(py, {"store": str(store), "reads": [],
                       "appends": [{"uuid": "slashed", "rows": SLASHED, "partition_on": ["P", "Q"]}]})
