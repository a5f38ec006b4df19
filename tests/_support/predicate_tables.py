"""Random tables and random predicates over them, with pyarrow's expression for each
predicate: the oracle side of tests/interop/test_predicate_pyarrow.py and
test_pushdown_pyarrow.py."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import strategies as st

from parquet_core.predicate.expr import And, Comparison, IsIn, IsNull, Not, Or, StartsWith

__all__ = ["N", "TABLES", "predicates", "to_arrow"]

pa = pytest.importorskip("pyarrow")
pac = pytest.importorskip("pyarrow.compute")

N = 120
UTC = dt.timezone.utc


def _data(seed: int) -> "pa.Table":
    rng = np.random.default_rng(seed)

    def nulls(k: int) -> np.ndarray:
        return rng.random(k) < 0.15

    ints = rng.integers(-50, 50, N)
    floats = rng.choice([-1.5, -0.0, 0.0, 0.5, 2.25, np.nan, 7.0, -np.inf, np.inf], N)
    words = [f"w{int(k)}" * int(r) for k, r in zip(rng.integers(0, 30, N), rng.integers(0, 3, N))]
    days = rng.integers(18000, 18100, N)
    micros = rng.integers(0, 10**6, N) * 10**9
    cents = rng.integers(-10**4, 10**4, N)
    wide = [Decimal(int(v)).scaleb(-4) for v in rng.integers(-10**12, 10**12, N)]
    return pa.table({
        "i": pa.array(ints, pa.int64(), mask=nulls(N)),
        "i32": pa.array(ints.astype(np.int32) * 1000, pa.int32()),
        "u": pa.array(rng.integers(0, 2**64 - 1, N, dtype=np.uint64), pa.uint64(), mask=nulls(N)),
        "f": pa.array(floats, pa.float64(), mask=nulls(N)),
        "s": pa.array(words, pa.string(), mask=nulls(N)),
        "b": pa.array([w.encode() for w in words], pa.binary()),
        "d": pa.array(days.astype(np.int32), pa.date32(), mask=nulls(N)),
        "t": pa.array(micros, pa.timestamp("us", tz="UTC"), mask=nulls(N)),
        "dec": pa.array([Decimal(int(c)).scaleb(-2) for c in cents], pa.decimal128(10, 2), mask=nulls(N)),
        "wide": pa.array(wide, pa.decimal128(30, 4)),
        "flag": pa.array(rng.random(N) < 0.5, mask=nulls(N)),
        "tns": pa.array(rng.integers(-10**18, 10**18, N), pa.timestamp("ns"), mask=nulls(N)),   # naive
        "tms": pa.array(rng.integers(0, 10**12, N), pa.timestamp("ms", tz="UTC")),
        "tm": pa.array(rng.integers(0, 86_400 * 10**6, N), pa.time64("us"), mask=nulls(N)),
        "i8": pa.array(rng.integers(-128, 128, N).astype(np.int8), pa.int8(), mask=nulls(N)),
        "u32": pa.array(rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32), pa.uint32()),
        "f32": pa.array(rng.choice(np.array([-2.5, 0.0, 1.5, np.nan, 3.25], np.float32), N), pa.float32()),
        "fsb": pa.array([bytes(r) for r in rng.integers(0, 3, (N, 3), dtype=np.uint8)], pa.binary(3)),
    })


def _literal(name: str, table: "pa.Table", draw) -> object:
    values = [v for v in table.column(name).to_pylist() if v is not None]
    if values and draw(st.booleans()):
        return draw(st.sampled_from(values))
    return {
        "i": draw(st.integers(-60, 60)), "i32": draw(st.integers(-60_000, 60_000)),
        "u": draw(st.integers(0, 2**64 - 1)),
        "f": draw(st.sampled_from([-1.5, 0.0, 1.0, 2.25, 7.0, math.inf])),
        "s": draw(st.sampled_from(["", "w1", "w10w10", "w2", "x"])),
        "b": draw(st.sampled_from([b"", b"w1", b"w29w29", b"\xff"])),
        "d": dt.date(2019, 4, 1) + dt.timedelta(days=draw(st.integers(0, 100))),
        "t": dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(seconds=draw(st.integers(0, 10**6))),
        "dec": Decimal(draw(st.integers(-10**4, 10**4))).scaleb(-2),
        "wide": Decimal(draw(st.integers(-10**12, 10**12))).scaleb(-4),
        "flag": draw(st.booleans()),
        "tns": dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=draw(st.integers(-10**15, 10**15))),
        "tms": dt.datetime(2001, 1, 1, tzinfo=UTC) + dt.timedelta(milliseconds=draw(st.integers(0, 10**9))),
        "tm": dt.time(draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))),
        "i8": draw(st.integers(-130, 130)),
        "u32": draw(st.integers(0, 2**32 + 5)),
        "f32": draw(st.sampled_from([-2.5, 0.0, 1.5, 3.25, 2.0])),
        "fsb": bytes(draw(st.lists(st.integers(0, 2), min_size=3, max_size=3))),
    }[name]


ORDERED = ["i", "i32", "u", "f", "s", "b", "d", "t", "dec", "wide", "tns", "tms", "tm", "i8", "u32", "f32", "fsb"]


@st.composite
def predicates(draw, table, depth=0):
    kind = draw(st.sampled_from(["cmp", "cmp", "in", "null", "prefix"] + (["and", "or", "not"] if depth < 3 else [])))
    if kind in ("and", "or"):
        kids = [draw(predicates(table, depth + 1)) for _ in range(draw(st.integers(2, 3)))]
        return And(*kids) if kind == "and" else Or(*kids)
    if kind == "not":
        return Not(draw(predicates(table, depth + 1)))
    if kind == "null":
        return IsNull(draw(st.sampled_from(list(table.column_names))), negated=draw(st.booleans()))
    if kind == "prefix":
        return StartsWith("s", draw(st.sampled_from(["", "w", "w1", "w2w", "x"])), negated=draw(st.booleans()))
    name = draw(st.sampled_from(ORDERED + ["flag"]))
    if kind == "in":
        values = [_literal(name, table, draw) for _ in range(draw(st.integers(0, 4)))]
        if draw(st.integers(0, 4)) == 0:
            values.append(None)
        return IsIn(name, values, negated=draw(st.booleans()))
    op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="] if name != "flag" else ["==", "!="]))
    return Comparison(name, op, _literal(name, table, draw))


_WIDEN = {"i8": pa.int64(), "u32": pa.int64()}   # literals are drawn past these types' ranges


def _field_and_type(name, schema):
    """The column as pyarrow compares it: narrow integers widened, so out-of-range literals are
    compared as numbers (never matching ==) instead of failing to convert."""
    if name in _WIDEN:
        return pac.field(name).cast(_WIDEN[name]), _WIDEN[name]
    return pac.field(name), schema.field(name).type


def to_arrow(e, schema):
    if isinstance(e, Comparison):
        f, typ = _field_and_type(e.column, schema)
        v = pa.scalar(e.value, typ)
        out = {"==": f == v, "!=": f != v, "<": f < v, "<=": f <= v, ">": f > v, ">=": f >= v}[e.op]
        return ~out if e.negated else out
    if isinstance(e, IsIn):
        listed = list(e.values) + ([None] if e.match_null else [])
        f, typ = _field_and_type(e.column, schema)
        out = f.isin(pa.array(listed, typ))
        return ~out if e.negated else out
    if isinstance(e, IsNull):
        out = pac.field(e.column).is_null()
        return ~out if e.negated else out
    if isinstance(e, StartsWith):
        out = pac.starts_with(pac.field(e.column), e.prefix)
        return ~out if e.negated else out
    if isinstance(e, Not):
        return ~to_arrow(e.child, schema)
    parts = [to_arrow(c, schema) for c in e.children]
    out = parts[0]
    for p in parts[1:]:
        out = (out & p) if isinstance(e, And) else (out | p)
    return out


TABLES = {seed: _data(seed) for seed in range(4)}
