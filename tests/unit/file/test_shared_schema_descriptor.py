"""Files whose footers encode the schema in the same bytes share one schema descriptor
(opening a small file is mostly building it); any difference in the schema gives its own."""

from __future__ import annotations

import pickle

import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc


def _write(path, table: pa.Table) -> str:
    pq.write_table(table, str(path))
    return str(path)


def test_same_schema_shares_a_descriptor(tmp_path) -> None:
    a = _write(tmp_path / "a.parquet", pa.table({"x": [1, 2], "s": ["a", "b"]}))
    b = _write(tmp_path / "b.parquet", pa.table({"x": [3, 4, 5], "s": ["c", "d", "e"]}))
    fa, fb = pc.ParquetFile(a), pc.ParquetFile(b)
    assert fa.metadata.schema is fb.metadata.schema
    assert fa.columns.fields == fb.columns.fields and fa.columns.fields is not fb.columns.fields
    assert fb.read().to_arrow().equals(pq.read_table(b))
    assert fa.read().to_arrow().equals(pq.read_table(a))


def test_different_schemas_do_not_share(tmp_path) -> None:
    base = pa.table({"x": pa.array([1, 2], pa.int64())})
    a = _write(tmp_path / "a.parquet", base)
    variants = [
        pa.table({"x": pa.array([1, 2], pa.int32())}),                      # another physical type
        pa.table({"y": pa.array([1, 2], pa.int64())}),                      # another name
        pa.table({"x": pa.array([1, 2], pa.timestamp("ms"))}),              # another logical type
        pa.Table.from_arrays([pa.array([1, 2], pa.int64())],
                             schema=pa.schema([pa.field("x", pa.int64(), nullable=False)])),   # required
        pa.Table.from_arrays([pa.array([1, 2], pa.int64())], schema=pa.schema(
            [pa.field("x", pa.int64(), metadata={b"PARQUET:field_id": b"7"})])),            # a field id
    ]
    da = pc.ParquetFile(a).metadata.schema
    for i, t in enumerate(variants):
        p = _write(tmp_path / f"v{i}.parquet", t)
        pf = pc.ParquetFile(p)
        assert pf.metadata.schema is not da, t.schema
        assert pf.read().to_arrow().equals(pq.read_table(p))


def test_shared_descriptor_pickles(tmp_path) -> None:
    a = _write(tmp_path / "a.parquet", pa.table({"x": [1, 2]}))
    md = pc.ParquetFile(a).metadata
    back = pickle.loads(pickle.dumps(md))
    assert back.schema.column(0).path == ("x",)
    assert pc.read_table(a).to_arrow().equals(pq.read_table(a))
