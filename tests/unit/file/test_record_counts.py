"""Column chunks and pages whose value or row counts disagree with their row group.

Each case takes a file pyarrow wrote and changes one count (RowGroup.num_rows,
ColumnMetaData.num_values, a page header's num_values or v2 num_rows, a dictionary
page's num_values, an offset index's first_row_index), then runs every read path:
whole read, selected columns, batches, filters that prune pages through the
offset index, one row group, pandas.  Each path either raises a ParquetError
naming the column and row group, or returns exactly what pyarrow reads from the
unbroken file: never columns of different lengths, fewer rows, or rows of
another group.  (Counts that only pages nobody reads contradict are not seen by a
pruned read: the offset index is trusted for the pages it skips.)
"""

from __future__ import annotations

import io
import re
from typing import Any, Callable

import pytest

import parquet_core as pc
from tests.check.broken import edit_footer, edit_index, edit_page, pyarrow_bytes

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

_N = 1000


def _flat(**kw: Any) -> tuple[Any, bytes]:
    t = pa.table({"x": pa.array(range(_N), pa.int64()),
                  "s": pa.array([f"v{k % 7}" if k % 9 else None for k in range(_N)]),
                  "f": pa.array([None if k % 5 == 0 else k * 0.5 for k in range(_N)])})
    # x: 8 PLAIN pages of 64, 64, ... 52 values per row group; s: one dictionary page
    # (7 values) and one data page; f: pages of 128 values
    opts = dict(row_group_size=500, data_page_size=512, write_batch_size=64, write_page_index=True,
                use_dictionary=["s"], compression="none")
    opts.update(kw)
    return t, pyarrow_bytes(t, **opts)


def _nested(**kw: Any) -> tuple[Any, bytes]:
    t = pa.table({"x": pa.array(range(400), pa.int64()), "l": [[1, 2], [3], [], None] * 100})
    opts = dict(row_group_size=200, data_page_size=256, write_batch_size=16, write_page_index=True,
                compression="none")
    opts.update(kw)
    return t, pyarrow_bytes(t, **opts)


_FILES: dict[str, tuple[Any, bytes]] = {}


def _file(kind: str) -> tuple[Any, bytes]:
    if kind not in _FILES:
        _FILES[kind] = {"flat": _flat, "v2": lambda: _flat(data_page_version="2.0"), "nested": _nested,
                        "nested_v2": lambda: _nested(data_page_version="2.0")}[kind]()
    return _FILES[kind]


def _sub(attr: str, field: str, delta: int) -> Callable[[Any, bytes], None]:
    def edit(h: Any, s: bytes) -> None:
        sub = getattr(h, attr)
        setattr(sub, field, getattr(sub, field) + delta)
    return edit


def _rows(rg: int, rows: int, chunks: tuple[int, ...] = ()) -> Callable[[Any], None]:
    def edit(m: Any) -> None:
        d = rows - m.row_groups[rg].num_rows
        m.row_groups[rg].num_rows = rows
        m.num_rows += d
        for c in chunks:
            m.row_groups[rg].columns[c].meta_data.num_values += d
    return edit


def _first_row(page: int, value: int) -> Callable[[Any], None]:
    return lambda o: setattr(o.page_locations[page], "first_row_index", value)


# Edits keep each thrift varint's length (64 -> 65, 52 -> 51, 128 -> 127), so that no
# offset index points beside its page.
CASES: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "rg_rows_499_with_num_values": ("flat", lambda b: edit_footer(b, _rows(0, 499, (0, 1, 2)))),
    "rg_rows_501_with_num_values": ("flat", lambda b: edit_footer(b, _rows(0, 501, (0, 1, 2)))),
    "page_num_values_fewer": ("flat", lambda b: edit_page(b, 0, 0, 7, _sub("data_page_header", "num_values", -1))),
    "page_num_values_more": ("flat", lambda b: edit_page(b, 0, 0, 3, _sub("data_page_header", "num_values", 1))),
    "nullable_page_fewer": ("flat", lambda b: edit_page(b, 0, 2, 1, _sub("data_page_header", "num_values", -1))),
    "page_and_chunk_fewer": ("flat", lambda b: edit_footer(
        edit_page(b, 0, 0, 7, _sub("data_page_header", "num_values", -1)),
        lambda m: setattr(m.row_groups[0].columns[0].meta_data, "num_values", 499))),
    "dictionary_fewer": ("flat", lambda b: edit_page(b, 0, 1, 0, _sub("dictionary_page_header", "num_values", -1))),
    "dictionary_more": ("flat", lambda b: edit_page(b, 0, 1, 0, _sub("dictionary_page_header", "num_values", 1))),
    "dictionary_data_page_fewer": ("flat", lambda b: edit_page(b, 0, 1, 1,
                                                               _sub("data_page_header", "num_values", -1))),
    "v2_num_rows_fewer": ("v2", lambda b: edit_page(b, 0, 2, 1, _sub("data_page_header_v2", "num_rows", -1))),
    "v2_num_rows_more": ("v2", lambda b: edit_page(b, 0, 0, 3, _sub("data_page_header_v2", "num_rows", 1))),
    "first_row_before": ("flat", lambda b: edit_index(b, 0, 0, "offset", _first_row(1, 63))),
    "first_row_after": ("flat", lambda b: edit_index(b, 0, 0, "offset", _first_row(1, 65))),
    "first_row_repeated": ("flat", lambda b: edit_index(b, 0, 0, "offset", _first_row(2, 64))),
    "first_row_past_the_rows": ("flat", lambda b: edit_index(b, 0, 0, "offset", _first_row(7, 600))),
    "first_row_at_the_rows": ("flat", lambda b: edit_index(b, 0, 0, "offset", _first_row(7, 500))),
    "first_row_not_zero": ("flat", lambda b: edit_index(b, 0, 0, "offset", _first_row(0, 5))),
    "nested_rg_rows_fewer": ("nested", lambda b: edit_footer(b, _rows(0, 199))),
    "nested_rg_rows_more": ("nested", lambda b: edit_footer(b, _rows(0, 201))),
    "nested_page_fewer": ("nested", lambda b: edit_footer(
        edit_page(b, 0, 1, 1, _sub("data_page_header", "num_values", -1)),
        lambda m: setattr(m.row_groups[0].columns[1].meta_data, "num_values",
                          m.row_groups[0].columns[1].meta_data.num_values - 1))),
    "nested_v2_num_rows_fewer": ("nested_v2", lambda b: edit_page(b, 0, 1, 1,
                                                                  _sub("data_page_header_v2", "num_rows", -1))),
    "nested_v2_num_rows_more": ("nested_v2", lambda b: edit_page(b, 0, 1, 1,
                                                                 _sub("data_page_header_v2", "num_rows", 1))),
}

_RANGES = {"lt": ((0, 5),), "mid": ((300, 320),), "p2": ((130, 140),), "end": ((440, 460),),
           "tail": ((460, 470),), "all": ((6, 10**9),)}


def _paths(data: bytes, other: str) -> dict[str, Callable[[], Any]]:
    def src() -> io.BytesIO:
        return io.BytesIO(data)

    def filt(lo: int, hi: int) -> Callable[[], Any]:
        return lambda: pc.read_table(src(), filters=[("x", ">=", lo), ("x", "<", hi)]).to_arrow()

    out: dict[str, Callable[[], Any]] = {
        "read": lambda: pc.read_table(src()).to_arrow(),
        "read_x": lambda: pc.read_table(src(), columns=["x"]).to_arrow(),
        "read_other": lambda: pc.read_table(src(), columns=[other]).to_arrow(),
        "batches": lambda: pa.concat_tables([pa.table(b.to_arrow()) for b in
                                             pc.ParquetFile(src()).iter_batches(batch_size=128)]),
        "row_group_0": lambda: pc.ParquetFile(src()).read_row_group(0).to_arrow(),
        "row_group_1": lambda: pc.ParquetFile(src()).read_row_group(1).to_arrow(),
        "pandas": lambda: pa.Table.from_pandas(pc.read_table(src()).to_pandas(), preserve_index=False),
    }
    for name, ((lo, hi),) in _RANGES.items():
        out[f"filter_{name}"] = filt(lo, hi)
    return out


def _expected(t: Any, path: str, other: str) -> Any:
    import pyarrow.compute as pac

    half = t.num_rows // 2
    if path == "read_x":
        return t.select(["x"])
    if path == "read_other":
        return t.select([other])
    if path == "row_group_0":
        return t.slice(0, half)
    if path == "row_group_1":
        return t.slice(half, half)
    if path.startswith("filter_"):
        ((lo, hi),) = _RANGES[path[len("filter_"):]]
        return t.filter(pac.and_(pac.greater_equal(t["x"], lo), pac.less(t["x"], hi)))
    return t


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_or_read_right(case):
    kind, edit = CASES[case]
    t, good = _file(kind)
    data = edit(good)
    other = "l" if kind.startswith("nested") else "s"
    for path, run in _paths(data, other).items():
        try:
            got = run()
        except pc.ParquetError as exc:
            text = "\n".join([str(exc), *getattr(exc, "__notes__", [])])
            assert "row group 0" in text and "row group 1" not in text, (path, text)
            assert re.search(r"column (chunk )?(x|s|f|l\.list\.element)\b", text), (path, text)
            continue
        want = _expected(t, path, other)
        if path == "pandas":
            got = got.cast(want.schema)
        assert got.select(want.column_names).equals(want), (case, path)


def _filtered(data: bytes, lo: int, hi: int) -> Any:
    return pc.read_table(io.BytesIO(data), filters=[("x", ">=", lo), ("x", "<", hi)])


@pytest.mark.parametrize("first", [500, 600], ids=["at", "past"])
def test_offset_index_page_starting_past_the_rows_is_refused(first):
    """The last page of x said to start at or after row 500 of 500: a filter on its rows
    (448..499) read no page for them and answered 0 rows (30 rows for 470..599)."""
    _, good = _file("flat")
    data = edit_index(good, 0, 0, "offset", _first_row(7, first))
    for lo, hi in ((460, 470), (470, 600)):
        with pytest.raises(pc.ParquetFormatError, match=f"page location 7 starts at row {first}, but the row "
                                                        "group has 500 rows") as info:
            _filtered(data, lo, hi)
        assert "column x, row group 0" in str(info.value)
    with pytest.raises(pc.ParquetFormatError, match="starts at row"):
        pc.ParquetFile(io.BytesIO(data)).offset_index(0, "x")
    # the last row is still a valid start (the page then holds one row: refused when read)
    near = edit_index(good, 0, 0, "offset", _first_row(7, 499))
    assert pc.ParquetFile(io.BytesIO(near)).offset_index(0, "x").page_locations[7].first_row_index == 499


def test_an_empty_row_group_may_have_a_page_at_row_zero():
    t = pa.table({"x": pa.array([], pa.int64())})
    data = pyarrow_bytes(t, write_page_index=True)
    pf = pc.ParquetFile(io.BytesIO(data))
    if pf.num_row_groups and pf.metadata.row_group(0).column(0).to_dict().get("offset_index_offset"):
        pf.offset_index(0, "x")
    assert pc.read_table(io.BytesIO(data), filters=[("x", ">", 1)]).num_rows == 0


def test_a_deferred_dictionary_error_names_its_own_row_group():
    """The dictionary of s in row group 0 cut to 6 values: the indices of both row groups are
    expanded together at the end of the read, and the error named row group 1."""
    _, good = _file("flat")
    data = edit_page(good, 0, 1, 0, _sub("dictionary_page_header", "num_values", -1))
    for kw in ({}, {"use_threads": False}, {"columns": ["s"]}):
        with pytest.raises(pc.ParquetFormatError, match="out of range for a dictionary of 6") as info:
            pc.read_table(io.BytesIO(data), **kw)
        notes = getattr(info.value, "__notes__", [])
        assert "in column s, row group 0" in notes, notes
