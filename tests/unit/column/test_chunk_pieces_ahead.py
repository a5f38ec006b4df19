"""Batches of small pages decode several pages per piece (issue 32): pages smaller than
16 KiB are joined into one piece of up to 128 KiB of pages and 4 MiB of decoded
fixed-width values (64k levels for other values), big pages still make a piece of
their own; the batches equal pyarrow's read."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.column import reader


def _file(page_rows: int, values: np.ndarray, dictionary: bool) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"x": values}), buf, compression="none", use_dictionary=dictionary,
                   data_page_size=1 << 20, max_rows_per_page=page_rows)
    return buf.getvalue()


@pytest.mark.parametrize("small", [True, False])
def test_small_pages_are_joined_into_pieces(monkeypatch, small) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    n = 100_000
    if small:       # 5,000-row pages of 3-bit dictionary indices: ~2 KB each
        values = rng.integers(0, 7, n)
    else:           # 5,000-row pages of PLAIN int64: 40 KB each
        values = rng.integers(0, 2**62, n)
    data = _file(5_000, values, small)
    pieces = []
    real = reader._ChunkDecoder.piece

    def spy(self, page):  # type: ignore[no-untyped-def]
        out = real(self, page)
        pieces.append(out.num_levels)
        return out
    monkeypatch.setattr(reader._ChunkDecoder, "piece", spy)
    got = [b.to_arrow() for b in pc.ParquetFile(data).iter_batches(batch_size=1_000, use_threads=False)]
    want = list(pq.ParquetFile(io.BytesIO(data)).iter_batches(batch_size=1_000))
    assert [b.num_rows for b in got] == [b.num_rows for b in want]
    assert pa.concat_tables(got).column("x").equals(pa.Table.from_batches(want).column("x"))
    assert sum(pieces) == n
    if small:
        assert len(pieces) < n // 5_000 // 2        # several pages per piece
        assert max(pieces) <= reader._ahead_levels(8) + 5_000
    else:
        assert len(pieces) == n // 5_000            # one page per piece


def _pieces_of(monkeypatch, data: bytes, batch_size: int) -> list[int]:  # type: ignore[no-untyped-def]
    pieces: list[int] = []
    real = reader._ChunkDecoder.piece

    def spy(self, page):  # type: ignore[no-untyped-def]
        out = real(self, page)
        pieces.append(out.num_levels)
        return out
    monkeypatch.setattr(reader._ChunkDecoder, "piece", spy)
    got = [b.to_arrow() for b in pc.ParquetFile(data).iter_batches(batch_size=batch_size, use_threads=False)]
    want = list(pq.ParquetFile(io.BytesIO(data)).iter_batches(batch_size=batch_size))
    assert [b.num_rows for b in got] == [b.num_rows for b in want]
    assert pa.Table.from_batches(want).equals(pa.concat_tables(got).cast(pa.Table.from_batches(want).schema))
    return pieces


def test_a_chunk_of_small_narrow_pages_is_one_piece(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the taxi-like shape: 20,000-row pages of 3-bit indices (~8 KB each) of int32 values, 300,000
    # rows: 1.2 MB decoded, 120 KB of pages, one piece (64k-level pieces made five)
    rng = np.random.default_rng(4)
    n = 300_000
    data = _file(20_000, rng.integers(0, 7, n).astype(np.int32), True)
    pieces = _pieces_of(monkeypatch, data, 8_192)
    assert pieces == [n]


def test_pieces_of_small_pages_stop_at_the_held_bytes(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # PLAIN int64 pages of 1,500 rows (12 KB each, under 16 KiB): joined up to 128 KiB of pages
    rng = np.random.default_rng(5)
    n = 60_000
    data = _file(1_500, rng.integers(0, 2**62, n), False)
    pieces = _pieces_of(monkeypatch, data, 1_000)
    assert sum(pieces) == n
    per_piece = -(-reader._AHEAD_HELD // 12_000) * 1_500      # pages until 128 KiB is reached
    assert pieces[:-1] == [per_piece] * (len(pieces) - 1)


def test_long_dictionary_strings_keep_the_level_cap(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # 200-byte dictionary strings (~208 decoded bytes a value): small pages join up to 64k levels
    rng = np.random.default_rng(6)
    n = 200_000
    words = np.array([c * 200 for c in "abcd"])
    data = _file(10_000, words[rng.integers(0, 4, n)], True)
    pieces = _pieces_of(monkeypatch, data, 1_000)
    assert sum(pieces) == n
    assert len(pieces) > 1 and max(pieces) <= reader._AHEAD_LEVELS + 10_000


def test_dense_pages_over_16_kib_are_joined_too(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # 20,000-row pages of 9-bit indices (~23 KB each, about one value per byte): joined up
    # to 128 KiB of pages (one piece per page before)
    rng = np.random.default_rng(7)
    n = 200_000
    data = _file(20_000, rng.integers(0, 400, n).astype(np.int32), True)
    pieces = _pieces_of(monkeypatch, data, 8_192)
    assert sum(pieces) == n
    assert len(pieces) <= 3 and all(p % 20_000 == 0 for p in pieces)


def test_dictionary_strings_join_by_their_decoded_size(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # short dictionary strings: ~10 decoded bytes a value, so 200,000 rows make one piece
    rng = np.random.default_rng(8)
    n = 200_000
    words = np.array(["N", "Y"])
    data = _file(20_000, words[rng.integers(0, 2, n)], True)
    assert _pieces_of(monkeypatch, data, 8_192) == [n]
