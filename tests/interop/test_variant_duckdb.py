"""VARIANT interop with duckdb (>= 1.4 reads and writes Parquet VARIANT): both directions, value for value."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import Any

import pytest

import parquet_core as pc
from parquet_core.variant import NULL

duckdb = pytest.importorskip("duckdb")

DOCS = [
    {"a": 1, "b": [True, None, "x"], "c": {"d": 1.5e300}}, "hello", None, 0, -70000, 2 ** 62,
    1.25, "long " * 30, [], {}, [[1, [2, [3]]], {"k": {"j": None}}],
    {f"k{i:03d}": i for i in range(300)}, {"é": "中😀"},
]


def _jsonish(v: Any) -> Any:
    """Our decoded value as JSON would render it (duckdb's ``v::json``)."""
    if v is NULL:
        return None
    if isinstance(v, dict):
        return {k: _jsonish(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_jsonish(x) for x in v]
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, bytes):   # duckdb renders a blob with \xHH escapes
        return "".join(f"\\x{b:02X}" for b in v)
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    return v


def test_we_read_duckdb_variant(tmp_path) -> None:
    path = str(tmp_path / "duck.parquet")
    con = duckdb.connect()
    con.execute("create table t (id int, j varchar)")
    con.executemany("insert into t values (?, ?)", [(i, json.dumps(d)) for i, d in enumerate(DOCS)])
    con.execute(f"copy (select id, j::json::variant as v from t union all select 99, null) to '{path}'")
    expected = dict(con.execute(f"select id, v::json from read_parquet('{path}')").fetchall())
    table = pc.read_table(path)
    assert table.schema.field("v").type.name == "variant"
    got = dict(zip(table.column("id").to_pylist(), table.column("v").to_pylist()))
    assert set(got) == set(expected)
    for i, v in got.items():
        want = None if expected[i] is None else json.loads(expected[i])
        if i == 99:
            assert v is None            # SQL NULL
        else:
            assert _jsonish(v) == want, i
            assert _jsonish(v) == json.loads(json.dumps(DOCS[i])), i


@pytest.mark.parametrize("shredding", [None, {"a": pc.int64(), "b": [pc.string()]}, pc.string()],
                         ids=["plain", "object", "string"])
def test_duckdb_reads_ours(tmp_path, shredding) -> None:
    path = str(tmp_path / "ours.parquet")
    values = DOCS + [Decimal("1.50"), dt.date(2024, 1, 2), b"\x00\x01", NULL]
    schema = pc.schema([pc.field("id", pc.int32()), pc.field("v", pc.variant(shredding))])
    pc.write_table({"id": list(range(len(values))), "v": values}, path, schema=schema)
    rows = dict(duckdb.connect().execute(f"select id, v::json from read_parquet('{path}')").fetchall())
    for i, v in enumerate(values):
        got = None if rows[i] is None else json.loads(rows[i])
        assert got == _jsonish(pc.variant.decode(*pc.variant.encode(v))), (i, rows[i])
