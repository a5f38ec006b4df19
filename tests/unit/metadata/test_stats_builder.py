"""Write-side statistics follow the spec's rules (parquet.thrift ``Statistics``/``ColumnOrder``).

Expected values here come from the spec text itself (orders, NaN and zero
rules, PLAIN layout via ``struct``), never from our own output.
"""

from __future__ import annotations

import math
import struct
from collections import Counter

import numpy as np
import pytest

from parquet_core._kernels.binary import ByteArrays
from parquet_core.constants import ConvertedType, PhysicalType, Repetition
from parquet_core.metadata.statistics import decode_statistics
from parquet_core.metadata.stats_builder import (
    StatisticsBuilder,
    bound_sort_key,
    compute_bounds,
    encode_bound,
    level_histogram,
    merge_size_statistics,
    size_statistics,
)
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.thrift import pt


def _desc(ptype: int, repetition: int = Repetition.OPTIONAL, **kw):
    root = pt.SchemaElement(name="schema", num_children=1)
    leaf = pt.SchemaElement(name="c", type=ptype, repetition_type=repetition, **kw)
    return SchemaDescriptor([root, leaf]).column(0)


def _ba(*values: bytes) -> ByteArrays:
    return ByteArrays.from_pylist(list(values))


def _stats(desc, *pages, **kw):
    b = StatisticsBuilder(desc, **kw)
    for values, nulls in pages:
        b.update(values, nulls)
    return b


# --- floating point ---------------------------------------------------------------------------

def test_nan_is_ignored() -> None:
    d = _desc(PhysicalType.DOUBLE)
    assert compute_bounds(np.array([np.nan, 2.5, -1.0, np.nan]), d) == (-1.0, 2.5)


def test_all_nan_gives_no_bounds_but_keeps_null_count() -> None:
    d = _desc(PhysicalType.FLOAT)
    assert compute_bounds(np.array([np.nan, np.nan], np.float32), d) is None
    st = _stats(d, (np.array([np.nan], np.float32), 3)).chunk_statistics()
    assert st.null_count == 3
    assert st.min_value is st.max_value is st.min is st.max is None
    assert st.is_min_value_exact is None and st.distinct_count is None


@pytest.mark.parametrize("values", [[0.0], [-0.0], [0.0, -0.0], [-0.0, 0.0, 0.0]])
def test_zero_min_is_negative_zero_and_zero_max_is_positive_zero(values) -> None:
    d = _desc(PhysicalType.DOUBLE)
    st = _stats(d, (np.array(values), 0)).page_statistics()
    assert st.min_value == struct.pack("<d", -0.0)
    assert st.max_value == struct.pack("<d", 0.0)


def test_zero_rules_apply_to_one_side_only() -> None:
    d = _desc(PhysicalType.FLOAT)
    st = _stats(d, (np.array([0.0, 5.0], np.float32), 0)).page_statistics()
    assert (st.min_value, st.max_value) == (struct.pack("<f", -0.0), struct.pack("<f", 5.0))
    st = _stats(d, (np.array([-0.0, -5.0], np.float32), 0)).page_statistics()
    assert (st.min_value, st.max_value) == (struct.pack("<f", -5.0), struct.pack("<f", 0.0))


def test_float16_bounds_nan_and_zero() -> None:
    d = _desc(PhysicalType.FIXED_LEN_BYTE_ARRAY, type_length=2,
              logicalType=pt.LogicalType(FLOAT16=pt.Float16Type()))
    halves = np.array([np.nan, 0.0, 3.5, -2.0, np.inf], "<f2")
    st = _stats(d, (halves.view(np.uint8).reshape(-1, 2), 0)).page_statistics()
    assert st.min_value == np.array([-2.0], "<f2").tobytes()
    assert st.max_value == np.array([np.inf], "<f2").tobytes()
    assert st.min == st.min_value  # FLOAT16 has a signed order: legacy fields too
    zeros = np.array([0.0, -0.0], "<f2").view(np.uint8).reshape(-1, 2)
    st = _stats(d, (zeros, 0)).page_statistics()
    assert st.min_value == b"\x00\x80" and st.max_value == b"\x00\x00"
    only_nan = np.array([np.nan], "<f2").view(np.uint8).reshape(-1, 2)
    assert compute_bounds(only_nan, d) is None


# --- integers ---------------------------------------------------------------------------------

def test_signed_int_and_legacy_fields() -> None:
    d = _desc(PhysicalType.INT32)
    st = _stats(d, (np.array([3, -7, 12], np.int32), 1)).page_statistics()
    assert (st.min_value, st.max_value) == (struct.pack("<i", -7), struct.pack("<i", 12))
    assert (st.min, st.max) == (st.min_value, st.max_value)
    assert st.is_min_value_exact is True and st.is_max_value_exact is True and st.null_count == 1


def test_uint64_above_2_pow_63() -> None:
    d = _desc(PhysicalType.INT64, converted_type=ConvertedType.UINT_64)
    values = np.array([5, 2**63 + 1, 2**64 - 1, 2**62], np.uint64).view(np.int64)
    assert compute_bounds(values, d) == (5, 2**64 - 1)
    st = _stats(d, (values, 0)).page_statistics()
    assert st.min_value == struct.pack("<Q", 5) and st.max_value == struct.pack("<Q", 2**64 - 1)
    assert st.min is None and st.max is None  # unsigned order: no legacy fields


def test_uint32_above_2_pow_31_logical_annotation() -> None:
    d = _desc(PhysicalType.INT32, logicalType=pt.LogicalType(INTEGER=pt.IntType(bitWidth=32, isSigned=False)))
    values = np.array([2**31, 7, 2**32 - 2], np.uint32).view(np.int32)
    st = _stats(d, (values, 0)).page_statistics()
    assert st.min_value == struct.pack("<I", 7) and st.max_value == struct.pack("<I", 2**32 - 2)
    assert st.min is None


def test_boolean_false_before_true() -> None:
    d = _desc(PhysicalType.BOOLEAN)
    assert compute_bounds(np.array([True, False, True]), d) == (False, True)
    st = _stats(d, (np.array([True, True]), 0)).page_statistics()
    assert (st.min_value, st.max_value) == (b"\x01", b"\x01")


# --- binary -----------------------------------------------------------------------------------

def test_utf8_order_is_bytewise_unsigned() -> None:
    d = _desc(PhysicalType.BYTE_ARRAY, converted_type=ConvertedType.UTF8)
    lo, hi = compute_bounds(_ba("é".encode(), b"z", b"a"), d)
    assert (lo, hi) == (b"a", "é".encode())  # 0xC3 > 'z' (0x7A)
    st = _stats(d, (_ba(b"z", "é".encode()), 0)).page_statistics()
    assert st.min is None and st.max is None  # unsigned order: no legacy fields


def test_shorter_prefix_first_and_empty_min() -> None:
    d = _desc(PhysicalType.BYTE_ARRAY)
    assert compute_bounds(_ba(b"abc", b"ab", b"ab\x00"), d) == (b"ab", b"abc")
    assert compute_bounds(_ba(b"ab", b"ab\x00"), d) == (b"ab", b"ab\x00")
    assert compute_bounds(_ba(b"x", b"", b"\x00"), d) == (b"", b"x")
    st = _stats(d, (_ba(b"", b""), 0)).page_statistics()
    assert st.min_value == b"" and st.max_value == b""


def test_sliced_byte_arrays_with_nonzero_first_offset() -> None:
    d = _desc(PhysicalType.BYTE_ARRAY)
    whole = _ba(b"\x00", b"zz", b"mm", b"\xff")
    view = ByteArrays(whole.offsets[1:4], whole.data)  # values 1..2; offsets start at 1
    assert compute_bounds(view, d) == (b"mm", b"zz")


def test_decimal_flba_signed_with_negatives() -> None:
    d = _desc(PhysicalType.FIXED_LEN_BYTE_ARRAY, type_length=4, converted_type=ConvertedType.DECIMAL,
              precision=9, scale=2)
    ints = [-5, 3, -300, 100, 0, -1]
    m = np.frombuffer(b"".join(i.to_bytes(4, "big", signed=True) for i in ints), np.uint8).reshape(-1, 4)
    st = _stats(d, (m, 0)).page_statistics()
    assert st.min_value == (-300).to_bytes(4, "big", signed=True)
    assert st.max_value == (100).to_bytes(4, "big", signed=True)
    assert st.min == st.min_value  # signed order: legacy fields too


def test_decimal_byte_array_sign_extends() -> None:
    d = _desc(PhysicalType.BYTE_ARRAY, converted_type=ConvertedType.DECIMAL, precision=20, scale=0)
    vals = [b"\x80", b"\xff\x00", b"\x7f", b"\x00\xff", b"\x01\x00\x00"]  # -128, -256, 127, 255, 65536
    assert compute_bounds(_ba(*vals), d) == (b"\xff\x00", b"\x01\x00\x00")


def test_fixed_binary_unsigned() -> None:
    d = _desc(PhysicalType.FIXED_LEN_BYTE_ARRAY, type_length=3)
    m = np.array([[0x80, 0, 0], [0x7F, 0xFF, 0xFF], [0x80, 0, 1]], np.uint8)
    assert compute_bounds(m, d) == (b"\x7f\xff\xff", b"\x80\x00\x01")


@pytest.mark.parametrize("desc", [
    _desc(PhysicalType.INT96),
    _desc(PhysicalType.FIXED_LEN_BYTE_ARRAY, type_length=12, converted_type=ConvertedType.INTERVAL),
])
def test_unknown_order_writes_no_bounds(desc) -> None:
    values = np.arange(24, dtype=np.uint8).reshape(2, 12)
    assert compute_bounds(values, desc) is None
    st = _stats(desc, (values, 2)).chunk_statistics()
    assert st.null_count == 2 and st.min_value is None and st.max_value is None and st.min is None


# --- truncation in the builder -----------------------------------------------------------------

def test_builder_truncates_long_binary_bounds() -> None:
    d = _desc(PhysicalType.BYTE_ARRAY)
    st = _stats(d, (_ba(b"a" * 10, b"b" * 3 + b"\xff" * 5 + b"x"), 0), truncate_length=4).page_statistics()
    assert st.min_value == b"aaaa" and st.is_min_value_exact is False
    assert st.max_value == b"bbc" and st.is_max_value_exact is False  # 0xFF carried into 'b'


def test_builder_keeps_untruncatable_max() -> None:
    d = _desc(PhysicalType.BYTE_ARRAY)
    big = b"\xff" * 9
    st = _stats(d, (_ba(b"a", big), 0), truncate_length=4).page_statistics()
    assert st.max_value == big and st.is_max_value_exact is True
    assert st.min_value == b"a" and st.is_min_value_exact is True


def test_builder_truncates_utf8_on_code_point_boundary() -> None:
    d = _desc(PhysicalType.BYTE_ARRAY, logicalType=pt.LogicalType(STRING=pt.StringType()))
    text = "ab€€€".encode()  # '€' is 3 bytes
    st = _stats(d, (_ba(text), 0), truncate_length=6).page_statistics()
    assert st.min_value == "ab€".encode()
    assert st.max_value == "ab₭".encode()  # U+20AC + 1 = U+20AD
    st.min_value.decode("utf-8")
    st.max_value.decode("utf-8")


def test_signed_and_fixed_binaries_are_never_truncated() -> None:
    dec = _desc(PhysicalType.BYTE_ARRAY, converted_type=ConvertedType.DECIMAL, precision=60, scale=0)
    long_dec = (-(10**50)).to_bytes(22, "big", signed=True)
    st = _stats(dec, (_ba(long_dec), 0), truncate_length=4).page_statistics()
    assert st.min_value == long_dec and st.is_min_value_exact is True
    fixed = _desc(PhysicalType.FIXED_LEN_BYTE_ARRAY, type_length=16)
    m = np.arange(32, dtype=np.uint8).reshape(2, 16)
    st = _stats(fixed, (m, 0), truncate_length=4).page_statistics()
    assert st.min_value == m[0].tobytes() and st.max_value == m[1].tobytes()


def test_truncation_off() -> None:
    d = _desc(PhysicalType.BYTE_ARRAY)
    st = _stats(d, (_ba(b"q" * 200), 0), truncate_length=None).page_statistics()
    assert st.min_value == b"q" * 200 and st.is_max_value_exact is True


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_invalid_truncate_length(bad) -> None:
    with pytest.raises(ValueError):
        StatisticsBuilder(_desc(PhysicalType.BYTE_ARRAY), truncate_length=bad)


# --- the builder over pages ---------------------------------------------------------------------

def test_chunk_merges_pages_without_nan_or_empty_pages() -> None:
    d = _desc(PhysicalType.DOUBLE)
    b = StatisticsBuilder(d)
    assert b.update(np.array([3.0, 4.0]), 1) == (struct.pack("<d", 3.0), struct.pack("<d", 4.0))
    assert b.update(np.array([np.nan]), 0) is None
    assert b.page_statistics().min_value is None
    assert b.update(np.array([], np.float64), 5) is None
    b.update(np.array([-1.5, 2.0]), 2)
    st = b.chunk_statistics()
    assert (st.min_value, st.max_value) == (struct.pack("<d", -1.5), struct.pack("<d", 4.0))
    assert st.null_count == 8 and b.num_pages == 4
    assert b.chunk_bounds() == (struct.pack("<d", -1.5), struct.pack("<d", 4.0))


@pytest.mark.parametrize("ptype", [PhysicalType.FLOAT, PhysicalType.DOUBLE])
def test_nan_counts_per_page_whether_or_not_the_page_holds_nan(ptype: int) -> None:
    """Page and chunk NaN counts equal numpy's count, for pages with no NaN (then known from
    min/max alone), some, only NaN, and with every value also passed as *all_values*."""
    d = _desc(ptype)
    ftype = np.float32 if ptype == PhysicalType.FLOAT else np.float64
    pages = [np.array([1.0, -0.0, 7.5], ftype), np.array([np.nan, 2.0, np.nan, -3.0], ftype),
             np.array([np.nan], ftype), np.array([0.25, np.inf], ftype), np.array([5.0, np.nan], ftype)]
    for same in (False, True):
        b = StatisticsBuilder(d)
        for page in pages:
            b.update(page, 0, page if same else None)
            assert b.page_nan_count == int(np.isnan(page).sum())
        assert b.chunk_statistics().nan_count == sum(int(np.isnan(p).sum()) for p in pages)


def test_chunk_merge_keeps_untruncated_bounds_and_signed_decimal_order() -> None:
    d = _desc(PhysicalType.BYTE_ARRAY)
    b = StatisticsBuilder(d, truncate_length=2)
    b.update(_ba(b"abc"), 0)
    b.update(_ba(b"abd"), 0)
    assert b.page_bounds() == (b"abd", b"abd")
    st = b.chunk_statistics()
    assert (st.min_value, st.max_value) == (b"ab", b"ac")
    dec = _desc(PhysicalType.FIXED_LEN_BYTE_ARRAY, type_length=2, converted_type=ConvertedType.DECIMAL,
                precision=4, scale=0)
    b = StatisticsBuilder(dec)
    for v in (5, -3, 200, -70):
        b.update(np.frombuffer(v.to_bytes(2, "big", signed=True), np.uint8).reshape(1, 2), 0)
    st = b.chunk_statistics()
    assert st.min_value == (-70).to_bytes(2, "big", signed=True)
    assert st.max_value == (200).to_bytes(2, "big", signed=True)


def test_no_pages_and_min_max_off() -> None:
    d = _desc(PhysicalType.INT64)
    b = StatisticsBuilder(d)
    assert b.chunk_statistics() == pt.Statistics(null_count=0)
    with pytest.raises(ValueError):
        b.page_statistics()
    b = StatisticsBuilder(d, write_min_max=False)
    b.update(np.array([1, 2], np.int64), 4)
    assert b.chunk_statistics() == pt.Statistics(null_count=4)


def test_builder_output_reads_back_through_the_read_side() -> None:
    d = _desc(PhysicalType.INT64, converted_type=ConvertedType.UINT_64)
    b = StatisticsBuilder(d)
    b.update(np.array([2**64 - 3, 9], np.uint64).view(np.int64), 0)
    st = decode_statistics(b.chunk_statistics(), d, True)
    assert (st.min, st.max) == (9, 2**64 - 3)
    d = _desc(PhysicalType.FLOAT)
    b = StatisticsBuilder(d)
    b.update(np.array([0.0, math.inf, np.nan], np.float32), 0)
    st = decode_statistics(b.chunk_statistics(), d, True)
    assert math.copysign(1.0, st.min) == -1.0 and st.max == math.inf


def test_encode_bound_plain_layouts() -> None:
    assert encode_bound(-1, _desc(PhysicalType.INT32)) == struct.pack("<i", -1)
    assert encode_bound(2**32 - 1, _desc(PhysicalType.INT32)) == b"\xff" * 4
    assert encode_bound(True, _desc(PhysicalType.BOOLEAN)) == b"\x01"
    assert encode_bound(b"xyz", _desc(PhysicalType.BYTE_ARRAY)) == b"xyz"
    assert encode_bound(np.array([1, 2], np.uint8), _desc(PhysicalType.FIXED_LEN_BYTE_ARRAY,
                                                          type_length=2)) == b"\x01\x02"
    with pytest.raises(ValueError):
        encode_bound(2**32, _desc(PhysicalType.INT32))
    with pytest.raises(ValueError):
        encode_bound(b"x", _desc(PhysicalType.FIXED_LEN_BYTE_ARRAY, type_length=2))


def test_bound_sort_key_orders_encoded_bounds() -> None:
    u64 = _desc(PhysicalType.INT64, converted_type=ConvertedType.UINT_64)
    assert bound_sort_key(b"\xff" * 8, u64) > bound_sort_key(struct.pack("<Q", 1), u64)
    i32 = _desc(PhysicalType.INT32)
    assert bound_sort_key(struct.pack("<i", -1), i32) < bound_sort_key(struct.pack("<i", 0), i32)
    dec = _desc(PhysicalType.BYTE_ARRAY, converted_type=ConvertedType.DECIMAL, precision=9, scale=0)
    assert bound_sort_key(b"\xff\x00", dec) < bound_sort_key(b"\x01", dec)
    s = _desc(PhysicalType.BYTE_ARRAY)
    assert bound_sort_key(b"z", s) < bound_sort_key("é".encode(), s)
    f16 = _desc(PhysicalType.FIXED_LEN_BYTE_ARRAY, type_length=2, logicalType=pt.LogicalType(FLOAT16=pt.Float16Type()))
    assert bound_sort_key(np.array([-2.0], "<f2").tobytes(), f16) == -2.0
    assert bound_sort_key(b"\x01", _desc(PhysicalType.BOOLEAN)) is True
    with pytest.raises(ValueError):
        bound_sort_key(b"\x00" * 12, _desc(PhysicalType.INT96))


def test_wrong_representation_is_rejected() -> None:
    with pytest.raises(TypeError):
        compute_bounds(np.array([1, 2]), _desc(PhysicalType.BYTE_ARRAY))
    with pytest.raises(ValueError):
        compute_bounds(np.zeros((2, 3), np.uint8), _desc(PhysicalType.FIXED_LEN_BYTE_ARRAY, type_length=4))


# --- size statistics ---------------------------------------------------------------------------

def _nested_desc():
    # optional group a (LIST) { repeated group list { optional int32 element } }: max def 3, max rep 1
    els = [pt.SchemaElement(name="schema", num_children=1),
           pt.SchemaElement(name="a", repetition_type=Repetition.OPTIONAL, num_children=1,
                            converted_type=ConvertedType.LIST),
           pt.SchemaElement(name="list", repetition_type=Repetition.REPEATED, num_children=1),
           pt.SchemaElement(name="element", type=PhysicalType.BYTE_ARRAY,
                            repetition_type=Repetition.OPTIONAL)]
    return SchemaDescriptor(els).column(0)


def test_level_histogram_counts_every_level() -> None:
    rng = np.random.default_rng(7)
    levels = rng.integers(0, 4, size=500).astype(np.int16)
    counts = Counter(levels.tolist())
    assert level_histogram(levels, 3) == [counts[i] for i in range(4)]
    assert level_histogram(np.array([0, 0], np.int16), 2) == [2, 0, 0]
    assert level_histogram(None, 0) is None
    with pytest.raises(ValueError):
        level_histogram(np.array([3]), 2)
    with pytest.raises(ValueError):
        level_histogram(None, 1)


@pytest.mark.parametrize("max_level", [1, 2, 4, 5, 9])
@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.int64])
def test_level_histogram_small_and_deep_levels(max_level: int, dtype: type) -> None:
    """Counted level by level (shallow) or by bincount (deep): the same counts, and a
    level outside 0..max refused either way."""
    rng = np.random.default_rng(max_level)
    levels = rng.integers(0, max_level + 1, size=3000).astype(dtype)
    counts = Counter(levels.tolist())
    assert level_histogram(levels, max_level) == [counts[i] for i in range(max_level + 1)]
    with pytest.raises(ValueError):
        level_histogram(np.append(levels, max_level + 1).astype(dtype), max_level)
    if np.dtype(dtype).kind == "i":
        with pytest.raises(ValueError):
            level_histogram(np.append(levels, -1).astype(dtype), max_level)


def test_size_statistics_and_merge() -> None:
    d = _nested_desc()
    p1 = size_statistics(d, values=_ba(b"ab", b"cde"), def_levels=np.array([3, 0, 3, 1]),
                         rep_levels=np.array([0, 0, 1, 0]))
    assert p1.unencoded_byte_array_data_bytes == 5
    assert p1.definition_level_histogram == [1, 1, 0, 2]
    assert p1.repetition_level_histogram == [3, 1]
    p2 = size_statistics(d, values=ByteArrays.empty(), def_levels=np.array([2]), rep_levels=np.array([0]))
    chunk = merge_size_statistics([p1, p2])
    assert chunk.unencoded_byte_array_data_bytes == 5
    assert chunk.definition_level_histogram == [1, 1, 1, 2]
    assert chunk.repetition_level_histogram == [4, 1]


def test_size_statistics_omit_what_the_spec_allows() -> None:
    req = _desc(PhysicalType.INT32, repetition=Repetition.REQUIRED)
    st = size_statistics(req, values=np.array([1, 2], np.int32))
    assert st == pt.SizeStatistics()  # max levels 0, not BYTE_ARRAY: nothing to say
    opt = _desc(PhysicalType.BYTE_ARRAY)
    st = size_statistics(opt, values=_ba(b"xyz"), def_levels=np.array([1, 0, 0]))
    assert st.definition_level_histogram == [2, 1] and st.repetition_level_histogram is None
    assert st.unencoded_byte_array_data_bytes == 3
    merged = merge_size_statistics([st, pt.SizeStatistics(unencoded_byte_array_data_bytes=1)])
    assert merged.definition_level_histogram is None and merged.unencoded_byte_array_data_bytes == 4


# --- numeric pages without the per-page dispatch (h33wr, issue 32) ------------------------------

_NUMERIC_LEAVES = [
    (PhysicalType.INT32, {}, np.int32), (PhysicalType.INT64, {}, np.int64),
    (PhysicalType.INT32, {"converted_type": ConvertedType.UINT_32}, np.int32),
    (PhysicalType.INT64, {"converted_type": ConvertedType.UINT_64}, np.int64),
    (PhysicalType.FLOAT, {}, np.float32), (PhysicalType.DOUBLE, {}, np.float64),
]


def _numeric_pages(draw_seed: int, dtype: type, pages: int) -> list[np.ndarray]:
    rng = np.random.default_rng(draw_seed)
    out = []
    for _ in range(pages):
        n = int(rng.integers(0, 40))
        if np.dtype(dtype).kind == "f":
            pool = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3e38, -1e-40], dtype=dtype)
        else:
            info = np.iinfo(dtype)
            pool = np.array([0, -1, 1, info.min, info.max, 7, -300], dtype=dtype)
        out.append(pool[rng.integers(0, pool.size, n)])
    return out


@pytest.mark.parametrize("ptype,kw,dtype", _NUMERIC_LEAVES)
@pytest.mark.parametrize("seed", range(40))
def test_numeric_pages_match_the_general_path(ptype, kw, dtype, seed) -> None:
    """A numeric page's bounds, NaN count and PLAIN bytes, page by page and merged, are those
    of the general per-kind path (the builder with its numeric shortcut switched off), for
    pages of zeros of both signs, NaN, infinities, the type's extremes, unsigned orders."""
    d = _desc(ptype, **kw)
    fast, general = StatisticsBuilder(d), StatisticsBuilder(d)
    general._numeric = None
    for k, page in enumerate(_numeric_pages(seed, dtype, 4)):
        assert fast.update(page, k) == general.update(page, k)
        assert fast.page_bounds() == general.page_bounds()
        assert fast.page_nan_count == general.page_nan_count
        a, b = fast.page_statistics(), general.page_statistics()
        assert a == b
    assert fast.chunk_statistics() == general.chunk_statistics()
    assert fast.chunk_bounds() == general.chunk_bounds()


def test_numeric_pages_take_the_shortcut(monkeypatch) -> None:
    """Pages of ints and NaN-free floats are not dispatched by kind (a page holding a NaN is)."""
    from parquet_core.metadata import stats_builder

    def dispatched(*a, **k):
        raise AssertionError("dispatched by kind")
    monkeypatch.setattr(stats_builder, "_bounds_of_kind", dispatched)
    monkeypatch.setattr(stats_builder, "_float_bounds_nan", dispatched)
    b = StatisticsBuilder(_desc(PhysicalType.INT64))
    assert b.update(np.array([5, -2, 9], np.int64), 0) == (struct.pack("<q", -2), struct.pack("<q", 9))
    f = StatisticsBuilder(_desc(PhysicalType.DOUBLE))
    assert f.update(np.array([0.0, 2.5]), 1) == (struct.pack("<d", -0.0), struct.pack("<d", 2.5))
    with pytest.raises(AssertionError, match="dispatched"):
        f.update(np.array([np.nan, 1.0]), 0)
