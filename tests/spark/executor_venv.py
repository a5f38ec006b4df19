"""Build a venv for executors' Python workers: this interpreter's packages WITHOUT parquet-core.

    python tests/spark/executor_venv.py DEST     # .ci/run: DEST = $SPARK_EXECUTOR_VENV

It stands for a cluster image that has the runtime dependencies (numpy, pyarrow,
thrift, the codecs, pyspark) but not parquet-core, so the cluster and Spark Connect
tests prove that shipped code (``spark_adapter.ship``, ``--py-files``,
``addArtifacts``) is all executors need.  ``python -m venv --without-pip`` on the same
base interpreter (Spark requires driver and workers to share the Python version), then
one symlink per entry of this interpreter's site-packages except parquet-core's own
(its top-level packages, the ``pyspark_*`` shims, its dist-info and editable-install
hooks): no download, under a second.  The result is checked: ``parquet_core`` and
``spark_adapter`` must not import, numpy/pyarrow/thrift/pyspark must.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

#: site-packages entries that belong to parquet-core (matched on the name's start)
OWN = ("parquet_core", "spark_adapter", "pyspark_pqcore", "pyspark_pqmeta", "pyspark_kartothek",
       "__editable__.parquet_core", "__editable___parquet_core", "__pycache__")

_CHECK = r"""
import importlib.util, sys
missing = [m for m in ("numpy", "pyarrow", "thrift", "pyspark", "zstandard") if importlib.util.find_spec(m) is None]
present = [m for m in ("parquet_core", "spark_adapter", "pyspark_pqcore") if importlib.util.find_spec(m) is not None]
assert not missing and not present, (missing, present)
print(sys.prefix)
"""


def _site_dirs() -> list[Path]:
    out: list[Path] = []
    for key in ("purelib", "platlib"):
        p = Path(sysconfig.get_paths()[key])
        if p.is_dir() and p not in out:
            out.append(p)
    return out


def python_of(venv: str | os.PathLike[str]) -> Path:
    return Path(venv) / "bin" / "python"


def build(dest: str | os.PathLike[str]) -> Path:
    """Create (or reuse, when it passes the check) the executor venv at *dest*; return its python."""
    dest = Path(dest)
    py = python_of(dest)
    if py.exists() and check(dest):
        return py
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", "--clear", str(dest)], check=True)
    target = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                 check=True, capture_output=True, text=True).stdout.strip())
    target.mkdir(parents=True, exist_ok=True)
    for site in _site_dirs():
        for entry in sorted(site.iterdir()):
            if entry.name.startswith(OWN) or (target / entry.name).exists():
                continue
            (target / entry.name).symlink_to(entry)
    if not check(dest):
        raise RuntimeError(f"the executor venv {dest} does not pass its check")
    return py


def check(venv: str | os.PathLike[str]) -> bool:
    """Whether *venv* has the dependencies and not parquet-core (from a neutral directory)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    proc = subprocess.run([str(python_of(venv)), "-c", _CHECK], capture_output=True, text=True, env=env, cwd="/")
    return proc.returncode == 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.splitlines()[2].strip())
    print(build(sys.argv[1]))
