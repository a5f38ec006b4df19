"""Opening a file for its footer and schema loads no decoder.

A Spark schema or planning worker, ``pqc schema`` and a ``count()`` ask a file for its
schema and row counts only; the decode stack (pages, codecs, encodings, numpy kernels,
Arrow assembly, the pruning planner) is imported when data is first read.  Each test
runs in a fresh interpreter, so an eager import added anywhere on the path fails it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

REPO_ROOT = Path(__file__).resolve().parents[3]

#: What opening a file for its schema and row counts must not import (a prefix matches
#: the package and its modules).
DECODE_MODULES = (
    "numpy", "pyarrow", "pandas",
    "parquet_core._kernels", "parquet_core.encodings", "parquet_core.compression",
    "parquet_core.page.reader", "parquet_core.column.reader", "parquet_core.column.data",
    "parquet_core.file.chunk_reader", "parquet_core.file.scan", "parquet_core.file.batches",
    "parquet_core.file.filtered", "parquet_core.file.indexes", "parquet_core.file.pushdown",
    "parquet_core.file.bloom_filter_reader", "parquet_core.bloom_filter",
    "parquet_core.file.variant_paths", "parquet_core.metadata.statistics",
    "parquet_core.metadata.geospatial", "parquet_core.predicate", "parquet_core.table.leaves",
    "parquet_core.table.assemble", "parquet_core.table.arrays", "parquet_core.interop",
    "parquet_core.dataset.api", "parquet_core.validation", "parquet_core.file.writer",
)


def loaded(code: str) -> list[str]:
    """The modules of :data:`DECODE_MODULES` that *code* leaves in ``sys.modules`` of a fresh
    interpreter (it runs from the repository root, without this test's imports)."""
    probe = (code + "\nimport json, sys\n"
             f"print(json.dumps(sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.') "
             f"for h in {DECODE_MODULES!r}))))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                         cwd=str(REPO_ROOT))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _file(tmp_path: Path) -> str:
    path = str(tmp_path / "f.parquet")
    table = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", None, "c"],
                      "tags": pa.array([[1], [], None], pa.list_(pa.int32())),
                      "point": pa.array([{"x": 1.0}, None, {"x": 3.0}], pa.struct([("x", pa.float64())]))})
    pq.write_table(table, path, compression="zstd", row_group_size=2)
    return path


def test_schema_and_row_counts_load_no_decoder(tmp_path: Path) -> None:
    path = _file(tmp_path)
    code = f"""
import parquet_core as pc
with pc.ParquetFile({path!r}) as pf:
    assert pf.schema_arrow.names == ["id", "name", "tags", "point"], pf.schema_arrow.names
    assert [pf.metadata.row_group(i).num_rows for i in range(pf.num_row_groups)] == [2, 1]
    assert pf.metadata.num_rows == 3 and len(pf.schema) == 4
"""
    assert loaded(code) == []


def test_reading_data_still_loads_the_decoders_on_first_use(tmp_path: Path) -> None:
    """The deferred imports happen when data is decoded: the same file reads as pyarrow reads it."""
    path = _file(tmp_path)
    code = f"""
import parquet_core as pc, pyarrow.parquet as pq
with pc.ParquetFile({path!r}) as pf:
    assert pf.read().to_arrow().equals(pq.read_table({path!r})), "differs from pyarrow"
    assert sum(b.num_rows for b in pf.iter_batches(batch_size=1, columns=["tags"])) == 3
    assert pf.read(filters=[("id", ">", 1)]).column("id").to_pylist() == [2, 3]
"""
    mods = loaded(code)
    for needed in ("parquet_core.encodings", "parquet_core.file.scan", "parquet_core.file.batches",
                   "parquet_core.file.pushdown", "numpy"):
        assert needed in mods, needed


def test_reading_without_bloom_filters_loads_no_bloom_filter_code(tmp_path: Path) -> None:
    """Bloom filters (their reader, xxHash) load when a filter asks one, not for every read."""
    path = _file(tmp_path)
    code = f"""
import parquet_core as pc
with pc.ParquetFile({path!r}) as pf:
    assert pf.read().column("id").to_pylist() == [1, 2, 3]
"""
    mods = loaded(code)
    assert "parquet_core.encodings" in mods
    assert [m for m in mods if "bloom" in m] == []
