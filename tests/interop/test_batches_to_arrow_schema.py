"""Batches converted to Arrow share the work of restoring the recorded Arrow schema (issue 32):
``ARROW:schema`` is decoded once per file, not per batch, and the schema every batch gets is
still pyarrow's, field metadata and field ids included, file by file."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc


def _file(meta: dict[bytes, bytes] | None, ids: bool, schema_meta: dict[bytes, bytes] | None) -> bytes:
    fields = [pa.field("a", pa.int32(), metadata=meta), pa.field("b", pa.float64()), pa.field("s", pa.string())]
    if ids:
        fields = [f.with_metadata({**(f.metadata or {}), b"PARQUET:field_id": str(i + 1).encode()})
                  for i, f in enumerate(fields)]
    n = 5_000
    rng = np.random.default_rng(1)
    table = pa.table([pa.array(rng.integers(0, 9, n).astype(np.int32)), pa.array(rng.random(n)),
                      pa.array(np.array(["x", "y"])[rng.integers(0, 2, n)])],
                     schema=pa.schema(fields, metadata=schema_meta))
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def test_each_batch_gets_pyarrows_schema_file_by_file() -> None:
    files = [_file(None, False, None), _file({b"unit": b"m"}, False, None), _file({b"unit": b"s"}, True, None),
             _file({b"unit": b"s"}, True, {b"owner": b"me"}), _file(None, False, None)]
    for data in files:
        want = list(pq.ParquetFile(io.BytesIO(data)).iter_batches(batch_size=1_000))
        got = [b.to_arrow() for b in pc.ParquetFile(data).iter_batches(batch_size=1_000, use_threads=False)]
        assert len(got) == len(want) == 5
        for g, w in zip(got, want):
            assert g.schema.equals(w.schema, check_metadata=True), (g.schema, w.schema)
            assert g.equals(pa.Table.from_batches([w]))


def test_arrow_schema_is_decoded_once_for_all_batches(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    data = _file({b"unit": b"km"}, True, {b"run": b"7"})
    calls = []
    real = pa.ipc.read_schema

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(pa.ipc, "read_schema", spy)
    batches = [b.to_arrow() for b in pc.ParquetFile(data).iter_batches(batch_size=500, use_threads=False)]
    assert len(batches) == 10
    assert len(calls) <= 1
