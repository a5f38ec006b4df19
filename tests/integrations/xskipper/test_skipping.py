"""Skipping rules per index type and three-valued combination, on small hand-made stores.

Each expected verdict follows from the SQL meaning of the predicate over the
file's possible contents (a file is skipped only if no row can satisfy it).
"""

from __future__ import annotations

import datetime as dt

import pytest

import parquet_core as pc
from parquet_core_integrations.xskipper.sketch import SparkBloomFilter
from parquet_core_integrations.xskipper.javaser import encode_bloom_cell
from parquet_core_integrations.xskipper.skipping import skip_decisions
from tests._support.xskipper import store_with

c = pc.col


def skipped(store, pred, **kw):
    return sorted(skip_decisions(store, pred, **kw).skipped)


MM = [("a", {"min": 1, "max": 5}), ("b", {"min": 6, "max": 9}), ("n", {"min": None, "max": None}),
      ("u", None)]


@pytest.mark.parametrize("pred,expected", [
    (c("x") == 3, ["b", "n"]), (c("x") == 6, ["a", "n"]),
    (c("x") < 6, ["b", "n"]), (c("x") <= 6, ["n"]), (c("x") > 5, ["a", "n"]), (c("x") >= 5, ["n"]),
    (c("x") != 7, ["n"]), (c("x").isin([0, 10]), ["a", "b", "n"]), (c("x").isin([]), ["a", "b", "n"]),
    (c("x").isin(list(range(20, 40))), ["a", "b", "n"]),
    (c("x").is_not_null(), ["n"]), (c("x").is_null(), []),
    (~(c("x") < 6), ["a", "n"]), (~((c("x") < 3) | (c("x") > 7)), ["n"]),
    ((c("x") < 3) | (c("x") > 7), ["n"]), ((c("x") < 3) & (c("x") > 7), ["a", "b", "n"]),
    ((c("x") < 3) | (c("y") > 7), []),       # an OR side with no index reads everything
    ((c("x") < 3) & (c("y") > 7), ["b", "n"]),  # an AND side with no index is ignored
    (c("X") > 5, ["a", "n"]),                # column references are case-insensitive
    (c("x") > "text", ["n"]),                # incomparable literal: keep (n has no value)
])
def test_minmax(pred, expected):
    assert skipped(store_with(MM, "minmax"), pred) == expected


def test_minmax_not_in_and_equal_bounds():
    s = store_with([("a", {"min": 4, "max": 4}), ("b", {"min": 4, "max": 5})], "minmax")
    assert skipped(s, [("x", "not in", [4])]) == ["a"]
    assert skipped(s, [("x", "not in", [4])], sql_in=False) == []  # pyarrow: null rows match `not in`
    assert skipped(s, c("x") != 4) == ["a"]


def test_minmax_strings_starts_with():
    s = store_with([("a", {"min": "apple", "max": "apricot"}), ("b", {"min": "b", "max": "c"})], "minmax")
    assert skipped(s, c("x").starts_with("ap")) == ["b"]
    assert skipped(s, ~c("x").starts_with("ap")) == ["a"]
    assert skipped(s, c("x").starts_with("bz")) == ["a"]


def test_minmax_timestamps_compare_in_utc():
    t = dt.datetime(2020, 1, 1, 12)
    s = store_with([("a", {"min": t, "max": t})], "minmax")
    assert skipped(s, c("x") > dt.datetime(2020, 1, 1, 13, tzinfo=dt.timezone.utc)) == ["a"]
    assert skipped(s, c("x") > dt.datetime(2020, 1, 1, 13, tzinfo=dt.timezone(dt.timedelta(hours=2)))) == []


def test_nan_bounds_are_unknown():
    s = store_with([("a", {"min": 1.0, "max": float("nan")})], "minmax")
    assert skipped(s, c("x") > 100.0) == []


VL = [("a", ["J", "T"]), ("b", ["H"]), ("e", []), ("u", None)]


@pytest.mark.parametrize("pred,expected", [
    (c("x") == "H", ["a", "e"]), (c("x").isin(["H", "Q"]), ["a", "e"]),
    ([("x", "not in", ["J", "T"])], ["a", "e"]), (c("x") != "H", ["b", "e"]),
    (c("x") > "I", ["b", "e"]), (c("x").is_not_null(), ["e"]), (c("x").is_null(), []),
    (c("x").starts_with("J"), ["b", "e"]), (~(c("x") == "H"), ["b", "e"]),
])
def test_valuelist(pred, expected):
    assert skipped(store_with(VL, "valuelist"), pred) == expected


def test_valuelist_not_in_pyarrow_semantics_keeps_everything():
    assert skipped(store_with(VL, "valuelist"), [("x", "not in", ["J", "T"])], sql_in=False) == []


def _bloom(values, ints=False):
    bf = SparkBloomFilter.create()
    (bf.put_longs if ints else bf.put_strings)(values)
    return encode_bloom_cell(bf)


def test_bloom():
    s = store_with([("a", _bloom(["J", "T"])), ("b", _bloom(["H"])), ("e", _bloom([])), ("u", None)],
                   "bloomfilter")
    assert skipped(s, c("x") == "H") == ["a", "e"]
    assert skipped(s, c("x").isin(["J", "zz"])) == ["b", "e"]
    assert skipped(s, c("x") != "H") == []  # no negation on Bloom filters
    assert skipped(s, c("x") > "A") == []
    ints = store_with([("a", _bloom([20, 21], ints=True)), ("b", _bloom([11], ints=True))], "bloomfilter")
    assert skipped(ints, c("x") == 21) == ["b"]
    assert skipped(ints, c("x") == 21.5) == []  # a float is not hashed: keep


def test_partition_values_and_missing_files():
    extra = [{"virtual_date": dt.date(2020, 1, 1)}, {"virtual_date": dt.date(2020, 1, 2)}]
    s = store_with([("a", [1]), ("b", [1])], "valuelist", partitions=["date"], extra=extra)
    assert skipped(s, c("date") == "2020-01-02") == ["a"]
    assert skipped(s, (c("date") == "2020-01-02") | (c("x") == 1)) == []
    res = skip_decisions(s, c("x") == 2, file_ids=["a", "new"])
    assert res.skipped == ["a"] and res.not_indexed == ["new"] and res.total == 2


def test_duplicate_rows_skip_only_when_all_agree():
    s = store_with([("a", [1]), ("a", [2])], "valuelist")
    assert skipped(s, c("x") == 2) == []
    assert skipped(s, c("x") == 3) == ["a"]


def test_v0_and_too_new_skip_nothing():
    s = store_with([("a", [1])], "valuelist")
    for v in (0, 5):
        s.version = v
        assert skipped(s, c("x") == 2) == []


def test_decimal_cells_against_float_literals():
    from decimal import Decimal

    s = store_with([("a", {"min": Decimal("0.1"), "max": Decimal("0.1")}), ("b", {"min": Decimal("2.50"),
                                                                                   "max": Decimal("3")})], "minmax")
    assert skipped(s, c("x") == 0.1) == ["b"]  # exact binary 0.1 would compare unequal to 0.1 decimal
    assert skipped(s, c("x") >= Decimal("2.5")) == ["a"]
    v = store_with([("a", [Decimal("0.1")]), ("b", [Decimal("0.2")])], "valuelist")
    assert skipped(v, c("x").isin([0.1])) == ["b"]
