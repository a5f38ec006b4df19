"""mypy, with the project's configuration (pyproject.toml [tool.mypy]), checks the library code.

The package ships ``py.typed``, so its annotations are a promise to its users' type checkers.
Generated Thrift code is excluded in the configuration.  The three packages the configuration
names (``parquet_core``, ``spark_adapter``, ``parquet_core_integrations``) have no type error,
and the test keeps it so: any error, or any note-only failure, fails it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+: error: ")


@pytest.mark.slow
def test_mypy_reports_no_errors() -> None:
    proc = subprocess.run([sys.executable, "-m", "mypy"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr   # 2: mypy itself failed
    errors = [line for line in proc.stdout.splitlines() if _ERROR.match(line)]
    assert not errors, "type errors:\n" + "\n".join(errors)
    assert proc.returncode == 0, proc.stdout     # nothing left over, not even a note-only failure


def test_mypy_checks_the_three_packages() -> None:
    """The configuration still names every package (a narrowed ``files`` would pass vacuously)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert sorted(config["files"]) == ["parquet_core", "parquet_core_integrations", "spark_adapter"]
