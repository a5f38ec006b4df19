"""The hostile-size files (``tests/fuzz/memory_regressions/``), read through the fuzzer's
operations in a child with its memory (2 GiB address space) and CPU limits, as
``test_regressions.py`` reads ``regressions/``: the only acceptable outcomes are a
completed read and a ``pc.ParquetError``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fuzz.harness import exercise_isolated

HERE = Path(__file__).parent / "memory_regressions"
FILES = sorted(HERE.glob("*.parquet"))


def test_every_file_says_what_it_found():
    assert FILES, "no memory regression files"
    for f in FILES:
        assert json.loads(f.with_suffix(".json").read_text()).get("bug"), f.name


def _param(path: Path):  # type: ignore[no-untyped-def]
    # a page that really inflates to 2 GiB is decompressed up to the child's 2 GiB limit by
    # every operation of the fuzzer (zstd: about 35 s in all): a slow test
    marks = [pytest.mark.slow] if "inflates-to-2gib" in path.stem else []
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_memory_regression_file(path: Path) -> None:
    outcome, details = exercise_isolated(str(path), None, timeout=60.0)
    assert outcome in ("ok", "parquet_error"), (
        f"{path.name}: {outcome} in {details.get('op')}: {details.get('exc_type')}: {details.get('message')}\n"
        f"at {details.get('where')}\n{details.get('traceback', '')}")
