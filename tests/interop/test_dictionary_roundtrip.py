"""Dictionary columns (pandas categoricals, Arrow dictionaries, ``read_dictionary``) against pyarrow.

Expected values always come from pyarrow / pandas: the frame itself, or what
``pyarrow.parquet`` writes and reads.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings, strategies as st

import parquet_core as pc
from parquet_core.constants import PageType


def _ours(data, **kw) -> bytes:
    kw = {k: v for k, v in kw.items() if v is not None}
    buf = io.BytesIO()
    pc.write_table(data, buf, **kw)
    return buf.getvalue()


def _theirs(data, **kw) -> bytes:
    table = pa.Table.from_pandas(data) if isinstance(data, pd.DataFrame) else data
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return buf.getvalue()


def _dictionary_sizes(data: bytes, column: str = "c") -> list[int]:
    """Entries of each row group's dictionary page (0 for a chunk without one)."""
    pf = pc.ParquetFile(io.BytesIO(data))
    out = []
    for rg in range(pf.num_row_groups):
        heads = [h.header for h in pf.page_headers(rg, column)]
        dicts = [h.dictionary_page_header.num_values for h in heads if h.type == PageType.DICTIONARY_PAGE]
        out.append(dicts[0] if dicts else 0)
    return out


_FRAMES = {
    "unused_and_order": pd.DataFrame({"c": pd.Categorical(["a", "a", "c"], categories=["c", "a", "b", "unused"])}),
    "ordered": pd.DataFrame({"c": pd.Categorical(["lo", "hi", "mid", "hi"], categories=["hi", "mid", "lo"],
                                                  ordered=True)}),
    "nulls": pd.DataFrame({"c": pd.Categorical([None, "y", None, "x", "y"], categories=["z", "y", "x"])}),
    "all_null": pd.DataFrame({"c": pd.Categorical([None, None], categories=["x", "y"], ordered=True)}),
    "empty": pd.DataFrame({"c": pd.Categorical([], categories=["x", "y"])}),
    "bytes": pd.DataFrame({"c": pd.Categorical([b"\x00\xff", b"k"], categories=[b"k", b"\x00\xff", b"u"])}),
    "with_others": pd.DataFrame({
        "c": pd.Categorical(["q", None, "p", "q", "r", "p"], categories=["r", "q", "p", "never"], ordered=True),
        "d": pd.Categorical(["m", "n", "m", "m", None, "n"], categories=["n", "m"]),
        "s": ["x", "y", None, "x", "z", "y"],
        "i": [1, 2, 3, 4, 5, 6],
    }),
}


@pytest.mark.parametrize("row_group_size", [None, 2])
@pytest.mark.parametrize("name", list(_FRAMES))
def test_categoricals_written_by_us_read_by_pandas(name, row_group_size):
    df = _FRAMES[name]
    ours = _ours(df, row_group_size=row_group_size)
    # pyarrow's own round trip; it is the frame itself but for no rows, where
    # pyarrow (no dictionary page to read) gives no categories
    expected = pd.read_parquet(io.BytesIO(_theirs(df, row_group_size=row_group_size)), engine="pyarrow")
    if len(df):
        pd.testing.assert_frame_equal(expected, df)
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(ours), engine="pyarrow"), expected)
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(ours)).to_pandas(), expected)


@pytest.mark.parametrize("row_group_size", [None, 2])
@pytest.mark.parametrize("name", list(_FRAMES))
def test_dictionary_pages_are_pyarrows(name, row_group_size):
    """Every category goes to every row group's dictionary page, in order, as pyarrow writes it."""
    df = _FRAMES[name]
    ours, theirs = _ours(df, row_group_size=row_group_size), _theirs(df, row_group_size=row_group_size)
    if len(df):   # without rows pyarrow writes an empty row group, we write none
        assert _dictionary_sizes(ours) == _dictionary_sizes(theirs)
    kw = {"read_dictionary": ["c"]}
    a, b = pq.read_table(io.BytesIO(ours), **kw)["c"], pq.read_table(io.BytesIO(theirs), **kw)["c"]
    assert [ch.dictionary for ch in a.chunks] == [ch.dictionary for ch in b.chunks]
    assert a.equals(b)


@pytest.mark.parametrize("row_group_size", [None, 2])
@pytest.mark.parametrize("name", list(_FRAMES))
def test_pyarrow_written_categoricals_read_by_us(name, row_group_size):
    df = _FRAMES[name]
    data = _theirs(df, row_group_size=row_group_size)
    expected = pq.read_table(io.BytesIO(data))
    got = pc.read_table(io.BytesIO(data)).to_arrow()
    assert got.schema.equals(expected.schema, check_metadata=True)
    for g, e in zip(got.columns, expected.columns):
        if pa.types.is_dictionary(e.type):
            # one chunk per row group, each with that row group's dictionary
            assert [c.dictionary for c in g.chunks] == [c.dictionary for c in e.chunks]
        assert g.equals(e)
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(data)).to_pandas(), expected.to_pandas())


def test_row_groups_with_different_dictionaries_unify_like_pyarrow():
    """Chunks of one Arrow column with different dictionaries: pyarrow gives a chunk per
    row group with its own dictionary, and to_pandas unifies the categories."""
    a1 = pa.DictionaryArray.from_arrays(pa.array([1, 0, None], pa.int8()), pa.array(["p", "q", "u"]))
    a2 = pa.DictionaryArray.from_arrays(pa.array([0, 1, 0], pa.int8()), pa.array(["r", "q"]))
    table = pa.table({"c": pa.chunked_array([a1, a2])})
    for data in (_ours(table, row_group_size=3), _theirs(table, row_group_size=3)):
        expected = pq.read_table(io.BytesIO(data))
        got = pc.read_table(io.BytesIO(data))
        assert [c.dictionary for c in got.to_arrow()["c"].chunks] == [c.dictionary for c in expected["c"].chunks]
        assert got.to_arrow().equals(expected)
        pd.testing.assert_frame_equal(got.to_pandas(), expected.to_pandas())


def test_dictionary_change_inside_a_row_group_falls_back_like_pyarrow():
    """A second dictionary in the same row group: the rest of the chunk is PLAIN, and
    reading appends its new values to the dictionary page's entries."""
    a1 = pa.DictionaryArray.from_arrays(pa.array([0, 1, 1], pa.int8()), pa.array(["p", "q", "zz"]))
    a2 = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2], pa.int8()), pa.array(["r", "q", "p"]))
    table = pa.table({"c": pa.chunked_array([a1, a2])})
    ours, theirs = _ours(table), _theirs(table)
    assert _dictionary_sizes(ours) == _dictionary_sizes(theirs) == [3]
    enc = [set(pq.read_metadata(io.BytesIO(d)).row_group(0).column(0).encodings) for d in (ours, theirs)]
    assert enc[0] == enc[1]
    for data in (ours, theirs):
        for kw in ({}, {"read_dictionary": ["c"]}):
            expected = pq.read_table(io.BytesIO(data), **kw)
            got = pc.read_table(io.BytesIO(data), **kw).to_arrow()
            assert got["c"].chunks[0].dictionary == expected["c"].chunks[0].dictionary
            assert got.equals(expected)


@pytest.mark.parametrize("pages", [{}, {"data_page_size": 64}])
def test_read_dictionary_of_plain_string_columns(pages):
    rng = np.random.default_rng(7)
    words = np.array(["kiwi", "fig", "", "plum", "apple"], dtype=object)
    s = words[rng.integers(0, 5, 300)]
    s[rng.random(300) < 0.2] = None
    table = pa.table({"s": pa.array(list(s), pa.string()), "b": pa.array([x.encode() if x else None for x in s]),
                      "i": np.arange(300)})
    for data in (_theirs(table, row_group_size=128, **pages), _ours(table, row_group_size=128, **pages),
                 _ours(table, row_group_size=128, use_dictionary=False)):
        kw = {"read_dictionary": ["s", "b", "i", "no_such_column"]}
        expected = pq.read_table(io.BytesIO(data), **kw)
        got = pc.read_table(io.BytesIO(data), **kw).to_arrow()
        assert got.schema == expected.schema
        for name in ("s", "b"):
            assert [c.dictionary for c in got[name].chunks] == [c.dictionary for c in expected[name].chunks]
        assert got.equals(expected)
        pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(data), **kw).to_pandas(), expected.to_pandas())
        batches = list(pc.ParquetFile(io.BytesIO(data), read_dictionary=["s"]).iter_batches(batch_size=50))
        theirs = list(pq.ParquetFile(io.BytesIO(data), read_dictionary=["s"]).iter_batches(batch_size=50))
        # (pyarrow's batches may span row groups, ours do not: compare types and values)
        assert {b.to_arrow()["s"].type for b in batches} == {b.schema.field("s").type for b in theirs}
        assert pa.concat_tables([b.to_arrow().select(["s"]) for b in batches])["s"].to_pylist() == \
            list(s)


def test_read_dictionary_ignores_what_arrow_schema_says_like_pyarrow():
    """pyarrow gives int32 indices and an unordered type to columns named in read_dictionary."""
    df = _FRAMES["ordered"]
    for data in (_ours(df), _theirs(df)):
        expected = pq.read_table(io.BytesIO(data), read_dictionary=["c"])
        got = pc.read_table(io.BytesIO(data), read_dictionary=["c"]).to_arrow()
        assert got.schema.field("c").type == expected.schema.field("c").type
        assert got.equals(expected)
        pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(data), read_dictionary=["c"]).to_pandas(),
                                      expected.to_pandas())


def test_filtered_read_keeps_the_dictionary():
    df = _FRAMES["with_others"]
    data = _ours(df, row_group_size=4)
    filters = [("i", ">", 2)]
    expected = pq.read_table(io.BytesIO(data), filters=filters).to_pandas()
    got = pc.read_table(io.BytesIO(data), filters=filters).to_pandas()
    pd.testing.assert_frame_equal(got, expected)
    assert list(got["c"].cat.categories) == ["r", "q", "p", "never"]


def test_integer_categories_come_back_as_pyarrow_gives_them():
    """pyarrow keeps only string and binary dictionaries: integer categories come back decoded."""
    df = pd.DataFrame({"c": pd.Categorical([3, 1, 3], categories=[1, 2, 3])})
    for data in (_ours(df), _theirs(df)):
        pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(data)).to_pandas(),
                                      pq.read_table(io.BytesIO(data)).to_pandas())
    assert _dictionary_sizes(_ours(df)) == _dictionary_sizes(_theirs(df))


def test_use_dictionary_false_writes_plain_like_pyarrow():
    df = _FRAMES["unused_and_order"]
    ours, theirs = _ours(df, use_dictionary=False), _theirs(df, use_dictionary=False)
    assert _dictionary_sizes(ours) == _dictionary_sizes(theirs) == [0]
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(ours), engine="pyarrow"),
                                  pd.read_parquet(io.BytesIO(theirs), engine="pyarrow"))


def _page_kinds(data: bytes) -> list[tuple[str, int]]:
    """(kind, entries or encoding) of every page of column 0, row group 0."""
    pf = pc.ParquetFile(io.BytesIO(data))
    out = []
    for h in (p.header for p in pf.page_headers(0, "c")):
        if h.type == PageType.DICTIONARY_PAGE:
            out.append(("dictionary", h.dictionary_page_header.num_values))
        else:
            page = h.data_page_header or h.data_page_header_v2
            out.append(("data", int(page.encoding)))
    return out


@pytest.mark.parametrize("source", ["pandas", "arrow"])
def test_a_given_dictionary_over_the_page_limit_is_written_whole(source):
    """pyarrow 26 writes a given dictionary whole, past dictionary_pagesize_limit (200k
    long categories under a 1000-byte limit: one dictionary page, RLE_DICTIONARY data
    pages, no fallback), so the categories, their order and the unused ones come back."""
    n = 200_000
    cats = [f"category-number-{i:08d}-with-a-long-tail" for i in range(n)][::-1]
    codes = np.random.default_rng(0).integers(0, n, size=3000)
    df = pd.DataFrame({"c": pd.Categorical.from_codes(codes, categories=cats)})
    data_in = df if source == "pandas" else pa.table(
        {"c": pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), pa.array(cats))})
    ours = _ours(data_in, dictionary_pagesize_limit=1000)
    theirs = _theirs(data_in, dictionary_pagesize_limit=1000)
    assert _page_kinds(ours)[0] == _page_kinds(theirs)[0] == ("dictionary", n)
    assert {k for k in _page_kinds(ours)[1:]} == {k for k in _page_kinds(theirs)[1:]}
    assert set(pq.read_metadata(io.BytesIO(ours)).row_group(0).column(0).encodings) == \
        set(pq.read_metadata(io.BytesIO(theirs)).row_group(0).column(0).encodings)
    got = pd.read_parquet(io.BytesIO(ours), engine="pyarrow")
    pd.testing.assert_frame_equal(got, pd.read_parquet(io.BytesIO(theirs), engine="pyarrow"))
    if source == "pandas":
        pd.testing.assert_frame_equal(got, df)
        pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(ours)).to_pandas(), df)


def test_computed_dictionaries_still_respect_the_page_limit():
    """Plain strings (no dictionary given) keep the limit: a prefix, then the fallback."""
    values = [f"v{i:05d}" for i in range(3000)]
    data = _ours(pa.table({"c": pa.array(values)}), dictionary_pagesize_limit=1000)
    (entries,) = _dictionary_sizes(data)
    assert 0 < entries * (4 + 6) <= 1000
    assert "PLAIN" in {e for e in pq.read_metadata(io.BytesIO(data)).row_group(0).column(0).encodings}
    assert pq.read_table(io.BytesIO(data)).column("c").to_pylist() == values


def test_invalid_utf8_in_an_unused_category_is_refused():
    bad = pa.DictionaryArray.from_arrays(pa.array([0], pa.int32()),
                                         pa.array([b"ok", b"\xff"], pa.binary()).cast(pa.string(), safe=False))
    with pytest.raises(pc.ParquetError):
        _ours(pa.table({"c": bad}))


@settings(max_examples=40, deadline=None)
@given(cats=st.lists(st.text(max_size=3), min_size=1, max_size=6, unique=True),
       picks=st.lists(st.integers(-1, 5), max_size=12), ordered=st.booleans(),
       rg=st.sampled_from([None, 3]))
def test_any_categorical_round_trips(cats, picks, ordered, rg):
    values = [None if p < 0 or p >= len(cats) else cats[p] for p in picks]
    df = pd.DataFrame({"c": pd.Categorical(values, categories=cats, ordered=ordered)})
    ours, theirs = _ours(df, row_group_size=rg), _theirs(df, row_group_size=rg)
    expected = pd.read_parquet(io.BytesIO(theirs), engine="pyarrow")
    if len(df):
        pd.testing.assert_frame_equal(expected, df)
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(ours), engine="pyarrow"), expected)
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(theirs)).to_pandas(),
                                  pq.read_table(io.BytesIO(theirs)).to_pandas())
    assert pc.read_table(io.BytesIO(ours)).to_arrow().equals(pq.read_table(io.BytesIO(theirs)))


def test_read_dictionary_over_a_folder(tmp_path):
    """``read_dictionary`` reaches every file of a dataset, as in pyarrow."""
    for i, words in enumerate((["p", "q", "p"], ["r", "p", None])):
        pq.write_table(pa.table({"c": words, "n": [i] * 3}), tmp_path / f"part-{i}.parquet")
    ours = pc.read_table(tmp_path, read_dictionary=["c"])
    theirs = pq.read_table(tmp_path, read_dictionary=["c"])
    assert pa.types.is_dictionary(theirs.schema.field("c").type)
    assert type(ours.column("c")).__name__ == "DictionaryArray"
    assert ours.column("c").to_pylist() == theirs.column("c").to_pylist()
    assert ours.to_arrow().column("c").type == theirs.column("c").type
