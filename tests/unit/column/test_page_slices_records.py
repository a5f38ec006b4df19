"""Big pages of columns with repetition are cut at record boundaries (issue 29).

Files are written by pyarrow with one huge data page per leaf (lists, lists of
strings, lists of lists, maps; nulls and empty lists; a record longer than a
batch); every batch of ``iter_batches`` is compared with pyarrow's batch of the
same size, the memory held is measured with tracemalloc, and pages whose levels
lie (more non-null values than the page holds, a level stream cut short) must be
refused with a ParquetError naming column, row group and page.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
import parquet_core.column.page_slices as page_slices
from parquet_core.column.level_windows import LevelWindow, pack_levels
from parquet_core.encodings.rle_hybrid import decode_rle_hybrid
from parquet_core.errors import ParquetError, ParquetFormatError

ROWS = 24_000          # about 3.5 levels a row: one page of ~85,000 levels, over the threshold


def _lists(rng: np.random.Generator, n: int, make, long_at: int | None = None) -> list:
    """Lists of 0..7 items (every 13th row null, every 7th empty), items null now and then;
    with *long_at*, that row is one record of 70,000 items (longer than any batch)."""
    lens = rng.integers(0, 8, n)
    out = []
    for i, k in enumerate(lens):
        if i % 13 == 5:
            out.append(None)
        elif i % 7 == 3:
            out.append([])
        else:
            out.append([None if (i + j) % 11 == 0 else make(i, j) for j in range(int(k))])
    if long_at is not None:
        out[long_at] = [make(long_at, j) for j in range(70_000)]
    return out


def _table(kind: str, n: int = ROWS, long_at: int | None = None) -> pa.Table:
    rng = np.random.default_rng(29)
    if kind == "list_int":
        col = pa.array(_lists(rng, n, lambda i, j: i * 10 + j, long_at), pa.list_(pa.int64()))
    elif kind == "list_int32":
        col = pa.array(_lists(rng, n, lambda i, j: (i * 7 + j) % 5000 - 2500, long_at), pa.list_(pa.int32()))
    elif kind == "list_string":
        col = pa.array(_lists(rng, n, lambda i, j: f"k{(i * 3 + j) % 997}" * (j % 3), long_at),
                       pa.list_(pa.string()))
    elif kind == "list_list":
        col = pa.array([None if r is None else [None if x is None else list(range(x % 4)) for x in r]
                        for r in _lists(rng, n, lambda i, j: i + j, long_at)],
                       pa.list_(pa.list_(pa.int32())))
    elif kind == "map":
        rows = _lists(rng, n, lambda i, j: j, long_at)
        col = pa.array([None if r is None else [(f"k{j}", None if x is None else x * 3)
                                                for j, x in enumerate(r)] for r in rows],
                       pa.map_(pa.string(), pa.int64()))
    else:
        raise AssertionError(kind)
    return pa.table({"x": col, "id": pa.array(np.arange(n))})


def _write(path, kind: str, version: str = "2.0", encoding: str | None = None, dictionary: bool = False,
           compression: str = "none", n: int = ROWS, long_at: int | None = None) -> None:
    table = _table(kind, n, long_at)
    kw = {}
    if encoding is not None:
        leaves = {"list_list": ["x.list.element.list.element"], "map": ["x.key_value.value"]}
        kw["column_encoding"] = {c: encoding for c in leaves.get(kind, ["x.list.element"])}
    pq.write_table(table, path, use_dictionary=dictionary, data_page_size=1 << 30,
                   max_rows_per_page=1 << 30, data_page_version=version, compression=compression, **kw)


def _assert_batches_equal(path, batch_sizes) -> None:
    pf = pc.ParquetFile(path)
    for batch_size in batch_sizes:
        ours = list(pf.iter_batches(batch_size=batch_size))
        theirs = list(pq.ParquetFile(path).iter_batches(batch_size=batch_size))
        assert len(ours) == len(theirs), batch_size
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert pa.Table.from_batches([b]).equals(a.to_arrow()), (batch_size, i)


@pytest.fixture
def cut_pages(monkeypatch):
    """Counts the small pages the record cut hands out (so a test knows the page was cut);
    pages of lists are cut above the flat threshold here (not four times it), so that
    small files have pages to cut."""
    monkeypatch.setattr(page_slices, "ROW_LEVELS", 1)
    seen = []
    orig = page_slices._cut_records

    def counting(*args, **kwargs):
        for p in orig(*args, **kwargs):
            seen.append(p.num_values)
            yield p

    monkeypatch.setattr(page_slices, "_cut_records", counting)
    return seen


CASES = [
    ("list_int", "PLAIN", False), ("list_int", None, True), ("list_int", "DELTA_BINARY_PACKED", False),
    ("list_int32", "BYTE_STREAM_SPLIT", False),
    ("list_string", "PLAIN", False), ("list_string", None, True),
    ("list_string", "DELTA_LENGTH_BYTE_ARRAY", False), ("list_string", "DELTA_BYTE_ARRAY", False),
    ("list_list", "PLAIN", False), ("list_list", None, True),
    ("map", "PLAIN", False), ("map", None, True),
]


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("kind,encoding,dictionary", CASES)
def test_batches_equal_pyarrow_batches(tmp_path, cut_pages, kind: str, encoding: str | None,
                                       dictionary: bool, version: str) -> None:
    path = tmp_path / "lists.parquet"
    _write(path, kind, version, encoding, dictionary)
    pf = pc.ParquetFile(path)
    assert pf.metadata.num_row_groups == 1
    # 997 and 4_097 records end inside bit-packed groups, miniblocks and delta blocks
    _assert_batches_equal(path, (997, 4_097) if version == "2.0" else (4_097,))
    assert cut_pages and max(cut_pages) < 4 * 4_097 * 8, "the page was not cut"


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_a_record_longer_than_the_window(tmp_path, cut_pages, version: str) -> None:
    """Row 5,000 holds 70,000 items: its small page is the whole record, and the rows on
    either side are cut as usual."""
    path = tmp_path / "long.parquet"
    _write(path, "list_int", version, "PLAIN", long_at=5_000)
    _assert_batches_equal(path, (1_000, 5_001))
    assert max(cut_pages) >= 70_000 > 3 * sorted(cut_pages)[len(cut_pages) // 2]


def test_every_record_one_item(tmp_path, cut_pages) -> None:
    """Repetition levels all 0 (one RLE run of the whole page) and definition levels all
    at the maximum: the runs are split, not decoded whole."""
    n = 200_000
    table = pa.table({"x": pa.array([[i] for i in range(n)], pa.list_(pa.int64()))})
    path = tmp_path / "one.parquet"
    pq.write_table(table, path, use_dictionary=False, data_page_size=1 << 30,
                   max_rows_per_page=1 << 30, compression="none")
    _assert_batches_equal(path, (10_000,))
    assert len(cut_pages) == n // 10_000


def test_small_pages_are_not_cut(tmp_path, cut_pages) -> None:
    path = tmp_path / "small.parquet"
    _write(path, "list_int", "2.0", "PLAIN", n=4_000)
    _assert_batches_equal(path, (1_000,))
    assert not cut_pages


def test_pages_of_normal_rows_are_not_cut(tmp_path, cut_pages, monkeypatch) -> None:
    """Without the test's lower threshold: a page of 24,000 rows (84,000 levels) is over the
    flat threshold in levels but not four times it, and is decoded whole."""
    monkeypatch.setattr(page_slices, "ROW_LEVELS", 4)
    path = tmp_path / "normal.parquet"
    _write(path, "list_int", "1.0", "PLAIN")
    assert pc.ParquetFile(path).page_headers(0, 0)[0].num_values > page_slices.SLICE_MIN_VALUES
    _assert_batches_equal(path, (1_000,))
    assert not cut_pages


def test_level_window_cuts_at_record_starts() -> None:
    rng = np.random.default_rng(3)
    reps = (rng.random(50_000) < 0.7).astype(np.uint8)
    reps[0] = 0
    reps[20_000:31_000] = 1          # a record of 11,000 levels
    stream = pack_levels(reps, 1)
    win = LevelWindow(stream, 1, reps.size, "reps", chunk=1 << 10)
    done = 0
    while done < reps.size:
        k = win.next_record(min(1_000, reps.size - done))
        got = win.take(k)
        np.testing.assert_array_equal(got, reps[done:done + k])
        assert done + k == reps.size or reps[done + k] == 0
        assert k >= min(1_000, reps.size - done)
        done += k
    # packed back, each piece decodes to the same levels
    np.testing.assert_array_equal(decode_rle_hybrid(pack_levels(reps[:13], 1), 1, 13), reps[:13])


def test_level_window_refuses_a_short_stream() -> None:
    stream = pack_levels(np.zeros(64, dtype=np.uint8), 1)
    win = LevelWindow(stream, 1, 100, "repetition levels of page 0")
    with pytest.raises(ParquetFormatError, match="ends"):
        win.next_record(80)
    # a bit-packed run declaring more groups than the stream holds
    with pytest.raises(ParquetFormatError, match="remain"):
        LevelWindow(b"\xff\x7f\x00", 2, 100, "x").take(10)


# --------------------------------------------------------------------------------------
# memory: a fraction of what decoding the page whole holds
# --------------------------------------------------------------------------------------

def _peak(path, batch_size: int) -> int:
    pf = pc.ParquetFile(path)
    rows = 0
    tracemalloc.start()
    try:
        for b in pf.iter_batches(batch_size=batch_size, columns=["x"]):
            rows += b.num_rows
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rows == pf.metadata.num_rows
    return peak


@pytest.mark.slow
@pytest.mark.parametrize("kind,encoding", [("list_int", "PLAIN"), ("list_string", "DELTA_LENGTH_BYTE_ARRAY")])
def test_memory_follows_the_batch(tmp_path, cut_pages, kind: str, encoding: str) -> None:
    """One zstd page of about 230,000 levels in batches of 2,000 rows: the peak stays well
    below decoding the page whole (a batch of every row, which is never cut); the page is
    decompressed whole and held while it is cut, so the bound above that is the page plus
    about a batch (and, where the page is much smaller than its values, below them)."""
    n = 1 << 16
    path = tmp_path / "mem.parquet"
    _write(path, kind, "2.0", encoding, compression="zstd", n=n)
    assert len(pc.ParquetFile(path).page_headers(0, 0)) == 1
    page = pc.ParquetFile(path).page_headers(0, 0)[0].uncompressed_page_size
    whole = _peak(path, n)
    peak = _peak(path, 2_000)
    decoded = pq.read_table(path, columns=["x"]).nbytes
    print(f"{kind} {encoding}: page {page}, decoded {decoded}, whole {whole}, cut {peak}")
    assert peak < 0.5 * whole, (peak, whole)
    assert peak < 1.2 * page + (1 << 20), (peak, page)
    if page < decoded / 4:
        assert peak < 0.75 * decoded, (peak, decoded)


# --------------------------------------------------------------------------------------
# lying levels: a ParquetError naming column, row group and page
# --------------------------------------------------------------------------------------

def _v2_page(path) -> tuple[bytes, int, int, int]:
    """The file's bytes, where x's page body starts, and its two level streams' lengths."""
    pf = pc.ParquetFile(path)
    h = pf.page_headers(0, 0)[-1]
    v2 = h.header.data_page_header_v2
    body = h.offset + h.header_size
    return path.read_bytes(), body, v2.repetition_levels_byte_length, v2.definition_levels_byte_length


def _refused(path) -> str:
    with pytest.raises(ParquetError) as info:
        for _ in pc.ParquetFile(path).iter_batches(batch_size=1_000):
            pass
    exc = info.value
    assert not isinstance(exc, MemoryError)
    text = str(exc) + " ".join(getattr(exc, "__notes__", []))
    assert "x.list.element" in text and "row group 0" in text and "page 0" in text, text
    return text


def _uleb(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    return bytes(out + bytes([n]))


def test_definition_levels_claiming_more_values_than_the_page_holds(tmp_path, cut_pages) -> None:
    path = tmp_path / "seed.parquet"
    _write(path, "list_int", "2.0", "PLAIN")
    data, body, rep_len, def_len = _v2_page(path)
    n = pc.ParquetFile(path).page_headers(0, 0)[-1].num_values
    mutant = bytearray(data)
    run = _uleb(n << 1) + b"\x03"           # every level says "a value is here"
    mutant[body + rep_len:body + rep_len + len(run)] = run
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(mutant))
    assert "bytes hold fewer" in _refused(bad)
    assert cut_pages                        # refused by the cut, not the whole-page decoder


def test_repetition_levels_cut_short(tmp_path, cut_pages) -> None:
    path = tmp_path / "seed.parquet"
    _write(path, "list_int", "2.0", "PLAIN")
    data, body, rep_len, _ = _v2_page(path)
    mutant = bytearray(data)
    # a run of 100 zeros, then runs of no levels to the stream's end: the levels run out
    mutant[body:body + rep_len] = _uleb(100 << 1) + b"\x00" + b"\x00" * (rep_len - 3)
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(mutant))
    assert "repetition levels" in _refused(bad)


def test_level_above_the_maximum(tmp_path) -> None:
    path = tmp_path / "seed.parquet"
    _write(path, "list_int", "2.0", "PLAIN")
    data, body, rep_len, def_len = _v2_page(path)
    n = pc.ParquetFile(path).page_headers(0, 0)[-1].num_values
    mutant = bytearray(data)
    run = _uleb(n << 1) + b"\x03"           # repetition level 3 where the maximum is 1
    mutant[body:body + len(run)] = run
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(mutant))
    _refused(bad)


@pytest.mark.parametrize("kind,encoding,dictionary", [("list_int", None, True), ("list_string", "PLAIN", False),
                                                      ("list_int", "DELTA_BINARY_PACKED", False)])
def test_mutated_pages_are_refused_or_read(tmp_path, kind: str, encoding: str | None, dictionary: bool) -> None:
    """Random edits in the levels and values, and a page whose tail is 0xFF: read, or
    refused with a ParquetError naming the column (and, for a decoding error, row group and
    page)."""
    path = tmp_path / "seed.parquet"
    _write(path, kind, "2.0", encoding, dictionary)
    data, body, rep_len, def_len = _v2_page(path)
    h = pc.ParquetFile(path).page_headers(0, 0)[-1]
    end = body + h.compressed_page_size
    rng = np.random.default_rng(7)
    refused = 0
    for trial in range(6):
        mutant = bytearray(data)
        if trial % 3 == 0:
            for at in rng.integers(body, end - 4, 3):
                mutant[at:at + 4] = b"\xff\xff\xff\x7f"
        elif trial % 3 == 1:
            for at in rng.integers(body, end, 16):
                mutant[at] = int(rng.integers(0, 256))
        else:
            cut = int(rng.integers(body, end))
            mutant[cut:end] = b"\xff" * (end - cut)
        p = tmp_path / f"m{trial}.parquet"
        p.write_bytes(bytes(mutant))
        try:
            for _ in pc.ParquetFile(p).iter_batches(batch_size=3_001, columns=["x"]):
                pass
        except ParquetError as exc:
            text = str(exc) + " ".join(getattr(exc, "__notes__", []))
            # a decoding error names row group and page; levels that decode but do not
            # nest (found when the batch's lists are assembled) name the column and field
            assert ("row group 0" in text and "page 0" in text) or "in field x" in text, text
            assert "x.list.element" in text or "x.key_value" in text, text
            refused += 1
    assert refused


def _mixed_stream(rng: np.random.Generator, width: int, runs: int) -> tuple[bytes, np.ndarray]:
    """A hybrid stream of RLE runs (1..300 values) and bit-packed runs (1..40 groups)."""
    out, levels = bytearray(), []
    top = (1 << width) - 1
    for _ in range(runs):
        if rng.random() < 0.5:
            k, v = int(rng.integers(1, 300)), int(rng.integers(0, top + 1))
            out += _uleb(k << 1) + bytes([v])
            levels.append(np.full(k, v, dtype=np.uint8))
        else:
            vals = rng.integers(0, top + 1, 8 * int(rng.integers(1, 41))).astype(np.uint8)
            out += pack_levels(vals, width)
            levels.append(vals)
    return bytes(out), np.concatenate(levels)


@pytest.mark.parametrize("width", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("vectorised", [True, False])
def test_level_window_decodes_any_stream(monkeypatch, width: int, vectorised: bool) -> None:
    """Runs found vectorised in small windows (runs straddling them) or walked one by one,
    chunked and long runs split: the levels are the stream's, in any pieces taken."""
    import parquet_core.column.level_windows as lw
    monkeypatch.setattr(lw, "_WINDOW", 61)
    monkeypatch.setattr(lw, "_dense", lambda buf, w: vectorised)
    rng = np.random.default_rng(width)
    stream, levels = _mixed_stream(rng, width, 400)
    n = levels.size - 5                      # the last run is used in part
    win = LevelWindow(stream, (1 << width) - 1, n, "levels", chunk=100)
    got, done = [], 0
    while done < n:
        k = min(int(rng.integers(1, 700)), n - done)
        got.append(win.take(k))
        done += k
    np.testing.assert_array_equal(np.concatenate(got), levels[:n])
