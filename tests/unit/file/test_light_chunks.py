"""Small chunks as small files hold them (a dictionary page and one data page, or one
PLAIN page) are decoded by the light path; the values are pyarrow's, and a chunk that
fails a check is read again by the full reader, whose error names the file, column and page."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetError
from parquet_core.file import scan


def _table(n: int = 2000, nulls: bool = False) -> pa.Table:
    rng = np.random.default_rng(3)
    words = np.array(["alpha", "beta", "gamma", "", "épsilon"])
    mask = rng.random(n) < 0.1 if nulls else None
    return pa.table({
        "i64": pa.array(rng.integers(-10**12, 10**12, n), mask=mask),
        "seq": pa.array(np.arange(n, dtype=np.int64)),
        "f64": pa.array(rng.random(n)),
        "f32": pa.array(rng.random(n).astype(np.float32)),
        "i32": pa.array(rng.integers(0, 100, n).astype(np.int32)),
        "s": pa.array(words[rng.integers(0, len(words), n)]),
        "req": pa.array(rng.integers(0, 7, n).astype(np.int32)),
    }).cast(pa.schema([pa.field("i64", pa.int64()), pa.field("seq", pa.int64()), pa.field("f64", pa.float64()),
                       pa.field("f32", pa.float32()), pa.field("i32", pa.int32()), pa.field("s", pa.string()),
                       pa.field("req", pa.int32(), nullable=False)]))


def _no_general(*_: object, **__: object) -> None:
    raise AssertionError("read by the general chunk decoder")


@pytest.mark.parametrize("dictionary", [True, False])
def test_light_path_values_equal_pyarrow(tmp_path: object, monkeypatch: pytest.MonkeyPatch,
                                         dictionary: bool) -> None:
    path = os.path.join(str(tmp_path), "f.parquet")
    pq.write_table(_table(), path, use_dictionary=dictionary)
    expected = pq.read_table(path)
    cols = ["i64", "seq", "f64", "f32", "i32", "req"] + (["s"] if dictionary else [])
    monkeypatch.setattr(scan, "read_column_chunks", _no_general)
    got = pc.read_table(path, columns=cols, use_threads=False).to_arrow()
    assert got.equals(expected.select(cols))


def test_nulls_and_plain_strings_take_the_general_path(tmp_path: object) -> None:
    path = os.path.join(str(tmp_path), "f.parquet")
    pq.write_table(_table(nulls=True), path, use_dictionary=["s"])
    assert pc.read_table(path, use_threads=False).to_arrow().equals(pq.read_table(path))
    path2 = os.path.join(str(tmp_path), "g.parquet")
    pq.write_table(_table(), path2, use_dictionary=False)
    assert pc.read_table(path2, use_threads=False).to_arrow().equals(pq.read_table(path2))


def test_dataset_of_small_files_equals_pyarrow(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = os.path.join(str(tmp_path), "ds")
    os.makedirs(folder)
    t = _table(600)
    for k in range(3):
        pq.write_table(t.slice(k * 200, 200), os.path.join(folder, f"part-{k}.parquet"))
    monkeypatch.setattr(scan, "read_column_chunks", _no_general)
    got = pc.read_table(folder, use_threads=False).to_arrow()
    assert got.equals(pq.read_table(folder).cast(got.schema))


def test_index_past_the_dictionary_is_named(tmp_path: object) -> None:
    """A dictionary index out of range: the light path gives up, the full reader raises
    the error naming the file, column and page."""
    from parquet_core.page.reader import _parse_header

    path = os.path.join(str(tmp_path), "f.parquet")
    n = 64
    pq.write_table(pa.table({"v": pa.array(np.arange(n, dtype=np.int64) % 3)}), path,
                   compression="none", use_dictionary=True)
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    page_at = pq.ParquetFile(path).metadata.row_group(0).column(0).data_page_offset
    header, hlen = _parse_header(memoryview(bytes(raw)), page_at)
    body = page_at + hlen
    levels = int.from_bytes(raw[body:body + 4], "little")
    width_at = body + 4 + levels
    assert raw[width_at] == 2          # 3 entries: 2-bit indices, one bit-packed run of 8 groups
    assert raw[width_at + 1] == (n // 8) << 1 | 1
    end = body + header.compressed_page_size
    raw[width_at + 2:end] = b"\xff" * (end - width_at - 2)   # every index 3: past the dictionary
    with open(path, "wb") as f:
        f.write(raw)
    with pytest.raises(ParquetError) as info:
        pc.read_table(path, use_threads=False)
    text = str(info.value)
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert "f.parquet" in text and "dictionary index 3 out of range" in text, text
    assert "page 0" in notes and "v" in notes, notes


@pytest.mark.parametrize("nulls", [False, True])
def test_a_chunk_of_many_pages_is_read_once(tmp_path, monkeypatch: pytest.MonkeyPatch, nulls: bool) -> None:
    """A small chunk of many pages (not the light path's shape) has each page read and
    decompressed once: the pages the light path looked at go on to the full reader.  The
    count with the light path off is the reference."""
    from parquet_core.page import reader as page_reader

    path = str(tmp_path / "pages.parquet")
    pq.write_table(_table(20_000, nulls), path, compression="snappy", data_page_size=2048, use_dictionary=["s"])
    made = []
    real = page_reader._make_page

    def counting(*args, **kwargs):
        made.append(args[4])
        return real(*args, **kwargs)

    monkeypatch.setattr(page_reader, "_make_page", counting)
    with_light = pc.read_table(path, use_threads=False).to_arrow()
    pages_with_light = len(made)
    made.clear()
    monkeypatch.setattr(scan, "LIGHT_MAX_BYTES", -1)
    without = pc.read_table(path, use_threads=False).to_arrow()
    assert pages_with_light == len(made) > 3 * 7
    assert with_light.equals(without) and without.equals(pq.read_table(path))
