"""``pip install parquet-core[spark]`` is all a user needs: the wheel carries the
``pyspark_*`` shims, and an installed copy serves ``format("pqcore")`` and
``format("pqmeta")`` in a new Spark application that never calls ``register``.

The wheel is built from this checkout as pip builds any source tree (in an
isolated build environment, from the package registry), installed into a folder with ``--target``,
and used by a separate Python process (its own JVM) whose ``PYTHONPATH`` is
that folder only, run from another directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    # a copy of the sources, so pip's in-tree build leaves nothing in the checkout
    src = tmp_path_factory.mktemp("src") / "parquet-core"
    shutil.copytree(REPO_ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "benchmarks"))
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
    for module in ("spark_adapter/datasource.py", "spark_adapter/meta.py", "spark_adapter/pushdown.py",
                   "parquet_core/__init__.py", "thrift_defs/parquet.thrift"):
        assert module in names, module
    assert not any(n.startswith("tests/") for n in names)
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
where = spark.range(1).rdd.map(lambda _: __import__("spark_adapter").__file__).collect()[0]
print("RESULT", rows, meta["num_rows"], where.startswith(os.environ["TARGET"]))
spark.stop()
"""


def test_installed_wheel_serves_both_sources_without_register(wheel, tmp_path, corpus):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target),
                    str(wheel)], check=True)
    app = tmp_path / "app.py"
    app.write_text(_APP)
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(target), TARGET=str(target), PYSPARK_PYTHON=sys.executable,
               PYSPARK_DRIVER_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
    proc = subprocess.run([sys.executable, str(app), str(corpus / "alltypes_plain.parquet")], cwd=elsewhere,
                          env=env, capture_output=True, text=True, timeout=600)
    result = [line for line in proc.stdout.splitlines() if line.startswith("RESULT")]
    assert proc.returncode == 0 and result, proc.stderr[-3000:]
    assert result[0].split() == ["RESULT", "8", "8", "True"]
