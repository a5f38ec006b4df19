"""A few bit-packed runs and nothing else (pyarrow's dictionary indices of distinct-ish
values: packed runs of 504 values): expanded by slicing the bodies in Python, one unpack."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parquet_core.encodings import rle_hybrid
from parquet_core.encodings.rle_hybrid import decode_dictionary_indices, decode_rle_hybrid
from tests._support.rle_reference import bp_run, ref_decode


def _no_gather(*_: object) -> None:
    raise AssertionError("the few packed runs were joined by the numpy gather")


@pytest.mark.parametrize("width", [2, 3, 7, 11, 17, 25, 31])
@pytest.mark.parametrize("count", [8, 504, 2000, 2003])
def test_packed_runs_equal_the_reference(monkeypatch: pytest.MonkeyPatch, width: int, count: int) -> None:
    monkeypatch.setattr(rle_hybrid, "_gather_bodies", _no_gather)
    rng = np.random.default_rng(width * 10_000 + count)
    values = rng.integers(0, 1 << width, count).tolist()
    buf = b"".join(bp_run(values[i:i + 504], width) for i in range(0, count, 504))
    got = decode_rle_hybrid(buf, width, count)
    assert got.tolist() == ref_decode(buf, width, count) == values


def test_last_run_short_of_its_padding_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rle_hybrid, "_gather_bodies", _no_gather)
    width, count = 11, 1005
    values = np.random.default_rng(1).integers(0, 1 << width, count).tolist()
    buf = b"".join(bp_run(values[i:i + 504], width) for i in range(0, count, 504))
    cut = buf[:len(buf) - (((count + 7) // 8 * 8 - count) * width) // 8]   # the last group's unused bytes
    assert decode_rle_hybrid(cut, width, count).tolist() == values


def test_pyarrow_dictionary_indices(tmp_path: object) -> None:
    """The index stream of a page pyarrow wrote decodes to the indices pyarrow gives."""
    import os

    path = os.path.join(str(tmp_path), "d.parquet")
    values = np.random.default_rng(2).permutation(3000)[:2000].astype(np.int64)
    pq.write_table(pa.table({"v": values}), path, compression="none", use_dictionary=True)
    import parquet_core as pc
    from parquet_core.page.reader import iter_pages

    pf = pc.ParquetFile(path)
    r = pf.column_chunk(0, "v")
    start, length = r.byte_range
    pages = list(iter_pages(r.source.read_at(start, length), r.chunk.codec_id, r.chunk.num_values))
    dictionary = np.frombuffer(pages[0].body, dtype="<i8")
    body = memoryview(pages[1].body)
    skip = 4 + int.from_bytes(body[:4], "little")       # the definition levels (v1)
    idx = decode_dictionary_indices(body[skip:], pages[1].num_values)
    assert dictionary[idx].tolist() == values.tolist()
    pf.close()
