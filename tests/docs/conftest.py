"""The built docs site, once per test session (``mkdocs build --strict`` into a temp folder).

``.ci/run`` builds the site (its HTML artefact) just before the tests, from the same
checkout; it exports ``PQC_BUILT_SITE`` (the folder) and ``PQC_BUILT_SITE_LOG`` (a folder
holding that build's ``rc``, ``stdout`` and ``stderr``), and the tests check that build
instead of making a second one (~10 s of CPU).  It is reused only when no source of the
site (docs/, mkdocs.yml, the top-level Markdown files, the documented packages' code) is
newer than it; otherwise, and outside CI, the fixture builds the site itself.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._support.docs_site import reused_build

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """(site folder, the finished ``mkdocs build --strict`` process)."""
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            pytest.skip(f"{module} is not installed (pip install -e '.[dev]')")
    reused = reused_build(ROOT)
    if reused is not None:
        return reused
    site = tmp_path_factory.mktemp("site")
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    return site, done
