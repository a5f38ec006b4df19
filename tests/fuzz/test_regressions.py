"""Every file the fuzzer turned up, read through the same operations as the fuzzer.

Each ``tests/fuzz/regressions/<name>.parquet`` has a ``<name>.json`` beside
it saying what it is (seed, mutation, the bug it found) and, optionally, the
``probe`` the filtered read and Bloom probe use (``column``, ``type``,
``value``).  Each file is read in a child process with the fuzzer's
memory and CPU limits.  The only acceptable outcomes are a completed read and a
``pc.ParquetError``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fuzz.exercise import Probe, probe_of
from tests.fuzz.harness import exercise_isolated

HERE = Path(__file__).parent / "regressions"
FILES = sorted(HERE.glob("*.parquet"))

#: bugs fixed in main by the footer-validation change (remove when merged)
def _probe(path: Path, data: bytes) -> Probe | None:
    side = path.with_suffix(".json")
    if side.is_file():
        p = json.loads(side.read_text()).get("probe")
        if p:
            return Probe(p["column"], p["type"], p["value"])
    return probe_of(data)


def _param(path: Path):  # type: ignore[no-untyped-def]
    return pytest.param(path, id=path.stem)


def test_every_regression_file_has_a_description() -> None:
    assert FILES, "no regression files"
    for f in FILES:
        desc = json.loads(f.with_suffix(".json").read_text())
        assert desc.get("bug"), f"{f.name}: the .json beside it must say which bug it found"


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_regression_file(path: Path) -> None:
    data = path.read_bytes()
    # in a child with the fuzzer's memory and time limits: a regression can be an allocation bomb
    outcome, details = exercise_isolated(str(path), _probe(path, data))
    assert outcome in ("ok", "parquet_error"), (
        f"{path.name}: {outcome} in {details.get('op')}: {details.get('exc_type')}: {details.get('message')}\n"
        f"at {details.get('where')}\n{details.get('traceback', '')}")
