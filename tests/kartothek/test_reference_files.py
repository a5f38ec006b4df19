"""Data files from many pyarrow versions (Kartothek's reference data) read through a dataset.

Each file becomes the single partition of a dataset whose ``_common_metadata``
holds the normalized schema; the values must equal pyarrow's reading of the
file, ``__index_level_0__`` must be gone, and (ARROW-5166) a predicate on the
uint64 column whose statistics straddle 2**63 must not prune wrongly.
"""

from __future__ import annotations

import json
import shutil

import pytest

pq = pytest.importorskip("pyarrow.parquet")

import parquet_core as pc  # noqa: E402
import parquet_core_integrations.kartothek as ktk  # noqa: E402
from parquet_core_integrations.kartothek.schema import normalized_schema, write_schema  # noqa: E402
from parquet_core_integrations.kartothek.store import LocalStore  # noqa: E402
from tests._support.kartothek import SHARED  # noqa: E402

FILES = sorted((SHARED / "reference-data").glob("*/*.parquet")) if SHARED.is_dir() else []


def _dataset(tmp_path, path):
    store = tmp_path / "store"
    (store / "ref" / "table").mkdir(parents=True)
    shutil.copy(path, store / "ref" / "table" / "p.parquet")
    write_schema(LocalStore(store), "ref", "table", normalized_schema(pc.read_schema(path), []))
    meta = {"dataset_metadata_version": 4, "dataset_uuid": "ref", "metadata": {},
            "partitions": {"p": {"files": {"table": "ref/table/p.parquet"}}}, "partition_keys": []}
    (store / "ref.by-dataset-metadata.json").write_text(json.dumps(meta))
    return store


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_reference_file_reads_like_pyarrow(tmp_path, path):
    store = _dataset(tmp_path, path)
    got = ktk.read_dataset(store, "ref")
    table = pq.read_table(path)
    expected = table.select([c for c in table.column_names if c != "__index_level_0__"]).to_pylist()
    assert "__index_level_0__" not in got.column_names
    assert sorted(got.column_names) == sorted(expected[0])
    assert [{k: r[k] for k in sorted(r)} for r in got.to_pylist()] == [{k: r[k] for k in sorted(r)}
                                                                       for r in expected]


def test_arrow_5166_uint64_statistics_overflow(tmp_path):
    path = SHARED / "reference-data" / "pyarrow-bugs" / "int64_statistics_overflow.parquet"
    if not path.is_file():
        pytest.skip("reference file missing")
    store = _dataset(tmp_path, path)
    values = pq.read_table(path).column("x").to_pylist()
    for op, v in [(">", 2**63), ("<", 2**63), ("==", max(values)), ("==", min(values))]:
        keep = [x for x in values if {"<": x < v, ">": x > v, "==": x == v}[op]]
        got = ktk.read_dataset(store, "ref", predicates=[[("x", op, v)]])
        assert sorted(r["x"] for r in got.to_pylist()) == sorted(keep), (op, v)
