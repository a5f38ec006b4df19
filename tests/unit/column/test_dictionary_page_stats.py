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


def _nan_free_table() -> pa.Table:
    """h33wr: dictionaries the statistics can order (numbers without NaN, strings), whose
    pages take their bounds from their extreme entries (ranks of the indices): zeros of both
    signs, infinities, unsigned values above the signed range, pages that skip extremes."""
    rng = np.random.default_rng(6)
    small = rng.integers(-4, 5, ROWS)
    floats = small * 0.5
    floats[rng.integers(0, ROWS, 40)] = -0.0
    floats[rng.integers(0, ROWS, 5)] = np.inf
    ramp = (np.arange(ROWS) // 900 + rng.integers(0, 3, ROWS)).astype(np.int64)
    words = np.array([b"", b"a", b"ab", b"b", b"\xff", b"Z", b"\x00"], dtype=object)
    return pa.table({
        "i32": pa.array((small * (ramp + 1)).astype(np.int32)),
        "i64": pa.array(ramp - 3),
        "u32": pa.array((small + 2**31).astype(np.uint32)),
        "u64": pa.array(ramp.astype(np.uint64) + np.uint64(2**63)),
        "f64": pa.array(floats),
        "f32": pa.array(floats.astype(np.float32)),
        "s": pa.array(list(words[(ramp + small) % len(words)]), pa.binary()),
        # at most 8 entries, 0.0 and -0.0 among them (two entries that compare equal)
        "f8": pa.array(np.array([0.0, -0.0, 1.5, -2.0, np.inf, 0.25])[(ramp + small) % 6]),
    })


_FMT = {"i32": "<i", "i64": "<q", "u32": "<I", "u64": "<Q", "f64": "<d", "f32": "<f", "f8": "<d"}


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_page_bounds_from_extreme_entries(version: str) -> None:
    table = _nan_free_table()
    sink = io.BytesIO()
    pc.write_table(table, sink, use_dictionary=True, data_page_row_count_limit=PAGE_ROWS,
                   data_page_version=version, write_page_statistics=True, write_page_index=True)
    buf = sink.getvalue()
    assert pq.read_table(pa.BufferReader(buf)).equals(table)
    md = pq.ParquetFile(pa.BufferReader(buf)).metadata
    for ci, name in enumerate(table.column_names):
        col = md.row_group(0).column(ci)
        start = col.dictionary_page_offset
        headers = _pages(buf, start, start + col.total_compressed_size)
        values = table.column(name).to_numpy(zero_copy_only=False)
        row, pages = 0, 0
        for h in headers[1:]:
            dph = h.data_page_header or h.data_page_header_v2
            assert dph.encoding == RLE_DICTIONARY, name
            page = values[row:row + dph.num_values]
            row += dph.num_values
            pages += 1
            st = dph.statistics
            if name == "s":
                assert (st.min_value, st.max_value) == (min(page), max(page))
                continue
            lo, hi = struct.unpack(_FMT[name], st.min_value)[0], struct.unpack(_FMT[name], st.max_value)[0]
            assert (lo, hi) == (page.min(), page.max()), name
            if page.dtype.kind == "f":
                assert st.nan_count == 0
                if lo == 0:             # the spec: a zero minimum is -0.0, a zero maximum +0.0
                    assert np.signbit(lo)
                if hi == 0:
                    assert not np.signbit(hi)
        assert row == ROWS and pages > 5
        stats = col.statistics
        assert (stats.min, stats.max) == (min(values), max(values)), name


def test_dictionary_pages_of_numbers_are_not_read_for_their_bounds(monkeypatch) -> None:
    """The bounds of a dictionary page of doubles (a NaN-free dictionary) come from its extreme
    entries: the page's values are never sliced out to take their min/max."""
    from parquet_core.column import page_builder

    def sliced(*a, **k):
        raise AssertionError("page values sliced")
    monkeypatch.setattr(page_builder, "slice_values", sliced)
    table = pa.table({"f": np.arange(ROWS) % 7 * 0.5, "i": np.arange(ROWS) % 11})
    sink = io.BytesIO()
    pc.write_table(table, sink, data_page_row_count_limit=PAGE_ROWS)
    assert pq.read_table(pa.BufferReader(sink.getvalue())).equals(table)
