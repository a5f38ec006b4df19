"""``FileSource``: a file no larger than the footer read is read whole at open (no mapping);
a larger one is mapped.  Either way the bytes, the reads and the errors are the file's."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.constants import FOOTER_READ_SIZE
from parquet_core.errors import ParquetError
from parquet_core.file.source import FileSource


def _write(path, rows: int) -> pa.Table:
    table = pa.table({"id": np.arange(rows, dtype=np.int64), "x": np.arange(rows, dtype=np.float64) / 7,
                      "s": pa.array([f"v{i % 13}" for i in range(rows)])})
    pq.write_table(table, path, compression="snappy")
    return table


def test_a_small_file_is_read_whole_and_reads_like_the_file(tmp_path) -> None:
    path = tmp_path / "small.parquet"
    table = _write(path, 500)
    raw = path.read_bytes()
    assert len(raw) <= FOOTER_READ_SIZE
    src = FileSource(path)
    try:
        assert src._map is None                      # read at open, not mapped
        assert src.size == len(raw)
        assert bytes(src.read_at(0, len(raw))) == raw
        assert bytes(src.read_at(len(raw) - 8, 8)) == raw[-8:]
        with pytest.raises(ParquetError):
            src.read_at(len(raw) - 4, 8)             # past the end: refused as before
    finally:
        src.close()
    got = pc.read_table(str(path), use_threads=False).to_arrow()
    assert got.equals(pq.read_table(path))
    assert got.equals(table)


def test_a_larger_file_is_still_mapped(tmp_path) -> None:
    path = tmp_path / "large.parquet"
    table = _write(path, 40_000)
    assert os.path.getsize(path) > FOOTER_READ_SIZE
    src = FileSource(path)
    try:
        assert src._map is not None
        assert bytes(src.read_at(0, 4)) == b"PAR1"
    finally:
        src.close()
    assert pc.read_table(str(path), use_threads=False).to_arrow().equals(table)


def test_a_damaged_small_file_is_refused_naming_it(tmp_path) -> None:
    path = tmp_path / "bad.parquet"
    _write(path, 500)
    raw = bytearray(path.read_bytes())
    raw[-5] ^= 0xFF                                  # the footer length's top byte
    path.write_bytes(bytes(raw))
    with pytest.raises(ParquetError, match="bad.parquet"):
        pc.read_table(str(path), use_threads=False)
