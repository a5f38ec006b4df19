"""``pip install parquet-core[spark]`` is all a user needs: an installed copy serves
``format("pqcore")``, ``format("pqmeta")`` and ``format("kartothek")`` in a new Spark
application that never calls ``register``, run from another directory, in the driver and
in the executors' Python workers.

Spark lists ``pyspark_*`` modules with ``pkgutil.iter_modules`` on the worker's
``sys.path``.  A wheel carries the shims as files; an editable install gets them from
the project's build backend (``build_backend/parquet_core_build.py``), because
setuptools' editable import hook cannot be listed.  Covered here:

* the wheel's top-level names: only the project's own (``parquet_core``,
  ``parquet_core_integrations``, ``spark_adapter``, the shims), each importable from
  outside the checkout;
* the wheel installed with ``--target`` and used through ``PYTHONPATH``;
* the README's ``pip install -e .`` (with the ``spark`` extra) in a fresh venv;
* ``pip install --user`` of the wheel (a user site needs a venv that sees system
  site-packages, so the same venv is switched to that after the editable test);
* the environment running these tests, when it is an editable install of this
  checkout (``.ci/run``'s ``pip install -e ".[dev]"``).

Every build and install works from a copy of the sources (pip's in-tree build leaves
nothing in the checkout) and from the package registry and pip's wheel cache only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.spark import deploy

pytestmark = pytest.mark.spark

REPO_ROOT = Path(__file__).resolve().parents[2]
SHIMS = ("pyspark_kartothek", "pyspark_pqcore", "pyspark_pqmeta")
#: Everything an install puts at the top of site-packages.
TOP_LEVEL = ("parquet_core", "parquet_core_integrations", "spark_adapter") + tuple(s + ".py" for s in SHIMS)

# Imports what an install provides, from a directory outside the checkout, and reads a file.
_IMPORTS = r"""
import importlib.util, os, sys
import parquet_core as pc
import parquet_core_integrations.kartothek, parquet_core_integrations.xskipper
import spark_adapter
from parquet_core.thrift import pt
target = os.environ["TARGET"]
for mod in (pc, parquet_core_integrations.kartothek, parquet_core_integrations.xskipper, spark_adapter,
            sys.modules[pt.__name__]):
    assert mod.__file__.startswith(target), (mod.__name__, mod.__file__)
assert pt.__name__ == "parquet_core.thrift.generated.ttypes", pt.__name__
if os.environ.get("CLEAN") == "1":   # a fresh environment: the old generic names resolve to nothing
    assert importlib.util.find_spec("integrations") is None
    assert importlib.util.find_spec("thrift_defs") is None
print("IMPORTS", pc.read_table(sys.argv[1]).num_rows)
"""


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory):
    """A copy of the sources, so pip's in-tree builds leave nothing in the checkout."""
    src = tmp_path_factory.mktemp("src") / "parquet-core"
    shutil.copytree(REPO_ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "benchmarks"))
    return src


@pytest.fixture(scope="module")
def wheel(tmp_path_factory, source_copy):
    out = tmp_path_factory.mktemp("wheel")
    src = source_copy
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(src)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{proc.stdout}\n{proc.stderr}")
    (whl,) = out.glob("parquet_core-*.whl")
    return whl


def test_wheel_holds_the_shims_and_the_spark_extra(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    for shim in ("pyspark_pqcore.py", "pyspark_pqmeta.py", "pyspark_kartothek.py"):
        assert shim in names
    for module in ("spark_adapter/pqcore/datasource.py", "spark_adapter/pqmeta/datasource.py",
                   "spark_adapter/kartothek/datasource.py", "spark_adapter/core/pushdown.py",
                   "parquet_core/__init__.py", "parquet_core/thrift/generated/ttypes.py",
                   "parquet_core_integrations/kartothek/__init__.py",
                   "parquet_core_integrations/xskipper/__init__.py"):
        assert module in names, module
    # one namespace: no generic top-level name (integrations, thrift_defs, tests...) on users' sys.path
    top = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert top == set(TOP_LEVEL), top
    assert "Provides-Extra: spark" in meta
    assert any(line.startswith("Requires-Dist: pyspark") and 'extra == "spark"' in line
               for line in meta.splitlines())


_APP = r"""
import os, sys
from pyspark.sql import SparkSession
import spark_adapter
assert spark_adapter.__file__.startswith(os.environ["TARGET"]), spark_adapter.__file__
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.driver.host", "127.0.0.1").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
path = sys.argv[1]
rows = spark.read.format("pqcore").load(path).count()
meta = spark.read.format("pqmeta").option("level", "file").load(path).collect()[0]
try:   # no dataset there: the source must be found and then complain about the dataset
    spark.read.format("kartothek").option("dataset_uuid", "none").load(os.getcwd()).count()
    ktk = "read"
except Exception as exc:
    ktk = "not-found" if "DATA_SOURCE_NOT_FOUND" in str(exc) else "found"
where = spark.range(1).rdd.map(lambda _: __import__("spark_adapter").__file__).collect()[0]
print("RESULT", rows, meta["num_rows"], ktk, where.startswith(os.environ["TARGET"]))
spark.stop()
"""


def _run_elsewhere(python, source, name, env, tmp_path, corpus, timeout):
    """Run the script *source* with *python* and *env* from a fresh directory (not the
    checkout), on the corpus file alltypes_plain.parquet."""
    script = tmp_path / f"{name}.py"
    script.write_text(source)
    elsewhere = tmp_path / f"cwd-{name}"
    elsewhere.mkdir(exist_ok=True)
    return subprocess.run([str(python), str(script), str(corpus / "alltypes_plain.parquet")], cwd=elsewhere,
                          env=env, capture_output=True, text=True, timeout=timeout)


def _install_wheel(wheel, target):
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target),
                    str(wheel)], check=True)


def _run_imports(python, env, tmp_path, corpus):
    proc = _run_elsewhere(python, _IMPORTS, "imports", env, tmp_path, corpus, 300)
    assert proc.returncode == 0 and "IMPORTS 8" in proc.stdout, proc.stderr[-3000:]


def test_installed_wheel_imports_under_its_own_names(wheel, tmp_path, corpus):
    """The wheel's packages import from an install outside the checkout; the install
    holds no top-level name but the project's own."""
    target = tmp_path / "site"
    _install_wheel(wheel, target)
    installed = {p.name for p in target.iterdir()
                 if not p.name.endswith(".dist-info") and p.name not in ("bin", "__pycache__")}
    assert installed == set(TOP_LEVEL), installed
    _run_imports(sys.executable, _clean_env(PYTHONPATH=str(target), TARGET=str(target)), tmp_path, corpus)


def test_installed_wheel_serves_both_sources_without_register(wheel, tmp_path, corpus):
    target = tmp_path / "site"
    _install_wheel(wheel, target)
    env = _clean_env(PYTHONPATH=str(target), TARGET=str(target), PYSPARK_PYTHON=sys.executable,
                     PYSPARK_DRIVER_PYTHON=sys.executable)
    _run_app(sys.executable, env, tmp_path, corpus)


def _run_app(python, env, tmp_path, corpus):
    """Run ``_APP`` with *python* and *env* from a fresh directory; check it used the install.
    Its JVM gets the deployment tests' options (C1 only, serial GC: CPU, not behaviour)."""
    env = dict(env, SPARK_CONF_DIR=str(deploy.CONF_DIR))
    proc = _run_elsewhere(python, _APP, "app", env, tmp_path, corpus, 600)
    result = [line for line in proc.stdout.splitlines() if line.startswith("RESULT")]
    assert proc.returncode == 0 and result, proc.stderr[-3000:]
    assert result[0].split() == ["RESULT", "8", "8", "found", "True"]


def _clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONUSERBASE", "PYTHONNOUSERSITE")}
    env.update(SPARK_LOCAL_IP="127.0.0.1", **extra)
    return env


def test_shim_list_matches_the_project_modules():
    """The build backend copies every top-level ``pyspark_*.py``; pyproject installs the same set."""
    sys.path.insert(0, str(REPO_ROOT / "build_backend"))
    try:
        import parquet_core_build
    finally:
        sys.path.pop(0)
    text = (REPO_ROOT / "pyproject.toml").read_text()
    assert 'build-backend = "parquet_core_build"' in text and 'backend-path = ["build_backend"]' in text
    declared = text.split("py-modules = [", 1)[1].split("]", 1)[0]
    assert sorted(m.strip().strip('"') for m in declared.split(",")) == list(SHIMS)
    assert parquet_core_build.shim_files(str(REPO_ROOT)) == [m + ".py" for m in SHIMS]


def test_sdist_carries_the_build_backend(source_copy, tmp_path):
    """pyproject's ``backend-path`` must be in the sdist, or nothing builds from it."""
    import tarfile

    code = ("import sys; sys.path.insert(0, 'build_backend'); import parquet_core_build as b; "
            f"print(b.build_sdist({str(tmp_path)!r}))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=source_copy, capture_output=True, text=True,
                          env=_clean_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    with tarfile.open(tmp_path / proc.stdout.strip().splitlines()[-1]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"build_backend/parquet_core_build.py", "pyproject.toml", "pyspark_pqcore.py",
            "thrift_defs/parquet.thrift", "parquet_core/thrift/generated/ttypes.py"} <= names


def test_this_environment_lists_the_shims_outside_the_checkout(tmp_path):
    """When the Python running the tests has this checkout installed (``.ci/run``:
    ``pip install -e ".[dev]"``), Spark's lookup lists and imports all three shims from any
    directory, without ``PYTHONPATH``."""
    from importlib import metadata

    # an ``*.egg-info`` left in the checkout by the build is found first on ``sys.path``
    # (pytest puts the checkout there); the installed distribution is the one with a
    # direct_url.json
    urls = [d.read_text("direct_url.json") for d in metadata.distributions(name="parquet-core")]
    if not urls:
        pytest.skip("parquet-core is not installed in this environment")
    direct = next((u for u in urls if u), "")
    if REPO_ROOT.as_uri() not in direct:
        pytest.skip(f"the installed parquet-core is not this checkout ({direct.strip()[:200]})")
    code = ("import importlib, pkgutil, sys\n"
            "names = sorted(m.name for m in pkgutil.iter_modules() if m.name.startswith('pyspark_'))\n"
            "print(names)\n"
            "print([importlib.import_module(n).DefaultSource.name() for n in names])\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_clean_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    names, sources = proc.stdout.splitlines()
    assert names == str(list(SHIMS))
    assert sources == str(["kartothek", "pqcore", "pqmeta"])


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory, source_copy):
    """A new venv with the README's editable install of a copy of the checkout, with the
    ``spark`` extra (dependencies from the package registry and pip's cache)."""
    venv = tmp_path_factory.mktemp("venv") / "v"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    proc = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-e", f"{source_copy}[spark]"],
                          cwd=source_copy, env=_clean_env(), capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        pytest.fail(f"pip install -e failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return python


@pytest.mark.slow
def test_editable_install_serves_the_sources_without_register(fresh_venv, source_copy, tmp_path, corpus):
    env = _clean_env(TARGET=str(source_copy), PYSPARK_PYTHON=str(fresh_venv),
                     PYSPARK_DRIVER_PYTHON=str(fresh_venv))
    _run_imports(fresh_venv, dict(env, CLEAN="1"), tmp_path, corpus)
    _run_app(fresh_venv, env, tmp_path, corpus)


@pytest.mark.slow
def test_user_install_serves_the_sources_without_register(fresh_venv, wheel, tmp_path, corpus):
    """``pip install --user``: the user site of a venv exists only when the venv sees
    system site-packages, so the fresh venv is switched to that and the editable install
    removed first."""
    python = fresh_venv
    subprocess.run([str(python), "-m", "pip", "uninstall", "--quiet", "-y", "parquet-core"], check=True,
                   env=_clean_env())
    cfg = python.parent.parent / "pyvenv.cfg"
    cfg.write_text(cfg.read_text().replace("include-system-site-packages = false",
                                           "include-system-site-packages = true"))
    userbase = tmp_path / "userbase"
    env = _clean_env(PYTHONUSERBASE=str(userbase))
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--user", "--no-deps", str(wheel)],
                   check=True, env=env, cwd=tmp_path)
    site = subprocess.run([str(python), "-c", "import site; print(site.getusersitepackages())"], env=env,
                          capture_output=True, text=True, check=True).stdout.strip()
    assert site.startswith(str(userbase)) and (Path(site) / "pyspark_pqcore.py").is_file()
    env.update(TARGET=site, PYSPARK_PYTHON=str(python), PYSPARK_DRIVER_PYTHON=str(python))
    _run_app(python, env, tmp_path, corpus)
