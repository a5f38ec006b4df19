"""DELTA_BINARY_PACKED blocks of all pages of a chunk checked in one pass (issue 32):
a bad block in page k of n still raises the error the stream raises on its own,
naming page k; files written by pyarrow, pages located by pyarrow's offset index,
values compared with pyarrow's read."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.encodings.delta_binary_packed import (
    decode_delta_binary_packed,
    delta_binary_packed_page_header,
    expand_held_delta_binary_packed_pages,
)
from parquet_core.errors import ParquetFormatError
from tests._support.dbp_streams import damage, held_with_reference
from tests.unit.encodings.golden import uleb as _uleb

N_PAGES = 5
PER_PAGE = 2_000


def _write(path: Path, values: np.ndarray, typ: pa.DataType | None = None, **kw) -> None:  # type: ignore[no-untyped-def]
    typ = typ or pa.int64()
    table = pa.table({"x": pa.array(values, typ)},
                     schema=pa.schema([pa.field("x", typ, nullable=False)]))
    pq.write_table(table, path, use_dictionary=False, compression="NONE",
                   column_encoding={"x": "DELTA_BINARY_PACKED"}, write_page_index=True,
                   max_rows_per_page=kw.pop("per_page", PER_PAGE), **kw)


def _jittered(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 1_700_000_000_000_000 + np.cumsum(rng.integers(900_000, 1_100_000, n))


def _stream_starts(path: Path, values: np.ndarray) -> list[tuple[int, int, int, int]]:
    """(file offset of the page, offset of its DBP stream, value count, end) per page, from the
    offset index pyarrow wrote and the stream header the spec defines."""
    data = path.read_bytes()
    locs = pc.ParquetFile(str(path)).offset_index(0, "x").page_locations
    out = []
    for i, loc in enumerate(locs):
        first = int(loc.first_row_index)
        end = int(locs[i + 1].first_row_index) if i + 1 < len(locs) else len(values)
        v = int(values[first])
        # block size 128 or 256 (pyarrow's), 4 miniblocks, count, first value
        tail = _uleb(4) + _uleb(end - first) + _uleb((v << 1) ^ (v >> 63))
        at = max(data.find(_uleb(b) + tail, int(loc.offset), int(loc.offset) + 200) for b in (128, 256))
        assert int(loc.offset) < at < int(loc.offset) + int(loc.compressed_page_size)
        out.append((int(loc.offset), at, end - first, int(loc.offset) + int(loc.compressed_page_size)))
    return out


def _corrupt(path: Path, values: np.ndarray, page: int, how: str) -> tuple[int, bytes, int]:
    """Corrupt page *page*; returns its file offset, its corrupted stream and value count."""
    data = bytearray(path.read_bytes())
    starts = _stream_starts(path, values)
    offset, at, count, stream_end = starts[page]    # a v1 page of a required column: the stream ends it
    v = int(values[sum(c for _, _, c, _ in starts[:page])])
    block = at + len(_uleb(128) + _uleb(4) + _uleb(count) + _uleb((v << 1) ^ (v >> 63)))
    assert data[at] == 0x80 and data[at + 1] in (1, 2)     # both block sizes take 2 bytes
    vl = 1
    while data[block + vl - 1] >= 0x80:
        vl += 1
    if how == "width":          # a miniblock 65 bits wide in the first block
        data[block + vl] = 65
    elif how == "varint":       # the first min delta made an 11-byte varint
        data[block:block + 11] = b"\xff" * 10 + b"\x01"
    path.write_bytes(bytes(data))
    return offset, bytes(data[at:stream_end]), count


@pytest.mark.parametrize("how", ["width", "varint"])
@pytest.mark.parametrize("page", [0, 2, N_PAGES - 1])
def test_a_bad_block_in_page_k_raises_the_page_s_own_error_naming_page_k(tmp_path, page, how) -> None:  # type: ignore[no-untyped-def]
    values = _jittered(N_PAGES * PER_PAGE)
    path = tmp_path / "t.parquet"
    _write(path, values)
    assert pc.read_table(str(path)).to_arrow().equals(pq.read_table(path))
    offset, stream, count = _corrupt(path, values, page, how)
    # the error the page's stream raises on its own
    with pytest.raises(ParquetFormatError) as alone:
        decode_delta_binary_packed(stream, 0, np.int64, max_count=count)
    with pytest.raises(ParquetFormatError) as info:
        pc.read_table(str(path))
    assert str(info.value) == f"{alone.value} (while reading file {str(path)!r})"
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert f"at page {page} (file offset {offset})" in notes
    for other in range(N_PAGES):
        if other != page:
            assert f"at page {other} " not in notes


def test_the_first_bad_page_is_named_when_several_are_bad(tmp_path) -> None:  # type: ignore[no-untyped-def]
    values = _jittered(N_PAGES * PER_PAGE)
    path = tmp_path / "t.parquet"
    _write(path, values)
    _corrupt(path, values, 3, "width")
    offset, stream, count = _corrupt(path, values, 1, "varint")
    with pytest.raises(ParquetFormatError) as alone:
        decode_delta_binary_packed(stream, 0, np.int64, max_count=count)
    with pytest.raises(ParquetFormatError) as info:
        pc.read_table(str(path))
    assert str(info.value) == f"{alone.value} (while reading file {str(path)!r})"
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert f"at page 1 (file offset {offset})" in notes
    assert "at page 3 " not in notes


@pytest.mark.parametrize("case", ["jittered", "varying-varints", "ten-byte-varints", "uneven-pages",
                                  "int32", "one-page"])
def test_chunks_read_equal_to_pyarrow(tmp_path, case) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    typ = pa.int64()
    kw: dict = {}
    if case == "jittered":
        values = _jittered(10_003)
    elif case == "varying-varints":      # min deltas of 1..4 varint bytes from block to block
        gaps = rng.integers(0, 10, 20_000) * (10 ** rng.integers(0, 8, 20_000) // 10 + 1)
        values = np.cumsum(gaps)
    elif case == "ten-byte-varints":     # full-range deltas: min-delta varints of 9-10 bytes
        values = rng.integers(-2**63, 2**63 - 1, 9_000, dtype=np.int64)
    elif case == "uneven-pages":
        values = _jittered(9_500)
        kw["per_page"] = 1_333
    elif case == "int32":
        values = rng.integers(-2**31, 2**31 - 1, 7_777).astype(np.int32)
        typ = pa.int32()
    else:
        values = _jittered(300)
    path = tmp_path / "t.parquet"
    _write(path, values, typ, **kw)
    got = pc.read_table(str(path)).to_arrow()
    assert got.equals(pq.read_table(path))


def test_pages_failing_a_batched_check_are_left_to_the_page_by_page_check() -> None:
    # streams the page-by-page decoder accepts, but the batched pass hands back (None)
    from parquet_core.encodings.delta_binary_packed import encode_delta_binary_packed
    a = np.frombuffer(encode_delta_binary_packed(np.arange(1000), np.int64), np.uint8)
    b = np.frombuffer(encode_delta_binary_packed(np.arange(1000), np.int64, block_size=256,
                                                 miniblocks=8), np.uint8)
    held = [delta_binary_packed_page_header(x, 1000, np.int64) for x in (a, b)]
    assert expand_held_delta_binary_packed_pages(held, np.int64) is None    # two layouts
    got = expand_held_delta_binary_packed_pages(held[:1] * 3, np.int64)
    assert got is not None and got.tolist() == list(range(1000)) * 3


def test_the_batched_check_never_accepts_what_the_page_by_page_check_rejects() -> None:
    # random streams (some with bytes overwritten or cut off): the batched pass either
    # hands back None or the values of page-by-page decoding (the spec's reference: each
    # stream decoded on its own); it never accepts a stream the decoder rejects
    from parquet_core.encodings.delta_binary_packed import encode_delta_binary_packed
    rng = np.random.default_rng(1)
    accepted = 0
    for it in range(300):
        dt = np.int64 if it % 2 else np.int32
        bs, nm = [(128, 4), (256, 4), (64, 8), (32, 1), (256, 16)][it % 5]
        pages, counts = [], []
        for _ in range(int(rng.integers(1, 5))):
            c = int(rng.integers(2, 600))
            kind = it % 3
            v = (np.cumsum(rng.integers(0, 100, c)) if kind == 0 else rng.integers(-2**62, 2**62, c)
                 if kind == 1 else np.cumsum(rng.integers(0, 10, c) * 10 ** rng.integers(0, 6, c)))
            b = bytearray(encode_delta_binary_packed(v.astype(dt), dt, block_size=bs, miniblocks=nm))
            pages.append(damage(rng, b, first=6, overwrite=0.5, cut=0.2))
            counts.append(c)
        found = held_with_reference(pages, counts, dt)
        if found is None:
            continue
        held, ref = found
        got = expand_held_delta_binary_packed_pages(held, dt)
        if got is not None:
            assert ref is not None and np.array_equal(got, ref)
            accepted += 1
    assert accepted > 50


@pytest.mark.parametrize("walk", ["uniform", "each", "lockstep"])
def test_every_block_walk_reads_pyarrow_files_and_rejects_bad_blocks(tmp_path, monkeypatch, walk) -> None:  # type: ignore[no-untyped-def]
    # a chunk's block chains are found at once when every block of a page repeats its
    # first block's layout (jittered timestamps: one bit width throughout), else walked
    # page by page (a Python step per block, few pages) or in lockstep (numpy calls per
    # block index, many pages): the same values (pyarrow's read) and the same refusals
    from parquet_core.encodings import delta_binary_packed as dbp
    monkeypatch.setattr(dbp, "_EACH_MAX_PAGES", 1_000 if walk == "each" else 0)
    if walk != "uniform":
        monkeypatch.setattr(dbp, "_steady_chunk", lambda *a: None)   # (it reads these pages first)
        real_uniform = dbp._walk_uniform

        def no_guess(*a):  # type: ignore[no-untyped-def]
            walked, uniform = real_uniform(*a)
            return walked, np.zeros_like(uniform)
        monkeypatch.setattr(dbp, "_walk_uniform", no_guess)
    calls = {"each": 0, "lockstep": 0}
    for name in calls:
        real = getattr(dbp, f"_walk_{name}" if name == "each" else "_lockstep")

        def spy(*a, _real=real, _name=name):  # type: ignore[no-untyped-def]
            calls[_name] += 1
            return _real(*a)
        monkeypatch.setattr(dbp, f"_walk_{name}" if name == "each" else "_lockstep", spy)
    values = _jittered(N_PAGES * PER_PAGE)
    path = tmp_path / "t.parquet"
    _write(path, values)
    assert pc.read_table(str(path)).to_arrow().equals(pq.read_table(path))
    if walk == "uniform":
        assert calls == {"each": 0, "lockstep": 0}
    else:
        other = "lockstep" if walk == "each" else "each"
        assert calls[walk] >= 1 and calls[other] == 0
    offset, stream, count = _corrupt(path, values, 2, "width")
    with pytest.raises(ParquetFormatError) as alone:
        decode_delta_binary_packed(stream, 0, np.int64, max_count=count)
    with pytest.raises(ParquetFormatError) as info:
        pc.read_table(str(path))
    assert str(info.value) == f"{alone.value} (while reading file {str(path)!r})"
    assert f"at page 2 (file offset {offset})" in "\n".join(getattr(info.value, "__notes__", []))
