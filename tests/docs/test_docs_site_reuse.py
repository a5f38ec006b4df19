"""tests/docs reuse ``.ci/run``'s build of the site only when it is complete and up to date
(tests/_support/docs_site.py); otherwise the ``built_site`` fixture builds it again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests._support import docs_site


def _ci_build(tmp_path: Path, rc: int = 0) -> tuple[Path, Path, Path]:
    root, site, log = tmp_path / "checkout", tmp_path / "site", tmp_path / "log"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# page\n")
    (root / "parquet_core" / "__pycache__").mkdir(parents=True)
    (root / "parquet_core" / "api.py").write_text("x = 1\n")
    site.mkdir()
    log.mkdir()
    (log / "stdout").write_text("")
    (log / "stderr").write_text("INFO    -  Documentation built\n")
    (log / "rc").write_text(f"{rc}\n")
    old = (log / "rc").stat().st_mtime - 60
    for p in (root / "docs" / "index.md", root / "parquet_core" / "api.py"):
        os.utime(p, (old, old))
    return root, site, log


def test_an_up_to_date_ci_build_is_reused_with_its_outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root, site, log = _ci_build(tmp_path, rc=1)
    monkeypatch.setenv("PQC_BUILT_SITE", str(site))
    monkeypatch.setenv("PQC_BUILT_SITE_LOG", str(log))
    # bytecode written after the build (the tests' own imports) does not make it stale
    (root / "parquet_core" / "__pycache__" / "api.cpython-311.pyc").write_bytes(b"")
    got = docs_site.reused_build(root)
    assert got is not None
    folder, done = got
    assert folder == site and done.returncode == 1 and "Documentation built" in done.stderr


@pytest.mark.parametrize("change", ["source newer", "no rc", "no site", "no variables"])
def test_a_stale_or_incomplete_ci_build_is_not_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change):
    root, site, log = _ci_build(tmp_path)
    monkeypatch.setenv("PQC_BUILT_SITE", str(site))
    monkeypatch.setenv("PQC_BUILT_SITE_LOG", str(log))
    if change == "source newer":
        new = (log / "rc").stat().st_mtime + 60
        os.utime(root / "parquet_core" / "api.py", (new, new))
    elif change == "no rc":
        (log / "rc").unlink()
    elif change == "no site":
        site.rmdir()
    else:
        monkeypatch.delenv("PQC_BUILT_SITE")
    assert docs_site.reused_build(root) is None
