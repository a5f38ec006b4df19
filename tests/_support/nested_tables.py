"""Random nested Arrow types (a hypothesis strategy) and random tables of them, for the
property tests that write nested data (interop, table assembly)."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from hypothesis import strategies as st

pa = pytest.importorskip("pyarrow")

__all__ = ["arrow_types", "random_table"]


LEAVES = {
    "int32": pa.int32(), "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_(),
    "string": pa.string(), "binary": pa.binary(), "ts_us": pa.timestamp("us", tz="UTC"),
    "date": pa.date32(), "dec": pa.decimal128(9, 2), "dec30": pa.decimal128(30, 3),
    "int8": pa.int8(), "uint32": pa.uint32(), "float32": pa.float32(), "fixed3": pa.binary(3),
    "large_string": pa.large_string(), "time_ms": pa.time32("ms"),
}
KEYS = {"int32": pa.int32(), "string": pa.string()}


def arrow_types(depth: int) -> st.SearchStrategy:
    leaf = st.sampled_from(sorted(LEAVES)).map(LEAVES.__getitem__)
    if depth == 0:
        return leaf
    inner = arrow_types(depth - 1)
    field = st.tuples(inner, st.booleans())
    return st.one_of(
        leaf,
        field.map(lambda f: pa.list_(pa.field("element", f[0], nullable=f[1]))),
        st.lists(field, min_size=1, max_size=3).map(
            lambda fs: pa.struct([pa.field(f"f{i}", t, nullable=n) for i, (t, n) in enumerate(fs)])),
        st.tuples(st.sampled_from(sorted(KEYS)), field).map(
            lambda kv: pa.map_(KEYS[kv[0]], pa.field("value", kv[1][0], nullable=kv[1][1]))),
    )


def _value(t, nullable: bool, rng: random.Random, null_p: float):  # type: ignore[no-untyped-def]
    """One random Python value of Arrow type *t* (``None`` only where nullable)."""
    if nullable and rng.random() < null_p:
        return None
    if pa.types.is_map(t):
        keys = rng.sample(range(50), rng.choice([0, 0, 1, 2, 4]))
        key = (lambda k: k) if pa.types.is_integer(t.key_type) else str
        return [(key(k), _value(t.item_type, t.item_field.nullable, rng, null_p)) for k in keys]
    if pa.types.is_list(t):
        n = rng.choice([0, 1, 1, 2, 3, 7])
        return [_value(t.value_type, t.value_field.nullable, rng, null_p) for _ in range(n)]
    if pa.types.is_struct(t):
        return {f.name: _value(f.type, f.nullable, rng, null_p) for f in t}
    if pa.types.is_boolean(t):
        return rng.random() < 0.5
    if pa.types.is_integer(t):
        bits = t.bit_width
        return rng.randrange(0, 2**bits) if pa.types.is_unsigned_integer(t) \
            else rng.randrange(-2**(bits - 1), 2**(bits - 1))
    if pa.types.is_floating(t):
        return rng.choice([0.0, -1.5, 1e300, rng.random()])
    if pa.types.is_fixed_size_binary(t):
        return bytes(rng.randrange(256) for _ in range(t.byte_width))
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "s" * rng.randrange(4) + str(rng.randrange(100))
    if pa.types.is_binary(t):
        return bytes(rng.randrange(256) for _ in range(rng.randrange(4)))
    if pa.types.is_timestamp(t):
        return rng.randrange(-2**50, 2**50)
    if pa.types.is_time(t):
        return rng.randrange(0, 86_400_000)
    if pa.types.is_date(t):
        return rng.randrange(-700_000, 2_900_000)
    if pa.types.is_decimal(t):
        digits = 10**t.precision
        return Decimal(rng.randrange(-digits + 1, digits)).scaleb(-t.scale)
    raise AssertionError(t)


def random_table(types: list, n: int, seed: int, null_p: float) -> "pa.Table":
    """A table of *n* random rows with one column per ``(arrow type, nullable)`` of *types*."""
    rng = random.Random(seed)
    fields = [pa.field(f"c{i}", t, nullable=nullable) for i, (t, nullable) in enumerate(types)]
    columns = [pa.array([_value(f.type, f.nullable, rng, null_p) for _ in range(n)], type=f.type)
               for f in fields]
    return pa.Table.from_arrays(columns, schema=pa.schema(fields))

