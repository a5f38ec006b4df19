"""A map's entries field in our Arrow capsules is named as in pyarrow's capsule of the table
``pq.read_table`` reads: after the field holding the map (``value`` for a map inside a map),
whatever wrote the file (pyarrow, duckdb, Spark)."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.arrow_c.consume import import_schema


def _names(node, out=None):
    """Every (format, name) of a capsule's schema tree, depth first."""
    out = [] if out is None else out
    out.append((node.format, node.name))
    for child in node.children:
        _names(child, out)
    return out


def _pyarrow_file(tmp_path):
    path = tmp_path / "m.parquet"
    inner = pa.map_(pa.int32(), pa.string())
    pq.write_table(pa.table({
        "m": pa.array([[("a", 1)], None, []], pa.map_(pa.string(), pa.int64())),
        "nested": pa.array([[("x", [(1, "y")])], None, None], pa.map_(pa.string(), inner)),
        "l": pa.array([[[("k", 2.5)]], [], None], pa.list_(pa.map_(pa.string(), pa.float64()))),
    }), path)
    return path


def _duckdb_file(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "duck.parquet"
    duckdb.sql(f"copy (select map(['a', 'b'], [1, 2]) as mm) to '{path}'")
    return path


def _spark_file(tmp_path):
    return os.path.join(os.environ.get("PARQUET_TEST_DATA", "/work/shared/parquet-testing/data"),
                        "nested_maps.snappy.parquet")


@pytest.mark.parametrize("make", [_pyarrow_file, _duckdb_file, _spark_file])
def test_capsule_names_like_pyarrow_read(tmp_path, make):
    path = make(tmp_path)
    if not os.path.exists(path):
        pytest.skip("parquet-testing corpus not found")
    theirs = pq.read_table(path)
    ours = pc.read_table(path)
    want = _names(import_schema(theirs.schema.__arrow_c_schema__()))
    assert _names(import_schema(ours.__arrow_c_schema__())) == want
    assert _names(import_schema(pc.read_schema(path).__arrow_c_schema__())) == want
    # the stream's schema too, and the values pyarrow reads through it
    stream = pa.RecordBatchReader._import_from_c_capsule(ours.__arrow_c_stream__()).read_all()
    assert stream.to_pylist() == theirs.to_pylist()
