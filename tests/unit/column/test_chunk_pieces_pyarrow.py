"""iter_chunk_pieces against read_column_chunk on pyarrow-written files.

Random tables (nulls, strings of mixed lengths, small pages, dictionary on
and off with fallback, data page v1 and v2, several codecs) are written by
pyarrow; every column chunk is decoded whole and page by page, and the
concatenated pieces must equal the whole-chunk result, which must equal
pyarrow's values.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.reader import iter_chunk_pieces, read_column_chunk
from parquet_core.file.reader import ParquetFile
from parquet_core.page.reader import iter_pages

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _values_list(values):
    if isinstance(values, ByteArrays):
        return values.to_pylist()
    return np.asarray(values).tolist()


def _levels(data, desc):
    if data.def_levels is not None or not desc.max_definition_level:
        return None if data.def_levels is None else data.def_levels.tolist()
    return [desc.max_definition_level] * data.num_levels


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(0, 3000),
       version=st.sampled_from(["1.0", "2.0"]), codec=st.sampled_from(["none", "snappy", "zstd", "gzip"]),
       dictionary=st.booleans(), batch=st.sampled_from([64, 500, 1024]),
       dict_limit=st.sampled_from([64, 1 << 20]), min_levels=st.sampled_from([1, 100, 1000, 1 << 20]))
def test_pieces_concatenate_to_the_chunk(seed, rows, version, codec, dictionary, batch, dict_limit,
                                         min_levels) -> None:
    """Pieces of one page each (min_levels=1) or of several pages (the runs of pages that
    reach min_levels) concatenate to the chunk."""
    rng = np.random.default_rng(seed)
    nulls = rng.random(rows) < rng.random()
    ints = pa.array(rng.integers(0, 50, rows), mask=nulls)
    words = np.array(["", "a", "bb", "ccc", "a longer value", "x" * 40])
    strs = pa.array(words[rng.integers(0, len(words), rows)].tolist(), mask=rng.random(rows) < 0.2)
    uniq = pa.array([f"u{i}" * (i % 5) for i in range(rows)])
    table = pa.table({"i": ints, "s": strs, "u": uniq, "d": pa.array(rng.normal(size=rows))})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression=codec, use_dictionary=dictionary, data_page_version=version,
                   write_batch_size=batch, data_page_size=1, dictionary_pagesize_limit=dict_limit,
                   row_group_size=max(1, rows // 2 or 1))
    raw = sink.getvalue()
    f = ParquetFile(io.BytesIO(raw))
    for rg in range(f.metadata.num_row_groups):
        for ci in range(f.metadata.num_columns):
            chunk = f.metadata.row_group(rg).column(ci)
            desc = f.metadata.schema.column(ci)
            start, length = chunk.byte_range(len(raw))
            buf = memoryview(raw)[start:start + length]
            whole = read_column_chunk(iter_pages(buf, chunk.codec_id, chunk.num_values), desc)
            pieces = list(iter_chunk_pieces(iter_pages(buf, chunk.codec_id, chunk.num_values), desc,
                                            min_levels=min_levels))
            assert sum(p.num_levels for p in pieces) == whole.num_levels == chunk.num_values
            assert all(p.num_levels >= min_levels for p in pieces[:-1])
            # with the dictionary kept, each piece's dictionary and indices give its values
            kept = list(iter_chunk_pieces(iter_pages(buf, chunk.codec_id, chunk.num_values), desc,
                                          keep_dictionary=True, min_levels=min_levels))
            assert [p.num_levels for p in kept] == [p.num_levels for p in pieces]
            for k, p in zip(kept, pieces):
                (d,) = k.dictionaries
                vals = d.values.take(d.indices) if isinstance(d.values, ByteArrays) else np.asarray(d.values)[d.indices]
                assert _values_list(vals) == _values_list(p.values) == _values_list(k.values)
            assert [v for p in pieces for v in _values_list(p.values)] == _values_list(whole.values)
            expect_levels = _levels(whole, desc)
            got_levels = [lv for p in pieces for lv in (_levels(p, desc) or [])]
            assert got_levels == (expect_levels or [])
            # and the chunk is pyarrow's column, row group rg
            col = pq.ParquetFile(io.BytesIO(raw)).read_row_group(rg, columns=[desc.path[0]]).column(0)
            present = [v for v in col.to_pylist() if v is not None]
            got = _values_list(whole.values)
            if isinstance(whole.values, ByteArrays):
                got = [v.decode() for v in got]
            assert got == present
