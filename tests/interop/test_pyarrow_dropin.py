"""pyarrow.parquet-style code, run unchanged against ``pyarrow.parquet`` and ``parquet_core``.

Each test is written as pyarrow's documentation and examples use the module
(``pq``): writing with options, reading with options, ``ParquetFile``,
``iter_batches``, metadata, datasets, filters, sources and sinks, errors.  It
runs once per module and the results are compared with pyarrow's.
"""

from __future__ import annotations

import io
import math
import pathlib

import pytest

import parquet_core

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pac = pytest.importorskip("pyarrow.compute")
pd = pytest.importorskip("pandas")

MODULES = pytest.mark.parametrize("mod", [pq, parquet_core], ids=["pyarrow", "parquet_core"])


def _table():
    return pa.table({
        "n_legs": [2, 2, 4, 4, 5, 100],
        "animal": ["Flamingo", "Parrot", "Dog", "Horse", "Brittle stars", "Centipede"],
        "year": [2020, 2022, 2019, 2021, 2022, 2019],
        "weight": [1.5, 0.4, None, 500.0, float("nan"), 0.01],
    })


def _rows(table):
    """Rows as plain Python, NaN made comparable; our Table and pyarrow's alike."""
    return [{k: ("NaN" if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
            for row in table.to_pylist()]


def _same(got, want):
    assert got.column_names == want.column_names
    assert _rows(got) == _rows(want)


@pytest.fixture
def example(tmp_path):
    path = tmp_path / "example.parquet"
    pq.write_table(_table(), path, row_group_size=2)
    return path


@MODULES
def test_write_table_with_options_reads_back_the_same(mod, tmp_path):
    path = tmp_path / "out.parquet"
    mod.write_table(_table(), path, compression="zstd", compression_level=3, row_group_size=4,
                    use_dictionary=["animal"], write_statistics=True, version="2.6", data_page_size=1024,
                    data_page_version="2.0", use_compliant_nested_type=True, write_batch_size=64,
                    store_schema=True, write_page_checksum=True, sorting_columns=None,
                    encryption_properties=None, store_decimal_as_integer=False)
    _same(pq.read_table(path), _table())
    md = pq.read_metadata(path)
    assert (md.num_rows, md.num_row_groups) == (6, 2)
    assert md.row_group(0).column(0).compression == "ZSTD"


@MODULES
def test_read_table_with_options(mod, example):
    got = mod.read_table(example, columns=["animal", "n_legs"], use_threads=False, memory_map=True,
                         buffer_size=4096, pre_buffer=False, coerce_int96_timestamp_unit=None,
                         thrift_string_size_limit=1 << 20, thrift_container_size_limit=1 << 20,
                         page_checksum_verification=False, arrow_extensions_enabled=True)
    _same(got, _table().select(["animal", "n_legs"]))


@MODULES
@pytest.mark.parametrize("filters", [
    [("n_legs", ">", 2)],
    [[("year", "=", 2019)], [("animal", "in", ["Parrot", "Dog"])]],
    [("animal", "not in", {"Dog"}), ("year", "<=", 2021)],
])
def test_read_table_with_dnf_filters(mod, example, filters):
    _same(mod.read_table(example, filters=filters), pq.read_table(example, filters=filters))


@MODULES
def test_read_table_with_expression_filter(mod, example):
    expr = (pac.field("n_legs") >= 4) & (pac.field("year") != 2021)
    _same(mod.read_table(example, filters=expr), pq.read_table(example, filters=expr))


@MODULES
def test_parquet_file_metadata_and_batches(mod, example):
    pf = mod.ParquetFile(example, memory_map=False, pre_buffer=True)
    ref = pq.ParquetFile(example)
    assert (pf.metadata.num_rows, pf.metadata.num_row_groups, pf.num_row_groups) == \
        (ref.metadata.num_rows, ref.metadata.num_row_groups, ref.num_row_groups)
    assert pf.schema_arrow.names == ref.schema_arrow.names
    stats, want = pf.metadata.row_group(0).column(0).statistics, ref.metadata.row_group(0).column(0).statistics
    assert (stats.min, stats.max, stats.null_count) == (want.min, want.max, want.null_count)
    batches = list(pf.iter_batches(batch_size=4, columns=["animal"]))
    assert [b.num_rows for b in batches] == [b.num_rows for b in ref.iter_batches(batch_size=4, columns=["animal"])]
    assert sum((b.column("animal").to_pylist() for b in batches), []) == _table()["animal"].to_pylist()
    _same(pf.read_row_group(1), ref.read_row_group(1))
    _same(pf.read_row_groups([0, 2], columns=["n_legs"]), ref.read_row_groups([0, 2], columns=["n_legs"]))
    _same(pf.read(columns=["year"]), ref.read(columns=["year"]))


@MODULES
def test_read_metadata_and_schema(mod, example):
    md = mod.read_metadata(example, memory_map=True)
    assert (md.num_rows, md.num_columns, md.num_row_groups) == (6, 4, 3)
    assert mod.read_schema(example).names == pq.read_schema(example).names
    assert mod.read_metadata(where=str(example)).num_rows == 6


@MODULES
def test_parquet_writer_context_manager(mod, tmp_path):
    path = tmp_path / "w.parquet"
    table = _table()
    with mod.ParquetWriter(path, table.schema, compression="snappy", writer_engine_version="V2",
                           use_compliant_nested_type=True) as writer:
        writer.write_table(table.slice(0, 3))
        writer.write_table(table.slice(3))
    _same(pq.read_table(path), table)
    assert pq.ParquetFile(path).num_row_groups == 2


@MODULES
def test_datasets(mod, tmp_path):
    root = tmp_path / "ds"
    mod.write_to_dataset(_table(), root, partition_cols=["year"])
    ref = pq.read_table(root)
    got = mod.read_table(root)
    key = ["animal"]
    assert sorted(map(str, _rows(got.select(["animal", "n_legs"])))) == \
        sorted(map(str, _rows(ref.select(["animal", "n_legs"]))))
    assert sorted(got.column("year").to_pylist()) == sorted(ref.column("year").to_pylist())
    filtered = mod.read_table(root, filters=[("year", ">=", 2021)], columns=key)
    assert sorted(filtered.column("animal").to_pylist()) == ["Brittle stars", "Horse", "Parrot"]
    dataset = mod.ParquetDataset(root, filters=[("year", "=", 2019)], memory_map=False)
    assert sorted(dataset.read(columns=key).column("animal").to_pylist()) == ["Centipede", "Dog"]
    assert len(dataset.files) == len(pq.ParquetDataset(root, filters=[("year", "=", 2019)]).files)


@MODULES
def test_pandas_round_trip(mod, tmp_path):
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None]}, index=pd.Index([7, 8, 9], name="key"))
    path = tmp_path / "pandas.parquet"
    mod.write_table(pa.Table.from_pandas(df), path)
    got = mod.read_pandas(path, columns=["a"]).to_pandas()
    pd.testing.assert_frame_equal(got, pq.read_pandas(path, columns=["a"]).to_pandas())
    mapper = {pa.int64(): pd.Int64Dtype()}.get
    pd.testing.assert_frame_equal(mod.read_table(path).to_pandas(types_mapper=mapper),
                                  pq.read_table(path).to_pandas(types_mapper=mapper))


def _sources(path: pathlib.Path):
    data = path.read_bytes()
    return {
        "str": str(path), "pathlib": path, "bytes": data, "bytearray": bytearray(data),
        "memoryview": memoryview(data), "BytesIO": io.BytesIO(data), "file": open(path, "rb"),
        "BufferReader": pa.BufferReader(data), "py_buffer": pa.py_buffer(data),
        "memory_map": pa.memory_map(str(path)), "OSFile": pa.OSFile(str(path)),
    }


@MODULES
@pytest.mark.parametrize("kind", ["str", "pathlib", "bytes", "bytearray", "memoryview", "BytesIO", "file",
                                  "BufferReader", "py_buffer", "memory_map", "OSFile"])
def test_sources(mod, example, kind):
    def fresh():
        s = _sources(example)[kind]
        # pyarrow takes bytes only wrapped; we take them bare
        return pa.BufferReader(s) if mod is pq and kind in ("bytes", "bytearray", "memoryview") else s

    source = fresh()
    try:
        _same(mod.read_table(source), _table())
        _same(mod.ParquetFile(fresh()).read(), _table())
    finally:
        for s in (source,):
            if hasattr(s, "close"):
                s.close()


@MODULES
@pytest.mark.parametrize("kind", ["BytesIO", "BufferOutputStream"])
def test_sinks(mod, kind):
    sink = io.BytesIO() if kind == "BytesIO" else pa.BufferOutputStream()
    mod.write_table(_table(), sink)
    data = sink.getvalue() if kind == "BytesIO" else sink.getvalue().to_pybytes()
    _same(pq.read_table(pa.BufferReader(data)), _table())


@MODULES
def test_table_methods_on_results(mod, example):
    got, want = mod.read_table(example), pq.read_table(example)
    assert (got.num_rows, got.num_columns, got.shape, got.column_names) == \
        (want.num_rows, want.num_columns, want.shape, want.column_names)
    assert got["animal"].to_pylist() == want["animal"].to_pylist()
    assert got[0].to_pylist() == want[0].to_pylist()
    _same(got.slice(2, 3), want.slice(2, 3))
    _same(got.sort_by([("n_legs", "descending"), ("animal", "ascending")]),
          want.sort_by([("n_legs", "descending"), ("animal", "ascending")]))
    _same(got.take([5, 0]), want.take([5, 0]))
    # pyarrow cuts its batches at its chunks (the row groups) too; ours are contiguous
    batches = got.to_batches(max_chunksize=4)
    assert all(b.num_rows <= 4 for b in batches)
    assert sum((_rows(b) for b in batches), []) == sum((_rows(b) for b in want.to_batches(4)), [])


@MODULES
def test_corrupt_file_is_caught_by_pyarrows_except_clause(mod, example):
    data = bytearray(example.read_bytes())
    data[-8:-4] = b"\xff\xff\xff\x7f"   # an impossible footer length
    with pytest.raises((ValueError, OSError)):
        mod.read_table(pa.BufferReader(bytes(data)))
    with pytest.raises((ValueError, OSError)):
        mod.read_table(pa.BufferReader(b"not a parquet file at all"))


@MODULES
def test_checksum_mismatch_is_an_oserror(mod, tmp_path):
    path = tmp_path / "crc.parquet"
    pq.write_table(pa.table({"a": list(range(100))}), path, write_page_checksum=True,
                   use_dictionary=False, compression="none")
    data = bytearray(path.read_bytes())
    start = pq.read_metadata(path).row_group(0).column(0).data_page_offset
    data[start + 100] ^= 0xFF    # inside the first page's values (its header is ~30 bytes)
    with pytest.raises(OSError, match="(?i)crc"):
        mod.read_table(pa.BufferReader(bytes(data)), page_checksum_verification=True)


@MODULES
def test_positional_arguments_as_pyarrow_orders_them(mod, example):
    pf, ref = mod.ParquetFile(example), pq.ParquetFile(example)
    _same(pf.read(["animal"], True), ref.read(["animal"], True))
    _same(pf.read_row_groups([1], ["year"], False), ref.read_row_groups([1], ["year"], False))
    got = [b.num_rows for b in pf.iter_batches(1, [0, 2], ["animal"])]
    assert got == [b.num_rows for b in ref.iter_batches(1, [0, 2], ["animal"])]
    assert pf.scan_contents(["n_legs"]) == ref.scan_contents(["n_legs"])
    pf.close(force=True)
    ref.close(force=True)
    assert pf.closed and ref.closed


@MODULES
def test_dataset_read_pandas(mod, tmp_path):
    df = pd.DataFrame({"a": [1, 2, 3], "k": ["x", "y", "x"]}, index=pd.Index([7, 8, 9], name="key"))
    root = tmp_path / "pds"
    pq.write_to_dataset(pa.Table.from_pandas(df), root, partition_cols=["k"])
    got = mod.ParquetDataset(root).read_pandas(columns=["a"])
    want = pq.ParquetDataset(root).read_pandas(columns=["a"])
    assert got.column_names == want.column_names
    assert sorted(got.column("key").to_pylist()) == sorted(want.column("key").to_pylist())


@MODULES
def test_writer_add_key_value_metadata(mod, tmp_path):
    path = tmp_path / "kv.parquet"
    table = _table()
    with mod.ParquetWriter(path, table.schema) as writer:
        writer.write_table(table)
        writer.add_key_value_metadata({"origin": "test", b"bytes": b"value"})
    meta = pq.read_metadata(path).metadata
    assert meta[b"origin"] == b"test" and meta[b"bytes"] == b"value"
