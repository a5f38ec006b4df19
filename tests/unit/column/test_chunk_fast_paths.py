"""Whole-chunk decoding and the per-page pipeline, pinned on random chunks.

Each example builds a column chunk from values it generated itself (so the
expected result is the input, not our decoder's output): a dictionary page
or not, then data pages v1 or v2 in mixed encodings (dictionary, PLAIN, the
type's other encodings), with nulls or not, empty pages, dictionary
fallback midway, v2 pages with uncompressed levels and compressed or
uncompressed values, every codec.  The chunk is read

* through ``iter_pages`` + ``read_column_chunk`` (the fast paths),
* with the fast paths switched off (every page through ``decode_values``
  and the level decoder, as before whole-chunk decoding),
* piece by piece with ``iter_chunk_pieces``,

and all three must give the generated values and levels.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core.column import reader as column_reader
from parquet_core.column.levels import read_levels_v1
from parquet_core.column.reader import (
    decode_plain_byte_arrays_multi,
    iter_chunk_pieces,
    read_column_chunk,
    read_column_chunks,
)
from parquet_core.constants import CompressionCodec, Encoding, PageType, PhysicalType, Repetition
from parquet_core.encodings.plain import decode_plain_byte_array
from parquet_core.encodings.plain_encoder import encode_plain
from parquet_core.encodings.rle_hybrid_encoder import (
    encode_dictionary_indices,
    encode_levels_v1,
)
from parquet_core.errors import ParquetFormatError
from parquet_core.page.reader import iter_pages
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize
from tests._support.random_chunks import Chunk, as_list, cat, chunks, descriptor_of


def _check(data, chunk: Chunk) -> None:
    assert data.num_levels == chunk.num_values
    if chunk.values is None:
        assert len(data.values) == 0
    else:
        assert as_list(data.values) == as_list(chunk.values)
    if chunk.defs is None:
        assert data.def_levels is None
    elif data.def_levels is None:
        assert chunk.reps is None and (chunk.defs == chunk.desc.max_definition_level).all()
    else:
        assert data.def_levels.tolist() == chunk.defs.tolist()
    if chunk.reps is None:
        assert data.rep_levels is None
    else:
        assert data.rep_levels.tolist() == chunk.reps.tolist()


def _pages(chunk: Chunk):
    return iter_pages(chunk.data, chunk.codec, chunk.num_values)


def _general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the fast paths off: every page decoded on its own by the general code."""
    monkeypatch.setattr(column_reader, "_no_nulls_v1", lambda *a: -1)
    monkeypatch.setattr(column_reader, "_full_run", lambda n, level: b"\xff" * 7)  # never matches
    monkeypatch.setattr(column_reader, "_DEFER_MAX_PAGE", 0)
    original = column_reader._ChunkDecoder.__init__

    def init(self, *a, **kw):  # type: ignore[no-untyped-def]
        original(self, *a, **kw)
        self.width = 0   # PLAIN fixed-width pages through decode_values, one by one
        self.bools = False  # PLAIN booleans too
        self.batch_indices = False  # dictionary indices decoded page by page
        self.bits = False  # levels of flat optional columns page by page, not held for a batch

    monkeypatch.setattr(column_reader._ChunkDecoder, "__init__", init)


def _pieces(chunk: Chunk, keep: bool = False):
    pieces = list(iter_chunk_pieces(_pages(chunk), chunk.desc, keep))
    desc = chunk.desc
    values = [p.values for p in pieces]
    ptype = desc.physical_type
    joined = cat(values, ptype) if values else None
    defs = None
    if desc.max_definition_level:
        defs = np.concatenate([p.def_levels if p.def_levels is not None
                               else np.full(p.num_levels, desc.max_definition_level, np.int16)
                               for p in pieces]) if pieces else np.zeros(0, np.int16)
    reps = np.concatenate([p.rep_levels for p in pieces]) if desc.max_repetition_level and pieces \
        else (np.zeros(0, np.int16) if desc.max_repetition_level else None)
    return pieces, joined, defs, reps


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chunks())
def test_chunk_decoding_matches_the_generated_values(chunk: Chunk) -> None:
    _check(read_column_chunk(_pages(chunk), chunk.desc), chunk)
    pieces, joined, defs, reps = _pieces(chunk)
    assert len(pieces) == sum(1 for p in _pages(chunk) if hasattr(p, "num_rows") or hasattr(p, "body")
                              and not type(p).__name__.startswith("Dict"))
    assert sum(p.num_levels for p in pieces) == chunk.num_values
    if chunk.values is None or joined is None:
        assert (joined is None or len(joined) == 0) and (chunk.values is None or len(chunk.values) == 0)
    else:
        assert as_list(joined) == as_list(chunk.values)
    if chunk.defs is not None:
        assert defs.tolist() == chunk.defs.tolist()
    if chunk.reps is not None:
        assert reps.tolist() == chunk.reps.tolist()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(chunk=chunks())
def test_fast_paths_match_the_general_path(chunk: Chunk, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = read_column_chunk(_pages(chunk), chunk.desc)
    with monkeypatch.context() as m:
        _general_path(m)
        slow = read_column_chunk(_pages(chunk), chunk.desc)
    _check(fast, chunk)
    _check(slow, chunk)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(chunks(ptype=PhysicalType.BYTE_ARRAY), min_size=1, max_size=3))
def test_several_chunks_with_kept_dictionaries(group: list[Chunk]) -> None:
    """read_column_chunks over chunks of one column (same descriptor) keeps one dictionary per chunk."""
    desc = group[0].desc
    group = [c for c in group if c.desc.max_definition_level == desc.max_definition_level
             and c.desc.max_repetition_level == desc.max_repetition_level]
    data, per_chunk = read_column_chunks([_pages(c) for c in group], desc, keep_dictionary=True)
    assert per_chunk == [c.num_values for c in group]
    expect = [v for c in group if c.values is not None for v in as_list(c.values)]
    assert as_list(data.values) == expect
    assert data.dictionaries is not None and len(data.dictionaries) == len(group)
    decoded = [v for kd in data.dictionaries for v in as_list(kd.values.take(kd.indices))]
    assert decoded == expect
    for chunk in group:     # pieces with kept dictionaries decode to the same values
        pieces = list(iter_chunk_pieces(_pages(chunk), desc, keep_dictionary=True))
        got = [v for p in pieces for kd in p.dictionaries for v in as_list(kd.values.take(kd.indices))]
        assert got == ([] if chunk.values is None else as_list(chunk.values))


# ---------------------------------------------------------------------------------------
# the pieces, one at a time


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.binary(max_size=9), max_size=20), min_size=1, max_size=6),
       st.lists(st.binary(max_size=5), min_size=6, max_size=6))
def test_multi_page_byte_arrays_equal_page_by_page(pages: list[list[bytes]], tails: list[bytes]) -> None:
    """The multi-page PLAIN BYTE_ARRAY decoder against page-by-page decoding, also with
    bytes after a page's values (which must not be read as the next page's values)."""
    for with_tails in (False, True):
        bufs, counts = [], []
        for vals, tail in zip(pages, tails):
            b = encode_plain(ByteArrays.from_pylist(vals), PhysicalType.BYTE_ARRAY)
            bufs.append(bytes(b) + (tail if with_tails else b""))
            counts.append(len(vals))
        expect = [v for b, c in zip(bufs, counts) for v in decode_plain_byte_array(b, c)[0].to_pylist()]
        assert decode_plain_byte_arrays_multi(bufs, counts).to_pylist() == expect
        assert expect == [v for vals in pages for v in vals]


def test_multi_page_byte_arrays_report_a_short_page() -> None:
    good = bytes(encode_plain(ByteArrays.from_pylist([b"ab", b"c"]), PhysicalType.BYTE_ARRAY))
    with pytest.raises(ParquetFormatError):
        decode_plain_byte_arrays_multi([good, good[:-1]], [2, 2])
    # the second page's missing value must not be taken from nowhere, nor the first's extra
    with pytest.raises(ParquetFormatError):
        decode_plain_byte_arrays_multi([good + good, good[:5]], [2, 2])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=300), st.integers(1, 3), st.binary(max_size=4))
def test_no_null_level_shortcut_agrees_with_the_level_decoder(levels: list[int], max_def: int,
                                                               after: bytes) -> None:
    levels = [min(v, max_def) for v in levels]
    body = encode_levels_v1(np.array(levels, dtype=np.int16), max_def) + after
    n = len(levels)
    stop = column_reader._no_nulls_v1(memoryview(body), 0, Encoding.RLE, max_def, n)
    decoded, pos = read_levels_v1(memoryview(body), 0, Encoding.RLE, max_def, n, "definition")
    if stop >= 0:
        assert stop == pos and (decoded == max_def).all()
    # a page without nulls is what writers produce: the shortcut must see it
    if n and all(v == max_def for v in levels):
        full = column_reader._full_run(n, max_def)
        assert column_reader._no_nulls_v1(memoryview(len(full).to_bytes(4, "little") + full + after),
                                          0, Encoding.RLE, max_def, n) == 4 + len(full)


def test_short_plain_page_is_an_error_with_the_page_named() -> None:
    desc = descriptor_of(PhysicalType.INT64, Repetition.REQUIRED)
    body = np.arange(3, dtype=np.int64).tobytes()[:-1]
    h = pt.PageHeader(type=PageType.DATA_PAGE, uncompressed_page_size=len(body), compressed_page_size=len(body),
                      data_page_header=pt.DataPageHeader(num_values=3, encoding=Encoding.PLAIN,
                                                         definition_level_encoding=Encoding.RLE,
                                                         repetition_level_encoding=Encoding.RLE))
    with pytest.raises(ParquetFormatError, match="need 24 bytes") as info:
        read_column_chunk(iter_pages(serialize(h) + body, CompressionCodec.UNCOMPRESSED, 3), desc)
    assert any("page 0" in n for n in info.value.__notes__)


@pytest.mark.parametrize("ptype", [PhysicalType.BYTE_ARRAY, PhysicalType.INT64, PhysicalType.FIXED_LEN_BYTE_ARRAY,
                                   PhysicalType.BOOLEAN, PhysicalType.INT32])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fast_paths_per_type(ptype: int, data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    """As above, more examples of the types with run fast paths (PLAIN runs, gathers)."""
    chunk = data.draw(chunks(ptype=ptype))
    fast = read_column_chunk(_pages(chunk), chunk.desc)
    with monkeypatch.context() as m:
        _general_path(m)
        slow = read_column_chunk(_pages(chunk), chunk.desc)
    _check(fast, chunk)
    _check(slow, chunk)


@pytest.mark.parametrize("rep", [Repetition.REQUIRED, Repetition.OPTIONAL])
def test_short_boolean_page_is_an_error_with_the_page_named(rep: Repetition) -> None:
    """PLAIN booleans are unpacked per run of pages; a page short of bytes still fails
    when added, naming itself (here the second page)."""
    desc = descriptor_of(PhysicalType.BOOLEAN, rep)
    out = b""
    for i, n in enumerate((9, 17)):
        levels = encode_levels_v1(np.ones(n, dtype=np.int16), 1) if rep == Repetition.OPTIONAL else b""
        body = levels + np.packbits(np.ones(n, dtype=bool), bitorder="little").tobytes()[:2 if i else None]
        h = pt.PageHeader(type=PageType.DATA_PAGE, uncompressed_page_size=len(body),
                          compressed_page_size=len(body),
                          data_page_header=pt.DataPageHeader(num_values=n, encoding=Encoding.PLAIN,
                                                             definition_level_encoding=Encoding.RLE,
                                                             repetition_level_encoding=Encoding.RLE))
        out += serialize(h) + body
    with pytest.raises(ParquetFormatError) as info:
        read_column_chunk(iter_pages(out, CompressionCodec.UNCOMPRESSED, 26), desc)
    assert any("page 1" in n for n in info.value.__notes__)


@pytest.mark.parametrize("bad_page", [0, 1, 2])
@pytest.mark.parametrize("v2", [False, True])
def test_dictionary_index_out_of_range_names_its_page(bad_page: int, v2: bool) -> None:
    """Indices of several pages are expanded together; an index past the dictionary is
    still reported with the page that holds it, whole chunk or piece by piece."""
    desc = descriptor_of(PhysicalType.INT32, Repetition.REQUIRED)
    dictionary = np.arange(3, dtype=np.int32)
    body = encode_plain(dictionary, PhysicalType.INT32, None)
    out = serialize(pt.PageHeader(type=PageType.DICTIONARY_PAGE, uncompressed_page_size=len(body),
                                  compressed_page_size=len(body),
                                  dictionary_page_header=pt.DictionaryPageHeader(
                                      num_values=3, encoding=Encoding.PLAIN))) + body
    for i in range(3):
        idx = np.array([0, 1, 2, 1, 0, 2, 1, 1, 2, 0, 0], dtype=np.int64)
        if i == bad_page:
            idx[5] = 6
        payload = encode_dictionary_indices(idx, 7)
        if v2:
            h = pt.PageHeader(type=PageType.DATA_PAGE_V2, uncompressed_page_size=len(payload),
                              compressed_page_size=len(payload),
                              data_page_header_v2=pt.DataPageHeaderV2(
                                  num_values=len(idx), num_nulls=0, num_rows=len(idx),
                                  encoding=Encoding.RLE_DICTIONARY, definition_levels_byte_length=0,
                                  repetition_levels_byte_length=0, is_compressed=False))
        else:
            h = pt.PageHeader(type=PageType.DATA_PAGE, uncompressed_page_size=len(payload),
                              compressed_page_size=len(payload),
                              data_page_header=pt.DataPageHeader(
                                  num_values=len(idx), encoding=Encoding.RLE_DICTIONARY,
                                  definition_level_encoding=Encoding.RLE,
                                  repetition_level_encoding=Encoding.RLE))
        out += serialize(h) + payload
    for read in (lambda pages: read_column_chunk(pages, desc),
                 lambda pages: list(iter_chunk_pieces(pages, desc, min_levels=100)),
                 lambda pages: read_column_chunks([pages], desc, keep_dictionary=True)):
        with pytest.raises(ParquetFormatError, match="dictionary index 6 out of range") as info:
            read(iter_pages(out, CompressionCodec.UNCOMPRESSED, 33))
        notes = [n for n in info.value.__notes__ if "page" in n]
        assert len(notes) == 1 and notes[0].startswith(f"at page {bad_page} (file offset ")


def test_consecutive_dictionary_indices_are_a_slice_copy() -> None:
    """Indices counting up by one copy a slice of the dictionary (issue 32); indices whose
    ends look consecutive but whose middle is not, or that run past the dictionary,
    are taken as usual.  Expected values: numpy's own fancy indexing."""
    from parquet_core.column.reader import _take_dictionary

    d = np.arange(40, dtype=np.int64).reshape(10, 4)
    for idx in ([0, 1, 2, 3], [3, 4, 5], [0, 2, 1, 3], [2, 1, 3, 4], [7, 8, 9], [5], [], [4, 4]):
        idx = np.array(idx, dtype=np.int32)
        assert _take_dictionary(d, idx, None).tolist() == d[idx].tolist()
        out = np.full((len(idx) + 2, 4), -1, dtype=np.int64)
        _take_dictionary(d, idx, out[1:len(idx) + 1])
        assert out.tolist() == [[-1] * 4] + d[idx].tolist() + [[-1] * 4]
    got = _take_dictionary(d, np.arange(10, dtype=np.int32), None)
    got[0, 0] = 99          # a copy: the dictionary stays as it was
    assert d[0, 0] == 0


@pytest.mark.parametrize("int96", [False, True])
def test_distinct_values_dictionary_then_plain_read_as_pyarrow(int96) -> None:
    """A column of distinct values dictionary-encoded until the dictionary page limit, then
    PLAIN (as parquet-mr writes Spark's timestamps), with nulls: pyarrow's values."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    import parquet_core as pc

    n = 5000
    ts = [None if i % 11 == 5 else 1_700_000_000_000_000_000 + i * 1_000_001 - 3_000_000_000_000_000_000 * (i % 2)
          for i in range(n)]
    table = pa.table({"t": pa.array(ts, pa.timestamp("ns")), "v": pa.array(range(n), pa.int64())})
    buf = io.BytesIO()
    pq.write_table(table, buf, use_deprecated_int96_timestamps=int96, dictionary_pagesize_limit=8192,
                   data_page_size=2048, store_schema=False)
    meta = pq.ParquetFile(io.BytesIO(buf.getvalue())).metadata.row_group(0)
    assert {"RLE_DICTIONARY", "PLAIN"} <= set(meta.column(0).encodings)
    want = pq.read_table(io.BytesIO(buf.getvalue()))
    assert pc.read_table(io.BytesIO(buf.getvalue())).to_arrow().equals(want)
    assert pc.ParquetFile(io.BytesIO(buf.getvalue())).read_row_group(0, columns=["v"]).to_arrow().equals(
        want.select(["v"]))


def test_strings_dictionary_then_plain_decode_into_one_output(tmp_path, monkeypatch) -> None:
    """A string column whose dictionary fills up (pyarrow falls back to PLAIN pages): the
    dictionary-encoded part and the PLAIN part are copied straight into one output, equal
    to pyarrow's read; a damaged PLAIN page is refused naming the file, column and page."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import parquet_core as pc
    from parquet_core._kernels.binary import BytesPlan

    vals = [f"value-{i:06d}" + "x" * (i % 7) for i in range(6000)]
    path = tmp_path / "fallback.parquet"
    pq.write_table(pa.table({"s": vals}), path, dictionary_pagesize_limit=4096, data_page_size=4096,
                   compression="none")
    assert {"RLE_DICTIONARY", "PLAIN"} <= set(pq.ParquetFile(path).metadata.row_group(0).column(0).encodings)
    joined: list[int] = []
    real = BytesPlan.join

    def spy(plans):   # type: ignore[no-untyped-def]
        joined.append(len(plans))
        return real(plans)

    monkeypatch.setattr(BytesPlan, "join", staticmethod(spy))
    assert pc.read_table(path, use_threads=False).to_arrow().equals(pq.read_table(path))
    assert joined == [2]
    raw = bytearray(path.read_bytes())
    at = raw.find(len(vals[4000]).to_bytes(4, "little") + vals[4000].encode())   # in a PLAIN page
    raw[at:at + 4] = (2**32 - 16).to_bytes(4, "little")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(raw))
    with pytest.raises(ParquetFormatError, match=r"-16 as int32.*bad\.parquet") as info:
        pc.read_table(bad, use_threads=False)
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert "in column s" in notes and "at page 3" in notes
