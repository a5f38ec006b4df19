"""The import-linter contracts in pyproject.toml hold: imports flow downward,
and the core never imports pyarrow, pandas, pyspark or the adapter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts() -> None:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(exe).exists():
        pytest.fail("import-linter is a dev dependency; install .[dev]")
    proc = subprocess.run([exe, "--config", str(ROOT / "pyproject.toml")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_import_is_light() -> None:
    """Importing the facade pulls in no codec backend, crypto or oracle library."""
    code = ("import sys, parquet_core; bad = [m for m in ('pyarrow', 'pandas', 'zstandard', "
            "'brotli', 'snappy', 'lz4', 'cryptography', 'pyspark') if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
