"""What pqcore imports into Spark's Python workers for a first query.

Spark starts a Python worker for ``schema()`` (inference), one for ``partitions()``
(planning) and one per task.  The schema and planning workers need footers and file
listings only, and a ``count()`` (no column) answers from the footers' row counts: none
of them may load the decode stack (pages, codecs, encodings, numpy kernels, Arrow
assembly, the pruning planner).  Each entry point runs in a fresh interpreter that has
imported what Spark's own worker module imports first, so an eager import added anywhere
on the path fails here.  No JVM: the entry points are called as Spark calls them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytest.importorskip("pyspark")

REPO_ROOT = Path(__file__).resolve().parents[2]

#: parquet_core's decode stack and what only data needs (a prefix names a package and its modules)
DECODERS = (
    "parquet_core._kernels", "parquet_core.encodings", "parquet_core.compression",
    "parquet_core.page.reader", "parquet_core.column.reader", "parquet_core.column.data",
    "parquet_core.file.chunk_reader", "parquet_core.file.scan", "parquet_core.file.batches",
    "parquet_core.file.filtered", "parquet_core.file.indexes", "parquet_core.file.pushdown",
    "parquet_core.file.variant_paths", "parquet_core.metadata.statistics", "parquet_core.predicate",
    "parquet_core.table.leaves", "parquet_core.table.assemble", "parquet_core.table.arrays",
    "parquet_core.interop", "parquet_core.dataset.api", "parquet_core.dataset.dataset",
)
#: what neither the schema nor the planning worker of Spark imports by itself
DRIVER_WORKER_EXTRA = ("numpy", "pyarrow", "pandas")


def _run(base: str, code: str, watched: tuple[str, ...]) -> list[str]:
    """Import *base* (Spark's worker module), run *code*, list the *watched* modules it added."""
    probe = (f"import sys\nimport {base}\nbefore = set(sys.modules)\n{code}\nimport json\n"
             f"print(json.dumps(sorted(m for m in set(sys.modules) - before if any(m == h or "
             f"m.startswith(h + '.') for h in {watched!r}))))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                         cwd=str(REPO_ROOT))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("worker_imports")
    for k in ("a", "b"):
        (root / f"k={k}").mkdir()
        pq.write_table(pa.table({"id": pa.array(range(5), pa.int64()), "name": list("vwxyz"),
                                 "tags": pa.array([[1], [], None, [2, 3], [4]], pa.list_(pa.int32()))}),
                       str(root / f"k={k}" / "part-0.parquet"), compression="zstd", row_group_size=2)
    return str(root)


def test_schema_inference_loads_no_decoder(table_dir: str) -> None:
    code = f"""
from spark_adapter.pqcore.datasource import PqcoreDataSource
schema = PqcoreDataSource({{"path": {table_dir!r}}}).schema()
assert schema.fieldNames() == ["id", "name", "tags", "k"], schema
"""
    assert _run("pyspark.sql.worker.create_data_source", code, DECODERS + DRIVER_WORKER_EXTRA) == []


def test_planning_loads_no_decoder(table_dir: str) -> None:
    code = f"""
from pyspark.sql.types import StructType
from spark_adapter.pqcore.datasource import PqcoreDataSource
parts = PqcoreDataSource({{"path": {table_dir!r}}}).reader(StructType([])).partitions()
assert sorted(p for part in parts for p, _, _ in part.pieces)[0].endswith("part-0.parquet")
"""
    # Spark's planning worker has imported pyarrow and numpy itself.  Small files with no
    # filter are planned from their sizes: not even a footer is parsed
    watched = DECODERS + ("pandas", "parquet_core.thrift", "parquet_core.file.reader")
    assert _run("pyspark.sql.worker.plan_data_source_read", code, watched) == []


def _read_code(table_dir: str, fields: str) -> str:
    """Plan a scan of the fields *fields* (Python source of StructFields), pickle its tasks
    as Spark does, then run them as a task's worker does: on fresh copies of the modules."""
    return f"""
import pickle
from pyspark.sql.types import LongType, StringType, StructField, StructType
from spark_adapter.pqcore.datasource import PqcoreDataSource
reader = PqcoreDataSource({{"path": {table_dir!r}}}).reader(StructType([{fields}]))
tasks = pickle.dumps([(reader, part) for part in reader.partitions()])
for m in [m for m in sys.modules if m.startswith(("parquet_core", "spark_adapter"))]:
    del sys.modules[m]        # a task's worker unpickles the reader: a fresh start
before = set(sys.modules)
rows = 0
for reader, part in pickle.loads(tasks):
    for batch in reader.read(part):
        rows += batch.num_rows
assert rows == 10, rows
"""


def test_count_answers_from_footers_without_decoders(table_dir: str) -> None:
    mods = _run("pyspark.worker, pyarrow", _read_code(table_dir, ""), DECODERS + ("pandas",))
    assert mods == []


def test_reading_columns_loads_the_decoders(table_dir: str) -> None:
    """The same probe sees the decoders once a column is read (it would miss nothing)."""
    mods = _run("pyspark.worker, pyarrow", _read_code(table_dir, "StructField('id', LongType()), StructField('k', StringType())"), DECODERS)
    for needed in ("parquet_core.encodings", "parquet_core.file.scan", "parquet_core.compression"):
        assert needed in mods, needed
