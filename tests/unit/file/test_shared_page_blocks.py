"""A chunk read whole decompresses its data pages side by side into one block (issue 32:
fewer fresh pages per read), so PLAIN byte-array pages are located in place instead of
copied into a joined buffer; values checked against pyarrow's read of pyarrow's file."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.encodings import plain


def _table(rows: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    words = np.array(["carefully", "final", "deposits", "quickly", "ironic", "packages", "blithely"])
    text = [" ".join(w) for w in words[rng.integers(0, len(words), (rows, 3))]]
    text = [None if i % 97 == 0 else t for i, t in enumerate(text)]
    return pa.table({"s": pa.array(text), "i": pa.array(rng.integers(0, 1 << 40, rows))})


def _write(tmp_path: Path, name: str, table: pa.Table, **opts: object) -> str:
    path = str(tmp_path / name)
    pq.write_table(table, path, compression="snappy", data_page_size=16 << 10, **opts)  # type: ignore[arg-type]
    return path


@pytest.mark.parametrize("dictionary", [False, True])
def test_plain_pages_joined_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dictionary: bool) -> None:
    # dictionary=True with a small dictionary limit: index pages, then a PLAIN fallback
    table = _table(20_000, 1)
    path = _write(tmp_path, "t.parquet", table, use_dictionary=dictionary, dictionary_pagesize_limit=4096)
    pages = [pq.ParquetFile(path).metadata.row_group(0).column(0)]
    assert pages[0].total_uncompressed_size > 5 * (16 << 10)        # many data pages
    spans: list[bool] = []
    real = plain._shared_span

    def spy(arrs, sizes):  # type: ignore[no-untyped-def]
        got = real(arrs, sizes)
        spans.append(got is not None)
        return got

    monkeypatch.setattr(plain, "_shared_span", spy)
    got = pc.read_table(path, use_threads=False).to_arrow()
    assert got.equals(pq.read_table(path))
    assert spans and all(spans)         # every multi-page join found its pages in one block


def test_reads_do_not_share_memory(tmp_path: Path) -> None:
    """A second read (here on other threads, of another file with the same shape) never
    changes the first read's arrays."""
    a = _write(tmp_path, "a.parquet", _table(30_000, 2), use_dictionary=False)
    b = _write(tmp_path, "b.parquet", _table(30_000, 3), use_dictionary=False)
    first = pc.read_table(a).to_arrow()
    kept = first.to_pylist()
    others: list[pa.Table] = []

    def read_b() -> None:
        for _ in range(3):
            others.append(pc.read_table(b).to_arrow())

    threads = [threading.Thread(target=read_b) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(others) == 6
    assert first.to_pylist() == kept
    assert first.equals(pq.read_table(a))
    expected = pq.read_table(b)
    assert all(o.equals(expected) for o in others)
