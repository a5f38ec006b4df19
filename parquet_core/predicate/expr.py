"""Row predicates: composable expressions and pyarrow's DNF filter lists.

Two ways to say the same thing::

    pc.col("a") > 5) & pc.col("b").isin({"x", "y"})
    [("a", ">", 5), ("b", "in", {"x", "y"})]            # pyarrow's filters= form

A list of tuples is an AND; a list of such lists is an OR of ANDs.
Operators: ``== = != < <= > >= in not in intersects``, and as methods ``is_null``,
``is_not_null`` (``is_valid``), ``is_nan``, ``starts_with``, ``intersects``; ``&``, ``|`` and ``~``
combine.  Comparisons follow SQL: a null never matches (``~`` of a null is
still null), NaN compares like IEEE floats (unequal to everything).
``in``/``not in`` follow pyarrow instead (see :class:`IsIn`), so that
``filters=`` keeps exactly the rows ``pyarrow.parquet.read_table`` keeps.

:func:`negation_normal_form` pushes every ``~`` down to the leaves (De
Morgan, and each leaf has an exact negation under SQL nulls), which is the
form the pruning code works on: then "could any row match?" combines with
plain and/or.
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["Expression", "Column", "Comparison", "IsIn", "IsNull", "IsNan", "StartsWith", "Intersects",
           "And", "Or", "Not",
           "col", "from_filters", "negation_normal_form", "OPERATORS"]

#: Comparison operators and their negations.
OPERATORS = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_ALIASES = {"=": "=="}


class Expression:
    """A boolean row predicate; combine with ``&``, ``|`` and ``~``."""

    def __and__(self, other: Expression) -> Expression:
        return And(_check(self), _check(other))

    def __or__(self, other: Expression) -> Expression:
        return Or(_check(self), _check(other))

    def __invert__(self) -> Expression:
        return Not(self)

    def __bool__(self) -> bool:
        raise TypeError("an Expression has no truth value: combine with & | ~, not and/or/not")

    def columns(self) -> set[str]:
        """Names of the columns the predicate reads."""
        raise NotImplementedError


def _check(e: Any) -> Expression:
    if not isinstance(e, Expression):
        raise TypeError(f"expected an Expression, got {type(e).__name__}: {e!r}")
    return e


class Column:
    """A column reference: ``col("a") > 5`` builds a comparison."""

    __slots__ = ("name",)
    __hash__ = None  # type: ignore[assignment]  # == builds an Expression

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"column name must be a non-empty str, got {name!r}")
        self.name = name

    def field(self, *names: str) -> Column:
        """A member of this column: a struct leaf, or an object field inside a variant.

        ``col("v").field("a", "b")`` is ``col("v.a.b")``; for a variant
        column it names the field ``a.b`` of each value (see
        :mod:`parquet_core.file.variant_paths` for what prunes).
        """
        if not names or not all(isinstance(n, str) and n for n in names):
            raise ValueError(f"field names must be non-empty str, got {names!r}")
        return Column(".".join((self.name,) + names))

    def _cmp(self, op: str, value: Any) -> Comparison:
        return Comparison(self.name, op, value)

    def __eq__(self, value: Any) -> Comparison:  # type: ignore[override]  # builds, not tests (meant)
        return self._cmp("==", value)

    def __ne__(self, value: Any) -> Comparison:  # type: ignore[override]  # builds, not tests (meant)
        return self._cmp("!=", value)

    def __lt__(self, value: Any) -> Comparison:
        return self._cmp("<", value)

    def __le__(self, value: Any) -> Comparison:
        return self._cmp("<=", value)

    def __gt__(self, value: Any) -> Comparison:
        return self._cmp(">", value)

    def __ge__(self, value: Any) -> Comparison:
        return self._cmp(">=", value)

    def isin(self, values: Iterable[Any]) -> IsIn:
        return IsIn(self.name, values)

    def is_null(self) -> IsNull:
        return IsNull(self.name)

    def is_not_null(self) -> IsNull:
        return IsNull(self.name, negated=True)

    is_valid = is_not_null

    def is_nan(self) -> IsNan:
        return IsNan(self.name)

    def starts_with(self, prefix: str | bytes) -> StartsWith:
        return StartsWith(self.name, prefix)

    def intersects(self, bbox: Any) -> Intersects:
        """The geometry's bounding box meets *bbox* = ``(xmin, ymin, xmax, ymax)`` (GEOMETRY/GEOGRAPHY)."""
        return Intersects(self.name, bbox)

    def __repr__(self) -> str:
        return f"col({self.name!r})"


def col(name: str) -> Column:
    """Refer to a column (top-level name, or a dotted leaf path) in a predicate."""
    return Column(name)


class Comparison(Expression):
    """``column <op> value`` for op in ``== != < <= > >=`` (``negated``: NOT of it).

    A negated comparison is not the comparison with the opposite operator
    when the value is NaN (``NaN < 5`` and ``NaN >= 5`` are both false), so
    negation is kept as a flag.
    """

    def __init__(self, column: str, op: str, value: Any, negated: bool = False) -> None:
        op = _ALIASES.get(op, op)
        if op not in OPERATORS:
            raise ValueError(f"unknown comparison operator {op!r}; expected one of {sorted(OPERATORS)}")
        if value is None:
            raise ValueError(f"comparing column {column!r} with None matches nothing under SQL nulls; "
                             "use is_null() / is_not_null()")
        self.column, self.op, self.value, self.negated = column, op, value, negated

    def columns(self) -> set[str]:
        return {self.column}

    def __repr__(self) -> str:
        return f"{'~' if self.negated else ''}(col({self.column!r}) {self.op} {self.value!r})"


class IsIn(Expression):
    """``column in values`` (``negated``: not in).

    As in pyarrow (``is_in``), membership is never null: a null row is in the
    set only when the set holds ``None``, so ``not in`` keeps null rows
    unless ``None`` is listed.  (SQL would make both null.)
    """

    def __init__(self, column: str, values: Iterable[Any], negated: bool = False) -> None:
        if isinstance(values, (str, bytes)):
            raise TypeError(f"'in' needs a collection of values for column {column!r}, got {values!r}")
        values = list(values)
        self.column = column
        self.values = tuple(v for v in values if v is not None)
        self.match_null = len(self.values) < len(values)
        self.negated = negated

    def columns(self) -> set[str]:
        return {self.column}

    def __repr__(self) -> str:
        return f"(col({self.column!r}) {'not in' if self.negated else 'in'} {list(self.values)!r})"


class IsNull(Expression):
    """``column is null`` (``negated``: is not null)."""

    def __init__(self, column: str, negated: bool = False) -> None:
        self.column, self.negated = column, negated

    def columns(self) -> set[str]:
        return {self.column}

    def __repr__(self) -> str:
        return f"col({self.column!r}).{'is_not_null' if self.negated else 'is_null'}()"


class IsNan(Expression):
    """``column`` is NaN (``negated``: is a number), as pyarrow's ``is_nan``.

    Null for a null row (so neither it nor its negation keeps nulls); false
    for every value of a type without NaN.
    """

    def __init__(self, column: str, negated: bool = False) -> None:
        self.column, self.negated = column, negated

    def columns(self) -> set[str]:
        return {self.column}

    def __repr__(self) -> str:
        return f"{'~' if self.negated else ''}col({self.column!r}).is_nan()"


class StartsWith(Expression):
    """``column`` (text or binary) begins with ``prefix`` (``negated``: does not)."""

    def __init__(self, column: str, prefix: str | bytes, negated: bool = False) -> None:
        if not isinstance(prefix, (str, bytes)):
            raise TypeError(f"starts_with needs a str or bytes prefix, got {prefix!r}")
        self.column, self.prefix, self.negated = column, prefix, negated

    def columns(self) -> set[str]:
        return {self.column}

    def __repr__(self) -> str:
        return f"{'~' if self.negated else ''}col({self.column!r}).starts_with({self.prefix!r})"


class Intersects(Expression):
    """The bounding box of a WKB value meets ``bbox`` = ``(xmin, ymin, xmax, ymax)``.

    Decided on each value's box, not on its exact shape: a candidate-level
    test (a geometry whose box meets the query may itself miss it), the
    same answer the statistics give, so pruning and filtering agree.  For
    GEOGRAPHY the query may wrap (``xmin > xmax``: across the antimeridian).
    Null rows and empty geometries (no box) never match; negated, an
    empty geometry matches and a null does not (SQL).
    """

    def __init__(self, column: str, bbox: Any, negated: bool = False) -> None:
        try:
            box = tuple(float(v) for v in bbox)
        except (TypeError, ValueError):
            raise TypeError(f"intersects needs (xmin, ymin, xmax, ymax), got {bbox!r}") from None
        if len(box) != 4 or any(v != v for v in box) or box[1] > box[3]:
            raise ValueError(f"intersects needs (xmin, ymin, xmax, ymax) with ymin <= ymax, got {bbox!r}")
        self.column, self.bbox, self.negated = column, box, negated

    def columns(self) -> set[str]:
        return {self.column}

    def __repr__(self) -> str:
        return f"{'~' if self.negated else ''}col({self.column!r}).intersects({self.bbox!r})"


class _Junction(Expression):
    """``&`` or ``|`` of two or more predicates."""

    symbol = "?"

    def __init__(self, *children: Expression) -> None:
        self.children = tuple(_check(c) for c in children)

    def columns(self) -> set[str]:
        return set().union(*(c.columns() for c in self.children))

    def __repr__(self) -> str:
        return "(" + f" {self.symbol} ".join(map(repr, self.children)) + ")"


class And(_Junction):
    symbol = "&"


class Or(_Junction):
    symbol = "|"


class Not(Expression):
    def __init__(self, child: Expression) -> None:
        self.child = _check(child)

    def columns(self) -> set[str]:
        return self.child.columns()

    def __repr__(self) -> str:
        return f"~{self.child!r}"


def _leaf(term: Any) -> Expression:
    if not isinstance(term, (tuple, list)) or len(term) != 3:
        raise ValueError(f"a filter term is (column, op, value), got {term!r}")
    name, op, value = term
    if not isinstance(name, str):
        raise ValueError(f"filter column must be a str, got {name!r}")
    op = op.lower().strip() if isinstance(op, str) else op
    if op in ("in", "not in"):
        return IsIn(name, value, negated=op == "not in")
    if op == "intersects":
        return Intersects(name, value)
    return Comparison(name, op, value)


def from_filters(filters: Any) -> Expression | None:
    """Turn pyarrow-style ``filters=`` (or an :class:`Expression`) into an Expression.

    ``[(col, op, value), ...]`` is an AND of terms; ``[[...], [...]]`` an OR
    of such ANDs; ``None`` or ``[]`` means no filter.  A ``pyarrow.compute.Expression``
    is translated (:mod:`parquet_core.predicate.arrow_expression`) or refused.
    """
    if filters is None or isinstance(filters, Expression):
        return filters
    if type(filters).__name__ == "Expression" and (type(filters).__module__ or "").startswith("pyarrow"):
        from parquet_core.predicate.arrow_expression import from_arrow_expression

        return from_arrow_expression(filters)
    if not isinstance(filters, (list, tuple)):
        raise TypeError(f"filters must be an Expression or a list of (column, op, value) tuples, "
                        f"got {type(filters).__name__}")
    if not filters:
        return None
    if all(isinstance(t, (list, tuple)) and t and isinstance(t[0], (list, tuple)) for t in filters):
        ors = [And(*[_leaf(t) for t in conj]) for conj in filters]
        return ors[0] if len(ors) == 1 else Or(*ors)
    terms = [_leaf(t) for t in filters]
    return terms[0] if len(terms) == 1 else And(*terms)


def negation_normal_form(e: Expression, negate: bool = False) -> Expression:
    """The same predicate with every Not pushed into the leaves.

    Exact under SQL nulls: ``~(a in S)`` is ``a not in S``, ``~(a is null)``
    is ``a is not null``; a comparison keeps its negation as a flag (NaN).
    """
    if isinstance(e, Not):
        return negation_normal_form(e.child, not negate)
    if isinstance(e, (And, Or)):
        kids = [negation_normal_form(c, negate) for c in e.children]
        flip = isinstance(e, And) == negate  # And under negation becomes Or, and back
        return Or(*kids) if flip else And(*kids)
    if not negate:
        return e
    if isinstance(e, Comparison):
        return Comparison(e.column, e.op, e.value, negated=not e.negated)
    if isinstance(e, IsIn):
        return IsIn(e.column, e.values + ((None,) if e.match_null else ()), negated=not e.negated)
    if isinstance(e, IsNull):
        return IsNull(e.column, negated=not e.negated)
    if isinstance(e, IsNan):
        return IsNan(e.column, negated=not e.negated)
    if isinstance(e, StartsWith):
        return StartsWith(e.column, e.prefix, negated=not e.negated)
    if isinstance(e, Intersects):
        return Intersects(e.column, e.bbox, negated=not e.negated)
    raise TypeError(f"unknown expression {e!r}")
