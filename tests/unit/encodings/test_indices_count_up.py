"""``indices_count_up``: a data page of dictionary indices 0, 1 ... n-1 (the page of a
column of distinct values, whose dictionary holds them in order of first appearance)
told from its bytes alone.  The pages are pyarrow's (values distinct, so the indices are
0 .. n-1 by the dictionary's definition) and this package's writer's; streams built here
from the spec (``golden``) cover the layouts no writer at hand produces.  True must only
ever be said of a stream that decodes to 0 .. n-1."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.encodings.rle_hybrid import decode_dictionary_indices, indices_count_up
from parquet_core.page.reader import _parse_header
from tests.unit.encodings.golden import pack_lsb, uleb


def _index_stream(raw: bytes) -> tuple[bytes, int]:
    """The dictionary-index stream (bit width byte first) of the first data page of an
    uncompressed one-column file, and the page's value count."""
    pf = pq.ParquetFile(io.BytesIO(raw))
    md = pf.metadata.row_group(0).column(0)
    optional = pf.schema.column(0).max_definition_level > 0
    at = md.data_page_offset
    header, hlen = _parse_header(memoryview(raw), at)
    body = raw[at + hlen:at + hlen + header.compressed_page_size]
    v1 = header.data_page_header
    if v1 is not None:
        assert v1.encoding in (2, 8)      # PLAIN_DICTIONARY / RLE_DICTIONARY
        levels = int.from_bytes(body[:4], "little") + 4 if optional else 0
        return body[levels:], v1.num_values
    v2 = header.data_page_header_v2
    return body[v2.definition_levels_byte_length + v2.repetition_levels_byte_length:], v2.num_values


def _pyarrow_page(n: int, **kwargs: object) -> tuple[bytes, int]:
    sink = io.BytesIO()
    pq.write_table(pa.table({"v": np.arange(n, dtype=np.float64) * 1.5}), sink, compression="none", **kwargs)
    return _index_stream(sink.getvalue())


# 505, 1009: a value left alone after runs of 504, which pyarrow writes as an RLE run of one
@pytest.mark.parametrize("n", [2, 3, 7, 8, 9, 63, 64, 503, 504, 505, 1000, 1009, 4096, 20_000])
def test_pyarrow_pages_of_distinct_values_count_up(n: int) -> None:
    stream, count = _pyarrow_page(n)
    assert count == n
    assert indices_count_up(memoryview(stream), n)
    assert indices_count_up(stream, n)      # bytes as well as views
    assert np.array_equal(decode_dictionary_indices(stream, n), np.arange(n))


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_page_versions_and_optional_columns(version: str) -> None:
    for nullable in (True, False):
        schema = pa.schema([pa.field("v", pa.int64(), nullable=nullable)])
        sink = io.BytesIO()
        pq.write_table(pa.table({"v": np.arange(3000, dtype=np.int64) * 7}, schema=schema), sink,
                       compression="none", data_page_version=version)
        stream, n = _index_stream(sink.getvalue())
        assert indices_count_up(stream, n)


@pytest.mark.parametrize("n", [2, 9, 504, 1000, 4096])
def test_our_writers_pages_count_up(n: int) -> None:
    sink = io.BytesIO()
    pc.write_table(pa.table({"v": np.arange(n, dtype=np.float64) * 1.5}), sink, compression="none",
                   use_dictionary=True)
    stream, count = _index_stream(sink.getvalue())
    assert count == n
    assert indices_count_up(stream, n)


def test_other_indices_do_not() -> None:
    n = 1000
    stream, _ = _pyarrow_page(n)
    assert not indices_count_up(stream, n + 1)      # more values than the stream holds
    assert not indices_count_up(stream[:-1], n)     # cut short
    assert not indices_count_up(b"", n)
    assert not indices_count_up(stream, 0)
    for at in (2, 200, len(stream) - 1):             # any changed byte: another stream
        bad = bytearray(stream)
        bad[at] ^= 0x10
        assert not indices_count_up(bytes(bad), n)
    # 1 .. n: counting, but not from 0
    w = stream[0]
    values = list(range(1, n + 1))
    assert not indices_count_up(bytes([w]) + uleb((n // 8) << 1 | 1) + pack_lsb(values, w), n)


def test_widths_that_cannot_hold_the_count() -> None:
    # 0 .. 8 at width 3 would need index 8 (four bits): never counting at that width
    assert not indices_count_up(bytes([3]) + uleb(2 << 1 | 1) + pack_lsb(list(range(8)) + [0] * 8, 3), 9)
    assert indices_count_up(bytes([3]) + uleb(1 << 1 | 1) + pack_lsb(list(range(8)), 3), 8)
    assert not indices_count_up(bytes([0]) + b"\x10", 8)
    assert not indices_count_up(bytes([33]) + b"\x00" * 40, 8)


@pytest.mark.parametrize("n", [8, 20, 600])
def test_a_trailing_remainder_after_the_stream_is_ignored(n: int) -> None:
    """Bytes after the runs are never read by a decoder: the stream still counts up."""
    stream, _ = _pyarrow_page(n)
    assert indices_count_up(stream + b"\x00\xff", n)
    assert np.array_equal(decode_dictionary_indices(stream + b"\x00\xff", n), np.arange(n))
