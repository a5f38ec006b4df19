"""Page statistics of dictionary-encoded numeric pages (taken from the page's
values, not from its distinct entries), checked on the written file: every
page header is decoded with the generated Thrift classes and its min/max/
null and NaN counts compared with numpy over the same rows of the input;
pyarrow reads the values back and agrees on the chunk statistics."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest
from thrift.protocol import TCompactProtocol
from thrift.transport import TTransport

import parquet_core as pc
from parquet_core.thrift.generated import ttypes

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROWS, PAGE_ROWS = 5_000, 700
DATA_PAGE, DICTIONARY_PAGE = 0, 2
RLE_DICTIONARY = 8


def _pages(buf: bytes, start: int, end: int) -> list[ttypes.PageHeader]:
    out, pos = [], start
    while pos < end:
        trans = TTransport.TMemoryBuffer(buf[pos:])
        header = ttypes.PageHeader()
        header.read(TCompactProtocol.TCompactProtocol(trans))
        out.append(header)
        pos += trans._buffer.tell() + header.compressed_page_size
    assert pos == end
    return out


def _table() -> pa.Table:
    rng = np.random.default_rng(5)
    small = rng.integers(-4, 5, ROWS)
    floats = small * 0.5
    floats[rng.integers(0, ROWS, 40)] = np.nan
    floats[rng.integers(0, ROWS, 40)] = -0.0
    # pages whose values skip the dictionary's extremes: bounds differ per page
    ramp = (np.arange(ROWS) // 900 + rng.integers(0, 3, ROWS)).astype(np.int64)
    return pa.table({
        "i32": pa.array(small.astype(np.int32)),
        "i64": pa.array(ramp),
        "u32": pa.array((small + 2**31).astype(np.uint32)),   # unsigned order
        "f64": pa.array(floats),
        "f32": pa.array(floats.astype(np.float32)),
    })


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_page_bounds_of_dictionary_encoded_numbers(version: str) -> None:
    table = _table()
    sink = io.BytesIO()
    pc.write_table(table, sink, use_dictionary=True, data_page_row_count_limit=PAGE_ROWS,
                   data_page_version=version, write_page_statistics=True)
    buf = sink.getvalue()
    back = pq.read_table(pa.BufferReader(buf))
    for name in table.column_names:   # bit for bit (NaN and the zero signs included)
        got, want = back.column(name).to_numpy(), table.column(name).to_numpy()
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), name
    md = pq.ParquetFile(pa.BufferReader(buf)).metadata
    for ci, name in enumerate(table.column_names):
        col = md.row_group(0).column(ci)
        start = col.dictionary_page_offset
        headers = _pages(buf, start, start + col.total_compressed_size)
        assert headers[0].type == DICTIONARY_PAGE
        values = table.column(name).to_numpy()
        row = 0
        for h in headers[1:]:
            dph = h.data_page_header or h.data_page_header_v2
            assert dph.encoding == RLE_DICTIONARY, name
            page = values[row:row + dph.num_values]
            row += dph.num_values
            st = dph.statistics
            fmt = {"i32": "<i", "i64": "<q", "u32": "<I", "f64": "<d", "f32": "<f"}[name]
            lo, hi = struct.unpack(fmt, st.min_value)[0], struct.unpack(fmt, st.max_value)[0]
            if page.dtype.kind == "f":
                finite = page[~np.isnan(page)]
                assert st.nan_count == int(np.isnan(page).sum())
                want_lo, want_hi = finite.min(), finite.max()
                if want_lo == 0:        # the spec: a zero minimum is -0.0, a zero maximum +0.0
                    assert np.signbit(lo) and lo == 0
                if want_hi == 0:
                    assert not np.signbit(hi) and hi == 0
                assert (lo, hi) == (want_lo, want_hi), name
            else:
                assert (lo, hi) == (page.min(), page.max()), name
            assert st.null_count == 0
        assert row == ROWS
        stats = col.statistics
        arr = values[~np.isnan(values)] if values.dtype.kind == "f" else values
        assert (stats.min, stats.max) == (arr.min(), arr.max()), name
