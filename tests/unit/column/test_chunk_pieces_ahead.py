"""Batches of small pages decode a few pages per piece (issue 32): pages smaller than
16 KiB are joined into one piece of up to 64k levels, big pages still make a piece of
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
        assert max(pieces) <= reader._AHEAD_LEVELS + 5_000
    else:
        assert len(pieces) == n // 5_000            # one page per piece
