"""Schema rules: tree shape, names, repetition, logical and converted types vs physical types.

Spec: README.md "Metadata" / "Nested Encoding", parquet.thrift
``SchemaElement``, LogicalTypes.md.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from parquet_core.constants import ConvertedType as CT
from parquet_core.constants import PhysicalType as P
from parquet_core.constants import Repetition
from parquet_core.errors import ParquetError, quoted
from parquet_core.schema.nested import build_shape
from parquet_core.validation.context import Checker
from parquet_core.validation.rules import ERROR, WARNING, rule

__all__ = ["check_schema", "TREE"]

_LT = "LogicalTypes.md"
TREE = rule("schema.tree", ERROR, "parquet.thrift FileMetaData.schema",
            "the flat schema list forms one tree (num_children counts, a group root, leaves with a type)")
REPETITION = rule("schema.repetition-missing", ERROR, "parquet.thrift SchemaElement.repetition_type",
                  "every element but the root has a repetition_type")
ROOT_REPEATED = rule("schema.root-repetition", WARNING, "parquet.thrift SchemaElement.repetition_type",
                     "the root has no repetition_type (or REQUIRED); a repeated root breaks readers")
NAME_DUP = rule("schema.duplicate-name", ERROR, "README.md#metadata",
                "children of one group have distinct names (columns are found by path)")
NAME_EMPTY = rule("schema.empty-name", WARNING, "README.md#metadata", "field names are not empty")
EMPTY_GROUP = rule("schema.empty-group", WARNING, "README.md#nested-encoding",
                   "a group has at least one child (empty groups break most readers)")
FLBA_LENGTH = rule("schema.flba-length", ERROR, "parquet.thrift SchemaElement.type_length",
                   "a FIXED_LEN_BYTE_ARRAY leaf has a positive type_length")
TYPE_PHYSICAL = rule("schema.logical-physical", ERROR, _LT,
                     "a logical or converted type annotates a physical type it allows")
STRING_FLBA = rule("schema.string-on-flba", WARNING, _LT + "#string",
                   "STRING/UTF8 annotates BYTE_ARRAY only; on FIXED_LEN_BYTE_ARRAY (fastparquet) it is read leniently")
DECIMAL = rule("schema.decimal-params", ERROR, _LT + "#decimal",
               "DECIMAL has 1 <= precision <= the width's maximum and 0 <= scale <= precision")
LOGICAL_CONVERTED = rule("schema.logical-converted-mismatch", ERROR, _LT + "#compatibility",
                         "a converted_type written beside a logicalType is the one that corresponds to it")
TIME_UNIT = rule("schema.time-unit", ERROR, _LT + "#temporal-types",
                 "TIME/TIMESTAMP have a unit, and TIME(MILLIS) is INT32, TIME(MICROS/NANOS) INT64")
INT_WIDTH = rule("schema.integer-width", ERROR, _LT + "#signed-integers",
                 "INTEGER has bitWidth 8, 16, 32 or 64, on INT32 (8..32) or INT64 (64)")
NESTED = rule("schema.nested-layout", ERROR, _LT + "#nested-types",
              "LIST and MAP annotated groups follow a layout readers can lay out")

_BYTES = {P.BYTE_ARRAY}
_CONVERTED: dict[int, set[P] | None] = {
    CT.UTF8: _BYTES, CT.ENUM: _BYTES, CT.JSON: _BYTES, CT.BSON: _BYTES,
    CT.DATE: {P.INT32}, CT.TIME_MILLIS: {P.INT32}, CT.TIME_MICROS: {P.INT64},
    CT.TIMESTAMP_MILLIS: {P.INT64}, CT.TIMESTAMP_MICROS: {P.INT64},
    CT.UINT_8: {P.INT32}, CT.UINT_16: {P.INT32}, CT.UINT_32: {P.INT32}, CT.UINT_64: {P.INT64},
    CT.INT_8: {P.INT32}, CT.INT_16: {P.INT32}, CT.INT_32: {P.INT32}, CT.INT_64: {P.INT64},
    CT.INTERVAL: {P.FIXED_LEN_BYTE_ARRAY},
    CT.DECIMAL: {P.INT32, P.INT64, P.BYTE_ARRAY, P.FIXED_LEN_BYTE_ARRAY},
    CT.MAP: None, CT.MAP_KEY_VALUE: None, CT.LIST: None,   # groups
}
_UNITS = {"MILLIS": "MILLIS", "MICROS": "MICROS", "NANOS": "NANOS"}


def check_schema(ck: Checker, root: Any) -> None:
    """Run every element rule over the schema tree *root* (``parse_schema_tree``)."""
    if root.element.repetition_type == Repetition.REPEATED:
        ck.report(ROOT_REPEATED, "the schema root is REPEATED")
    stack: list[tuple[Any, str]] = [(root, "")]
    while stack:
        node, path = stack.pop()
        el = node.element
        if node is not root and el.repetition_type is None:
            ck.report(REPETITION, f"element {quoted(path)} has no repetition_type", column=path)
        if node is not root and not el.name:
            ck.report(NAME_EMPTY, f"an element below {quoted(path.rpartition('.')[0] or '<root>')} has an empty name",
                      column=path)
        counts = Counter(c.name for c in node.children)   # linear: a group may have 100k children
        for dup in sorted((n for n, k in counts.items() if k > 1), key=str):
            ck.report(NAME_DUP, f"group {quoted(path or '<root>')} has several children named {quoted(dup)}", column=path or None)
        if el.type is None and not node.children and node is not root:
            ck.report(EMPTY_GROUP, f"group {quoted(path)} has no children", column=path)
        if el.type is not None:
            _check_leaf(ck, el, path)
        elif el.converted_type is not None and _CONVERTED.get(el.converted_type, 0) is not None:
            ck.report(TYPE_PHYSICAL, f"group {quoted(path)} is annotated {_ct(el.converted_type)}, a leaf annotation",
                      column=path)
        stack.extend((c, f"{path}.{c.name}" if path else str(c.name)) for c in reversed(node.children))


def check_layouts(ck: Checker) -> None:
    """Each top-level field can be laid out (LIST / MAP rules)."""
    for node in ck.schema.top_level_fields:
        try:
            build_shape(node, ck.schema.leaf_of, lambda i: ck.schema.column(i).data_type)
        except (ParquetError, KeyError, ValueError) as exc:
            ck.report(NESTED, f"field {quoted(node.name)}: {exc}", column=node.name)


def _ct(v: int) -> str:
    try:
        return CT(v).name
    except ValueError:
        return f"converted type {v}"


def _pname(v: int) -> str:
    try:
        return P(v).name
    except ValueError:
        return f"physical type {v}"


def _check_leaf(ck: Checker, el: Any, path: str) -> None:
    ptype = el.type
    if ptype == P.FIXED_LEN_BYTE_ARRAY and (el.type_length is None or el.type_length <= 0):
        ck.report(FLBA_LENGTH, f"leaf {quoted(path)} is FIXED_LEN_BYTE_ARRAY with type_length {el.type_length}", column=path)
        return
    ct = el.converted_type
    if ct is not None:
        allowed = _CONVERTED.get(ct, set())
        if allowed is None:
            ck.report(TYPE_PHYSICAL, f"leaf {quoted(path)} is annotated {_ct(ct)}, a group annotation", column=path)
        elif ct in (CT.UTF8,) and ptype == P.FIXED_LEN_BYTE_ARRAY:
            pass   # reported once, by the logical type check or below
        elif ptype not in allowed:
            ck.report(TYPE_PHYSICAL, f"{_ct(ct)} on {_pname(ptype)} (leaf {quoted(path)}); expected "
                      f"{'/'.join(_pname(p) for p in sorted(allowed))}", column=path)
        if ct == CT.INTERVAL and ptype == P.FIXED_LEN_BYTE_ARRAY and el.type_length != 12:
            ck.report(TYPE_PHYSICAL, f"INTERVAL on FIXED_LEN_BYTE_ARRAY({el.type_length}); expected length 12", column=path)
        if ct == CT.DECIMAL and el.logicalType is None:
            _check_decimal(ck, el, el.precision, el.scale, path)
    lt = el.logicalType
    if lt is not None:
        _check_logical(ck, el, lt, path)
    elif ct == CT.UTF8 and ptype == P.FIXED_LEN_BYTE_ARRAY:
        ck.report(STRING_FLBA, f"leaf {quoted(path)} is FIXED_LEN_BYTE_ARRAY annotated UTF8", column=path)


def _max_precision(ptype: int, length: int | None) -> int | None:
    if ptype == P.INT32:
        return 9
    if ptype == P.INT64:
        return 18
    if ptype == P.FIXED_LEN_BYTE_ARRAY and length:
        return int(math.floor(math.log10(2.0 ** (8 * length - 1) - 1))) if length < 128 else 10**9
    return None   # BYTE_ARRAY: unbounded


def _check_decimal(ck: Checker, el: Any, precision: int | None, scale: int | None, path: str) -> None:
    if el.type not in (P.INT32, P.INT64, P.BYTE_ARRAY, P.FIXED_LEN_BYTE_ARRAY):
        return
    scale = 0 if scale is None else scale
    top = _max_precision(el.type, el.type_length)
    if precision is None or precision < 1:
        ck.report(DECIMAL, f"DECIMAL leaf {quoted(path)} has precision {precision}; expected at least 1", column=path)
    elif top is not None and precision > top:
        ck.report(DECIMAL, f"DECIMAL({precision}, {scale}) on {_pname(el.type)}"
                  f"{f'({el.type_length})' if el.type == P.FIXED_LEN_BYTE_ARRAY else ''}: expected precision "
                  f"at most {top}", column=path)
    if precision is not None and not 0 <= scale <= max(precision, 0):
        ck.report(DECIMAL, f"DECIMAL({precision}, {scale}) of {quoted(path)}: expected 0 <= scale <= precision", column=path)


def _unit(u: Any) -> str | None:
    if u is None:
        return None
    for name in _UNITS:
        if getattr(u, name, None) is not None:
            return name
    return None


def _check_logical(ck: Checker, el: Any, lt: Any, path: str) -> None:   # noqa: C901 - one branch per type
    ptype, ct = el.type, el.converted_type

    def bad(expected: str) -> None:
        ck.report(TYPE_PHYSICAL, f"{kind} on {_pname(ptype)} (leaf {quoted(path)}); expected {expected}", column=path)

    def mismatch(expected: str) -> None:
        ck.report(LOGICAL_CONVERTED, f"leaf {quoted(path)}: logical type {kind} with converted type {_ct(ct)}; "
                  f"expected {expected}", column=path)

    kinds = [k for k in ("STRING", "ENUM", "JSON", "BSON", "UUID", "FLOAT16", "DECIMAL", "DATE", "TIME",
                         "TIMESTAMP", "INTEGER", "UNKNOWN", "MAP", "LIST", "VARIANT", "GEOMETRY", "GEOGRAPHY")
             if getattr(lt, k, None) is not None]
    if not kinds:
        return   # a logical type from a newer spec: readers fall back to the physical type
    kind = kinds[0]
    flba = el.type_length if ptype == P.FIXED_LEN_BYTE_ARRAY else None
    if kind in ("STRING", "ENUM", "JSON", "BSON", "GEOMETRY", "GEOGRAPHY"):
        if kind == "STRING" and ptype == P.FIXED_LEN_BYTE_ARRAY:
            ck.report(STRING_FLBA, f"leaf {quoted(path)} is FIXED_LEN_BYTE_ARRAY({flba}) annotated STRING", column=path)
        elif ptype != P.BYTE_ARRAY:
            bad("BYTE_ARRAY")
        want = {"STRING": CT.UTF8, "ENUM": CT.ENUM, "JSON": CT.JSON, "BSON": CT.BSON}.get(kind)
        if ct is not None and ct != want:
            mismatch(_ct(want) if want is not None else "none")
    elif kind in ("UUID", "FLOAT16"):
        width = 16 if kind == "UUID" else 2
        if flba != width:
            bad(f"FIXED_LEN_BYTE_ARRAY({width})")
    elif kind == "DECIMAL":
        d = lt.DECIMAL
        _check_decimal(ck, el, d.precision, d.scale, path)
        if ct is not None and (ct != CT.DECIMAL or el.precision != d.precision or (el.scale or 0) != (d.scale or 0)):
            mismatch(f"DECIMAL with precision {d.precision} and scale {d.scale}")
        if ptype not in (P.INT32, P.INT64, P.BYTE_ARRAY, P.FIXED_LEN_BYTE_ARRAY):
            bad("INT32, INT64, BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY")
    elif kind == "DATE":
        if ptype != P.INT32:
            bad("INT32")
        if ct is not None and ct != CT.DATE:
            mismatch("DATE")
    elif kind in ("TIME", "TIMESTAMP"):
        t = getattr(lt, kind)
        unit = _unit(t.unit)
        if unit is None:
            ck.report(TIME_UNIT, f"{kind} of {quoted(path)} has no unit", column=path)
            return
        want_p = P.INT32 if kind == "TIME" and unit == "MILLIS" else P.INT64
        if ptype != want_p:
            ck.report(TIME_UNIT, f"{kind}({unit}) on {_pname(ptype)} (leaf {quoted(path)}); expected {_pname(want_p)}",
                      column=path)
        if ct is not None:
            want = {("TIME", "MILLIS"): CT.TIME_MILLIS, ("TIME", "MICROS"): CT.TIME_MICROS,
                    ("TIMESTAMP", "MILLIS"): CT.TIMESTAMP_MILLIS, ("TIMESTAMP", "MICROS"): CT.TIMESTAMP_MICROS
                    }.get((kind, unit))
            if ct != want:   # local times carry the same legacy annotation (LogicalTypes.md, forward compatibility)
                mismatch(_ct(want) if want is not None else "no converted type")
    elif kind == "INTEGER":
        i = lt.INTEGER
        if i.bitWidth not in (8, 16, 32, 64):
            ck.report(INT_WIDTH, f"INTEGER of {quoted(path)} has bitWidth {i.bitWidth}; expected 8, 16, 32 or 64", column=path)
            return
        want_p = P.INT64 if i.bitWidth == 64 else P.INT32
        if ptype != want_p:
            ck.report(INT_WIDTH, f"INTEGER({i.bitWidth}) on {_pname(ptype)} (leaf {quoted(path)}); expected "
                      f"{_pname(want_p)}", column=path)
        if ct is not None:
            name = f"{'INT' if i.isSigned else 'UINT'}_{i.bitWidth}"
            if _ct(ct) != name:
                mismatch(name)
    elif kind in ("MAP", "LIST", "VARIANT"):
        bad("a group")
