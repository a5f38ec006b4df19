"""The part of a filter parquet_core cannot evaluate, applied to Arrow batches after the read.

parquet_core refuses ``< <= > >=`` on types the Parquet spec gives no
order (INT96 timestamps, which Spark writes by default, and intervals).
Such leaves are cut out of the pushed expression: in negation normal form
a leaf replaced by ``True`` can only keep more rows, so pruning with the
rest stays safe, and the whole predicate is then evaluated here on the
rows read, with SQL's three-valued logic (Kleene AND/OR; a null result
drops the row).  The same happens to comparisons on float and double
columns whose result on NaN differs between Spark and IEEE arithmetic
(``>``, ``>=``, a NaN literal): here they follow Spark, where NaN equals
NaN and is larger than every other value.
"""

from __future__ import annotations

from typing import Any, Callable, Literal

__all__ = ["UNORDERED", "weaken", "arrow_mask"]

UNORDERED = frozenset({"int96", "interval", "geometry", "geography"})


def weaken(node: tuple, unsupported: Callable[[tuple], bool]) -> tuple[Literal[True] | tuple, bool]:
    """``(tree, cut)``: *node* (NNF) with the leaves *unsupported* accepts replaced by True
    (``tree`` is True when nothing is left), and whether any leaf was cut."""
    tag = node[0]
    if tag in ("and", "or"):
        kids, cut = [], False
        for k in node[1]:
            t, c = weaken(k, unsupported)
            cut = cut or c
            if t is True:
                if tag == "or":
                    return True, True
                continue
            kids.append(t)
        if not kids:
            return True, cut
        return (kids[0] if len(kids) == 1 else (tag, kids)), cut
    if unsupported(node):
        return True, True
    return node, False


def arrow_mask(node: tuple, column: Callable[[str], Any], value: Callable[[tuple, Any], Any]) -> Any:
    """Boolean Arrow array: where the NNF *node* is true (null results are false).

    *column* gives the Arrow array of a filter column; *value* turns a leaf's
    literal (or list of literals, for IN) into Python values for that array.
    """
    import pyarrow.compute as pac

    return pac.fill_null(_eval(node, column, value), False)


def _eval(node: tuple, column: Callable[[str], Any], value: Callable[[tuple, Any], Any]) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pac

    tag = node[0]
    if tag in ("and", "or"):
        parts = [_eval(k, column, value) for k in node[1]]
        out = parts[0]
        for p in parts[1:]:
            out = pac.and_kleene(out, p) if tag == "and" else pac.or_kleene(out, p)
        return out
    arr = column(node[1])
    if tag == "isnull":
        return pac.is_null(arr)
    if tag == "notnull":
        return pac.is_valid(arr)
    floating = pa.types.is_floating(arr.type)
    if tag == "in":
        values = value(node, arr)
        nan = floating and any(v != v for v in values)
        members = pa.array([v for v in values if v == v] if floating else values, type=arr.type)
        hit = pac.if_else(pac.is_null(arr), pa.scalar(None, pa.bool_()), pac.is_in(arr, value_set=members))
        if floating:   # Spark: NaN is in a list only when the list holds NaN
            nans = pac.is_nan(arr)
            hit = pac.or_kleene(hit, nans) if nan else pac.and_kleene(hit, pac.invert(nans))
        return pac.invert(hit) if node[3] else hit
    lit = value(node, arr)
    if floating and lit != lit:
        hit = _against_nan(node[2], arr)
    else:
        scalar = pa.scalar(lit).cast(arr.type)
        fn = {"=": pac.equal, "!=": pac.not_equal, "<": pac.less, "<=": pac.less_equal, ">": pac.greater,
              ">=": pac.greater_equal}[node[2]]
        hit = fn(arr, scalar)
        if floating and node[2] in (">", ">="):   # Spark: NaN is larger than every number
            hit = pac.or_kleene(hit, pac.is_nan(arr))
    return pac.invert(hit) if node[4] else hit


def _against_nan(op: str, arr: Any) -> Any:
    """``arr <op> NaN`` as Spark computes it: NaN equals NaN and is above every number."""
    import pyarrow.compute as pac

    nan = pac.is_nan(arr)                 # null where arr is null, as every result here
    not_nan = pac.invert(nan)
    return {"=": nan, "!=": not_nan, "<": not_nan, "<=": pac.or_kleene(nan, not_nan),
            ">": pac.and_kleene(nan, not_nan), ">=": nan}[op]
