"""Ship parquet-core to executors that do not have it installed.

A cluster image rarely has parquet-core: its executors' Python workers need the
runtime dependencies (numpy, pyarrow, thrift, the codecs) but can import this
project's code from a zip Spark hands them.  :func:`build_zip` writes that zip
(``parquet_core``, ``parquet_core_integrations``, ``spark_adapter`` and the
``pyspark_*`` auto-discovery shims, each module with a hash-checked ``.pyc`` next
to it so no worker compiles the engine again); :func:`ship` adds it to a session:

* classic PySpark: ``spark.sparkContext.addPyFile(zip)`` (driver and executors);
* Spark Connect: ``spark.addArtifacts(zip, pyfile=True)`` (the server's Python
  workers for this session).

Then ``spark_adapter.register(spark)``: the classes are pickled by reference and
imported from the zip where they run.  The same zip works with
``spark-submit --py-files`` (see docs/spark-deployment.md).
"""

from __future__ import annotations

import importlib.util
import io
import os
import py_compile
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

__all__ = ["PACKAGES", "SHIMS", "build_zip", "is_connect", "ship"]

#: the top-level packages the zip holds (those importable where the zip is built)
PACKAGES = ("parquet_core", "parquet_core_integrations", "spark_adapter")
#: the auto-discovery shims (top-level modules)
SHIMS = ("pyspark_pqcore", "pyspark_pqmeta", "pyspark_kartothek")

_FIXED_TIME = (2020, 1, 1, 0, 0, 0)   # entries carry a fixed time: the same sources give the same zip


def _origin(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin)


def _compiled(source: bytes, name: str) -> bytes:
    """A checked-hash ``.pyc`` of *source* (zipimport uses it while the ``.py`` beside it
    hashes the same)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, pyc = Path(tmp) / "m.py", Path(tmp) / "m.pyc"
        src.write_bytes(source)
        py_compile.compile(str(src), cfile=str(pyc), dfile=name, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
        return pyc.read_bytes()


def _add(zf: zipfile.ZipFile, arcname: str, data: bytes, compile_py: bool) -> None:
    zf.writestr(zipfile.ZipInfo(arcname, _FIXED_TIME), data, compress_type=zipfile.ZIP_DEFLATED)
    if compile_py and arcname.endswith(".py"):
        zf.writestr(zipfile.ZipInfo(arcname + "c", _FIXED_TIME), _compiled(data, arcname),
                    compress_type=zipfile.ZIP_DEFLATED)


def build_zip(dest: str | os.PathLike[str] | None = None, *, compile_py: bool = True) -> Path:
    """Write the zip of this project's code (as imported here) to *dest* (a file path; by
    default ``parquet_core-<python>.zip`` in a new temporary folder) and return its path.

    The ``.pyc`` files are for this interpreter's Python version, which Spark requires
    the executors to share with the driver; ``compile_py=False`` leaves them out.
    """
    if dest is None:
        tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
        dest = Path(tempfile.mkdtemp(prefix="parquet-core-ship-")) / f"parquet_core-{tag}.zip"
    dest = Path(dest)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for package in PACKAGES:
            init = _origin(package)
            if init is None:
                if package == "parquet_core_integrations":
                    continue      # optional
                raise ModuleNotFoundError(f"spark_adapter.build_zip: cannot import {package!r} here")
            root = init.parent
            for path in sorted(root.rglob("*")):
                rel = path.relative_to(root.parent)
                if path.is_dir() or "__pycache__" in rel.parts or path.suffix in (".pyc", ".pyo"):
                    continue
                _add(zf, rel.as_posix(), path.read_bytes(), compile_py)
        for shim in SHIMS:
            origin = _origin(shim)
            if origin is not None and origin.suffix == ".py":
                _add(zf, f"{shim}.py", origin.read_bytes(), compile_py)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(buf.getvalue())
    return dest


def is_connect(spark: Any) -> bool:
    """Whether *spark* is a Spark Connect session (``SparkSession.builder.remote(...)``)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def ship(spark: Any, zip_path: str | os.PathLike[str] | None = None) -> Path:
    """Add the zip of this project's code (*zip_path*, or one :func:`build_zip` writes) to
    *spark*'s Python workers and return its path: ``addArtifacts(..., pyfile=True)`` on a
    Spark Connect session, ``sparkContext.addPyFile`` on a classic one.  Call it before
    the first read or write; then :func:`spark_adapter.register`."""
    path = Path(zip_path) if zip_path is not None else build_zip()
    if is_connect(spark):
        spark.addArtifacts(str(path), pyfile=True)
    else:
        spark.sparkContext.addPyFile(str(path))
    return path
