"""``.option("filter", "<SQL-like predicate>")``: parsed here into a small tree, then into
parquet_core expressions (data columns) or evaluated per file (partition columns).

Grammar (keywords in any case)::

    expr      := and_expr (OR and_expr)*
    and_expr  := not_expr (AND not_expr)*
    not_expr  := NOT not_expr | '(' expr ')' | predicate
    predicate := column op literal | literal op column
               | column [NOT] IN '(' literal (',' literal)* ')'
               | column [NOT] BETWEEN literal AND literal
               | column IS [NOT] NULL
               | column                      (a boolean column: column = true)
    op        := = | == | != | <> | < | <= | > | >=
    literal   := number | 'text' ('' is a quote) | true | false
               | DATE 'yyyy-mm-dd' | TIMESTAMP '...' | TIMESTAMP_NTZ '...'
    column    := name ('.' name)*  with name an identifier or `back quoted`

Results follow Spark SQL's three-valued logic: a row is kept when the
predicate is true (null and false drop it).  ``NOT (a IN (...))`` drops
rows where ``a`` is null, as Spark does, unlike a plain pyarrow ``not in``.
Literals take the type of the column they meet (``d > '2024-01-02'`` on a
date column compares dates).  ``NULL`` as a literal is refused (``= NULL``
is never true in SQL; use ``IS NULL``).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from spark_adapter.core.literals import literal_value

__all__ = ["parse_filter", "FilterSyntaxError", "Literal", "columns_of", "nnf", "specialize", "to_expression",
           "literal_value"]


class FilterSyntaxError(ValueError):
    """The ``filter`` option's text is not a predicate this parser understands."""


_TOKEN = re.compile(r"""
    \s*(?:
      (?P<num>-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
    | (?P<str>'(?:[^']|'')*')
    | (?P<op><=|>=|<>|!=|==|=|<|>)
    | (?P<punct>[(),.])
    | (?P<quoted>`(?:[^`]|``)+`)
    | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
    )""", re.VERBOSE)

_KEYWORDS = {"and", "or", "not", "in", "is", "null", "between", "true", "false"}
_TYPED = {"date", "timestamp", "timestamp_ntz", "timestamp_ltz"}
_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NEGATE = {"=": "!=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


class Literal:
    """A literal as written: its kind (num, str, bool, date, timestamp, timestamp_ntz) and text."""

    __slots__ = ("kind", "text")

    def __init__(self, kind: str, text: str) -> None:
        self.kind, self.text = kind, text

    def __repr__(self) -> str:
        return f"{self.kind}:{self.text}"

    @classmethod
    def of(cls, value: Any, finite_only: bool = True) -> Literal | None:
        """A Python value (bool, number, ``Decimal``, str, date, datetime) as a literal, or None
        for other types, and for NaN and infinities when *finite_only*."""
        import datetime as dt
        import decimal
        import math

        if isinstance(value, bool):
            return cls("bool", "true" if value else "false")
        if isinstance(value, int):
            return cls("num", str(value))
        if isinstance(value, float):
            return cls("num", repr(value)) if math.isfinite(value) or not finite_only else None
        if isinstance(value, decimal.Decimal):
            return cls("num", str(value)) if value.is_finite() or not finite_only else None
        if isinstance(value, str):
            return cls("str", value)
        if isinstance(value, dt.datetime):
            return cls("timestamp" if value.tzinfo is not None else "timestamp_ntz", value.isoformat())
        if isinstance(value, dt.date):
            return cls("date", value.isoformat())
        return None


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    out: list[tuple[str, str, int]] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return out
        m = _TOKEN.match(text, pos)
        kind = None if m is None or m.end() == pos else m.lastgroup   # every alternative is a named group
        if m is None or kind is None:
            raise FilterSyntaxError(f"pqcore: option 'filter': unexpected character {text[pos]!r} "
                                    f"at position {pos} in {text!r}")
        out.append((kind, m.group(kind), m.start(kind)))
        pos = m.end()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0

    def fail(self, what: str) -> FilterSyntaxError:
        if self.i < len(self.tokens):
            _, value, pos = self.tokens[self.i]
            where = f"at {value!r} (position {pos})"
        else:
            where = "at the end"
        return FilterSyntaxError(f"pqcore: option 'filter': expected {what} {where} in {self.text!r}")

    def peek(self) -> tuple[str, str] | None:
        if self.i < len(self.tokens):
            kind, value, _ = self.tokens[self.i]
            return kind, (value.lower() if kind == "word" else value)
        return None

    def accept(self, value: str) -> bool:
        tok = self.peek()
        if tok is not None and tok[1] == value and tok[0] in ("word", "op", "punct"):
            self.i += 1
            return True
        return False

    def expect(self, value: str) -> None:
        if not self.accept(value):
            raise self.fail(repr(value.upper() if value.isalpha() else value))

    def parse(self) -> tuple:
        if not self.tokens:
            raise FilterSyntaxError("pqcore: option 'filter' is empty")
        node = self.or_expr()
        if self.i != len(self.tokens):
            raise self.fail("AND, OR or the end of the predicate")
        return node

    def or_expr(self) -> tuple:
        kids = [self.and_expr()]
        while self.accept("or"):
            kids.append(self.and_expr())
        return kids[0] if len(kids) == 1 else ("or", kids)

    def and_expr(self) -> tuple:
        kids = [self.not_expr()]
        while self.accept("and"):
            kids.append(self.not_expr())
        return kids[0] if len(kids) == 1 else ("and", kids)

    def not_expr(self) -> tuple:
        if self.accept("not"):
            return ("not", self.not_expr())
        if self.accept("("):
            node = self.or_expr()
            self.expect(")")
            return node
        return self.predicate()

    def predicate(self) -> tuple:
        tok = self.peek()
        if tok is None:
            raise self.fail("a column or a literal")
        if self._at_literal():
            lit = self.literal()
            op = self.peek()
            if op is None or op[0] != "op":
                raise self.fail("a comparison operator after the literal")
            self.i += 1
            name = self.column()
            return ("cmp", name, _FLIP[_op(op[1])], lit)
        name = self.column()
        tok = self.peek()
        if tok is not None and tok[0] == "op":
            self.i += 1
            return ("cmp", name, _op(tok[1]), self.literal())
        negated = self.accept("not")
        if self.accept("in"):
            self.expect("(")
            values = [self.literal()]
            while self.accept(","):
                values.append(self.literal())
            self.expect(")")
            node: tuple = ("in", name, values)
            return ("not", node) if negated else node
        if self.accept("between"):
            lo = self.literal()
            self.expect("and")
            hi = self.literal()
            node = ("and", [("cmp", name, ">=", lo), ("cmp", name, "<=", hi)])
            return ("not", node) if negated else node
        if negated:
            raise self.fail("IN or BETWEEN after NOT")
        if self.accept("is"):
            is_not = self.accept("not")
            self.expect("null")
            return ("notnull" if is_not else "isnull", name)
        return ("cmp", name, "=", Literal("bool", "true"))  # a bare boolean column

    def _at_literal(self) -> bool:
        kind, value = self.peek()  # type: ignore[misc]
        if kind in ("num", "str"):
            return True
        if kind == "word" and value in ("true", "false", "null"):
            return True
        if kind == "word" and value in _TYPED and self.i + 1 < len(self.tokens):
            return self.tokens[self.i + 1][0] == "str"
        return False

    def literal(self) -> Literal:
        tok = self.peek()
        if tok is None:
            raise self.fail("a literal")
        kind, value = tok
        raw = self.tokens[self.i][1]
        if kind == "num":
            self.i += 1
            return Literal("num", raw)
        if kind == "str":
            self.i += 1
            return Literal("str", raw[1:-1].replace("''", "'"))
        if kind == "word" and value in ("true", "false"):
            self.i += 1
            return Literal("bool", value)
        if kind == "word" and value == "null":
            raise self.fail("a literal other than NULL (comparing with NULL is never true; use IS NULL)")
        if kind == "word" and value in _TYPED and self.i + 1 < len(self.tokens) \
                and self.tokens[self.i + 1][0] == "str":
            self.i += 2
            body = self.tokens[self.i - 1][1][1:-1].replace("''", "'")
            return Literal("timestamp" if value == "timestamp_ltz" else value, body)
        raise self.fail("a literal (number, 'text', true, false, DATE '...', TIMESTAMP '...')")

    def column(self) -> str:
        parts = [self._name()]
        while self.accept("."):
            parts.append(self._name())
        return ".".join(parts)

    def _name(self) -> str:
        tok = self.peek()
        if tok is None:
            raise self.fail("a column name")
        kind, value = tok
        raw = self.tokens[self.i][1]
        if kind == "quoted":
            self.i += 1
            return raw[1:-1].replace("``", "`")
        if kind == "word" and value not in _KEYWORDS:
            self.i += 1
            return raw
        raise self.fail("a column name")


def _op(text: str) -> str:
    return {"==": "=", "<>": "!="}.get(text, text)


def parse_filter(text: str | None) -> tuple | None:
    """The predicate tree of the option's text (None for no or blank text).

    Raises :class:`FilterSyntaxError` (a ValueError) naming the position of the problem.
    """
    if text is None or not text.strip():
        return None
    return _Parser(text).parse()


def columns_of(node: tuple) -> set[str]:
    """The column names a tree mentions."""
    tag = node[0]
    if tag in ("and", "or"):
        return set().union(*(columns_of(k) for k in node[1]))
    if tag == "not":
        return columns_of(node[1])
    return {node[1]}


# -- negation normal form, per-file specialisation, parquet_core expressions ----------------------

def nnf(node: tuple, negate: bool = False) -> tuple:
    """*node* with every NOT pushed into a leaf flag: ``("cmp", col, op, lit, neg)``,
    ``("in", col, lits, neg)``, ``("isnull", col)``, ``("notnull", col)``, ``("and"|"or", kids)``."""
    tag = node[0]
    if tag == "not":
        return nnf(node[1], not negate)
    if tag in ("and", "or"):
        kids = [nnf(k, negate) for k in node[1]]
        return (("or" if tag == "and" else "and") if negate else tag, kids)
    if tag in ("isnull", "notnull"):
        return (("notnull" if tag == "isnull" else "isnull") if negate else tag, node[1])
    if tag == "in":
        return ("in", node[1], node[2], negate)
    return ("cmp", node[1], node[2], node[3], negate)


def _leaf_value(node: tuple, v: Any, typ: Any, time_zone: str) -> bool | None:
    """SQL three-valued result of one NNF leaf on a known value *v* (None: null)."""
    tag = node[0]
    if tag == "isnull":
        return v is None
    if tag == "notnull":
        return v is not None
    if v is None:
        return None
    if tag == "in":
        hit = any(v == literal_value(lit, typ, node[1], time_zone) for lit in node[2])
    else:
        lit = literal_value(node[3], typ, node[1], time_zone)
        try:
            hit = {"=": v == lit, "!=": v != lit, "<": v < lit, "<=": v <= lit, ">": v > lit,
                   ">=": v >= lit}[node[2]]
        except TypeError:
            raise ValueError(f"pqcore: filter: cannot compare column {node[1]!r} value {v!r} "
                             f"with {node[3].text!r}") from None
    return not hit if node[3 if tag == "in" else 4] else hit


def specialize(node: tuple, known: dict[str, Any], type_of: Callable[[str], Any],
               time_zone: str = "UTC") -> bool | tuple:
    """An NNF tree with the columns of *known* (lower-case name -> value; partition columns,
    columns missing from a file) replaced by their results: ``True`` (every row passes),
    ``False`` (no row can pass) or the remaining tree on the other columns.

    In NNF a null result can be treated as False: with no NOT above a leaf, a
    leaf that is null instead of false never turns the whole predicate true.
    """
    tag = node[0]
    if tag in ("and", "or"):
        rest = []
        for k in node[1]:
            r = specialize(k, known, type_of, time_zone)
            if r is (tag == "or"):
                return r            # OR with a True term / AND with a False term
            if r is not (tag == "and"):
                rest.append(r)
        if not rest:
            return tag == "and"
        return rest[0] if len(rest) == 1 else (tag, rest)
    name = node[1].lower()
    if name not in known:
        return node
    return _leaf_value(node, known[name], type_of(node[1]), time_zone) is True


def to_expression(node: tuple, resolve: Callable[[str], str], type_of: Callable[[str], Any],
                  time_zone: str = "UTC") -> Any:
    """A parquet_core Expression giving Spark SQL's results for an NNF *node*.

    *resolve* maps a filter column to the file's column name, *type_of* to its
    Spark type.  A negated IN keeps SQL's null result (the row is dropped)
    instead of pyarrow's ``not in`` (which keeps nulls).
    """
    import parquet_core as pc

    tag = node[0]
    if tag in ("and", "or"):
        kids = [to_expression(k, resolve, type_of, time_zone) for k in node[1]]
        out = kids[0]
        for k in kids[1:]:
            out = (out & k) if tag == "and" else (out | k)
        return out
    column = pc.col(resolve(node[1]))
    if tag == "isnull":
        return column.is_null()
    if tag == "notnull":
        return column.is_not_null()
    typ = type_of(node[1])
    if tag == "in":
        values = [literal_value(lit, typ, node[1], time_zone) for lit in node[2]]
        return (column.is_not_null() & ~column.isin(values)) if node[3] else column.isin(values)
    value = literal_value(node[3], typ, node[1], time_zone)
    expr = {"=": column.__eq__, "!=": column.__ne__, "<": column.__lt__, "<=": column.__le__,
            ">": column.__gt__, ">=": column.__ge__}[node[2]](value)
    return ~expr if node[4] else expr
