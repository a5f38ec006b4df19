"""DELTA_BINARY_PACKED pages checked one by one and unpacked together
(``scan_delta_binary_packed_page`` / ``expand_delta_binary_packed_pages``, issue 32):
values generated here, streams from the spec's grammar (via the encoder, and the
reference decoder of ``test_delta_binary_packed``), files written by pyarrow read
back equal to pyarrow's read."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.encodings.delta_binary_packed import (
    decode_delta_binary_packed,
    encode_delta_binary_packed,
    expand_delta_binary_packed_pages,
    scan_delta_binary_packed_page,
)
from parquet_core.errors import ParquetFormatError
from tests._support.delta_reference import ref_decode


def _cut_last_miniblock(buf: bytes, count: int, dtype) -> bytes:  # type: ignore[no-untyped-def]
    """The stream without the padding bytes of its last miniblock (writers may leave them out)."""
    arr, _, _, _, flat_w, flat_start, n_mini, vpm = scan_delta_binary_packed_page(buf, count, dtype)
    used = (count - 1) - (flat_w.size - 1) * vpm
    return buf[:int(flat_start[-1]) + (used * int(flat_w[-1]) + 7) // 8]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_pages_unpacked_together_equal_their_values(dtype) -> None:
    rng = np.random.default_rng(5)
    pages, expected = [], []
    for k in range(7):
        n = int(rng.integers(2, 3000))
        if k % 3 == 0:      # jittered timestamps
            vals = 1_700_000_000_000 + np.cumsum(rng.integers(900, 1100, n))
        elif k % 3 == 1:    # wide swings: wrap in int32
            vals = rng.integers(-2**62, 2**62, n)
        else:               # a constant stretch (width 0 miniblocks) then noise
            vals = np.concatenate([np.full(n // 2, 7), rng.integers(0, 1 << 20, n - n // 2)])
        buf = encode_delta_binary_packed(vals, dtype)
        if k % 2:
            buf = _cut_last_miniblock(buf, n, dtype)
        want = vals.astype(dtype)       # wraps int32 like the format does
        assert ref_decode(buf, np.dtype(dtype).itemsize * 8)[0] == want.tolist()
        scanned = scan_delta_binary_packed_page(buf, n, dtype)
        assert scanned is not None
        pages.append(scanned)
        expected.append(want)
    got = expand_delta_binary_packed_pages(pages, dtype)
    assert got.dtype == np.dtype(dtype)
    assert got.tolist() == np.concatenate(expected).tolist()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(-2**40, 2**40), min_size=2, max_size=400),
                          st.sampled_from([(128, 4), (256, 8), (64, 2), (32, 1)])),
                min_size=1, max_size=5),
       st.sampled_from([np.int32, np.int64]))
def test_any_block_layouts(pages, dtype) -> None:
    scanned, expected = [], []
    for values, (block, mini) in pages:
        buf = encode_delta_binary_packed(values, dtype, block_size=block, miniblocks=mini)
        s = scan_delta_binary_packed_page(buf, len(values), dtype)
        assert s is not None
        scanned.append(s)
        expected += decode_delta_binary_packed(buf, 0, dtype)[0].tolist()
    assert expand_delta_binary_packed_pages(scanned, dtype).tolist() == expected


def test_pages_left_to_their_own_decode() -> None:
    one = encode_delta_binary_packed([42], np.int64)
    assert scan_delta_binary_packed_page(one, 1, np.int64) is None
    short = encode_delta_binary_packed(list(range(10)), np.int64)
    assert scan_delta_binary_packed_page(short, 12, np.int64) is None   # 10 values, 12 expected
    with pytest.raises(ParquetFormatError, match="at most 8 expected"):
        scan_delta_binary_packed_page(short, 8, np.int64)
    noisy = encode_delta_binary_packed(np.random.default_rng(1).integers(0, 1 << 30, 300), np.int64)
    for cut in (200, len(noisy) // 2, len(noisy) - 6):
        with pytest.raises(ParquetFormatError) as own:
            decode_delta_binary_packed(noisy[:-cut], 0, np.int64, max_count=300)
        with pytest.raises(ParquetFormatError) as scan:
            scan_delta_binary_packed_page(noisy[:-cut], 300, np.int64)
        assert str(scan.value) == str(own.value)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_pyarrow_written_pages(version) -> None:
    rng = np.random.default_rng(9)
    n = 50_000
    table = pa.table({
        "ts": pa.array(1_700_000_000_000_000 + np.cumsum(rng.integers(900_000, 1_100_000, n)),
                       pa.timestamp("us")),
        "counter": np.cumsum(rng.integers(0, 50, n)).astype(np.int32),
        "maybe": pa.array(rng.integers(0, 1000, n), mask=rng.random(n) < 0.1),
    })
    sink = io.BytesIO()
    pq.write_table(table, sink, use_dictionary=False, data_page_version=version,
                   data_page_size=16_000, column_encoding="DELTA_BINARY_PACKED")
    data = sink.getvalue()
    assert pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0).encodings.count(
        "DELTA_BINARY_PACKED")
    want = pq.read_table(io.BytesIO(data))
    got = pc.read_table(io.BytesIO(data), use_threads=False).to_arrow()
    for name in want.column_names:
        assert got.column(name).cast(want.column(name).type).equals(want.column(name)), name


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_many_miniblocks_unpacked_slice_by_slice(dtype) -> None:
    # issue 32: more miniblocks than one unpack call takes (32k values), of one width and of
    # several widths mixed, across pages: the values the reference decoder gives
    rng = np.random.default_rng(11)
    pages, expected = [], []
    for k in range(4):
        n = 40_000 + k
        if k % 2:   # one width everywhere
            vals = 1_700_000_000 + np.cumsum(np.full(n, 1000) + rng.integers(0, 2, n) * 0x3FFF)
        else:       # widths from 0 to 30 mixed
            vals = np.cumsum(rng.integers(0, 1 << 30, n) >> rng.integers(0, 31, n))
        buf = encode_delta_binary_packed(vals, dtype)
        want = vals.astype(dtype)
        assert ref_decode(buf, np.dtype(dtype).itemsize * 8)[0] == want.tolist()
        pages.append(scan_delta_binary_packed_page(buf, n, dtype))
        expected.append(want)
    assert expand_delta_binary_packed_pages(pages, dtype).tolist() == np.concatenate(expected).tolist()
    assert expand_delta_binary_packed_pages(pages[:1], dtype).tolist() == expected[0].tolist()
