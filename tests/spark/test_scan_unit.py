"""The filter parser, its per-file specialisation and task packing, without a Spark session.

Expected values follow SQL's rules (precedence, three-valued logic), worked out by hand.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark")

from pyspark.sql.types import IntegerType, StringType  # noqa: E402

from spark_adapter.pqcore.scan import Piece, pack  # noqa: E402
from spark_adapter.core.sql_filter import FilterSyntaxError, nnf, parse_filter, specialize  # noqa: E402


def _shape(node):
    """A tree without literal objects, for comparisons."""
    tag = node[0]
    if tag in ("and", "or"):
        return (tag, [_shape(k) for k in node[1]])
    if tag == "not":
        return ("not", _shape(node[1]))
    if tag in ("isnull", "notnull"):
        return node
    if tag == "in":
        return ("in", node[1], [v.text for v in node[2]])
    return ("cmp", node[1], node[2], node[3].text)


@pytest.mark.parametrize("text, expected", [
    ("a = 1 or b = 2 and c = 3", ("or", [("cmp", "a", "=", "1"),
                                         ("and", [("cmp", "b", "=", "2"), ("cmp", "c", "=", "3")])])),
    ("NOT a = 1 AND b = 2", ("and", [("not", ("cmp", "a", "=", "1")), ("cmp", "b", "=", "2")])),
    ("3 <= a", ("cmp", "a", ">=", "3")),
    ("a <> 'it''s'", ("cmp", "a", "!=", "it's")),
    ("`odd col`.x in (1, 2.5, -3)", ("in", "odd col.x", ["1", "2.5", "-3"])),
    ("a is not null and b IS NULL", ("and", [("notnull", "a"), ("isnull", "b")])),
    ("a not between 1 and 2", ("not", ("and", [("cmp", "a", ">=", "1"), ("cmp", "a", "<=", "2")]))),
    ("date = date '2024-01-02'", ("cmp", "date", "=", "2024-01-02")),
])
def test_parse(text, expected):
    assert _shape(parse_filter(text)) == expected


@pytest.mark.parametrize("text", ["a =", "a = 1 and", "a in ()", "(a = 1", "a = 1)", "and = 1", "a is 1",
                                  "a not like 'x'", "a = 'open"])
def test_parse_errors(text):
    with pytest.raises(FilterSyntaxError, match="option 'filter'"):
        parse_filter(text)


def _types(name):
    return {"p": IntegerType(), "s": StringType()}[name.lower()]


@pytest.mark.parametrize("text, p, expected", [
    ("p = 1", 1, True),
    ("p = 1", None, False),             # null = 1 is null: dropped
    ("not (p = 1)", None, False),       # NOT null is null: dropped
    ("not (p in (1, 2))", None, False),
    ("not (p in (1, 2))", 3, True),
    ("p is null or p > 5", None, True),
    ("not (p is null)", None, False),
    ("p < 2 or not (p < 5)", 3, False),
])
def test_specialize_on_known_values(text, p, expected):
    assert specialize(nnf(parse_filter(text)), {"p": p}, _types) is expected


def test_specialize_keeps_the_unknown_part():
    tree = specialize(nnf(parse_filter("(p = 1 or s = 'x') and not (p = 2)")), {"p": 1}, _types)
    assert tree is True
    rest = specialize(nnf(parse_filter("(p = 2 or s = 'x') and not (p = 3)")), {"p": 1}, _types)
    assert _shape(rest[:4]) == ("cmp", "s", "=", "x")


def test_pack_balances_and_keeps_listing_order():
    pieces = [Piece(f"f{i}", None, {}, w) for i, w in enumerate([10, 1, 1, 8, 2, 9])]
    bins = pack(pieces, 3, max_bytes=1000)
    assert sorted(sum(p.weight for p in b) for b in bins) == [10, 10, 11]
    assert all([p.path for p in b] == sorted(p.path for p in b) for b in bins)
    assert len(pack(pieces, 1, max_bytes=10)) == 4      # 31 bytes at most 10 per task: 4 tasks
    assert pack([], 4) == []
