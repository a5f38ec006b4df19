"""``use_threads``: column chunks encoded in a thread pool give the sequential path's bytes.

The threaded path encodes every chunk of a row group at offset 0 and moves
it into place afterwards (``ChunkResult.rebase``), so these tests compare
whole files byte for byte against ``use_threads=False`` over every column
type of the writer proof cases, with nulls, several row groups, nested
columns, dictionary fallback, Bloom filters, the page index, data page v2
and checksums; pyarrow then reads the threaded file and its values are
compared with the independently computed expected values.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.errors import ParquetError
from tests.interop.writer_cases import CASES, assert_pyarrow_reads, make_columns, options_for

pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")


@pytest.fixture(autouse=True)
def _several_cpus(monkeypatch):
    # the pool is used only with 2+ CPUs: pretend there are 4, so these tests
    # run the threaded path on any machine
    import parquet_core.file.row_group_writer as fw

    monkeypatch.setattr(fw.os, "cpu_count", lambda: 4)


def test_chunks_are_encoded_in_the_pool(monkeypatch):
    import threading

    import parquet_core.file.row_group_writer as fw

    seen = []
    real = fw.write_column_chunk

    def spy(*a, **k):
        seen.append(threading.current_thread().name)
        return real(*a, **k)

    monkeypatch.setattr(fw, "write_column_chunk", spy)
    table = {f"c{i}": np.arange(50) * i for i in range(6)}
    _write(table, use_threads=True)
    assert len(seen) == 6 and all(name.startswith("pqc-write") for name in seen)
    seen.clear()
    _write(table, use_threads=False)
    assert seen == [threading.main_thread().name] * 6


def _write(data, **options) -> bytes:
    buf = io.BytesIO()
    pc.write_table(data, buf, **options)
    return buf.getvalue()


def _both(data, **options) -> bytes:
    threaded = _write(data, use_threads=True, **options)
    sequential = _write(data, use_threads=False, **options)
    assert threaded == sequential
    return threaded


OPTION_SETS = [
    dict(),
    dict(row_group_size=97, data_page_row_count_limit=13, compression="snappy"),
    dict(use_dictionary=False, data_page_version="2.0", compression="zstd", write_page_checksum=True),
    dict(dictionary_pagesize_limit=64, data_page_size=256, write_page_index=False),
    dict(bloom_filter_options={None: True}, row_group_size=150, write_page_statistics=True),
]


@pytest.mark.parametrize("nulls", [False, True])
@pytest.mark.parametrize("options", OPTION_SETS, ids=range(len(OPTION_SETS)))
def test_every_column_type_same_bytes(tmp_path, nulls, options):
    cases = [c for c in CASES if not c.options]
    table, expected = make_columns(cases, 400, nulls=nulls, seed=len(options))
    data = _both(table, **options_for(cases, **options))
    path = tmp_path / "t.parquet"
    path.write_bytes(data)
    assert_pyarrow_reads(path, cases, expected)


def test_cases_with_their_own_options_same_bytes():
    for case in (c for c in CASES if c.options):
        table, _ = make_columns([case, case], 300, nulls=True, names=["a", "b"])
        _both(table, **options_for([case], row_group_size=120))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(n=st.integers(0, 400), rg=st.integers(1, 200), ncols=st.integers(1, 6), seed=st.integers(0, 999),
       page_rows=st.sampled_from([7, 50, 20_000]), limit=st.sampled_from([40, 1 << 20]))
def test_random_tables_same_bytes_and_pyarrow_reads_them(n, rg, ncols, seed, page_rows, limit):
    rng = np.random.default_rng(seed)
    cols = {}
    for i in range(ncols):
        kind = i % 3
        if kind == 0:
            v = rng.integers(-5, 5 + 10 * i, n)
            cols[f"i{i}"] = pa.array(v, mask=rng.random(n) < 0.2)
        elif kind == 1:
            words = [b"", b"a", b"a\x00", "é".encode(), b"x" * 20]
            cols[f"s{i}"] = pa.array([None if rng.random() < 0.1 else
                                      words[rng.integers(0, 5)] + bytes([rng.integers(0, 3)])
                                      for _ in range(n)], pa.binary())
        else:
            cols[f"l{i}"] = pa.array([None if rng.random() < 0.1 else
                                      list(rng.integers(0, 9, rng.integers(0, 4)))
                                      for _ in range(n)], pa.list_(pa.int64()))
    source = pa.table(cols)
    data = _both(source, row_group_size=rg, data_page_row_count_limit=page_rows,
                 dictionary_pagesize_limit=limit)
    assert pq.read_table(io.BytesIO(data)).equals(source)


def test_threads_with_many_row_groups_write_a_valid_page_index(tmp_path):
    n = 5000
    source = pa.table({"a": np.arange(n) % 17, "b": [f"v{i % 300}" for i in range(n)],
                       "c": np.random.default_rng(1).random(n)})
    path = tmp_path / "x.parquet"
    pc.write_table(source, path, row_group_size=700, data_page_row_count_limit=100, use_threads=True)
    assert path.read_bytes() == _write(source, row_group_size=700, data_page_row_count_limit=100,
                                       use_threads=False)
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == 8
    rg = meta.row_group(3).column(1)
    assert rg.has_offset_index and rg.has_column_index
    # pyarrow checks page locations against the chunk when filtering by page
    assert pq.read_table(path, filters=[("a", "=", 3)]).num_rows == sum(1 for i in range(n) if i % 17 == 3)


def test_first_error_in_column_order_is_raised_with_context(tmp_path):
    schema = pc.schema([pc.field("ok", pc.int64()), pc.field("bad", pc.int64()),
                        pc.field("late", pc.int64())])
    path = tmp_path / "e.parquet"
    with pc.ParquetWriter(path, schema, use_threads=True) as w:
        w.write_table({"ok": [1, 2], "bad": [3, 4], "late": [5, 6]})
        with pytest.raises(ParquetError) as err:
            # the chunks of "bad" and "late" fail (in any thread order): "bad" is reported
            import parquet_core.column.writer as cw

            real = cw.write_column_chunk

            def failing(data, desc, *a, **k):
                if desc.dotted_path in ("bad", "late"):
                    raise pc.errors.ParquetSchemaError(f"boom {desc.dotted_path}")
                return real(data, desc, *a, **k)

            import parquet_core.file.row_group_writer as fw

            fw.write_column_chunk, saved = failing, fw.write_column_chunk
            try:
                w.write_table({"ok": [1], "bad": [3], "late": [5]})
            finally:
                fw.write_column_chunk = saved
    assert "boom bad" in str(err.value) and "bad" in str(err.value)
    assert not path.exists()


def test_encrypted_files_take_the_sequential_path(tmp_path):
    key = b"0123456789012345"
    path = tmp_path / "enc.parquet"
    source = pa.table({"a": np.arange(1000), "b": [f"s{i % 7}" for i in range(1000)]})
    pc.write_table(source, path, encryption=pc.FileEncryptionProperties(footer_key=key),
                   use_threads=True, row_group_size=300)
    props = pc.FileDecryptionProperties(footer_key=key)
    got = pc.read_table(path, decryption=props)
    assert got.to_pydict() == source.to_pydict()
    assert pc.ParquetFile(path, decryption=props).metadata.num_row_groups == 4


def test_use_threads_is_validated():
    with pytest.raises((TypeError, ValueError)):
        _write({"a": [1]}, use_threads="yes please")
