"""VARIANT interop with Spark 4: its files read value for value (``to_json`` is the oracle)."""

from __future__ import annotations

import base64
import datetime as dt
import glob
import json
import uuid
from decimal import Decimal
from typing import Any

import pytest

import parquet_core as pc
from parquet_core.variant import NULL

pytestmark = pytest.mark.spark

# JSON documents for parse_json: every JSON shape, numbers that Spark stores
# as int8..int64, decimal4/8/16 and double, long and short strings, wide and
# deep containers (is_large headers, 2-byte ids and offsets).
DOCS = [
    '{"a": 1, "b": [1, 2.5, "x", null, true], "c": {"d": 1e300}}',
    '"hello"', 'null', 'true', 'false', '0', '-128', '127', '-32768', '70000', '-9223372036854775808',
    '12345678901234567890', '1.5', '-0.000001', '123456789.123456789',
    '12345678901234567890.123456789012345678', '1e-7', '-2.5e10', '1e23',
    '""', '"' + "long string " * 10 + '"', '"uni\\u00e9\\u4e2d\\ud83d\\ude00"',
    '[]', '{}', '[[], {}, [[[1]]], {"x": {"y": {"z": null}}}]',
    json.dumps({f"key{i:03d}": i for i in range(300)}),
    json.dumps(list(range(300))),
    json.dumps({"s": "x" * 70000, "n": [1.25] * 10}),
    json.dumps({"é": 1, "z": 2, "A": 3, "a": {"b": [True, None, {"c": "d"}]}}),
    '{"event_type": "signup", "a": 7, "b": ["p", "q"], "extra": {"k": 1}}',
    '{"event_type": 5, "a": "not an int", "b": "not a list"}',
    '{"a": 2147483648, "b": ["p", 3, null]}',
]

# typed (non-JSON) primitives: Spark casts to variant
TYPED_SQL = ("cast(1.50 as decimal(5, 2))", "date'2024-01-02'", "date'1900-02-28'",
             "timestamp'2024-01-02 03:04:05.123456'", "timestamp'1960-01-01 00:00:00'",
             "timestamp_ntz'2024-01-02 03:04:05'", "timestamp_ntz'2024-01-02 03:04:05.12'",
             "X'0102ff'", "cast(1.5 as float)", "cast(-3 as tinyint)", "cast(300 as smallint)",
             "cast(1e-7 as double)", "array(date'2020-01-01', date'2020-01-02')",
             "to_variant_object(named_struct('t', timestamp'2000-01-01 00:00:00', 'b', X'00'))")


def _spark_style(v: Any) -> Any:
    """Render one of our decoded values the way Spark's to_json renders Variant values."""
    if v is NULL:
        return None
    if isinstance(v, dict):
        return {k: _spark_style(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_spark_style(x) for x in v]
    if isinstance(v, dt.datetime):
        frac = f".{v.microsecond:06d}".rstrip("0").rstrip(".")
        out = v.strftime("%Y-%m-%d %H:%M:%S") + frac
        return out + "+00:00" if v.tzinfo is not None else out
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    if isinstance(v, uuid.UUID):
        return str(v)
    return v


def _same(ours: Any, spark: Any, where: str = "$") -> None:
    """*ours* (Spark-styled) against ``json.loads(to_json, parse_float=Decimal)``."""
    if isinstance(ours, float):
        assert isinstance(spark, (Decimal, int)) and float(spark) == ours, (where, ours, spark)
    elif isinstance(ours, dict):
        assert isinstance(spark, dict) and list(ours) == sorted(spark, key=lambda k: k.encode()), where
        for k in ours:
            _same(ours[k], spark[k], f"{where}.{k}")
    elif isinstance(ours, list):
        assert isinstance(spark, list) and len(ours) == len(spark), where
        for i, (a, b) in enumerate(zip(ours, spark)):
            _same(a, b, f"{where}[{i}]")
    else:
        assert type(ours) is not bool or type(spark) is bool, where
        assert ours == spark, (where, ours, spark)


def _frame(spark):
    rows = ", ".join(f"({i}, {json.dumps(d)})" for i, d in enumerate(DOCS))
    docs = spark.sql(f"select id, parse_json(j) as v from values {rows} as t(id, j)")
    typed = spark.sql("select " + ", ".join(f"{e}::variant as c{i}" for i, e in enumerate(TYPED_SQL)))
    stack = ", ".join(f"{len(DOCS) + i}, c{i}" for i in range(len(TYPED_SQL)))
    typed = typed.selectExpr(f"stack({len(TYPED_SQL)}, {stack}) as (id, v)")
    nulls = spark.sql(f"select {len(DOCS) + len(TYPED_SQL)} as id, cast(null as variant) as v")
    return docs.unionByName(typed).unionByName(nulls)


def _check_file(spark, path: str) -> pc.Table:
    expected = {r.id: r.j for r in spark.read.parquet(path).selectExpr("id", "to_json(v) as j").collect()}
    (file,) = glob.glob(f"{path}/*.parquet")
    table = pc.read_table(file)
    ids = table.column("id").to_pylist()
    assert sorted(ids) == sorted(expected)
    for i, v in zip(ids, table.column("v").to_pylist()):
        if expected[i] is None:
            assert v is None, i
        else:
            _same(_spark_style(v), json.loads(expected[i], parse_float=Decimal), f"row {i}")
    return table


def test_spark_unshredded_variant_file(spark, tmp_path) -> None:
    path = str(tmp_path / "plain")
    _frame(spark).coalesce(1).write.parquet(path)
    table = _check_file(spark, path)
    assert str(table.schema.field("v").type) == "variant"
    assert table.column("v").to_pylist()[2] is NULL       # JSON null: a Variant null, not SQL NULL


@pytest.mark.parametrize("schema", [
    "a int, b array<string>, event_type string",
    "a bigint, b array<variant>, extra struct<k int>",
    "decimal(18, 1)",
    "string",
    "array<bigint>",
])
def test_spark_shredded_variant_file(spark, tmp_path, schema: str) -> None:
    path = str(tmp_path / "shredded")
    confs = {"spark.sql.variant.writeShredding.enabled": "true",
             "spark.sql.variant.forceShreddingSchemaForTest": schema}
    old = {k: spark.conf.get(k, None) for k in confs}
    try:
        for k, v in confs.items():
            spark.conf.set(k, v)
        _frame(spark).coalesce(1).write.parquet(path)
    finally:
        for k, v in old.items():
            spark.conf.unset(k) if v is None else spark.conf.set(k, v)
    table = _check_file(spark, path)
    assert "shredded" in str(table.schema.field("v").type)


# -- Spark reads ours ------------------------------------------------------------

UTC = dt.timezone.utc
OUR_VALUES = [
    {"event_type": "signup", "a": 7, "b": ["p", None, 3], "nested": {"x": [1.5, {"y": None}]}},
    {"event_type": "login", "a": 2 ** 40, "b": [], "extra": "z" * 100},
    {"event_type": 5, "a": "seven", "b": "not a list"},
    {}, [], "hello", "x" * 64, pc.variant.NULL, None, True, False, 0, -129, 2 ** 63 - 1,
    12345678901234567890, Decimal("-1.50"), Decimal("0.000000001"), Decimal("1" * 38),
    1.5, -0.0, 1e300, dt.date(1900, 1, 1), dt.datetime(2024, 1, 2, 3, 4, 5, 120000, tzinfo=UTC),
    dt.datetime(1960, 6, 1, 12, 0), b"\x00\xffbin", {f"k{i:03d}": [i] for i in range(300)},
    list(range(300)), {"é": {"中": "😀"}},
]
SHREDDINGS = [None, {"event_type": pc.string(), "a": pc.int64(), "b": [pc.string()]},
              pc.string(), [pc.int64()]]


@pytest.mark.parametrize("shredding", SHREDDINGS, ids=["plain", "object", "string", "array"])
def test_spark_reads_our_variant(spark, tmp_path, shredding) -> None:
    path = str(tmp_path / "ours.parquet")
    schema = pc.schema([pc.field("id", pc.int32()), pc.field("v", pc.variant(shredding))])
    pc.write_table({"id": list(range(len(OUR_VALUES))), "v": OUR_VALUES}, path, schema=schema)
    df = spark.read.parquet(path)
    assert dict(df.dtypes)["v"] == "variant"
    rows = {r.id: r for r in df.selectExpr(
        "id", "to_json(v) as j", "try_variant_get(v, '$.a', 'bigint') as a",
        "variant_get(v, '$.event_type', 'string') as et", "v is null as sql_null").collect()}
    for i, v in enumerate(OUR_VALUES):
        r = rows[i]
        assert r.sql_null == (v is None), i
        if v is None:
            continue
        ours = pc.variant.decode(*pc.variant.encode(v))
        _same(_spark_style(ours), json.loads(r.j, parse_float=Decimal), f"row {i}")
        if isinstance(v, dict):
            a = v.get("a")
            assert r.a == (a if isinstance(a, int) else None), i
            et = v.get("event_type")
            assert r.et == (None if et is None else str(et)), i
