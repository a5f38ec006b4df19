"""The column writer's dictionary plan and chunk placement, against simple references.

* ``_dictionary_plan`` builds the dictionary in steps (a probe, then the
  rest, each step extending the one before); the reference here groups all
  values at once with a Python dict and applies the size limit by hand.
* Fixed-width values: a probe of 4,096 mostly distinct values gives no dictionary.
* A chunk written at offset 0 and rebased equals the chunk written in place.
* ``ChunkLayout`` maps records, slots and values as a per-row walk would.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.chunk_layout import ChunkLayout
from parquet_core.column.data import ColumnData
from parquet_core.column.writer import _dictionary_plan, write_column_chunk
from parquet_core.options import writer_options
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.elements import schema_to_elements
from parquet_core.thrift.codec import serialize


def _desc(typ, nullable=True, name="c"):
    schema = pc.schema([pc.field(name, typ, nullable=nullable)])
    return next(iter(SchemaDescriptor(schema_to_elements(schema))))


def _reference_plan(items: list, cost, limit: int):
    """(entries, indices, cutoff) by a dict over all values and the limit rule."""
    seen: dict = {}
    codes = []
    for x in items:
        codes.append(seen.setdefault(x, len(seen)))
    entries = list(seen)
    sizes = np.concatenate(([0], np.cumsum([cost(e) for e in entries]))).astype(np.int64)
    if sizes[-1] <= limit:
        return entries, codes, len(items)
    fits = int(np.searchsorted(sizes, limit, side="right")) - 1
    if fits == 0:
        return None
    cutoff = codes.index(fits)
    return entries[:fits], codes[:cutoff], cutoff


@settings(max_examples=60, deadline=None, derandomize=True)
@given(card=st.integers(1, 3000), n=st.integers(1, 30_000), limit=st.sampled_from([30, 500, 4000, 1 << 20]),
       seed=st.integers(0, 999), width=st.sampled_from([3, 12, 30, 40]))
def test_string_plan_equals_one_build(card, n, limit, seed, width):
    rng = np.random.default_rng(seed)
    pool = [(b"%d" % i).rjust(int(rng.integers(0, width)) + 1, b"\x00") for i in range(card)]
    picks = rng.integers(0, card, n)
    items = [pool[i] for i in picks]
    values = ByteArrays.from_pylist(items)
    desc = _desc(pc.binary())
    wopts = writer_options(["c"], dictionary_pagesize_limit=limit)
    got = _dictionary_plan(values, wopts.column("c"), wopts, desc)
    want = _reference_plan(items, lambda e: len(e) + 4, limit)
    if want is None:
        assert got is None
        return
    dictionary, indices, cutoff = got
    assert (dictionary.to_pylist() if len(dictionary) else []) == want[0]
    assert indices.tolist() == want[1] and cutoff == want[2]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(card=st.integers(1, 100_000), n=st.integers(1, 300_000), limit=st.sampled_from([64, 8000, 1 << 20]),
       seed=st.integers(0, 999))
def test_int_plan_equals_one_build(card, n, limit, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, card, n).astype(np.int64) * 7919
    desc = _desc(pc.int64())
    wopts = writer_options(["c"], dictionary_pagesize_limit=limit)
    got = _dictionary_plan(values, wopts.column("c"), wopts, desc)
    want = _reference_plan(values.tolist(), lambda e: 8, limit)
    if n > 8192:
        # issue 32: a probe of the first 4,096 values inside the limit whose dictionary plus
        # indices would not be smaller than PLAIN: no dictionary (parquet-java's first-page test)
        k = len(set(values[:4096].tolist()))
        bits = max((k - 1).bit_length(), 1)
        if k * 8 <= limit and k * 8 + (4096 * bits + 7) // 8 >= 4096 * 8:
            want = None
    if want is None:
        assert got is None
        return
    dictionary, indices, cutoff = got
    assert dictionary.tolist() == want[0] and indices.tolist() == want[1] and cutoff == want[2]


@pytest.mark.parametrize("v2", [False, True])
@pytest.mark.parametrize("limit", [40, 1 << 20])
def test_rebased_chunk_equals_chunk_written_in_place(v2, limit):
    rng = np.random.default_rng(3)
    n = 5000
    present = rng.random(n) > 0.2
    items = [b"k%d" % (i % 61) for i in range(int(present.sum()))]
    data = ColumnData(values=ByteArrays.from_pylist(items), def_levels=present.astype(np.int16),
                      rep_levels=None, num_levels=n)
    desc = _desc(pc.binary())
    wopts = writer_options(["c"], dictionary_pagesize_limit=limit, data_page_row_count_limit=333,
                           data_page_version="2.0" if v2 else "1.0",
                           bloom_filter_options={None: True})
    opts = wopts.column("c")
    placed = write_column_chunk(data, desc, opts, wopts, 123_457)
    moved = write_column_chunk(data, desc, opts, wopts, 0)
    moved.rebase(123_457)
    assert moved.pages == placed.pages and moved.bloom_filter == placed.bloom_filter
    assert serialize(moved.meta) == serialize(placed.meta)
    assert serialize(moved.offset_index) == serialize(placed.offset_index)
    assert serialize(moved.column_index) == serialize(placed.column_index)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(records=st.lists(st.lists(st.sampled_from([None, 1]), max_size=4), max_size=30))
def test_layout_maps_like_a_walk(records):
    # a list<int64> leaf: a record per row; an empty list is one slot at def 1,
    # a null element one slot at def 2, a value one slot at def 3 (max)
    defs, reps = [], []
    for rec in records:
        if not rec:
            defs.append(1)
            reps.append(0)
        for j, x in enumerate(rec):
            defs.append(3 if x is not None else 2)
            reps.append(0 if j == 0 else 1)
    nvals = sum(d == 3 for d in defs)
    desc = next(iter(SchemaDescriptor(schema_to_elements(
        pc.schema([pc.field("l", pc.list_(pc.int64()))])))))
    data = ColumnData(values=np.zeros(nvals, np.int64), def_levels=np.asarray(defs, np.int16),
                      rep_levels=np.asarray(reps, np.int16), num_levels=len(defs))
    layout = ChunkLayout(data, desc)
    assert layout.num_records == len(records)
    slot = value = 0
    for r, rec in enumerate(records):
        assert layout.slot_of(r) == slot and layout.value_of(slot) == value
        for s in range(slot, slot + max(len(rec), 1)):
            if defs[s] == 3:
                assert layout.record_of_value(value) == r
                value += 1
        slot += max(len(rec), 1)
    assert layout.slot_of(len(records)) == len(defs) and layout.value_of(len(defs)) == nvals


@settings(max_examples=200, deadline=None, derandomize=True)
@given(nrec=st.integers(0, 3000), cost=st.integers(1, 40), page_bytes=st.integers(1, 5000),
       page_rows=st.integers(1, 700), forced=st.one_of(st.none(), st.integers(0, 3000)))
def test_uniform_bounds_equal_the_general_split(nrec, cost, page_bytes, page_rows, forced):
    from parquet_core.column.chunk_layout import page_bounds, uniform_page_bounds

    cum = np.arange(nrec + 1, dtype=np.int64) * cost
    assert uniform_page_bounds(nrec, cost, page_bytes, page_rows, forced) == \
        page_bounds(cum, page_bytes, page_rows, forced)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(defs=st.lists(st.sampled_from([0, 1]), max_size=200), cost=st.integers(1, 12))
def test_record_costs_of_one_cost_equal_the_array_form(defs, cost):
    desc = _desc(pc.int64())
    d = np.asarray(defs, dtype=np.int16)
    for def_levels in (d, None):
        nvals = int(d.sum()) if def_levels is not None else len(defs)
        data = ColumnData(values=np.zeros(nvals, np.int64), def_levels=def_levels, rep_levels=None,
                          num_levels=len(defs))
        layout = ChunkLayout(data, desc)
        assert np.array_equal(layout.record_costs(cost),
                              layout.record_costs(np.full(nvals, cost, dtype=np.int64)))
        assert layout.pages(cost, 50, 7) == layout.pages(np.full(nvals, cost, dtype=np.int64), 50, 7)


@pytest.mark.parametrize("ptype,width", [(pc.int32(), 4), (pc.float64(), 8), (pc.int64(), 8)])
def test_mostly_distinct_fixed_width_values_get_no_dictionary(ptype, width):
    # issue 32 (the wide write): 20,000 distinct values would make a dictionary bigger than
    # PLAIN; the probe says so and the rest is never hashed.  1,000 distinct values still pay.
    rng = np.random.default_rng(1)
    dtype = {4: np.int32, 8: np.float64 if ptype == pc.float64() else np.int64}[width]
    distinct = rng.permutation(20_000).astype(dtype)
    desc = _desc(ptype)
    wopts = writer_options(["c"])
    assert _dictionary_plan(distinct, wopts.column("c"), wopts, desc) is None
    halves = np.repeat(distinct[:1000], 20)
    rng.shuffle(halves)
    plan = _dictionary_plan(halves, wopts.column("c"), wopts, desc)
    assert plan is not None and plan[2] == 20_000


def test_pyarrow_reads_the_columns_written_without_dictionary(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(2)
    table = pa.table({"x": rng.random(30_000), "k": rng.integers(0, 50, 30_000),
                      "n": pa.array(rng.random(30_000), mask=rng.random(30_000) < 0.2)})
    path = tmp_path / "t.parquet"
    pc.write_table(table, path)
    md = pq.ParquetFile(path).metadata.row_group(0)
    assert not md.column(0).has_dictionary_page and md.column(1).has_dictionary_page
    assert not md.column(2).has_dictionary_page
    assert pq.read_table(path).equals(table)


@pytest.mark.parametrize("v2", [False, True])
def test_pages_handed_to_emit_as_made_equal_the_held_pages(v2):
    """With ``emit`` every page goes out as it is encoded (none held in the result),
    in the same order and bytes as the pages a held chunk returns."""
    rng = np.random.default_rng(4)
    n = 5000
    present = rng.random(n) > 0.2
    items = [b"k%d" % (i % 61) for i in range(int(present.sum()))]
    data = ColumnData(values=ByteArrays.from_pylist(items), def_levels=present.astype(np.int16),
                      rep_levels=None, num_levels=n)
    desc = _desc(pc.binary())
    wopts = writer_options(["c"], data_page_row_count_limit=333,
                           data_page_version="2.0" if v2 else "1.0")
    opts = wopts.column("c")
    held = write_column_chunk(data, desc, opts, wopts, 4)
    sent: list[bytes] = []
    streamed = write_column_chunk(data, desc, opts, wopts, 4, emit=sent.append)
    assert streamed.pages == [] and len(sent) == len(held.pages) > 2
    assert sent == held.pages
    assert serialize(streamed.meta) == serialize(held.meta)
    assert serialize(streamed.offset_index) == serialize(held.offset_index)


@pytest.mark.parametrize("dtype,ptype", [(np.float64, pc.float64()), (np.float32, pc.float32()),
                                         (np.int64, pc.int64()), (np.int32, pc.int32())])
def test_distinct_count_by_sorting_is_the_dictionary_size(dtype, ptype):
    """count_distinct (a sort) finds as many entries as build_dictionary (a hash of the bit
    patterns): 0.0 and -0.0 are two entries, NaNs of other payloads too."""
    from parquet_core.encodings.dictionary import build_dictionary, count_distinct

    rng = np.random.default_rng(5)
    desc = _desc(ptype)
    cases = [rng.integers(0, 50, 4096), rng.integers(0, 10**6, 4096), np.zeros(0), np.ones(1)]
    if dtype in (np.float64, np.float32):
        bits = np.uint64 if dtype == np.float64 else np.uint32
        nans = np.array([np.nan] * 3, dtype=dtype)
        nans.view(bits)[1] |= 1                        # another NaN payload
        cases.append(np.concatenate([np.array([0.0, -0.0, 0.0], dtype=dtype), nans]))
    for values in cases:
        values = np.asarray(values).astype(dtype)
        assert count_distinct(values, desc.physical_type) == len(build_dictionary(values, desc.physical_type)[0])
    assert count_distinct(np.zeros((3, 16), np.uint8), 7) is None        # FIXED_LEN_BYTE_ARRAY


def test_distinct_probe_skips_hashing(monkeypatch):
    """A probe whose values do not pay for a dictionary is decided by the count alone: the
    chunk is never hashed (half of the wide write's time went to hashing such columns)."""
    from parquet_core.column import writer

    def no_hashing(*a, **k):
        raise AssertionError("hashed")
    monkeypatch.setattr(writer, "build_dictionary", no_hashing)
    desc = _desc(pc.float64())
    wopts = writer_options(["c"])
    values = np.random.default_rng(2).random(20_000)
    assert _dictionary_plan(values, wopts.column("c"), wopts, desc) is None



@pytest.mark.parametrize("late_distinct", [0, 5000])
def test_few_distinct_in_the_probe_group_the_chunk_once(monkeypatch, late_distinct):
    """h33wr (issue 32, the taxi write): a probe with few distinct values, counted by the
    sort, goes straight to one grouping of the whole chunk (the probe is not grouped first
    and then again with the rest); values first seen late that pass the size limit still
    cut the dictionary where the one-build reference does."""
    from parquet_core.column import writer

    calls: list[int] = []
    real = writer.build_dictionary

    def counted(values, *a, **k):
        calls.append(len(values))
        return real(values, *a, **k)
    monkeypatch.setattr(writer, "build_dictionary", counted)
    rng = np.random.default_rng(7)
    n = 60_000
    values = rng.integers(0, 12, n).astype(np.int64) * 1000
    values[n - late_distinct:] = 10**9 + np.arange(late_distinct)    # distinct, first seen late
    desc = _desc(pc.int64())
    limit = 8 * 5000          # the probe (4,096 values) fits it: counted by the sort
    wopts = writer_options(["c"], dictionary_pagesize_limit=limit)
    got = _dictionary_plan(values, wopts.column("c"), wopts, desc)
    assert calls == [n]
    want = _reference_plan(values.tolist(), lambda e: 8, limit)
    dictionary, indices, cutoff = got
    assert dictionary.tolist() == want[0] and indices.tolist() == want[1] and cutoff == want[2]
    assert (cutoff < n) == bool(late_distinct)

def _narrow_table(n: int = 30_000):
    import decimal

    import pyarrow as pa
    rng = np.random.default_rng(32)
    mask = rng.random(n) < 0.1
    halves = rng.integers(0, 40, n) * 0.5
    halves[rng.random(n) < 0.02] = np.nan
    late = np.concatenate((rng.integers(0, 5, n // 2), rng.integers(0, 250, n - n // 2)))
    return pa.table({
        "bytes": pa.array(rng.integers(0, 200, n).astype(np.int32), mask=mask),
        "shorts": rng.integers(0, 300, n) * 2**40,            # uint16 indices, hashed keys
        "late": late.astype(np.int16),                        # keys first seen past the probe
        "nan": pa.array(halves, mask=mask),
        "f32": (rng.integers(0, 70, n) / 4).astype(np.float32),
        "s": pa.array(np.array([f"w{i}" for i in range(400)])[rng.integers(0, 400, n)], mask=mask),
        "dec": pa.array([decimal.Decimal(int(x)) / 100 for x in rng.integers(0, 90, n)], pa.decimal128(20, 2)),
        "grow": np.arange(n) // 7,                            # passes small dictionary limits
    })


@pytest.mark.parametrize("opts", [
    {},
    {"data_page_size": 1500, "row_group_size": 7_000},
    {"data_page_version": "2.0", "data_page_row_count_limit": 900},
    {"dictionary_pagesize_limit": 700, "data_page_size": 4000},      # PLAIN fallback mid-chunk
])
def test_narrow_indices_write_the_bytes_of_int32_indices(tmp_path, monkeypatch, opts):
    """The writer's plan keeps dictionary indices narrow (uint8 / uint16); its files
    are byte for byte those written from int32 indices, and pyarrow reads them back."""
    import pyarrow.parquet as pq

    from parquet_core.column import writer
    table = _narrow_table()
    seen: list = []
    build = writer.build_dictionary

    def spy(*args, **kw):
        out = build(*args, **kw)
        seen.append(out[1].dtype)
        return out

    monkeypatch.setattr(writer, "build_dictionary", spy)
    narrow_p, wide_p = tmp_path / "narrow.parquet", tmp_path / "wide.parquet"
    pc.write_table(table, str(narrow_p), use_threads=False, **opts)
    assert np.dtype(np.uint8) in seen and np.dtype(np.uint16) in seen
    monkeypatch.setattr(writer, "build_dictionary",
                        lambda *a, **kw: (lambda d, i: (d, i.astype(np.int32)))(
                            *build(*a, **{**kw, "narrow": False})))
    pc.write_table(table, str(wide_p), use_threads=False, **opts)
    assert narrow_p.read_bytes() == wide_p.read_bytes()
    back = pq.read_table(str(narrow_p))
    for name in table.column_names:
        got, want = back[name], table[name]
        if name == "nan":   # (Arrow's equals holds NaN unequal to itself)
            assert got.is_null().equals(want.is_null())
            got, want = got.fill_null(0.0).to_numpy(), want.fill_null(0.0).to_numpy()
            assert np.array_equal(got, want, equal_nan=True)
        else:
            assert got.equals(want), name
