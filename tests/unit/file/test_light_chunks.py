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


def _one_index_page(path: str, values: np.ndarray) -> tuple[bytearray, int, int]:
    """A one-column file of *values* written by pyarrow (dictionary, no compression, one
    data page): its bytes, where the page's bit width byte lies and where the page ends."""
    from parquet_core.page.reader import _parse_header

    pq.write_table(pa.table({"v": pa.array(values)}), path, compression="none", use_dictionary=True)
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    page_at = pq.ParquetFile(path).metadata.row_group(0).column(0).data_page_offset
    header, hlen = _parse_header(memoryview(bytes(raw)), page_at)
    body = page_at + hlen
    width_at = body + 4 + int.from_bytes(raw[body:body + 4], "little")    # past the levels
    return raw, width_at, body + header.compressed_page_size


def test_index_past_the_dictionary_is_named(tmp_path: object) -> None:
    """A dictionary index out of range: the light path gives up, the full reader raises
    the error naming the file, column and page."""
    path = os.path.join(str(tmp_path), "f.parquet")
    n = 64
    raw, width_at, end = _one_index_page(path, np.arange(n, dtype=np.int64) % 3)
    assert raw[width_at] == 2          # 3 entries: 2-bit indices, one bit-packed run of 8 groups
    assert raw[width_at + 1] == (n // 8) << 1 | 1
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


def _distinct(n: int = 3000, nullable: bool = True) -> pa.Table:
    """Columns of distinct values (a dictionary of every value, indices 0 .. n-1)."""
    rng = np.random.default_rng(11)
    cols = {"f64": pa.array(rng.random(n)), "f32": pa.array(np.arange(n, dtype=np.float32) / 7),
            "i64": pa.array(rng.permutation(n).astype(np.int64) * 3 - 10**12),
            "i32": pa.array(np.arange(n, dtype=np.int32) - 5)}
    return pa.table(cols, schema=pa.schema([pa.field(k, v.type, nullable=nullable) for k, v in cols.items()]))


def _no_index_decode(*_: object, **__: object) -> None:
    raise AssertionError("dictionary indices unpacked")


@pytest.mark.parametrize("compression", ["snappy", "zstd", "gzip", "none"])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("nullable", [True, False])
def test_distinct_values_are_the_dictionary(tmp_path, monkeypatch: pytest.MonkeyPatch, compression: str,
                                            version: str, nullable: bool) -> None:
    """A dictionary page and one data page of indices 0 .. n-1 (a column of distinct
    values): the values are the dictionary's, with no index unpacked and no general decode."""
    from parquet_core.column import simple_chunks as column_reader

    path = str(tmp_path / "distinct.parquet")
    pq.write_table(_distinct(nullable=nullable), path, compression=compression, data_page_version=version)
    expected = pq.read_table(path)
    monkeypatch.setattr(scan, "read_column_chunks", _no_general)
    monkeypatch.setattr(column_reader, "decode_dictionary_indices", _no_index_decode)
    got = pc.read_table(path, use_threads=False).to_arrow()
    assert got.equals(expected)


def test_distinct_values_of_an_uncompressed_file_do_not_view_it(tmp_path) -> None:
    """Uncompressed, the dictionary is a view of the file's bytes: the values are copied
    out of it (as a gather would), so they outlive the file."""
    from parquet_core.column.simple_chunks import read_simple_chunk

    path = str(tmp_path / "plain.parquet")
    pq.write_table(_distinct(500, nullable=False).select(["i64"]), path, compression="none")
    with pc.ParquetFile(path) as pf:
        reader = pf.column_chunk(0, "i64")
        data = read_simple_chunk(list(reader.pages()), reader.descriptor)
        assert data is not None
        assert data.values.flags.owndata and data.values.flags.writeable
    assert np.array_equal(data.values, pq.read_table(path)["i64"].to_numpy())


def test_indices_almost_counting_up_are_decoded(tmp_path) -> None:
    """Two indices swapped in the stored page (values distinct, but not in the dictionary's
    order): not told as counting, unpacked and gathered: pyarrow's values of the same file."""
    path = str(tmp_path / "swapped.parquet")
    n = 64
    raw, width_at, _ = _one_index_page(path, np.arange(n, dtype=np.int64) * 5)
    assert raw[width_at] == 6 and raw[width_at + 1] == (n // 8) << 1 | 1   # 6-bit indices, one run
    first = width_at + 2        # 0, 1, 2, 3 packed at 6 bits: bytes 0x40 0x20 0x0c ...
    raw[first], raw[first + 1] = 0x01, 0x00 | (raw[first + 1] & 0xF0)    # indices 1, 0, ...
    with open(path, "wb") as f:
        f.write(raw)
    expected = pq.read_table(path)
    assert expected["v"][0].as_py() == 5 and expected["v"][1].as_py() == 0
    assert pc.read_table(path, use_threads=False).to_arrow().equals(expected)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_distinct_values_with_nulls_or_many_pages(tmp_path, version: str) -> None:
    """Not the light shape (nulls; several data pages; a dictionary that fell back to
    PLAIN pages): the general path, pyarrow's values."""
    t = _distinct(5000)
    mask = np.zeros(len(t), dtype=bool)
    mask[::7] = True
    with_nulls = t.set_column(0, "f64", pa.array(t["f64"].to_numpy(), mask=mask))
    cases = [(with_nulls, {}), (t, {"data_page_size": 4096}), (t, {"dictionary_pagesize_limit": 2048})]
    for k, (table, opts) in enumerate(cases):
        path = str(tmp_path / f"case{k}.parquet")
        pq.write_table(table, path, data_page_version=version, **opts)
        assert pc.read_table(path, use_threads=False).to_arrow().equals(pq.read_table(path)), opts
