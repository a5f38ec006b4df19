"""Reusing ``.ci/run``'s build of the docs site in tests/docs (its ``built_site`` fixture).

``.ci/run`` builds the site just before the tests, from the same checkout, and exports
``PQC_BUILT_SITE`` (the folder) and ``PQC_BUILT_SITE_LOG`` (a folder holding that build's
``rc``, ``stdout`` and ``stderr``).  The build is reused only when it is complete and no
source of the site is newer than it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: what the site is built from: a file here newer than a reused build makes the fixture rebuild
_SOURCES = ("docs", "mkdocs.yml", "README.md", "CHANGELOG.md", "parquet_core", "spark_adapter",
            "parquet_core_integrations")


def _newest_source(root: Path) -> float:
    newest = 0.0
    for name in _SOURCES:
        path = root / name
        if path.is_file():
            newest = max(newest, path.stat().st_mtime)
        elif path.is_dir():
            for d, dirs, files in os.walk(path):
                dirs[:] = [x for x in dirs if x != "__pycache__"]   # bytecode the tests' imports write
                for f in files:
                    if not f.endswith(".pyc"):
                        newest = max(newest, os.stat(os.path.join(d, f)).st_mtime)
    return newest


def reused_build(root: Path) -> tuple[Path, subprocess.CompletedProcess] | None:
    """``.ci/run``'s build of this checkout, when it exported one and it is up to date."""
    site, log = os.environ.get("PQC_BUILT_SITE"), os.environ.get("PQC_BUILT_SITE_LOG")
    if not site or not log:
        return None
    site_dir, log_dir = Path(site), Path(log)
    try:
        rc = int((log_dir / "rc").read_text().strip())
        out, err = (log_dir / "stdout").read_text(), (log_dir / "stderr").read_text()
        built = (log_dir / "rc").stat().st_mtime
    except (OSError, ValueError):
        return None
    if not site_dir.is_dir() or _newest_source(root) > built:
        return None
    args = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)]
    return site_dir, subprocess.CompletedProcess(args, rc, out, err)
