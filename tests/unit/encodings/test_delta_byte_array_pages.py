"""DELTA_BYTE_ARRAY pages of a run decoded together (issue 32): both length streams of
every page unpacked in one pass each, the run's prefixes resolved at once.  Values are
checked against the spec's recurrence (value[i] = value[i-1][:prefix[i]] + suffix[i])
written out here and against pyarrow's read of pyarrow-written files; a bad page still
raises its own page-by-page error, naming it."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
import parquet_core.encodings.delta_byte_array as dba
from parquet_core.encodings.delta_binary_packed import (
    decode_delta_binary_packed,
    delta_binary_packed_page_header,
    encode_delta_binary_packed,
    expand_held_delta_binary_packed_pages,
)
from parquet_core.errors import ParquetFormatError
from tests._support.front_coding import front_code as _front_code
from tests._support.front_coding import page as _page
from tests._support.front_coding import spec_values as _spec


def _urls(n: int, seed: int) -> list[bytes]:
    rng = np.random.default_rng(seed)
    stems = [b"https://www.example-%03d.com/catalogue/section-%02d/" % (h, s)
             for h in range(10) for s in range(4)]
    return sorted(stems[int(i)] + b"item-%09d.html" % int(v)
                  for i, v in zip(rng.integers(0, len(stems), n), rng.integers(0, 10**9, n)))


def _shape(kind: str, n: int, seed: int) -> tuple[list[int], list[bytes]]:
    rng = np.random.default_rng(seed)
    if kind == "urls":          # few prefix lengths: resolved by length over the run
        return _front_code(_urls(n, seed))
    if kind == "random":        # few copied bytes: the sparse resolution over the run
        return _front_code(sorted(bytes(rng.integers(97, 100, int(rng.integers(0, 12)),
                                                     dtype=np.uint8)) for _ in range(n)))
    if kind == "deep":          # one prefix length per value: page by page
        suffixes = [b"x"] + [b"%d" % (i % 10) for i in range(1, n)]
        prefixes = [0] + list(range(1, n))
        return prefixes, suffixes
    if kind == "none":          # no prefixes at all
        return [0] * n, [bytes(rng.integers(0, 256, 5, dtype=np.uint8)) for _ in range(n)]
    raise AssertionError(kind)


def _pages(kinds: list[str], sizes: list[int]) -> tuple[list[bytes], list[int], list[bytes]]:
    bufs, want = [], []
    for p, (kind, n) in enumerate(zip(kinds, sizes)):
        prefixes, suffixes = _shape(kind, n, p)
        bufs.append(_page(prefixes, suffixes))
        want += _spec(prefixes, suffixes)
    return bufs, list(sizes), want


@pytest.mark.parametrize("kinds", [["urls"] * 4, ["random"] * 3, ["deep", "urls", "deep"],
                                   ["none", "urls", "random", "none"]])
def test_pages_together_equal_the_recurrence(kinds) -> None:  # type: ignore[no-untyped-def]
    sizes = [300, 1, 129, 1000][:len(kinds)] if kinds[0] == "urls" else [200, 300, 257, 40][:len(kinds)]
    sizes = [max(s, 2) for s in sizes]
    bufs, counts, want = _pages(kinds, sizes)
    got = dba.decode_delta_byte_arrays_together(bufs, counts)
    assert got is not None
    assert got.to_pylist() == want
    assert dba.decode_delta_byte_arrays_multi(bufs, counts).to_pylist() == want


@pytest.mark.parametrize("n", [2, 3, 128, 129, 130, 257, 1000])
def test_stream_ends_are_the_page_decoder_s(n) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(n)
    streams = [encode_delta_binary_packed(rng.integers(-(1 << k), 1 << k, n), np.int32) + b"\x81junk"
               for k in (3, 12, 30)]
    held = [delta_binary_packed_page_header(s, n, np.int32) for s in streams]
    got = expand_held_delta_binary_packed_pages(held, np.int32, with_ends=True)
    assert got is not None
    values, ends = got
    for k, s in enumerate(streams):
        alone, end = decode_delta_binary_packed(s, 0, np.int32, max_count=n)
        assert int(ends[k]) == end == len(s) - 5
        assert np.array_equal(values[k * n:(k + 1) * n], alone)


def _bad(how: str) -> tuple[bytes, int]:
    prefixes, suffixes = _shape("urls", 50, 9)
    if how == "prefix-too-long":
        prefixes[7] = len(_spec(prefixes, suffixes)[6]) + 3
    elif how == "first-prefix":
        prefixes[0] = 2
    elif how == "negative-prefix":
        prefixes[3] = -1
    buf = _page(prefixes, suffixes)
    if how == "truncated":
        buf = buf[:-4]
    return buf, len(suffixes)


@pytest.mark.parametrize("how", ["prefix-too-long", "first-prefix", "negative-prefix", "truncated"])
@pytest.mark.parametrize("page", [0, 1, 2])
def test_a_bad_page_raises_its_own_error_naming_it(how, page) -> None:  # type: ignore[no-untyped-def]
    bufs, counts, _ = _pages(["urls", "urls", "urls"], [60, 70, 80])
    bufs[page], counts[page] = _bad(how)
    with pytest.raises(ParquetFormatError) as alone:
        dba.decode_delta_byte_array(bufs[page], counts[page])
    assert dba.decode_delta_byte_arrays_together(bufs, counts) is None
    with pytest.raises(ParquetFormatError) as info:
        dba.decode_delta_byte_arrays_multi(bufs, counts)
    assert str(info.value) == f"page {page} of 3: {alone.value}"


@pytest.mark.parametrize("group", [None, 20_000])
@pytest.mark.parametrize("nulls", [False, True])
def test_pyarrow_written_pages_read_equal_to_pyarrow(monkeypatch, nulls, group) -> None:  # type: ignore[no-untyped-def]
    if group is not None:       # a row group's pages resolved in runs of a few pages
        monkeypatch.setattr(dba, "_RESOLVE_GROUP_BYTES", group)
    values: list = [v.decode() for v in _urls(12_000, 5)]
    if nulls:
        values = [None if i % 7 == 3 else v for i, v in enumerate(values)]
    sink = io.BytesIO()
    pq.write_table(pa.table({"url": pa.array(values, pa.string())}), sink, use_dictionary=False,
                   column_encoding={"url": "DELTA_BYTE_ARRAY"}, max_rows_per_page=1000,
                   row_group_size=5000, data_page_version="2.0" if nulls else "1.0")
    data = sink.getvalue()
    want = pq.read_table(io.BytesIO(data)).column("url").to_pylist()
    got = pc.read_table(io.BytesIO(data), use_threads=False).to_arrow().column("url").to_pylist()
    assert got == want
    batches = pc.ParquetFile(io.BytesIO(data)).iter_batches(batch_size=1500)
    assert [v for b in batches for v in b.column(0).to_pylist()] == want


@pytest.mark.parametrize("page", [0, 2, 4])
def test_a_bad_page_in_a_file_is_named(tmp_path, page) -> None:  # type: ignore[no-untyped-def]
    # a pyarrow file of 5 pages; page k's first prefix length made 1 (its stream's first
    # value: zigzag 2), which the page-by-page decoder refuses, naming page k
    values = [v.decode() for v in _urls(5_000, 8)]
    path = tmp_path / "u.parquet"
    pq.write_table(pa.table({"url": pa.array(values, pa.string())},
                            schema=pa.schema([pa.field("url", pa.string(), nullable=False)])),
                   path, use_dictionary=False, compression="NONE", write_page_index=True,
                   column_encoding={"url": "DELTA_BYTE_ARRAY"}, max_rows_per_page=1000)
    data = bytearray(path.read_bytes())
    loc = pc.ParquetFile(str(path)).offset_index(0, "url").page_locations[page]
    head = b"\x80\x01\x04" + bytes([0xE8, 0x07]) + b"\x00"     # 128, 4 miniblocks, 1000 values, 0
    at = data.find(head, int(loc.offset), int(loc.offset) + int(loc.compressed_page_size))
    assert at > 0
    data[at + len(head) - 1] = 2
    path.write_bytes(bytes(data))
    with pytest.raises(ParquetFormatError) as info:
        pc.read_table(str(path), use_threads=False)
    assert "the first value has prefix length 1 but no predecessor" in str(info.value)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert f"at page {page} (file offset {int(loc.offset)})" in notes


def test_prefix_copies_stretch_by_stretch(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the copies made 4,096 values at a time: parents in earlier stretches or shorter lengths
    monkeypatch.setattr(dba, "_COPY_STRETCH_BYTES", 1)
    values = _urls(20_000, 11)
    prefixes, suffixes = _front_code(values)
    got = dba.decode_delta_byte_array(_page(prefixes, suffixes), len(values))
    assert got.to_pylist() == values


@pytest.mark.parametrize("kinds", [["urls"] * 4, ["random"] * 3, ["deep", "urls", "deep"],
                                   ["none", "none"], ["none", "urls", "random", "none"]])
def test_prepared_pages_resolve_into_a_slice_of_a_larger_output(kinds) -> None:  # type: ignore[no-untyped-def]
    """The two halves of the joint decode (the split chunk's ranges resolve into slices of
    one output, side by side): the values of the recurrence, their bytes in the caller's
    slice, nothing written outside it."""
    sizes = [300, 2, 129, 1000][:len(kinds)]
    bufs, counts, want = _pages(kinds, sizes)
    pages = dba.prepare_delta_byte_arrays(bufs, counts)
    assert pages is not None and len(pages) == sum(counts)
    assert pages.nbytes == sum(len(v) for v in want)
    assert pages.resolve().to_pylist() == want
    guard = 300
    buf = np.full(pages.nbytes + 2 * guard, 0x5A, dtype=np.uint8)
    out = buf[guard:guard + pages.nbytes]
    got = pages.resolve(out)
    assert got.to_pylist() == want
    assert got.data is out and int(got.offsets[0]) == 0
    assert (buf[:guard] == 0x5A).all() and (buf[guard + pages.nbytes:] == 0x5A).all()
    with pytest.raises(ValueError):
        pages.resolve(buf[:pages.nbytes + 1])


def test_a_bad_page_is_not_prepared() -> None:
    """A page the joint decode refuses is not prepared either (the page-by-page decode
    raises its error); a page's first value never takes a prefix from the page before."""
    bufs, counts, _ = _pages(["urls", "urls", "urls"], [60, 70, 80])
    for how in ("prefix-too-long", "first-prefix", "negative-prefix", "truncated"):
        bad = list(bufs)
        bad[1], n = _bad(how)
        assert dba.prepare_delta_byte_arrays(bad, [60, n, 80]) is None
    assert dba.prepare_delta_byte_arrays([], []) is None
    one = dba.prepare_delta_byte_arrays(bufs[:1], counts[:1])     # one page (a range of one)
    assert one is not None
    assert one.resolve().to_pylist() == dba.decode_delta_byte_array(bufs[0], counts[0]).to_pylist()
    bad, n = _bad("first-prefix")
    assert dba.prepare_delta_byte_arrays([bad], [n]) is None
    assert dba.decode_delta_byte_arrays_together(bufs[:1], counts[:1]) is None    # alone: page by page


@pytest.mark.parametrize("kinds", [["urls"] * 6, ["urls", "deep", "urls", "random", "none", "urls"],
                                   ["none", "none", "urls"]])
@pytest.mark.parametrize("group", [1, 3000, 9000, 1 << 30])
def test_runs_of_pages_resolve_apart_into_one_output(monkeypatch, kinds, group) -> None:  # type: ignore[no-untyped-def]
    """Many pages resolve in runs of whole pages of about _RESOLVE_GROUP_BYTES of output
    each (so a run stays in cache), each into its slice of the one output: the values
    of the recurrence, nothing written outside the caller's slice."""
    monkeypatch.setattr(dba, "_RESOLVE_GROUP_BYTES", group)
    sizes = [400, 2, 333, 700, 150, 500][:len(kinds)]
    bufs, counts, want = _pages(kinds, sizes)
    pages = dba.prepare_delta_byte_arrays(bufs, counts)
    assert pages is not None
    assert pages.resolve().to_pylist() == want
    guard = 64
    buf = np.full(pages.nbytes + 2 * guard, 0x5A, dtype=np.uint8)
    got = pages.resolve(buf[guard:guard + pages.nbytes])
    assert got.to_pylist() == want
    assert (buf[:guard] == 0x5A).all() and (buf[guard + pages.nbytes:] == 0x5A).all()
    assert dba.decode_delta_byte_arrays_multi(bufs, counts).to_pylist() == want


def test_a_long_run_of_pages_is_resolved_a_few_pages_at_a_time(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The prefix resolution is called once per run of pages of about the group size,
    never over the whole chunk at once, and each run starts at a page."""
    bufs, counts, want = _pages(["urls"] * 8, [500] * 8)
    pages = dba.prepare_delta_byte_arrays(bufs, counts)
    assert pages is not None
    monkeypatch.setattr(dba, "_RESOLVE_GROUP_BYTES", pages.nbytes // 4)
    seen: list[int] = []
    real = dba._resolve_by_lengths

    def spy(prefix, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(prefix.size)
        assert prefix[0] == 0
        return real(prefix, *args, **kwargs)

    monkeypatch.setattr(dba, "_resolve_by_lengths", spy)
    assert pages.resolve().to_pylist() == want
    assert sum(seen) == 4000 and len(seen) == 4 and set(seen) == {1000}
