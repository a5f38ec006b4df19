"""``spark_adapter.build_zip``: what executors without parquet-core import (no Spark here;
the cluster and Connect tests ship it for real)."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile

import pytest

import spark_adapter
from spark_adapter.shipping import PACKAGES, SHIMS, is_connect

# -S: no site, so no .pth file (and no editable install) of this environment is active;
# site-packages is put on the path by hand, behind the zip, for numpy and pyarrow
_IMPORT = r"""
import sys
zip_path, site, parquet = sys.argv[1:4]
sys.path[:0] = [zip_path, site]
import parquet_core as pc, spark_adapter.pqcore.reader, pyspark_pqcore
for mod in (pc, spark_adapter, pyspark_pqcore):
    assert mod.__file__.startswith(zip_path), mod.__file__
    assert mod.__spec__.origin.endswith(".pyc"), mod.__spec__.origin   # compiled, not compiled again
import pyarrow.parquet as pq
assert pc.read_table(parquet).to_arrow().equals(pq.read_table(parquet)), "tables differ"
print("OK", pyspark_pqcore.DefaultSource.name())
"""


@pytest.mark.slow   # compiles the project twice
def test_zip_holds_the_packages_shims_and_pyc(tmp_path):
    path = spark_adapter.build_zip(tmp_path / "pc.zip")
    names = set(zipfile.ZipFile(path).namelist())
    for package in PACKAGES:
        assert f"{package}/__init__.py" in names and f"{package}/__init__.pyc" in names
    for shim in SHIMS:
        assert f"{shim}.py" in names
    assert "parquet_core/_data/sample.parquet" in names
    assert not any("__pycache__" in n for n in names)
    # the same sources give the same bytes (entries carry a fixed time)
    assert spark_adapter.build_zip(tmp_path / "again.zip").read_bytes() == path.read_bytes()


@pytest.mark.slow
def test_an_interpreter_without_parquet_core_imports_it_from_the_zip(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": [1, 2, None], "s": ["x", None, "z"]}), parquet)
    path = spark_adapter.build_zip(tmp_path / "pc.zip")
    site = sysconfig.get_paths()["purelib"]
    proc = subprocess.run([sys.executable, "-S", "-c", _IMPORT, str(path), site, str(parquet)],
                          capture_output=True, text=True, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["OK", "pqcore"]


def test_ship_picks_the_session_kind():
    added = []

    class Context:
        def addPyFile(self, p):  # noqa: N802 (Spark's name)
            added.append(("addPyFile", p))

    class Classic:
        sparkContext = Context()

    Connect = type("SparkSession", (), {"__module__": "pyspark.sql.connect.session",
                                        "addArtifacts": lambda self, p, pyfile: added.append(("addArtifacts", p, pyfile))})
    assert not is_connect(Classic()) and is_connect(Connect())
    spark_adapter.ship(Classic(), "/x.zip")
    spark_adapter.ship(Connect(), "/x.zip")
    assert added == [("addPyFile", "/x.zip"), ("addArtifacts", "/x.zip", True)]
