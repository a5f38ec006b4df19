"""parquet_core.predicate (expr, compare, evaluate) against hand-computed answers and an
independent reference.

* **expr**: pyarrow's DNF lists (a list of terms is an AND, a list of lists an
  OR of ANDs, ``=`` means ``==``), the errors for malformed filters, and
  negation normal form (De Morgan; leaves keep their negation as a flag).
* **evaluate.filter_mask**: equal, on random expressions over a table with
  nulls and NaN, to a small three-valued (SQL) evaluator written here in plain
  Python, for the expression and for its negation normal form.
* **compare**: the spec's orders (BYTE_ARRAY unsigned lexicographic, decimals by
  value, INT96 day then nanoseconds), exact rounding of fractional literals
  against integer storage, IEEE NaN.
* **evaluate.may_match**: hand-made bounds (statistics, null counts, NaN counts,
  a dictionary's exact values, a Bloom filter) decide what they must, and
  say "may match" whenever some row described by them could.
"""

from __future__ import annotations

import datetime as dt
import math
import struct
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.predicate import Bounds, filter_mask, from_filters, may_match, negation_normal_form
from parquet_core.predicate.compare import compare, isin, starts_with
from parquet_core.predicate.expr import And, Comparison, IsIn, IsNull, Not, Or
from parquet_core.table.ingest import as_array, as_table


# -- expr -----------------------------------------------------------------------------------------

def test_dnf_list_of_terms_is_an_and():
    e = from_filters([("a", ">", 5), ("b", "in", {1, 2}), ("c", "=", "x")])
    assert isinstance(e, And) and len(e.children) == 3
    a, b, c = e.children
    assert isinstance(a, Comparison) and (a.column, a.op, a.value, a.negated) == ("a", ">", 5, False)
    assert isinstance(b, IsIn) and set(b.values) == {1, 2} and not b.negated
    assert isinstance(c, Comparison) and c.op == "=="        # "=" is "=="
    assert e.columns() == {"a", "b", "c"}


def test_dnf_list_of_lists_is_an_or_of_ands():
    e = from_filters([[("a", "<", 1)], [("a", ">", 9), ("b", "not in", [None, 3])]])
    assert isinstance(e, Or) and len(e.children) == 2
    first, second = e.children
    assert isinstance(first, And) and len(first.children) == 1
    assert isinstance(second, And)
    notin = second.children[1]
    assert isinstance(notin, IsIn) and notin.negated and notin.values == (3,) and notin.match_null


def test_single_term_and_no_filter():
    assert isinstance(from_filters([("a", "!=", 1)]), Comparison)
    assert from_filters(None) is None and from_filters([]) is None
    e = pc.col("a") > 1
    assert from_filters(e) is e


@pytest.mark.parametrize("bad, error", [
    ([("a", ">")], ValueError),              # not (column, op, value)
    ([(1, ">", 2)], ValueError),             # column not a str
    ([("a", "<>", 2)], ValueError),          # unknown operator
    ([("a", "==", None)], ValueError),       # comparing with None matches nothing: an error
    ([("a", "in", "abc")], TypeError),       # "in" needs a collection
    ("a > 1", TypeError),                    # not a list
])
def test_malformed_filters(bad, error):
    with pytest.raises(error):
        from_filters(bad)


def test_expression_has_no_truth_value():
    with pytest.raises(TypeError):
        bool(pc.col("a") > 1)
    with pytest.raises(TypeError):
        (pc.col("a") > 1) & True


def test_negation_normal_form_de_morgan():
    e = ~((pc.col("a") > 1) & (pc.col("b").is_null() | pc.col("c").isin([1, None])))
    n = negation_normal_form(e)
    # ~(A & (B | C)) = ~A | (~B & ~C)
    assert isinstance(n, Or)
    na, rest = n.children
    assert isinstance(na, Comparison) and na.negated and na.op == ">"
    assert isinstance(rest, And)
    nb, nc = rest.children
    assert isinstance(nb, IsNull) and nb.negated
    assert isinstance(nc, IsIn) and nc.negated and nc.values == (1,) and nc.match_null
    twice = negation_normal_form(~~(pc.col("a") > 1))
    assert isinstance(twice, Comparison) and not twice.negated
    assert not any(isinstance(x, Not) for x in _walk(n))


def _walk(e):
    yield e
    for c in getattr(e, "children", ()):
        yield from _walk(c)


# -- filter_mask against a three-valued reference ---------------------------------------------------

ROWS = {
    "i": [3, None, -7, 0, 12, None, 5, 5, -1, 8],
    "f": [1.5, float("nan"), None, -0.0, 2.0, float("nan"), None, 7.25, -3.0, 0.0],
    "s": ["b", None, "", "ab", "é", "abc", None, "z", "B", "a"],
}
TABLE = as_table(ROWS)
LITS = {"i": [-7, 0, 4, 5, 2.5, 12], "f": [0.0, 1.5, float("nan"), -3.0, 100.0], "s": ["a", "ab", "é", "", "zz"]}


def _ref_leaf(e, x):
    """True / False / None (unknown) for one row value *x*."""
    if isinstance(e, IsNull):
        return (x is not None) if e.negated else (x is None)
    if isinstance(e, IsIn):
        # pyarrow's is_in: never null; NaN is a member of a set holding NaN
        # and floats are members by bit pattern (-0.0 is not 0.0), every NaN matching every NaN
        def same(a, b):
            if isinstance(a, float) or isinstance(b, float):
                if math.isnan(a) or math.isnan(b):
                    return math.isnan(a) and math.isnan(b)
                return struct.pack("<d", a) == struct.pack("<d", b)
            return a == b
        hit = (x is None and e.match_null) or (x is not None and any(same(x, v) for v in e.values))
        return not hit if e.negated else hit
    if x is None:
        return None
    a, b = (x.encode(), e.value.encode()) if isinstance(x, str) else (x, e.value)
    r = {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[e.op]
    return not r if e.negated else r


def _ref(e, row):
    if isinstance(e, Not):
        v = _ref(e.child, row)
        return None if v is None else not v
    if isinstance(e, (And, Or)):
        vals = [_ref(c, row) for c in e.children]
        if isinstance(e, And):
            return False if False in vals else (None if None in vals else True)
        return True if True in vals else (None if None in vals else False)
    return _ref_leaf(e, row[e.column])


@st.composite
def _exprs(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        name = draw(st.sampled_from(sorted(LITS)))
        kind = draw(st.sampled_from(["cmp", "cmp", "in", "null"]))
        if kind == "null":
            return pc.col(name).is_null() if draw(st.booleans()) else pc.col(name).is_not_null()
        if kind == "in":
            vals = draw(st.lists(st.sampled_from(LITS[name] + [None]), min_size=1, max_size=3))
            return IsIn(name, vals, negated=draw(st.booleans()))
        return Comparison(name, draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="])),
                          draw(st.sampled_from(LITS[name])))
    kids = draw(st.lists(_exprs(depth=depth - 1), min_size=1, max_size=3))
    shape = draw(st.sampled_from(["and", "or", "not"]))
    if shape == "not":
        return Not(kids[0])
    return And(*kids) if shape == "and" else Or(*kids)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(e=_exprs())
def test_filter_mask_equals_three_valued_reference(e):
    rows = [dict(zip(ROWS, vals)) for vals in zip(*ROWS.values())]
    want = [_ref(e, r) is True for r in rows]
    assert filter_mask(e, TABLE).tolist() == want
    assert filter_mask(negation_normal_form(e), TABLE).tolist() == want


@settings(max_examples=300, deadline=None, derandomize=True)
@given(e=_exprs(), lo=st.integers(0, 9), width=st.integers(1, 10))
def test_may_match_is_sound_on_bounds_from_the_rows(e, lo, width):
    """Bounds computed here from a slice of rows never rule out a row of that slice that matches."""
    rows = [dict(zip(ROWS, vals)) for vals in zip(*ROWS.values())][lo:lo + width]
    if not any(_ref(e, r) is True for r in rows):
        return
    part = as_table({k: [r[k] for r in rows] for k in ROWS})

    def bounds_of(name):
        vals = [r[name] for r in rows if r[name] is not None]
        nums = [v for v in vals if not (isinstance(v, float) and math.isnan(v))]
        field = part.schema.field(name)
        lo_v = as_array([min(nums, key=_key)], name, field).values if nums else None
        hi_v = as_array([max(nums, key=_key)], name, field).values if nums else None
        nans = sum(isinstance(v, float) and math.isnan(v) for v in vals) if name == "f" else None
        return Bounds(field.type, lo_v, hi_v, len(rows) - len(vals), len(rows), nan_count=nans)

    assert may_match(negation_normal_form(e), bounds_of)


def _key(v):
    return v.encode() if isinstance(v, str) else v


# -- compare: the spec's orders --------------------------------------------------------------------

def _ints(values):
    return np.asarray(values, dtype=np.int64)


@pytest.mark.parametrize("op, lit, want", [
    ("<", 2.5, [True, True, True, False, False]),     # x < 2.5  is  x <= 2
    ("<=", 2.5, [True, True, True, False, False]),
    (">", 2.5, [False, False, False, True, True]),    # x > 2.5  is  x >= 3
    (">=", -0.5, [False, True, True, True, True]),
    ("==", 2.5, [False] * 5),                         # no integer equals 2.5
    ("!=", 2.5, [True] * 5),
    ("==", Decimal("3"), [False, False, False, True, False]),
    ("<", 2**70, [True] * 5),                          # beyond int64: exact, no overflow
])
def test_integer_column_against_non_integer_literals(op, lit, want):
    assert compare(_ints([-1, 0, 2, 3, 4]), pc.int64(), op, lit).tolist() == want


def test_decimal_compares_by_value():
    dec = as_array([Decimal("1.00"), Decimal("-2.50"), Decimal("1.01")], "d", pc.field("d", pc.decimal128(9, 2)))
    assert compare(dec.values, dec.type, ">", Decimal("1.005")).tolist() == [False, False, True]
    assert compare(dec.values, dec.type, "==", 1).tolist() == [True, False, False]
    assert compare(dec.values, dec.type, "<", -2.4).tolist() == [False, True, False]
    wide = as_array([Decimal("-1"), Decimal("10") ** 30, Decimal("0.0001")], "w",
                    pc.field("w", pc.decimal128(38, 4)))
    assert compare(wide.values, wide.type, ">", 0).tolist() == [False, True, True]
    assert compare(wide.values, wide.type, "<", Decimal("-0.5")).tolist() == [True, False, False]


def test_byte_arrays_order_unsigned_lexicographic():
    words = ["", "a", "ab", "b", "z", "é", "\x7f", "B"]
    arr = as_array(words, "s", pc.field("s", pc.string()))
    for lit in ["", "a", "ab", "é", "zz"]:
        for op, fn in [("<", bytes.__lt__), ("<=", bytes.__le__), ("==", bytes.__eq__), (">", bytes.__gt__)]:
            want = [fn(w.encode(), lit.encode()) for w in words]
            assert compare(arr.values, arr.type, op, lit).tolist() == want, (op, lit)


def test_fixed_size_binary_unsigned_order():
    rows = [b"\x00\x01", b"\x80\x00", b"\x7f\xff", b"\xff\xff"]
    arr = as_array(rows, "f", pc.field("f", pc.fixed_size_binary(2)))
    assert compare(arr.values, arr.type, ">", b"\x7f\xff").tolist() == [False, True, False, True]


def test_floats_follow_ieee():
    v = np.array([np.nan, -0.0, 0.0, 1.0, -np.inf])
    assert compare(v, pc.float64(), "==", 0.0).tolist() == [False, True, True, False, False]
    assert compare(v, pc.float64(), "!=", 0.0).tolist() == [True, False, False, True, True]
    assert compare(v, pc.float64(), "<", 1.0).tolist() == [False, True, True, False, True]
    assert compare(v, pc.float64(), ">=", float("nan")).tolist() == [False] * 5


def test_isin_and_starts_with():
    v = np.array([np.nan, -0.0, 0.0, 2.0])
    # pyarrow's is_in: by bit pattern, so -0.0 and 0.0 differ; NaN is a member of {NaN}
    assert isin(v, pc.float64(), (0.0, float("nan"))).tolist() == [True, False, True, False]
    s = as_array(["apple", "ap", "banana", "", "apé"], "s", pc.field("s", pc.string()))
    assert starts_with(s.values, s.type, "ap").tolist() == [True, True, False, False, True]
    assert starts_with(s.values, s.type, "").tolist() == [True] * 5


def _int96(julian_day: int, nanos: int) -> bytes:
    return nanos.to_bytes(8, "little", signed=True) + julian_day.to_bytes(4, "little", signed=True)


def test_int96_orders_by_day_then_nanoseconds():
    epoch = 2_440_588     # Julian day of 1970-01-01
    rows = np.frombuffer(b"".join([_int96(epoch, 0), _int96(epoch, 86_399 * 10**9),
                                   _int96(epoch + 1, 0), _int96(epoch - 1, 5)]), dtype=np.uint8).reshape(4, 12)
    lit = dt.datetime(1970, 1, 1, 12)
    assert compare(rows, pc.int96(), "<", lit).tolist() == [True, False, False, True]
    assert compare(rows, pc.int96(), "==", dt.datetime(1970, 1, 2)).tolist() == [False, False, True, False]


def test_unordered_types_refuse_order_comparisons():
    """INTERVAL has no sort order in the spec (ColumnOrder undefined): only == / != apply."""
    rows = np.zeros((2, 12), np.uint8)
    rows[1, 0] = 1
    with pytest.raises(ValueError):
        compare(rows, pc.interval(), "<", b"\x00" * 12)
    assert compare(rows, pc.interval(), "==", b"\x00" * 12).tolist() == [True, False]


def test_literal_the_column_cannot_hold_is_an_error():
    with pytest.raises(ValueError):
        compare(_ints([1]), pc.int64(), "<", "x")


# -- may_match on hand-made bounds -----------------------------------------------------------------

def _b(lo=None, hi=None, nulls=0, n=100, typ=None, **kw):
    typ = typ or pc.int64()
    wrap = (lambda v: None if v is None else np.array([v], dtype=np.int64))
    return Bounds(typ, wrap(lo), wrap(hi), nulls, n, **kw)


def _mm(expr, bounds):
    return may_match(negation_normal_form(expr), lambda name: bounds.get(name))


x = pc.col("x")


@pytest.mark.parametrize("expr, want", [
    (x > 20, False), (x >= 20, True), (x > 19, True), (x < 10, False), (x <= 10, True),
    (x == 15, True), (x == 21, False), (x == 9, False), (x != 15, True),
    (x.isin([1, 2, 30]), False), (x.isin([1, 12]), True),
    (~(x > 5), False),                       # every value is >= 10
    (x.is_null(), False), (x.is_not_null(), True),
    ((x < 5) | (x > 25), False), ((x < 5) | (x == 12), True),
    ((x > 5) & (x < 8), False),
])
def test_may_match_on_min_max(expr, want):
    assert _mm(expr, {"x": _b(10, 20)}) is want


def test_may_match_only_equal_bounds_rule_out_not_equal():
    assert _mm(x != 7, {"x": _b(7, 7)}) is False
    assert _mm(x != 7, {"x": _b(7, 7, nulls=3)}) is False     # nulls never satisfy !=
    assert _mm(x != 7, {"x": _b(7, 8)}) is True


def test_may_match_all_null_chunk():
    b = {"x": _b(None, None, nulls=100, n=100)}
    assert _mm(x == 1, b) is False and _mm(~(x == 1), b) is False
    assert _mm(x.is_null(), b) is True and _mm(x.is_not_null(), b) is False
    assert _mm(x.isin([None]), b) is True                  # "in" with None listed takes null rows
    assert _mm(~x.isin([1]), b) is True                    # pyarrow: null is "not in" [1]


def test_may_match_unknown_bounds_and_unknown_columns():
    assert _mm(x > 10**9, {"x": _b()}) is True             # no min/max: no conclusion
    assert _mm(x > 10**9, {}) is True                      # no bounds at all
    b = {"x": Bounds(pc.int64(), None, None, None, None)}
    assert _mm(x.is_null(), b) is True and _mm(x.is_not_null(), b) is True


def test_pruning_refuses_a_tree_not_in_negation_normal_form():
    # a Not left in the tree has no column: a clear TypeError (was an AttributeError)
    from parquet_core.predicate.evaluate import candidate_rows
    with pytest.raises(TypeError, match="negation normal form"):
        may_match(~(x > 5), lambda name: _b(10, 20))
    with pytest.raises(TypeError, match="negation normal form"):
        candidate_rows(~(x > 5), 10, lambda name: None)


def test_may_match_nan_counts():
    f = pc.col("f")
    only_nan = {"f": Bounds(pc.float64(), None, None, 0, 10, nan_count=10)}
    assert _mm(f > 0, only_nan) is False and _mm(f == 1.0, only_nan) is False
    assert _mm(~(f > 0), only_nan) is True                 # NOT (NaN > 0) holds
    assert _mm(f.is_nan(), only_nan) is True and _mm(~f.is_nan(), only_nan) is False
    assert _mm(f.isin([float("nan")]), only_nan) is True
    assert _mm(f != 0.0, only_nan) is True                 # NaN != 0.0 holds (IEEE 754)
    assert _mm(~(f != 0.0), only_nan) is False
    no_nan = {"f": Bounds(pc.float64(), np.array([1.0]), np.array([2.0]), 0, 10, nan_count=0)}
    assert _mm(f.is_nan(), no_nan) is False and _mm(f > 3, no_nan) is False
    assert _mm(~(f > 3), no_nan) is True


def test_may_match_dictionary_values_decide_exactly():
    vals = as_array(["a", "c"], "s", pc.field("s", pc.string(), False))
    lo = as_array(["a"], "s", pc.field("s", pc.string())).values
    hi = as_array(["c"], "s", pc.field("s", pc.string())).values
    b = {"s": Bounds(pc.string(), lo, hi, 0, 100, values=vals)}
    s = pc.col("s")
    assert _mm(s == "b", b) is False and _mm(s == "c", b) is True
    assert _mm(s.isin(["b", "d"]), b) is False and _mm(s.starts_with("c"), b) is True
    assert _mm(s.starts_with("b"), b) is False
    # without the dictionary, min/max admit "b"
    assert _mm(s == "b", {"s": Bounds(pc.string(), lo, hi, 0, 100)}) is True


def test_may_match_starts_with_on_bounds():
    lo = as_array(["apple"], "s", pc.field("s", pc.string())).values
    hi = as_array(["apricot"], "s", pc.field("s", pc.string())).values
    b = {"s": Bounds(pc.string(), lo, hi, 0, 10)}
    s = pc.col("s")
    assert _mm(s.starts_with("ap"), b) is True and _mm(s.starts_with("apr"), b) is True
    assert _mm(s.starts_with("b"), b) is False and _mm(s.starts_with("aa"), b) is False


def test_may_match_bloom_filter_answers_equality_only():
    present = {12, 15}
    b = {"x": _b(10, 20, contains=lambda v: v in present)}
    assert _mm(x == 13, b) is False and _mm(x == 12, b) is True
    assert _mm(x.isin([11, 13]), b) is False and _mm(x.isin([11, 15]), b) is True
    assert _mm(x > 13, b) is True            # a range is not a membership question


def test_may_match_bloom_filter_that_cannot_hash_is_no_conclusion():
    def refuses(v):
        raise TypeError("cannot hash")
    assert _mm(x == 13, {"x": _b(10, 20, contains=refuses)}) is True
