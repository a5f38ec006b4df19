"""The reader's fast paths, in-process (no Spark session): batches without fields carry row
counts from the footers, tasks decode on threads only when cores would be idle, and the
result is the same with and without threads.  Expected values come from pyarrow.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pyspark.sql.types import StructType  # noqa: E402

from spark_adapter.pqcore.datasource import PqcoreDataSource  # noqa: E402
from spark_adapter.pqcore.reader import PqcoreReader, PqcoreScanPartition, conform_batch  # noqa: E402


@pytest.mark.parametrize("rows", [0, 1, 65535, 65536, 65537, 3_000_000])
def test_batch_without_fields_carries_its_row_count(rows):
    batch = conform_batch({}, [], pa.schema([]), rows)
    assert isinstance(batch, pa.RecordBatch)
    assert batch.num_columns == 0 and batch.num_rows == rows
    assert batch.schema.equals(pa.schema([]))


def _write(tmp_path, groups):
    """One file per entry of *groups* (a list of row-group lengths), written by pyarrow."""
    paths = []
    start = 0
    for i, lengths in enumerate(groups):
        path = tmp_path / f"part-{i}.parquet"
        with pq.ParquetWriter(path, pa.schema([("id", pa.int64()), ("s", pa.string())])) as w:
            for n in lengths:
                ids = list(range(start, start + n))
                w.write_table(pa.table({"id": pa.array(ids, pa.int64()),
                                        "s": pa.array([None if j % 3 == 0 else f"v{j % 7}" for j in ids], pa.string())}))
                start += n
        paths.append(str(path))
    return paths


def _read_all(reader):
    return [b for p in reader.partitions() for b in reader.read(p)]


@settings(max_examples=15, deadline=None)
@given(st.lists(st.lists(st.integers(1, 300), min_size=0, max_size=4), min_size=1, max_size=4),
       st.integers(1, 64))
def test_count_without_fields_matches_pyarrow(tmp_path_factory, groups, batch_size):
    tmp = tmp_path_factory.mktemp("nofields")
    paths = _write(tmp, groups)
    expected = sum(pq.ParquetFile(p).metadata.num_rows for p in paths)
    reader = PqcoreReader({"path": str(tmp), "batchsize": str(batch_size)}, StructType([]))
    batches = _read_all(reader)
    assert sum(b.num_rows for b in batches) == expected
    assert all(b.num_columns == 0 for b in batches)
    # one batch per non-empty row group (of fewer than 2**20 rows), whatever the batch size
    assert len([b for b in batches if b.num_rows]) == sum(1 for g in groups for n in g if n)


def _reader(path, **options):
    from pyspark.sql.datasource import CaseInsensitiveDict   # what Spark passes

    ds = PqcoreDataSource(CaseInsensitiveDict({"path": path, **options}))
    return ds.reader(ds.schema())


def test_threads_only_when_cores_would_be_idle(tmp_path, monkeypatch):
    import os

    _write(tmp_path, [[10], [10], [10], [10]])
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    parts = _reader(str(tmp_path)).partitions()
    assert len(parts) == 2 and not any(p.use_threads for p in parts)
    parts = _reader(str(tmp_path), minPartitions="1").partitions()
    assert len(parts) == 1 and parts[0].use_threads
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    parts = _reader(str(tmp_path)).partitions()
    assert len(parts) == 4 and all(p.use_threads for p in parts)


@pytest.mark.parametrize("options", [{}, {"filter": "id >= 5 and id < 700"}])
def test_same_rows_with_and_without_threads(tmp_path, options):
    paths = _write(tmp_path, [[300, 200], [0, 500]])
    expected = pa.concat_tables([pq.read_table(p, use_threads=False) for p in paths])
    if options:
        expected = expected.filter(pa.compute.and_(pa.compute.greater_equal(expected["id"], 5),
                                                   pa.compute.less(expected["id"], 700)))
    reader = _reader(str(tmp_path), batchSize="128", **options)
    got = {}
    for threads in (True, False):
        batches = []
        for p in reader.partitions():
            p.use_threads = threads
            batches.extend(reader.read(p))
        got[threads] = pa.Table.from_batches(batches).sort_by("id")
    assert got[True].equals(got[False])
    assert got[True].column("id").to_pylist() == sorted(expected.column("id").to_pylist())
    assert got[True].sort_by("id").column("s").to_pylist() == expected.sort_by("id").column("s").to_pylist()


def test_partition_pickled_by_an_older_planner_still_reads(tmp_path):
    """A partition without ``use_threads`` (planned before the attribute existed) reads as before."""
    _write(tmp_path, [[50]])
    reader = _reader(str(tmp_path))
    (part,) = reader.partitions()
    old = PqcoreScanPartition(part.index, part.pieces, part.filter_types)
    del old.use_threads
    assert sum(b.num_rows for b in reader.read(old)) == 50


def test_schema_of_first_file_matches_pyarrow(tmp_path):
    from pyspark.sql.types import LongType, StringType

    _write(tmp_path, [[3]])
    schema = PqcoreDataSource({"path": str(tmp_path)}).schema()
    assert [(f.name, type(f.dataType)) for f in schema.fields] == [("id", LongType), ("s", StringType)]
    assert [f.name for f in schema.fields] == pq.read_schema(tmp_path / "part-0.parquet").names


def test_cheapest_column_prefers_the_narrowest_fixed_width_field():
    from pyspark.sql.types import (ArrayType, BooleanType, DoubleType, IntegerType, LongType, StringType,
                                   StructField, TimestampType)

    from spark_adapter.pqcore.narrow import cheapest_column

    def schema(*types):
        return StructType([StructField(f"c{i}", t) for i, t in enumerate(types)])

    assert cheapest_column(schema(StringType(), LongType(), IntegerType(), IntegerType())) == ["c2"]
    assert cheapest_column(schema(DoubleType(), TimestampType(), BooleanType())) == ["c2"]
    assert cheapest_column(schema(LongType(), DoubleType())) == ["c0"]
    assert cheapest_column(schema(StringType(), ArrayType(IntegerType()))) == []
    assert cheapest_column(StructType([])) == []


@pytest.mark.parametrize("limits", [(1 << 20, 64 << 20), (99, 64 << 20), (1 << 20, 1000)])
def test_whole_row_groups_and_streamed_ones_give_the_same_batches(tmp_path, monkeypatch, limits):
    """Small row groups are decoded whole and sliced; a group over either limit streams
    page by page.  Both give pyarrow's rows, in batches of at most batchSize rows."""
    import datetime as dt

    import spark_adapter.pqcore.reader as reader_mod

    monkeypatch.setattr(reader_mod, "_WHOLE_GROUP_ROWS", limits[0])
    monkeypatch.setattr(reader_mod, "_WHOLE_GROUP_BYTES", limits[1])
    n = 1000
    table = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "s": pa.array([None if i % 7 == 0 else f"v{i % 13}" for i in range(n)]),
        "t": pa.array([dt.datetime(2024, 1, 1) + dt.timedelta(microseconds=i * 1001) for i in range(n)],
                      pa.timestamp("ns")),
    })
    path = tmp_path / "f.parquet"
    pq.write_table(table, path, row_group_size=300, data_page_size=512,
                   use_deprecated_int96_timestamps=True)
    import parquet_core as pc

    whole = []
    real = pc.ParquetFile.read_row_group
    monkeypatch.setattr(pc.ParquetFile, "read_row_group", lambda self, i, *a, **k: whole.append(i) or real(self, i, *a, **k))
    reader = _reader(str(tmp_path), batchSize="128")
    batches = [b for p in reader.partitions() for b in reader.read(p)]
    assert max(b.num_rows for b in batches) == 128
    assert whole == ([0, 1, 2, 3] if limits == (1 << 20, 64 << 20) else [])
    got = pa.Table.from_batches(batches)
    expected = pq.read_table(path)
    assert got.column("id").to_pylist() == expected.column("id").to_pylist()
    assert got.column("s").to_pylist() == expected.column("s").to_pylist()
    assert got.column("t").cast(pa.int64()).to_pylist() == \
        expected.column("t").cast(pa.timestamp("us")).cast(pa.int64()).to_pylist()


def _int96_file(tmp_path):
    """INT96 instants with sub-microsecond digits either side of the epoch, repeated (a
    dictionary-encoded chunk) and with nulls; the path and pyarrow's table of it."""
    ns = [-1, -1001, -999_999_999_999, 1_999, 1_700_000_000_123_456_789, None, -5_000_000_000_000_000_001]
    table = pa.table({"t": pa.array(ns * 40, pa.timestamp("ns")), "i": pa.array(range(280), pa.int64())})
    path = tmp_path / "i96.parquet"
    pq.write_table(table, path, use_deprecated_int96_timestamps=True, store_schema=False, data_page_size=256)
    assert "RLE_DICTIONARY" in pq.ParquetFile(path).metadata.row_group(0).column(0).encodings
    return path


@pytest.mark.parametrize("whole", [True, False])
def test_int96_read_as_microseconds_floored(tmp_path, monkeypatch, whole):
    """INT96 columns reach Spark as microseconds rounded toward minus infinity, as Spark's
    reader rounds (pyarrow's coerced read is the oracle: it floors too), whether the row
    group is decoded whole or streamed."""
    import spark_adapter.pqcore.reader as reader_mod

    if not whole:
        monkeypatch.setattr(reader_mod, "_WHOLE_GROUP_ROWS", 10)
    path = _int96_file(tmp_path)
    reader = _reader(str(path), batchSize="100")
    got = pa.Table.from_batches([b for p in reader.partitions() for b in reader.read(p)])
    want = pq.read_table(path, coerce_int96_timestamp_unit="us").column("t")
    assert got.schema.field("t").type.unit == "us"
    assert got.column("t").cast(pa.int64()).to_pylist() == want.cast(pa.int64()).to_pylist()
    assert want.cast(pa.int64()).to_pylist()[:4] == [-1, -2, -1_000_000_000, 1]   # floored, not truncated
